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
 * pad absent, and a pad requested past it is refused (no pad, a warning
 * that says why).
 *
 * ## Pads of different frame rates
 *
 * In a pipeline that is not live, each batch takes the next frame of
 * every pad and waits for it: every frame of every pad is batched once,
 * none is dropped, and a faster stream's frames simply take more batches
 * (its slots go absent after the slower streams end).
 *
 * In a live pipeline each batch is a window of running time one frame of
 * the fastest pad long (its caps' framerate; 1/25 s where no pad has
 * one), as #GstVideoAggregator's output frames are, and each pad's frame
 * goes into the batch whose window its running time falls in: a frame of
 * a later window waits queued on its pad. A batch goes out once every
 * pad has a frame queued (of the window or a later one), or at the
 * window's deadline (its start plus the upstream latency, the element's own, one
 * window, and the `latency` property), the slots of pads without a frame
 * by then absent. A frame that comes after its window went out is late:
 * it is dropped, as is the older of two frames of one window. Drops are
 * counted on each sink pad (#GstCudaCacheBatchPad:dropped) and in all
 * (#GstCudaCacheBatch:dropped), and logged one by one at the DEBUG level.
 * A window with no frame makes no batch. Downstream's QoS events are
 * followed as #GstVideoAggregator follows them live: a batch already late
 * for downstream is not made, its frames dropped and counted, and a QoS
 * message posted.
 *
 * ## Regions of interest
 *
 * With `mode=rois` the element takes one sink pad (a second request is
 * refused, with a warning) and fills the slots with the regions of
 * interest of its frames: each #GstVideoRegionOfInterestMeta of a frame
 * (of the `roi-type` asked for, every one where it is empty), in the order
 * they were added, is a slot: the frame converted as `cudacacheconvert`
 * converts it with its source rectangle set to the region
 * (%GST_CUDA_CACHE_CONVERTER_OPT_SRC_X and the others). A region past the
 * frame's edges is clipped to it; one with nothing inside the frame is
 * skipped. `batch-size` regions make a batch, and must be above 0: a
 * frame of more regions makes several batches, all of its PTS, its last
 * one's other slots absent. A frame without a region makes no batch: a
 * GAP event for its time goes downstream instead, so a sink prerolls and
 * a live mixer moves on. Each slot's meta gives the region's id
 * (`roi_id`) and its source rectangle the region (grown to the chroma
 * grid of a subsampled frame).
 *
 * ## Time
 *
 * As videoaggregator keeps it: frames are taken in running time through
 * each pad's segment, frames outside their segment are not batched, and a
 * batch is in running time: live, its window; not live, from its earliest
 * frame to the earliest end among its frames, never overlapping the batch
 * before. The element reports its latency as videoaggregator does, one
 * output frame: live, its window.
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
 * |[
 * gst-launch-1.0 filesrc location=a.mp4 ! parsebin ! nvh264dec ! \
 *     DETECTOR ! cudacachebatch mode=rois roi-type=face batch-size=8 ! \
 *     'other/tensors(memory:CUDAMemory),format=static,num_tensors=1,\
 *     types=float32,dimensions=112:112:3:8,layout=NCHW' ! fakesink
 * ]| The faces a detector marked, eight a batch, each 3x112x112 (DETECTOR
 * stands for any element that adds #GstVideoRegionOfInterestMeta of type
 * "face" to the frames).
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachebatch-private.h"
#include "gstcudacacheelementprops.h"

GST_DEBUG_CATEGORY (gst_cuda_cache_batch_debug);

enum
{
  PROP_0,
  PROP_BATCH_SIZE,
  PROP_MODE,
  PROP_ROI_TYPE,
  PROP_DROPPED,
  PROP_TENSOR_META,
  /* cuda-device-id, cache-limit, stats-interval, alloc-method, memory-pool */
  PROP_FIRST_STATE,
  PROP_FIRST_OPTION = PROP_FIRST_STATE + GST_CUDA_CACHE_ELEMENT_N_COMMON_PROPS,
};

#define DEFAULT_BATCH_SIZE 0
#define DEFAULT_MODE GST_CUDA_CACHE_BATCH_MODE_FRAMES
#define DEFAULT_ROI_TYPE ""

enum
{
  PROP_PAD_0,
  PROP_PAD_DROPPED,
};

#define GST_TYPE_CUDA_CACHE_BATCH_MODE (gst_cuda_cache_batch_mode_get_type ())
static GType
gst_cuda_cache_batch_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CACHE_BATCH_MODE_FRAMES, "One slot per sink pad, its frame",
        "frames"},
    {GST_CUDA_CACHE_BATCH_MODE_ROIS, "One sink pad; a slot per region of "
          "interest of its frames (GstVideoRegionOfInterestMeta)", "rois"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaCacheBatchMode", values);

    g_once_init_leave (&type, t);
  }
  return type;
}

