/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* cudacachebatch's mode=rois (gstcudacachebatch.c): one sink pad, a slot
 * per region of interest of its frames, a converter per slot cut to its
 * region. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include "gstcudacachebatch-private.h"

void
gst_cuda_cache_batch_clear_roi_converters (GstCudaCacheBatch * self)
{
  guint i;

  for (i = 0; i < self->n_roi_converters; i++)
    gst_clear_object (&self->roi_converters[i]);
  g_clear_pointer (&self->roi_converters, g_free);
  self->n_roi_converters = 0;
}

/* rois: the regions of interest of @buf (@width x @height) of the
 * roi-type asked for, in the order they were added, clipped to the
 * frame; empty ones left out */
static GArray *
gst_cuda_cache_batch_rois (GstCudaCacheBatch * self, GstPad * pad,
    GstBuffer * buf, gint width, gint height, GArray ** ids)
{
  GArray *boxes = g_array_new (FALSE, FALSE, sizeof (GstVideoRectangle));
  gpointer state = NULL;
  GstMeta *m;
  GQuark type;

  GST_OBJECT_LOCK (self);
  type = self->roi_type_quark;
  GST_OBJECT_UNLOCK (self);
  *ids = g_array_new (FALSE, FALSE, sizeof (gint));
  /* a buffer's metas iterate in the order they were added */
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    gint64 x0 = MIN ((gint64) roi->x, width);
    gint64 y0 = MIN ((gint64) roi->y, height);
    gint64 x1 = MIN ((gint64) roi->x + roi->w, width);
    gint64 y1 = MIN ((gint64) roi->y + roi->h, height);
    GstVideoRectangle box;

    if (type && roi->roi_type != type)
      continue;
    if (x1 <= x0 || y1 <= y0) {
      GST_DEBUG_OBJECT (pad, "region %d (%s) %u,%u %ux%u: nothing of it in "
          "the %dx%d frame, skipped", roi->id,
          g_quark_to_string (roi->roi_type), roi->x, roi->y, roi->w, roi->h,
          width, height);
      continue;
    }
    box.x = (gint) x0;
    box.y = (gint) y0;
    box.w = (gint) (x1 - x0);
    box.h = (gint) (y1 - y0);
    g_array_append_val (boxes, box);
    g_array_append_val (*ids, roi->id);
  }
  return boxes;
}

/* rois: slot @index's converter, set for @pad's frames cut to @box */
static GstCudaCacheConverter *
gst_cuda_cache_batch_roi_converter (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad, guint index, const GstVideoRectangle * box)
{
  GstStructure *config;
  GError *error = NULL;
  gboolean ok;

  if (self->n_roi_converters != gst_cuda_cache_tensor_info_get_batch
      (&self->out_info)) {
    gst_cuda_cache_batch_clear_roi_converters (self);
    self->n_roi_converters =
        gst_cuda_cache_tensor_info_get_batch (&self->out_info);
    self->roi_converters = g_new0 (GstCudaCacheConverter *,
        self->n_roi_converters);
  }
  config = gst_structure_copy (self->roi_config);
  gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_X, G_TYPE_INT,
      box->x, GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y, G_TYPE_INT, box->y,
      GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH, G_TYPE_INT, box->w,
      GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT, G_TYPE_INT, box->h, NULL);
  if (!self->roi_converters[index]) {
    self->roi_converters[index] = gst_cuda_cache_converter_new (pad->caps,
        self->slot_caps, self->cuda ? self->state.context : NULL, config,
        &error);
    ok = self->roi_converters[index] != NULL;
  } else {
    ok = gst_cuda_cache_converter_reconfigure (self->roi_converters[index],
        pad->caps, self->slot_caps, config, &error);
  }
  if (!ok) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: region %d,%d %dx%d: %s",
            GST_PAD_NAME (pad), box->x, box->y, box->w, box->h,
            error ? error->message : "cannot convert"), ("from %"
            GST_PTR_FORMAT " to %" GST_PTR_FORMAT, pad->caps, self->slot_caps));
    g_clear_error (&error);
    return NULL;
  }
  return self->roi_converters[index];
}

