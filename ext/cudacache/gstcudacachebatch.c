/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:element-cudacachebatch
 * @title: cudacachebatch
 *
 * Batches frames of many streams into one `other/tensors` tensor, one
 * slot per sink pad along its first dimension. Each sink pad takes what
 * `cudacacheconvert` takes (CUDA or system memory, any size, changing
 * mid-stream independently of the other pads); every slot is the frame
 * converted as `cudacacheconvert` with the same options converts it alone
 * (method, letterbox, fill, scale, mean, std, channel order; the type,
 * layout and size come from the source pad's caps). Each batch carries a
 * #GstCudaCacheBatchMeta: per slot the pad and stream-id, timestamps and
 * the map back to the frame.
 *
 * A batch holds one frame of every pad. A pad at the end of its stream
 * leaves its slot absent (zeros, marked absent in the meta); the last
 * pad's end of stream ends the batches. `batch-size` 0 makes the batch as
 * large as the number of sink pads; a larger value leaves the slots of no
 * pad absent. Live, a batch goes out at its deadline (`latency`): a pad
 * without a frame by then leaves its slot absent.
 *
 * Batch tensors are buffers of the device's cache (or of system memory's),
 * so a batch layout seen once allocates nothing again. The slots are
 * converted in place, in CUDA memory by one kernel launch per kind of
 * conversion the batch holds (one where the frames share a format and a
 * size), each slot what `cudacacheconvert` makes of its frame alone
 * (gst_cuda_cache_converter_convert_batch()).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 cudacachebatch name=b ! \
 *     'other/tensors,format=static,num_tensors=1,types=float32,\
 *     dimensions=640:640:3:2,layout=NCHW' ! fakesink \
 *   videotestsrc num-buffers=30 ! video/x-raw,width=1280,height=720 ! b. \
 *   videotestsrc num-buffers=30 ! video/x-raw,width=640,height=480 ! b.
 * ]| Two streams of different sizes into float32 batches of 2x3x640x640.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include <gst/video/video.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachebatch.h"
#include "gstcudacacheconvertoptions.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_batch_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_batch_debug

enum
{
  PROP_0,
  PROP_BATCH_SIZE,
  PROP_FIRST_OPTION,
};

#define DEFAULT_BATCH_SIZE 0

#define BATCH_SRC_CAPS \
  TENSOR_CAPS ("(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY ")") "; " \
  TENSOR_CAPS ("")

