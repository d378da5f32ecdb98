/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* cudacachebatch's frames mode (gstcudacachebatch.c): a batch holds one
 * frame of every sink pad. Also where every batch gets its buffer, its
 * slots' meta and its conversion: the pad's converter, the launch and,
 * not live, the batch held pending while the next one is prepared. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachebatch-private.h"

/* Waits for the pending batch, if any, and sends it (@send) or drops it
 * (flushing, stopping). Its frames and converters go once it is
 * written. */
GstFlowReturn
gst_cuda_cache_batch_flush_pending (GstCudaCacheBatch * self, gboolean send)
{
  GstBuffer *outbuf = g_steal_pointer (&self->pending);
  g_autoptr (GstCudaCacheBatchLaunch) launch =
      g_steal_pointer (&self->pending_launch);
  GError *error = NULL;
  GstFlowReturn ret = GST_FLOW_OK;

  if (!outbuf)
    return GST_FLOW_OK;
  if (!gst_cuda_cache_batch_launch_wait (launch, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", error ? error->message :
            "the batch's conversion failed"), (NULL));
    g_clear_error (&error);
    send = FALSE;
    ret = GST_FLOW_ERROR;
  }
  if (send)
    return gst_cuda_cache_batch_finish (self, outbuf, self->pending_pts,
        self->pending_end);
  GST_DEBUG_OBJECT (self, "dropping the batch of %" GST_TIME_FORMAT,
      GST_TIME_ARGS (self->pending_pts));
  gst_buffer_unref (outbuf);
  return ret;
}

/* The batches' stream, made in the inputs' context at the first; NULL
 * where it cannot be made (the converters' own streams then) */
static CUstream
gst_cuda_cache_batch_stream (GstCudaCacheBatch * self)
{
  GstCudaContext *context = self->state.context;

  if (!self->stream && context && gst_cuda_context_push (context)) {
    if (!gst_cuda_result (CuStreamCreate (&self->stream,
                CU_STREAM_NON_BLOCKING)))
      self->stream = NULL;
    gst_cuda_context_pop (NULL);
  }
  return self->stream;
}

void
gst_cuda_cache_batch_stream_clear (GstCudaCacheBatch * self)
{
  if (self->stream && gst_cuda_context_push (self->state.context)) {
    gst_cuda_result (CuStreamDestroy (self->stream));
    gst_cuda_context_pop (NULL);
  }
  self->stream = NULL;
}

/* A pool of @caps, in the output's kind of memory, active; NULL, with
 * @why, where none can be made */
static GstBufferPool *
gst_cuda_cache_batch_pool_new (GstCudaCacheBatch * self, GstCaps * caps,
    gsize size, const gchar ** why)
{
  GstCudaContext *context = self->state.context;
  GstBufferPool *pool;
  GstStructure *config;
  GstCudaCache *cache;

  if (!self->cuda)
    pool = gst_cuda_cache_system_pool_new (NULL);
  else if (context)
    pool = gst_cuda_cache_pool_new (context);
  else
    pool = NULL;
  if (!pool) {
    *why = context || !self->cuda ? "gst-cuda's allocator is "
        "unavailable" : "no CUDA context";
    return NULL;
  }
  cache = self->cuda ? gst_cuda_cache_device_get_cache (context) :
      gst_cuda_cache_get_system ();
  gst_cuda_cache_element_state_set_cache (&self->state, cache, self->cuda);
  gst_object_unref (cache);

  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    *why = "the pool refused its configuration";
    return NULL;
  }
  return pool;
}