#define BATCH_SRC_CAPS \
  TENSOR_CAPS ("(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY ")") "; " \
  TENSOR_CAPS ("")

static GstStaticPadTemplate sink_template =
GST_STATIC_PAD_TEMPLATE ("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (SINK_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (BATCH_SRC_CAPS));

G_DEFINE_TYPE (GstCudaCacheBatchPad, gst_cuda_cache_batch_pad,
    GST_TYPE_AGGREGATOR_PAD);

static void
gst_cuda_cache_batch_pad_finalize (GObject * object)
{
  GstCudaCacheBatchPad *pad = GST_CUDA_CACHE_BATCH_PAD (object);

  gst_clear_caps (&pad->caps);
  gst_clear_object (&pad->converter);
  gst_cuda_cache_kept_pools_free (pad->kept);
  G_OBJECT_CLASS (gst_cuda_cache_batch_pad_parent_class)->finalize (object);
}

static void
gst_cuda_cache_batch_pad_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaCacheBatchPad *pad = GST_CUDA_CACHE_BATCH_PAD (object);

  if (prop_id == PROP_PAD_DROPPED) {
    GST_OBJECT_LOCK (pad);
    g_value_set_uint64 (value, pad->dropped);
    GST_OBJECT_UNLOCK (pad);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cuda_cache_batch_pad_class_init (GstCudaCacheBatchPadClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->finalize = gst_cuda_cache_batch_pad_finalize;
  gobject_class->get_property = gst_cuda_cache_batch_pad_get_property;

  g_object_class_install_property (gobject_class, PROP_PAD_DROPPED,
      g_param_spec_uint64 ("dropped", "Dropped",
          "Frames of this pad never batched: in a live pipeline, frames that "
          "came after their batch's window went out, the older of two "
          "frames of one window, and the frames of batches late for "
          "downstream (QoS); 0 in a pipeline that is not live", 0, G_MAXUINT64,
          0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void
gst_cuda_cache_batch_pad_init (GstCudaCacheBatchPad * pad)
{
  pad->frame_duration = GST_CLOCK_TIME_NONE;
  pad->kept = gst_cuda_cache_kept_pools_new (GST_OBJECT (pad));
}

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
  gst_cuda_cache_batch_clear_roi_converters (self);
  g_clear_pointer (&self->roi_config, gst_structure_free);
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
  } else if (prop_id == PROP_MODE) {
    GST_OBJECT_LOCK (self);
    self->mode = g_value_get_enum (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_ROI_TYPE) {
    const gchar *type = g_value_get_string (value);

    GST_OBJECT_LOCK (self);
    g_free (self->roi_type);
    self->roi_type = g_strdup (type ? type : "");
    self->roi_type_quark = type && *type ? g_quark_from_string (type) : 0;
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id >= PROP_FIRST_STATE && prop_id < PROP_FIRST_OPTION) {
    gst_cuda_cache_element_state_set_property (&self->state,
        prop_id - PROP_FIRST_STATE, value);
  } else if (prop_id == PROP_TENSOR_META) {
    g_atomic_int_set (&self->tensor_meta, g_value_get_boolean (value));
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
  } else if (prop_id == PROP_MODE) {
    GST_OBJECT_LOCK (self);
    g_value_set_enum (value, self->mode);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_ROI_TYPE) {
    GST_OBJECT_LOCK (self);
    g_value_set_string (value, self->roi_type);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_DROPPED) {
    GST_OBJECT_LOCK (self);
    g_value_set_uint64 (value, self->dropped);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id >= PROP_FIRST_STATE && prop_id < PROP_FIRST_OPTION) {
    gst_cuda_cache_element_state_get_property (&self->state,
        prop_id - PROP_FIRST_STATE, value);
  } else if (prop_id == PROP_TENSOR_META) {
    g_value_set_boolean (value, g_atomic_int_get (&self->tensor_meta));
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

  gst_cuda_cache_batch_flush_pending (self, FALSE);
  gst_cuda_cache_batch_reset (self);
  gst_cuda_cache_batch_stream_clear (self);
  gst_cuda_cache_element_state_clear (&self->state);
  g_free (self->roi_type);
  gst_cuda_cache_convert_options_clear (&self->options);
  g_mutex_clear (&self->request_lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static GstStateChangeReturn
gst_cuda_cache_batch_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (element);

  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    gst_cuda_cache_convert_options_post_refusal (&self->options, element);
    if (!gst_cuda_cache_element_state_check_alloc (&self->state))
      return GST_STATE_CHANGE_FAILURE;
  }

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

/* The sink pads, each with a reference, and their converters taken
 * from them, under the object lock: the caller frees the converters
 * (and anything else of the pads) once it is released */
static GList *
gst_cuda_cache_batch_take_converters (GstCudaCacheBatch * self,
    GList ** converters)
{
  GList *pads = NULL, *l;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next) {
    GstCudaCacheBatchPad *pad = l->data;

    pads = g_list_prepend (pads, gst_object_ref (pad));
    if (pad->converter)
      *converters = g_list_prepend (*converters,
          g_steal_pointer (&pad->converter));
  }
  GST_OBJECT_UNLOCK (self);
  return pads;
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
  gboolean rois_unsized;

  GST_OBJECT_LOCK (self);
  rois_unsized = self->mode == GST_CUDA_CACHE_BATCH_MODE_ROIS &&
      self->batch_size == 0;
  GST_OBJECT_UNLOCK (self);
  if (rois_unsized) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("mode=rois takes a "
            "batch-size above 0: the slots a batch has for the regions "
            "of a frame"), (NULL));
    return GST_FLOW_NOT_NEGOTIATED;
  }

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
  GList *pads, *converters = NULL;

  /* the batch of the caps before goes out before the new caps */
  if (gst_cuda_cache_batch_flush_pending (self, TRUE) != GST_FLOW_OK)
    return FALSE;
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
  pads = gst_cuda_cache_batch_take_converters (self, &converters);
  g_list_free_full (converters, gst_object_unref);
  g_list_free_full (pads, gst_object_unref);

  return GST_AGGREGATOR_CLASS (parent_class)->negotiated_src_caps (agg, caps);
}

static gboolean
gst_cuda_cache_batch_sink_event (GstAggregator * agg,
    GstAggregatorPad * aggpad, GstEvent * event)
{
  GstCudaCacheBatchPad *pad = GST_CUDA_CACHE_BATCH_PAD (aggpad);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;
    gint fps_n = 0, fps_d = 1;

    gst_event_parse_caps (event, &caps);
    gst_caps_replace (&pad->caps, caps);
    pad->stale = TRUE;
    /* the pad's frame duration: live, the fastest pad's is each batch's */
    gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
        "framerate", &fps_n, &fps_d);
    GST_OBJECT_LOCK (pad);
    pad->frame_duration = fps_n > 0 && fps_d > 0 ?
        gst_util_uint64_scale_int (GST_SECOND, fps_d, fps_n) :
        GST_CLOCK_TIME_NONE;
    GST_OBJECT_UNLOCK (pad);
    gst_cuda_cache_batch_update_window (GST_CUDA_CACHE_BATCH (agg));
  }

  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, aggpad, event);
}