static GstStaticPadTemplate sink_template =
GST_STATIC_PAD_TEMPLATE ("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (SINK_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (BATCH_SRC_CAPS));

struct _GstCudaCacheBatchPad
{
  GstAggregatorPad parent;

  /* the aggregator's thread */
  GstCaps *caps;
  GstCudaCacheConverter *converter;
};

G_DEFINE_TYPE (GstCudaCacheBatchPad, gst_cuda_cache_batch_pad,
    GST_TYPE_AGGREGATOR_PAD);

static void
gst_cuda_cache_batch_pad_finalize (GObject * object)
{
  GstCudaCacheBatchPad *pad = GST_CUDA_CACHE_BATCH_PAD (object);

  gst_clear_caps (&pad->caps);
  gst_clear_object (&pad->converter);
  G_OBJECT_CLASS (gst_cuda_cache_batch_pad_parent_class)->finalize (object);
}

static void
gst_cuda_cache_batch_pad_class_init (GstCudaCacheBatchPadClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cuda_cache_batch_pad_finalize;
}

static void
gst_cuda_cache_batch_pad_init (GstCudaCacheBatchPad * pad)
{
}

struct _GstCudaCacheBatch
{
  GstAggregator parent;

  /* properties, under the object lock */
  guint batch_size;
  GstCudaCacheConvertOptions options;

  /* the aggregator's thread */
  GstCudaCacheTensorInfo out_info;      /* the batch */
  GstCaps *slot_caps;           /* one slot: the batch's, of 1 */
  gboolean cuda;                /* batches of CUDA memory */
  GstCudaContext *context;      /* the inputs' (CUDA memory) */
  GstBufferPool *batch_pool;
};

#define gst_cuda_cache_batch_parent_class parent_class
G_DEFINE_TYPE (GstCudaCacheBatch, gst_cuda_cache_batch, GST_TYPE_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE (cudacachebatch, "cudacachebatch",
    GST_RANK_NONE, GST_TYPE_CUDA_CACHE_BATCH);

static void
gst_cuda_cache_batch_reset (GstCudaCacheBatch * self)
{
  if (self->batch_pool)
    gst_buffer_pool_set_active (self->batch_pool, FALSE);
  gst_clear_object (&self->batch_pool);
  gst_clear_caps (&self->slot_caps);
}

static void
gst_cuda_cache_batch_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (object);

  if (prop_id == PROP_BATCH_SIZE) {
    GST_OBJECT_LOCK (self);
    self->batch_size = g_value_get_uint (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id >= PROP_FIRST_OPTION &&
      prop_id < PROP_FIRST_OPTION + GST_CUDA_CACHE_CONVERT_N_OPTIONS) {
    gst_cuda_cache_convert_options_set (&self->options, GST_ELEMENT (self),
        prop_id - PROP_FIRST_OPTION, value);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cuda_cache_batch_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (object);

  if (prop_id == PROP_BATCH_SIZE) {
    GST_OBJECT_LOCK (self);
    g_value_set_uint (value, self->batch_size);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id >= PROP_FIRST_OPTION &&
      prop_id < PROP_FIRST_OPTION + GST_CUDA_CACHE_CONVERT_N_OPTIONS) {
    gst_cuda_cache_convert_options_get (&self->options, GST_ELEMENT (self),
        prop_id - PROP_FIRST_OPTION, value);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cuda_cache_batch_finalize (GObject * object)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (object);

  gst_cuda_cache_batch_reset (self);
  gst_clear_object (&self->context);
  gst_cuda_cache_convert_options_clear (&self->options);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static GstStateChangeReturn
gst_cuda_cache_batch_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (element);

  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    gst_cuda_cache_convert_options_post_refusal (&self->options, element);

  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

/* The slots of a batch: batch-size, or the sink pads there are */
static guint
gst_cuda_cache_batch_n_slots (GstCudaCacheBatch * self)
{
  guint n;

  GST_OBJECT_LOCK (self);
  n = self->batch_size ? self->batch_size :
      (guint) GST_ELEMENT (self)->numsinkpads;
  GST_OBJECT_UNLOCK (self);
  return MAX (n, 1);
}

static GstFlowReturn
gst_cuda_cache_batch_update_src_caps (GstAggregator * agg, GstCaps * caps,
    GstCaps ** ret)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (agg);
  guint n = gst_cuda_cache_batch_n_slots (self);
  GstCudaCacheTensorInfo info;
  GstCaps *fixed, *out;
  guint downstream_n;

  fixed = gst_caps_fixate (gst_caps_ref (caps));
  if (!gst_cuda_cache_tensor_info_from_caps (&info, fixed)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("downstream takes no "
            "batch tensor the element can make: %" GST_PTR_FORMAT " (give "
            "the tensor's type, layout and dimensions in caps after it)",
            caps), (NULL));
    gst_caps_unref (fixed);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  downstream_n = gst_cuda_cache_tensor_info_get_batch (&info);
  if (downstream_n != n) {
    if (!gst_cuda_cache_tensor_info_init (&info, info.dtype, info.layout, n,
            gst_cuda_cache_tensor_info_get_channels (&info),
            gst_cuda_cache_tensor_info_get_height (&info),
            gst_cuda_cache_tensor_info_get_width (&info)))
      goto wrong_batch;
  }
  out = gst_cuda_cache_tensor_info_to_caps (&info);
  gst_caps_set_features_simple (out, gst_caps_features_copy
      (gst_caps_get_features (fixed, 0)));
  if (!gst_caps_can_intersect (out, caps)) {
    gst_caps_unref (out);
    goto wrong_batch;
  }
  gst_caps_unref (fixed);
  *ret = out;
  return GST_FLOW_OK;

wrong_batch:
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("downstream takes batches "
          "of %u, the element makes batches of %u (batch-size, or the "
          "number of sink pads)", downstream_n, n), ("downstream: %"
          GST_PTR_FORMAT, caps));
  gst_caps_unref (fixed);
  return GST_FLOW_NOT_NEGOTIATED;
}

static gboolean
gst_cuda_cache_batch_negotiated_src_caps (GstAggregator * agg, GstCaps * caps)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (agg);
  GstCudaCacheTensorInfo slot;
  GList *l;

  if (!gst_cuda_cache_tensor_info_from_caps (&self->out_info, caps))
    return FALSE;
  gst_cuda_cache_batch_reset (self);
  self->cuda = gst_caps_features_contains (gst_caps_get_features (caps, 0),
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
  if (!gst_cuda_cache_tensor_info_init (&slot, self->out_info.dtype,
          self->out_info.layout, 1,
          gst_cuda_cache_tensor_info_get_channels (&self->out_info),
          gst_cuda_cache_tensor_info_get_height (&self->out_info),
          gst_cuda_cache_tensor_info_get_width (&self->out_info)))
    return FALSE;
  self->slot_caps = gst_cuda_cache_tensor_info_to_caps (&slot);
  gst_caps_set_features_simple (self->slot_caps, gst_caps_features_copy
      (gst_caps_get_features (caps, 0)));

  /* every pad's converter makes the new slots */
  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    gst_clear_object (&GST_CUDA_CACHE_BATCH_PAD (l->data)->converter);
  GST_OBJECT_UNLOCK (self);

  return GST_AGGREGATOR_CLASS (parent_class)->negotiated_src_caps (agg, caps);
}

static gboolean
gst_cuda_cache_batch_sink_event (GstAggregator * agg,
    GstAggregatorPad * aggpad, GstEvent * event)
{
  GstCudaCacheBatchPad *pad = GST_CUDA_CACHE_BATCH_PAD (aggpad);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;

    gst_event_parse_caps (event, &caps);
    gst_caps_replace (&pad->caps, caps);
    gst_clear_object (&pad->converter);
  }

  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, aggpad, event);
}

/* A pool of @caps, in the output's kind of memory, active */
static GstBufferPool *
gst_cuda_cache_batch_pool_new (GstCudaCacheBatch * self, GstCaps * caps,
    gsize size)
{
  GstBufferPool *pool = self->cuda ? gst_cuda_cache_pool_new (self->context) :
      gst_cuda_cache_system_pool_new (NULL);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
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
  GstCudaContext *context;

  if (cuda != self->cuda) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s: frames in %s memory, "
            "batches in %s memory: put cudaupload or cudadownload before "
            "the pad", GST_PAD_NAME (pad), cuda ? "CUDA" : "system",
            self->cuda ? "CUDA" : "system"), (NULL));
    return FALSE;
  }
  if (!cuda)
    return TRUE;

  context = GST_CUDA_MEMORY_CAST (mem)->context;
  GST_OBJECT_LOCK (self);
  if (!self->context)
    self->context = gst_object_ref (context);
  GST_OBJECT_UNLOCK (self);
  if (context != self->context) {
    GST_ELEMENT_ERROR (self, STREAM, WRONG_TYPE, ("%s: the frame's CUDA "
            "memory belongs to another CUDA context (%" GST_PTR_FORMAT ") "
            "than the other pads' (%" GST_PTR_FORMAT "): let the pipeline's "
            "elements share one context (GstContext)", GST_PAD_NAME (pad),
            context, self->context), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* @pad's converter, made from its caps for the batch's slots at its
 * first frame */
static GstCudaCacheConverter *
gst_cuda_cache_batch_pad_converter (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad)
{
  GError *error = NULL;

  if (!pad->caps) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: a frame before caps",
            GST_PAD_NAME (pad)), (NULL));
    return NULL;
  }
  if (!pad->converter) {
    GstStructure *config = gst_cuda_cache_convert_options_take_config
        (&self->options, GST_ELEMENT (self));

    pad->converter = gst_cuda_cache_converter_new (pad->caps,
        self->slot_caps, self->cuda ? self->context : NULL, config, &error);
    if (!pad->converter) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: %s",
              GST_PAD_NAME (pad), error ? error->message : "cannot convert"),
          ("from %" GST_PTR_FORMAT " to %" GST_PTR_FORMAT, pad->caps,
              self->slot_caps));
      g_clear_error (&error);
      return NULL;
    }
  }
  return pad->converter;
}