/* The context of @buf's CUDA memory, which every input shares */
static gboolean
gst_cuda_cache_batch_check_memory (GstCudaCacheBatch * self, GstPad * pad,
    GstBuffer * buf)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  gboolean cuda = gst_is_cuda_memory (mem);
  GstCudaContext *context, *own;
  gint device_id;

  if (cuda != self->cuda) {
    gst_cuda_cache_batch_flush_pending (self, TRUE);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s: frames in %s memory, "
            "batches in %s memory: put cudaupload or cudadownload before "
            "the pad", GST_PAD_NAME (pad), cuda ? "CUDA" : "system",
            self->cuda ? "CUDA" : "system"), (NULL));
    return FALSE;
  }
  if (!cuda)
    return TRUE;

  context = GST_CUDA_MEMORY_CAST (mem)->context;
  device_id = gst_cuda_cache_element_state_get_device_id (&self->state);
  if (device_id >= 0) {
    gint frame_device = -1;

    g_object_get (context, "cuda-device-id", &frame_device, NULL);
    if (frame_device != device_id) {
      gst_cuda_cache_batch_flush_pending (self, TRUE);
      GST_ELEMENT_ERROR (self, STREAM, WRONG_TYPE, ("%s: the frame's CUDA "
              "memory is on device %d, the element's cuda-device-id is %d",
              GST_PAD_NAME (pad), frame_device, device_id), (NULL));
      return FALSE;
    }
  }
  /* the element's context, or where it has none yet, the first frame's */
  own = gst_cuda_cache_element_state_take_context (&self->state, context);
  if (context != own) {
    gst_cuda_cache_batch_flush_pending (self, TRUE);
    GST_ELEMENT_ERROR (self, STREAM, WRONG_TYPE, ("%s: the frame's CUDA "
            "memory belongs to another CUDA context (%" GST_PTR_FORMAT ") "
            "than the other pads' (%" GST_PTR_FORMAT "): let the pipeline's "
            "elements share one context (GstContext)", GST_PAD_NAME (pad),
            context, own), (NULL));
    gst_object_unref (own);
    return FALSE;
  }
  gst_object_unref (own);
  return TRUE;
}

/* @pad's converter, made from its caps for the batch's slots at its
 * first frame */
static GstCudaCacheConverter *
gst_cuda_cache_batch_pad_converter (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad)
{
  GstStructure *config;
  GError *error = NULL;
  gboolean ok;

  if (!pad->caps) {
    gst_cuda_cache_batch_flush_pending (self, TRUE);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: a frame before caps",
            GST_PAD_NAME (pad)), (NULL));
    return NULL;
  }
  if (pad->converter && !pad->stale)
    return pad->converter;

  /* new caps or options: the pad's converter set up again, or made */
  config = gst_cuda_cache_convert_options_take_config (&self->options,
      GST_ELEMENT (self));
  if (pad->converter) {
    ok = gst_cuda_cache_converter_reconfigure (pad->converter, pad->caps,
        self->slot_caps, config, &error);
  } else {
    pad->converter = gst_cuda_cache_converter_new (pad->caps,
        self->slot_caps, self->cuda ? self->state.context : NULL, config,
        &error);
    ok = pad->converter != NULL;
  }
  if (!ok) {
    gst_cuda_cache_batch_flush_pending (self, TRUE);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: %s",
            GST_PAD_NAME (pad), error ? error->message : "cannot convert"),
        ("from %" GST_PTR_FORMAT " to %" GST_PTR_FORMAT, pad->caps,
            self->slot_caps));
    g_clear_error (&error);
    return NULL;
  }
  pad->stale = FALSE;
  return pad->converter;
}

/* Slot @index of @meta: @buf's, converted by @converter, cut from the
 * region of interest @roi_id (-1: the whole frame) */
void
gst_cuda_cache_batch_set_slot (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad, GstCudaCacheConverter * converter,
    GstBuffer * buf, guint index, gint roi_id, GstCudaCacheBatchMeta * meta)
{
  GstCudaCachePictureGeometry geometry;
  gchar *stream_id;

  /* converted: its options' source rectangle lies in the frame */
  if (!gst_cuda_cache_converter_get_geometry (converter, buf, &geometry, NULL)) {
    gst_cuda_cache_batch_meta_set_slot (meta, index, NULL, NULL, 0, 0, NULL,
        -1);
    return;
  }
  stream_id = gst_pad_get_stream_id (GST_PAD (pad));
  gst_cuda_cache_batch_meta_set_slot (meta, index, GST_PAD_NAME (pad),
      stream_id, GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf), &geometry,
      roi_id);
  g_free (stream_id);
}