/* The CUDA context as every element takes it
 * (gstcudacacheelementstate.c): given (set_context), or found when a
 * neighbour asks for one (a CONTEXT query on any pad), else the first CUDA
 * frame's (gst_cuda_cache_batch_check_memory ()). Frames of another
 * context are refused. */
static void
gst_cuda_cache_batch_set_context (GstElement * element, GstContext * context)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (element);

  gst_cuda_cache_element_state_set_context (&self->state, context);

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_cuda_cache_batch_src_query (GstAggregator * agg, GstQuery * query)
{
  if (gst_cuda_cache_element_state_answer_context (&GST_CUDA_CACHE_BATCH
          (agg)->state, query))
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
  /* nothing downstream yet (ANY has no structure): either kind */
  gboolean cuda = gst_caps_is_any (peer), system = gst_caps_is_any (peer);
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
  if (gst_cuda_cache_element_state_answer_context (&GST_CUDA_CACHE_BATCH
          (agg)->state, query))
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

/* Offers upstream of @pad a pool over the cache for the query's caps, as
 * cudacacheconvert does: frames that survive renegotiation, and that
 * nvcodec's elements (cudaupload, the decoders) write into when the pool
 * is of their context. CUDA memory needs the pipeline's context, known
 * by then (GstContext) where upstream is nvcodec's. */
static gboolean
gst_cuda_cache_batch_propose_allocation (GstAggregator * agg,
    GstAggregatorPad * aggpad, GstQuery * decide_query, GstQuery * query)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (agg);
  GstCudaCacheBatchPad *pad = GST_CUDA_CACHE_BATCH_PAD (aggpad);
  GstCudaContext *context = NULL;
  GstBufferPool *pool;
  GstCaps *caps;
  gchar *reason = NULL;
  guint size = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps)
    return FALSE;
  /* strides of our own, and crops by meta (videocrop, decoders): each slot
   * reads the region in place, as cudacacheconvert does */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  context = gst_cuda_cache_element_state_ref_context (&self->state);
  pool = gst_cuda_cache_kept_pools_get (pad->kept,
      GST_CUDA_CACHE_POOL_PROPOSED, caps, context, NULL, -1, 0, 0, &size,
      &reason);
  gst_clear_object (&context);
  if (!pool) {
    GST_DEBUG_OBJECT (pad, "no pool to offer: %s", reason);
    g_free (reason);
    return TRUE;
  }
  GST_DEBUG_OBJECT (pad, "proposing %" GST_PTR_FORMAT, pool);
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
  return TRUE;
}