/* Slot @index of @meta: @buf's, converted by @pad's converter */
static void
gst_cuda_cache_batch_set_slot (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad, GstBuffer * buf, guint index,
    GstCudaCacheBatchMeta * meta)
{
  /* the converter's picture meta, on a buffer of no memory */
  GstBuffer *holder = gst_buffer_new ();
  GstCudaCachePictureMeta *pmeta =
      gst_cuda_cache_converter_add_picture_meta (pad->converter, holder);
  gchar *stream_id = gst_pad_get_stream_id (GST_PAD (pad));

  gst_cuda_cache_batch_meta_set_slot (meta, index, GST_PAD_NAME (pad),
      stream_id, GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf), pmeta, -1);
  g_free (stream_id);
  gst_buffer_unref (holder);
}

/* The batch's conversion failed: where the library says which slot's
 * frame it could not convert ("slot N: ..."), the error names that slot's
 * pad, which is what the user knows */
static void
gst_cuda_cache_batch_post_error (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad ** pads, guint n_pads, const GError * error)
{
  const gchar *message = error ? error->message :
      "the batch's conversion failed";
  guint slot;
  gint skip = 0;

  if (sscanf (message, "slot %u: %n", &slot, &skip) == 1 && skip > 0 &&
      slot < n_pads) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s: %s",
            GST_PAD_NAME (pads[slot]), message + skip), ("slot %u", slot));
    return;
  }
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", message), (NULL));
}