/* rois: the batches of @pad's frame @buf, batch-size regions each, the
 * last one's other slots absent; none for a frame without a region */
GstFlowReturn
gst_cuda_cache_batch_aggregate_rois (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad, GstBuffer * buf)
{
  guint n = gst_cuda_cache_tensor_info_get_batch (&self->out_info);
  GstCudaCacheConverter **converters = g_new0 (GstCudaCacheConverter *, n);
  GstBuffer **inbufs = g_new0 (GstBuffer *, n);
  GstClockTime pts, end;
  GstFlowReturn ret = GST_FLOW_OK;
  GArray *boxes = NULL, *ids = NULL;
  GError *error = NULL;
  GstVideoInfo info;
  guint first, i;

  if (!pad->caps || !gst_video_info_from_caps (&info, pad->caps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: a frame before caps",
            GST_PAD_NAME (pad)), (NULL));
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
  gst_cuda_cache_batch_running_times (GST_AGGREGATOR_PAD (pad), buf, &pts,
      &end);
  boxes = gst_cuda_cache_batch_rois (self, GST_PAD (pad), buf,
      GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info), &ids);
  if (boxes->len == 0) {
    /* no batch: a GAP event for its time, so that downstream (a sink
     * prerolling, a live mixer) moves on */
    GST_LOG_OBJECT (pad, "no region in the frame of %" GST_TIME_FORMAT
        ": no batch", GST_TIME_ARGS (pts));
    gst_cuda_cache_batch_push_gap (self, GST_PAD (pad), pts, end);
    goto done;
  }
  /* the options are mutable while PLAYING: the next region's slot is
   * converted with the new ones */
  GST_OBJECT_LOCK (self);
  if (self->options.changed)
    g_clear_pointer (&self->roi_config, gst_structure_free);
  GST_OBJECT_UNLOCK (self);
  if (!self->roi_config)
    self->roi_config = gst_cuda_cache_convert_options_take_config
        (&self->options, GST_ELEMENT (self));

  /* every batch of the frame's regions is of the frame's time */
  gst_cuda_cache_batch_output_times (self, &pts, &end);
  for (first = 0; first < boxes->len && ret == GST_FLOW_OK; first += n) {
    guint n_boxes = MIN (n, boxes->len - first);
    GstBuffer *outbuf = gst_cuda_cache_batch_acquire (self, n);
    guint launches = 0;

    if (!outbuf) {
      ret = GST_FLOW_ERROR;
      break;
    }
    for (i = 0; i < n; i++) {
      converters[i] = i < n_boxes ? gst_cuda_cache_batch_roi_converter (self,
          pad, i, &g_array_index (boxes, GstVideoRectangle, first + i)) : NULL;
      inbufs[i] = i < n_boxes ? buf : NULL;
      if (i < n_boxes && !converters[i])
        ret = GST_FLOW_NOT_NEGOTIATED;
    }
    if (ret == GST_FLOW_OK &&
        !gst_cuda_cache_converter_convert_batch (converters, inbufs, n,
            outbuf, NULL, &launches, &error)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", error ? error->message :
              "the batch's conversion failed"), (NULL));
      g_clear_error (&error);
      ret = GST_FLOW_ERROR;
    }
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (outbuf);
      break;
    }
    GST_LOG_OBJECT (self, "a batch of %u regions %u to %u of %u of the "
        "frame of %" GST_TIME_FORMAT ", in %u launches", n, first,
        first + n_boxes - 1, boxes->len, GST_TIME_ARGS (pts), launches);
    for (i = 0; i < n_boxes; i++)
      gst_cuda_cache_batch_set_slot (self, pad, converters[i], buf, i,
          g_array_index (ids, gint, first + i),
          gst_buffer_get_cuda_cache_batch_meta (outbuf));
    ret = gst_cuda_cache_batch_send (self, outbuf, pts, end);
  }

done:
  if (boxes)
    g_array_unref (boxes);
  if (ids)
    g_array_unref (ids);
  g_free (converters);
  g_free (inbufs);
  return ret;
}