/* A batch buffer from the element's pool, with its meta */
GstBuffer *
gst_cuda_cache_batch_acquire (GstCudaCacheBatch * self, guint n)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstBuffer *outbuf = NULL;

  if (!self->batch_pool) {
    GstCaps *caps = gst_pad_get_current_caps (GST_AGGREGATOR_SRC_PAD (agg));
    const gchar *why = "no caps";

    if (caps) {
      self->batch_pool = gst_cuda_cache_batch_pool_new (self, caps,
          self->out_info.size, &why);
      gst_caps_unref (caps);
    }
    if (!self->batch_pool) {
      gst_cuda_cache_batch_flush_pending (self, TRUE);
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("cannot make the pool of "
              "the batches: %s", why), (NULL));
      return NULL;
    }
  }
  if (gst_buffer_pool_acquire_buffer (self->batch_pool, &outbuf, NULL) !=
      GST_FLOW_OK) {
    gst_cuda_cache_batch_flush_pending (self, TRUE);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("no memory for a "
            "batch of %" G_GSIZE_FORMAT " bytes", self->out_info.size), (NULL));
    return NULL;
  }
  gst_buffer_add_cuda_cache_batch_meta (outbuf, n);
  return outbuf;
}

/* The batch's conversion failed: where it failed on one slot (the
 * library's GST_CUDA_CACHE_BATCH_SLOT_ERROR, its code the slot), the
 * error names that slot's pad, which is what the user knows */
static void
gst_cuda_cache_batch_post_error (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad ** pads, guint n_pads, const GError * error)
{
  const gchar *message = error ? error->message :
      "the batch's conversion failed";

  /* the batch before is written and whole: it goes out first */
  gst_cuda_cache_batch_flush_pending (self, TRUE);

  if (error && error->domain == GST_CUDA_CACHE_BATCH_SLOT_ERROR &&
      error->code >= 0 && (guint) error->code < n_pads) {
    gchar *prefix = g_strdup_printf ("slot %d: ", error->code);

    /* the pad's name stands for the library's slot number */
    if (g_str_has_prefix (message, prefix))
      message += strlen (prefix);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s: %s",
            GST_PAD_NAME (pads[error->code]), message), ("slot %d",
            error->code));
    g_free (prefix);
    return;
  }
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", message), (NULL));
}

/* Whether every pad not at its end has its next frame queued: the next
 * batch can be made at once */
static gboolean
gst_cuda_cache_batch_next_queued (GstCudaCacheBatchPad ** pads, guint n_pads)
{
  gboolean any = FALSE;
  guint i;

  for (i = 0; i < n_pads; i++) {
    GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (pads[i]);

    if (gst_aggregator_pad_has_buffer (aggpad))
      any = TRUE;
    else if (!gst_aggregator_pad_is_eos (aggpad))
      return FALSE;
  }
  return any;
}