/* With batch-size 0 a pad more or less is a batch of another size: the
 * source pad negotiates again before the next batch */
static GstPad *
gst_cuda_cache_batch_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * name, const GstCaps * caps)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (element);
  GstPad *pad;
  gboolean follows_pads, rois_refused, full;
  guint batch_size, n_pads;

  g_mutex_lock (&self->request_lock);
  GST_OBJECT_LOCK (self);
  batch_size = self->batch_size;
  follows_pads = batch_size == 0;
  n_pads = element->numsinkpads;
  rois_refused = self->mode == GST_CUDA_CACHE_BATCH_MODE_ROIS && n_pads > 0;
  full = self->mode == GST_CUDA_CACHE_BATCH_MODE_FRAMES && batch_size > 0 &&
      n_pads >= batch_size;
  GST_OBJECT_UNLOCK (self);
  /* as muxers refuse a pad they cannot take: a warning that says why,
   * and no pad */
  if (rois_refused || full) {
    g_mutex_unlock (&self->request_lock);
    if (rois_refused)
      GST_ELEMENT_WARNING (self, CORE, PAD, ("mode=rois takes one sink pad: "
              "a second one was requested and refused"), (NULL));
    else
      GST_ELEMENT_WARNING (self, CORE, PAD, ("batch-size=%u takes %u sink "
              "pads: one more was requested and refused", batch_size,
              batch_size), (NULL));
    return NULL;
  }
  pad = GST_ELEMENT_CLASS (parent_class)->request_new_pad (element, templ,
      name, caps);
  g_mutex_unlock (&self->request_lock);
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
  gst_cuda_cache_batch_update_window (self);
  if (follows_pads)
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (element));
}