static GstFlowReturn
gst_cuda_cache_batch_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (agg);
  guint n = gst_cuda_cache_tensor_info_get_batch (&self->out_info);
  GstCudaCacheBatchPad **pads;
  GstBuffer **bufs, **slot_bufs = NULL;
  GstCudaCacheConverter **converters = NULL;
  GstBuffer *outbuf = NULL;
  GstCudaCacheBatchMeta *meta;
  GstFlowReturn ret = GST_FLOW_OK;
  GstClockTime pts = GST_CLOCK_TIME_NONE, end = GST_CLOCK_TIME_NONE;
  GError *error = NULL;
  guint n_pads = 0, i, n_bufs = 0, launches = 0;
  gboolean all_eos = TRUE, options_changed, follows_pads;
  GList *l;

  GST_OBJECT_LOCK (self);
  pads = g_new0 (GstCudaCacheBatchPad *, GST_ELEMENT (self)->numsinkpads);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    pads[n_pads++] = gst_object_ref (l->data);
  options_changed = self->options.changed;
  follows_pads = self->batch_size == 0;
  GST_OBJECT_UNLOCK (self);

  /* batch-size 0: pads requested since the batch's size was negotiated
   * (the last of the list) wait for the next batch, which is negotiated
   * for them (request_new_pad marked the source pad) */
  while (follows_pads && n_pads > n)
    gst_object_unref (pads[--n_pads]);
  bufs = g_new0 (GstBuffer *, MAX (n_pads, 1));

  /* the options are mutable while PLAYING: a change makes every pad's
   * converter again, from the new config */
  for (i = 0; options_changed && i < n_pads; i++)
    gst_clear_object (&pads[i]->converter);

  if (n_pads > n) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%u sink pads, batches "
            "of %u slots (batch-size)", n_pads, n), (NULL));
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }

  for (i = 0; i < n_pads; i++) {
    GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (pads[i]);

    bufs[i] = gst_aggregator_pad_pop_buffer (aggpad);
    if (bufs[i]) {
      GstClockTime t = GST_BUFFER_PTS (bufs[i]);

      n_bufs++;
      if (!gst_cuda_cache_batch_check_memory (self, GST_PAD (aggpad), bufs[i])) {
        ret = GST_FLOW_ERROR;
        goto done;
      }
      if (GST_CLOCK_TIME_IS_VALID (t)) {
        if (!GST_CLOCK_TIME_IS_VALID (pts) || t < pts)
          pts = t;
        if (GST_BUFFER_DURATION_IS_VALID (bufs[i]) &&
            (!GST_CLOCK_TIME_IS_VALID (end) ||
                t + GST_BUFFER_DURATION (bufs[i]) > end))
          end = t + GST_BUFFER_DURATION (bufs[i]);
      }
    }
    if (!gst_aggregator_pad_is_eos (aggpad) || bufs[i])
      all_eos = FALSE;
  }
  if (n_bufs == 0) {
    ret = all_eos ? GST_FLOW_EOS : GST_FLOW_OK;
    goto done;
  }

  if (!self->batch_pool) {
    GstCaps *caps = gst_pad_get_current_caps (GST_AGGREGATOR_SRC_PAD (agg));

    if (caps) {
      self->batch_pool = gst_cuda_cache_batch_pool_new (self, caps,
          self->out_info.size);
      gst_caps_unref (caps);
    }
  }
  if (!self->batch_pool ||
      gst_buffer_pool_acquire_buffer (self->batch_pool, &outbuf, NULL) !=
      GST_FLOW_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("no memory for a "
            "batch of %" G_GSIZE_FORMAT " bytes", self->out_info.size), (NULL));
    ret = GST_FLOW_ERROR;
    goto done;
  }
  meta = gst_buffer_add_cuda_cache_batch_meta (outbuf, n);
  converters = g_new0 (GstCudaCacheConverter *, n);
  for (i = 0; i < n_pads; i++) {
    if (!bufs[i])
      continue;
    converters[i] = gst_cuda_cache_batch_pad_converter (self, pads[i]);
    if (!converters[i]) {
      ret = GST_FLOW_NOT_NEGOTIATED;
      goto done;
    }
  }
  slot_bufs = g_new0 (GstBuffer *, n);
  memcpy (slot_bufs, bufs, n_pads * sizeof (GstBuffer *));
  if (!gst_cuda_cache_converter_convert_batch (converters, slot_bufs, n,
          outbuf, NULL, &launches, &error)) {
    gst_cuda_cache_batch_post_error (self, pads, n_pads, error);
    g_clear_error (&error);
    ret = GST_FLOW_ERROR;
    goto done;
  }
  GST_LOG_OBJECT (self, "a batch of %u, %u frames, in %u launches", n,
      n_bufs, launches);
  for (i = 0; i < n_pads; i++) {
    if (bufs[i])
      gst_cuda_cache_batch_set_slot (self, pads[i], bufs[i], i, meta);
  }

  GST_BUFFER_PTS (outbuf) = pts;
  GST_BUFFER_DURATION (outbuf) = GST_CLOCK_TIME_IS_VALID (end) ?
      end - pts : GST_CLOCK_TIME_NONE;
  ret = gst_aggregator_finish_buffer (agg, g_steal_pointer (&outbuf));