GstFlowReturn
gst_cuda_cache_batch_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (agg);
  guint n = gst_cuda_cache_tensor_info_get_batch (&self->out_info);
  GstCudaCacheBatchPad **pads;
  GstBuffer **bufs;
  GstCudaCacheConverter **converters = NULL;
  GstBuffer *outbuf = NULL;
  GstCudaCacheBatchMeta *meta;
  GstFlowReturn ret = GST_FLOW_OK;
  GstClockTime pts = GST_CLOCK_TIME_NONE, end = GST_CLOCK_TIME_NONE;
  GstClockTime window_start = GST_CLOCK_TIME_NONE;
  GstClockTime window_end = GST_CLOCK_TIME_NONE;
  GError *error = NULL;
  guint n_pads = 0, i, n_bufs = 0, launches = 0;
  gboolean all_eos = TRUE, options_changed, rois, follows_pads, pipelined;
  GstCudaCacheBatchLaunch *launch = NULL;
  CUstream stream;
  gboolean live = GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (agg));
  GList *l;

  GST_OBJECT_LOCK (self);
  pads = g_new0 (GstCudaCacheBatchPad *, GST_ELEMENT (self)->numsinkpads);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    pads[n_pads++] = gst_object_ref (l->data);
  options_changed = self->options.changed;
  rois = self->mode == GST_CUDA_CACHE_BATCH_MODE_ROIS;
  follows_pads = self->batch_size == 0;
  GST_OBJECT_UNLOCK (self);

  /* batch-size 0: pads requested since the batch's size was negotiated
   * (the last of the list) wait for the next batch, which is negotiated
   * for them (request_new_pad marked the source pad) */
  while (follows_pads && n_pads > n)
    gst_object_unref (pads[--n_pads]);
  /* a frame per pad, NULL past the pads: the batch's slots */
  bufs = g_new0 (GstBuffer *, MAX (MAX (n_pads, n), 1));

  /* the options are mutable while PLAYING: a change sets every pad's
   * converter up again, from the new config */
  for (i = 0; options_changed && !rois && i < n_pads; i++)
    pads[i]->stale = TRUE;

  if (rois && n_pads > 1) {
    gst_cuda_cache_batch_flush_pending (self, TRUE);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("mode=rois takes one sink "
            "pad, %u are there", n_pads), (NULL));
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
  if (n_pads > n) {
    gst_cuda_cache_batch_flush_pending (self, TRUE);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%u sink pads, batches "
            "of %u slots (batch-size)", n_pads, n), (NULL));
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }

  /* live, the window of running time the batch covers and each pad's
   * frame of it; not live, each pad's next frame */
  if (live) {
    ret = gst_cuda_cache_batch_live_take (self, pads, n_pads, timeout, bufs,
        &window_start, &window_end);
    if (ret == GST_FLOW_EOS) {
      ret = gst_cuda_cache_batch_flush_pending (self, TRUE);
      if (ret == GST_FLOW_OK)
        ret = GST_FLOW_EOS;
      goto done;
    }
    if (ret == GST_FLOW_OK && !gst_cuda_cache_batch_do_qos (self,
            window_start, window_end)) {
      /* too late for downstream: its frames are never batched */
      for (i = 0; i < n_pads; i++) {
        if (bufs[i])
          gst_cuda_cache_batch_drop (self, pads[i], g_steal_pointer (&bufs[i]),
              "the batch is late for downstream (QoS)");
      }
      gst_cuda_cache_batch_advance (self, window_end);
      goto done;
    }
    if (ret != GST_FLOW_OK)
      goto done;
  } else {
    for (i = 0; i < n_pads; i++)
      bufs[i] = gst_aggregator_pad_pop_buffer (GST_AGGREGATOR_PAD (pads[i]));
  }

  for (i = 0; i < n_pads; i++) {
    GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (pads[i]);

    if (bufs[i]) {
      GstClockTime t, t_end;

      n_bufs++;
      if (!gst_cuda_cache_batch_check_memory (self, GST_PAD (aggpad), bufs[i])) {
        ret = GST_FLOW_ERROR;
        goto done;
      }
      /* the batch starts with its earliest frame and ends with the
       * earliest end: the next batch's frames start no earlier, so
       * batches never overlap */
      gst_cuda_cache_batch_running_times (aggpad, bufs[i], &t, &t_end);
      if (GST_CLOCK_TIME_IS_VALID (t) && (!GST_CLOCK_TIME_IS_VALID (pts) ||
              t < pts))
        pts = t;
      if (GST_CLOCK_TIME_IS_VALID (t_end) && (!GST_CLOCK_TIME_IS_VALID (end)
              || t_end < end))
        end = t_end;
    }
    if (!gst_aggregator_pad_is_eos (aggpad) || bufs[i])
      all_eos = FALSE;
  }
  /* live, a batch is its window */
  if (live) {
    pts = window_start;
    end = window_end;
  }
  if (n_bufs == 0) {
    /* the last batch goes out before the end of the stream */
    ret = gst_cuda_cache_batch_flush_pending (self, TRUE);
    if (ret == GST_FLOW_OK && all_eos)
      ret = GST_FLOW_EOS;
    goto done;
  }
  if (rois || live) {
    ret = gst_cuda_cache_batch_flush_pending (self, TRUE);
    if (ret != GST_FLOW_OK)
      goto done;
  }
  gst_cuda_cache_batch_selected (self, pads, bufs, n_pads, pts, end);
  if (rois) {
    ret = gst_cuda_cache_batch_aggregate_rois (self, pads[0], bufs[0]);
    /* live, the next window starts after this one */
    if (live)
      gst_cuda_cache_batch_advance (self, window_end);
    goto done;
  }

  outbuf = gst_cuda_cache_batch_acquire (self, n);
  if (!outbuf) {
    ret = GST_FLOW_ERROR;
    goto done;
  }
  meta = gst_buffer_get_cuda_cache_batch_meta (outbuf);
  converters = g_new0 (GstCudaCacheConverter *, n);
  for (i = 0; i < n_pads; i++) {
    if (!bufs[i])
      continue;
    /* a converter set up again frees frames and tables the pending batch
     * may still read: that batch is written first */
    if (self->pending && (!pads[i]->converter || pads[i]->stale)) {
      ret = gst_cuda_cache_batch_flush_pending (self, TRUE);
      if (ret != GST_FLOW_OK)
        goto done;
    }
    converters[i] = gst_cuda_cache_batch_pad_converter (self, pads[i]);
    if (!converters[i]) {
      ret = GST_FLOW_NOT_NEGOTIATED;
      goto done;
    }
  }
  /* not live, a CUDA batch is launched, and held while the next one is
   * prepared if its frames are there; live, each is sent at once */
  pipelined = self->cuda && !live;
  stream = self->cuda ? gst_cuda_cache_batch_stream (self) : NULL;
  if (pipelined)
    launch = gst_cuda_cache_converter_launch_batch (converters, bufs, n,
        outbuf, stream, &launches, &error);
  if (pipelined ? !launch :
      !gst_cuda_cache_converter_convert_batch (converters, bufs, n, outbuf,
          stream, &launches, &error)) {
    gst_cuda_cache_batch_post_error (self, pads, n_pads, error);
    g_clear_error (&error);
    ret = GST_FLOW_ERROR;
    goto done;
  }
  GST_LOG_OBJECT (self, "a batch of %u, %u frames, in %u launches%s", n,
      n_bufs, launches, pipelined ? ", launched" : "");
  for (i = 0; i < n_pads; i++) {
    if (bufs[i])
      gst_cuda_cache_batch_set_slot (self, pads[i], converters[i], bufs[i],
          i, -1, meta);
  }

  /* the batch before, written by now or soon: this one is queued after it */
  ret = gst_cuda_cache_batch_flush_pending (self, TRUE);
  if (!pipelined) {
    if (ret == GST_FLOW_OK)
      ret = gst_cuda_cache_batch_finish (self, g_steal_pointer (&outbuf), pts,
          end);
  } else if (ret != GST_FLOW_OK) {
    gst_cuda_cache_batch_launch_wait (launch, NULL);
  } else {
    self->pending = g_steal_pointer (&outbuf);
    self->pending_launch = g_steal_pointer (&launch);
    self->pending_pts = pts;
    self->pending_end = end;
    /* held back only while the next batch's frames are there to be
     * prepared meanwhile: an application that waits for this batch
     * before it sends more gets it now */
    if (!gst_cuda_cache_batch_next_queued (pads, n_pads))
      ret = gst_cuda_cache_batch_flush_pending (self, TRUE);
  }

done:
  /* the statistics while batches flow, and once more at the end */
  if (ret == GST_FLOW_OK || ret == GST_FLOW_EOS)
    gst_cuda_cache_element_state_tick_stats (&self->state, ret == GST_FLOW_EOS);
  g_clear_pointer (&launch, gst_cuda_cache_batch_launch_unref);
  gst_clear_buffer (&outbuf);
  for (i = 0; i < n_pads; i++) {
    gst_clear_buffer (&bufs[i]);
    gst_object_unref (pads[i]);
  }
  g_free (bufs);
  g_free (pads);
  g_free (converters);
  return ret;
}