static gboolean
gst_cuda_cache_batch_stop (GstAggregator * agg)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (agg);
  GList *pads, *converters = NULL, *l;

  gst_cuda_cache_batch_flush_pending (self, FALSE);
  gst_cuda_cache_batch_reset (self);
  gst_cuda_cache_batch_stream_clear (self);
  gst_cuda_cache_batch_reset_qos (self);
  /* the converters' device frames and tables, blocks of the cache, go
   * back with the element's resources; the next start makes them again;
   * the pools offered upstream hold the context's cache group */
  pads = gst_cuda_cache_batch_take_converters (self, &converters);
  g_list_free_full (converters, gst_object_unref);
  for (l = pads; l; l = l->next)
    gst_cuda_cache_kept_pools_clear (GST_CUDA_CACHE_BATCH_PAD (l->data)->kept);
  g_list_free_full (pads, gst_object_unref);
  /* the next start takes the context it is given or finds, or its first
   * frame's, and its cache */
  gst_cuda_cache_element_state_release (&self->state);
  return TRUE;
}

/* A flush drops the batch not sent yet, once the device is done with it */
static GstFlowReturn
gst_cuda_cache_batch_flush (GstAggregator * agg)
{
  gst_cuda_cache_batch_flush_pending (GST_CUDA_CACHE_BATCH (agg), FALSE);
  gst_cuda_cache_batch_reset_qos (GST_CUDA_CACHE_BATCH (agg));
  return GST_FLOW_OK;
}

static gboolean
gst_cuda_cache_batch_src_event (GstAggregator * agg, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_QOS)
    gst_cuda_cache_batch_update_qos (GST_CUDA_CACHE_BATCH (agg), event);
  return GST_AGGREGATOR_CLASS (parent_class)->src_event (agg, event);
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
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "What fills the slots: frames (one slot per sink pad, its frame) "
          "or rois (one sink pad; each slot a region of interest of its "
          "frame, its GstVideoRegionOfInterestMeta in the order they were "
          "added, batch-size regions a batch, batch-size above 0)",
          GST_TYPE_CUDA_CACHE_BATCH_MODE, DEFAULT_MODE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "Region type",
          "mode=rois: batch only the regions of interest of this roi_type "
          "(the meta's type name, e.g. \"face\"); empty: every region",
          DEFAULT_ROI_TYPE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_DROPPED,
      g_param_spec_uint64 ("dropped", "Dropped",
          "Frames never batched, all pads together (each pad's own count is "
          "its dropped property): in a live pipeline, frames that came "
          "after their batch's window went out, the older of two frames of "
          "one window, and the frames of batches late for downstream (QoS); "
          "0 in a pipeline that is not live", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_cuda_cache_element_state_install (gobject_class, PROP_FIRST_STATE,
      GST_CUDA_CACHE_ELEMENT_N_COMMON_PROPS);
  g_object_class_install_property (gobject_class, PROP_TENSOR_META,
      gst_cuda_cache_param_spec_tensor_meta ());
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
  agg_class->clip = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_clip);
  agg_class->peek_next_sample =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_peek_next_sample);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_stop);
  agg_class->flush = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_flush);
  /* live: a batch goes out once every pad has a frame queued (of its
   * window or a later one), or at the window's deadline (its start plus
   * the latency), the slots of pads without a frame of it absent */
  agg_class->get_next_time =
      GST_DEBUG_FUNCPTR (gst_aggregator_simple_get_next_time);
  agg_class->src_event = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_src_event);
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_src_query);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_sink_query);
  agg_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_propose_allocation);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_batch_debug, "cudacachebatch", 0,
      "CUDA cache batcher");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CACHE_BATCH_PAD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CACHE_BATCH_MODE, 0);
}

static void
gst_cuda_cache_batch_init (GstCudaCacheBatch * self)
{
  self->batch_size = DEFAULT_BATCH_SIZE;
  self->mode = DEFAULT_MODE;
  g_mutex_init (&self->request_lock);
  self->window = GST_CLOCK_TIME_NONE;
  gst_cuda_cache_batch_reset_qos (self);
  gst_cuda_cache_element_state_init (&self->state, GST_ELEMENT (self));
  self->tensor_meta = TRUE;
  self->roi_type = g_strdup (DEFAULT_ROI_TYPE);
  gst_cuda_cache_convert_options_init (&self->options);
  gst_cuda_cache_batch_update_window (self);
}