done:
  gst_clear_buffer (&outbuf);
  for (i = 0; i < n_pads; i++) {
    gst_clear_buffer (&bufs[i]);
    gst_object_unref (pads[i]);
  }
  g_free (bufs);
  g_free (pads);
  g_free (converters);
  g_free (slot_bufs);
  return ret;
}

/* The pipeline's CUDA context, as nvcodec's elements share it: given by
 * the bin (set_context) or a neighbour (query), else the first CUDA
 * frame's. Frames of another context are refused. */
static void
gst_cuda_cache_batch_set_context (GstElement * element, GstContext * context)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (element);
  GstCudaContext *cuda = NULL;

  /* not under the object lock: gst-cuda logs with the element's path */
  if (gst_cuda_handle_set_context (element, context, -1, &cuda) && cuda) {
    GST_OBJECT_LOCK (self);
    if (!self->context)
      self->context = g_steal_pointer (&cuda);
    GST_OBJECT_UNLOCK (self);
  }
  gst_clear_object (&cuda);

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_cuda_cache_batch_answer_context (GstCudaCacheBatch * self, GstQuery * query)
{
  GstCudaContext *context;
  gboolean ret;

  GST_OBJECT_LOCK (self);
  context = self->context ? gst_object_ref (self->context) : NULL;
  GST_OBJECT_UNLOCK (self);
  ret = context && gst_cuda_handle_context_query (GST_ELEMENT (self), query,
      context);
  gst_clear_object (&context);
  return ret;
}

static gboolean
gst_cuda_cache_batch_src_query (GstAggregator * agg, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cuda_cache_batch_answer_context (GST_CUDA_CACHE_BATCH (agg), query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (parent_class)->src_query (agg, query);
}

/* A sink pad's caps: its template's, in the kinds of memory downstream
 * takes batches in (so that cudaupload before it uploads where batches
 * are CUDA memory, and passes system memory through where they are not) */
static GstCaps *
gst_cuda_cache_batch_sink_caps (GstAggregator * agg, GstPad * pad,
    GstCaps * filter)
{
  GstCaps *templ = gst_pad_get_pad_template_caps (pad);
  GstCaps *peer = gst_pad_peer_query_caps (GST_AGGREGATOR_SRC_PAD (agg), NULL);
  GstCaps *caps = gst_caps_new_empty ();
  gboolean cuda = FALSE, system = FALSE;
  guint i;

  for (i = 0; i < gst_caps_get_size (peer); i++) {
    GstCapsFeatures *f = gst_caps_get_features (peer, i);

    if (gst_caps_features_is_any (f))
      cuda = system = TRUE;
    else if (gst_caps_features_contains (f,
            GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
      cuda = TRUE;
    else
      system = TRUE;
  }
  for (i = 0; i < gst_caps_get_size (templ); i++) {
    gboolean is_cuda = gst_caps_features_contains (gst_caps_get_features
        (templ, i), GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);

    if (is_cuda ? cuda : system)
      caps = gst_caps_merge_structure_full (caps,
          gst_structure_copy (gst_caps_get_structure (templ, i)),
          gst_caps_features_copy (gst_caps_get_features (templ, i)));
  }
  gst_caps_unref (peer);
  gst_caps_unref (templ);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

static gboolean
gst_cuda_cache_batch_sink_query (GstAggregator * agg,
    GstAggregatorPad * pad, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cuda_cache_batch_answer_context (GST_CUDA_CACHE_BATCH (agg), query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *filter, *caps;

    gst_query_parse_caps (query, &filter);
    caps = gst_cuda_cache_batch_sink_caps (agg, GST_PAD (pad), filter);
    gst_query_set_caps_result (query, caps);
    gst_caps_unref (caps);
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_query (agg, pad, query);
}

/* With batch-size 0 a pad more or less is a batch of another size: the
 * source pad negotiates again before the next batch */
static GstPad *
gst_cuda_cache_batch_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * name, const GstCaps * caps)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (element);
  GstPad *pad = GST_ELEMENT_CLASS (parent_class)->request_new_pad (element,
      templ, name, caps);
  gboolean follows_pads;

  GST_OBJECT_LOCK (self);
  follows_pads = self->batch_size == 0;
  GST_OBJECT_UNLOCK (self);
  if (pad && follows_pads)
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (element));
  return pad;
}

static void
gst_cuda_cache_batch_release_pad (GstElement * element, GstPad * pad)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (element);
  gboolean follows_pads;

  GST_OBJECT_LOCK (self);
  follows_pads = self->batch_size == 0;
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_CLASS (parent_class)->release_pad (element, pad);
  if (follows_pads)
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (element));
}

static gboolean
gst_cuda_cache_batch_stop (GstAggregator * agg)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (agg);

  gst_cuda_cache_batch_reset (self);
  return TRUE;
}

static void
gst_cuda_cache_batch_class_init (GstCudaCacheBatchClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  gobject_class->set_property = gst_cuda_cache_batch_set_property;
  gobject_class->get_property = gst_cuda_cache_batch_get_property;
  gobject_class->finalize = gst_cuda_cache_batch_finalize;

  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size",
          "Slots of a batch, its tensor's first dimension (0: one per sink "
          "pad); slots of no pad are absent", 0, 4096, DEFAULT_BATCH_SIZE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  gst_cuda_cache_convert_options_install (gobject_class, PROP_FIRST_OPTION);

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_change_state);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_set_context);
  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_request_new_pad);
  element_class->release_pad =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_release_pad);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_template, GST_TYPE_CUDA_CACHE_BATCH_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &src_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_set_static_metadata (element_class,
      "CUDA cache batcher", "Filter/Converter/Video/Scaler/Hardware",
      "Batches frames of many streams into one tensor, each slot converted "
      "as cudacacheconvert converts one frame, in the device's cache",
      "the gst-cuda-cache authors");

  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_aggregate);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_update_src_caps);
  agg_class->negotiated_src_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_negotiated_src_caps);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_sink_event);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_stop);
  /* live: a batch goes out at its deadline, the slots of pads without a
   * frame by then absent */
  agg_class->get_next_time = gst_aggregator_simple_get_next_time;
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_src_query);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_sink_query);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_batch_debug, "cudacachebatch", 0,
      "CUDA cache batcher");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CACHE_BATCH_PAD, 0);
}

static void
gst_cuda_cache_batch_init (GstCudaCacheBatch * self)
{
  self->batch_size = DEFAULT_BATCH_SIZE;
  gst_cuda_cache_convert_options_init (&self->options);
}
