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
 * pad absent.
 *
 * ## Pads of different frame rates
 *
 * In a pipeline that is not live, each batch takes the next frame of
 * every pad and waits for it: every frame of every pad is batched once,
 * none is dropped, and a faster stream's frames simply take more batches
 * (its slots go absent after the slower streams end).
 *
 * In a live pipeline a batch goes out as soon as every pad has a frame,
 * or at its deadline: the running time of the oldest frame queued, plus
 * the upstream latency and the element's `latency`. A pad without a
 * frame by then leaves its slot absent. Each batch takes each pad's
 * **newest** queued frame and drops the older ones of that pad (a camera
 * faster than the batches, or than what is downstream of them), so a slot
 * is never older than it has to be. The drops are counted on each sink
 * pad (#GstCudaCacheBatchPad:dropped) and in all (#GstCudaCacheBatch:dropped),
 * and logged one by one at the DEBUG level. As `videorate` and
 * #GstVideoAggregator do for the input frames they leave out, the element
 * posts no QoS message for them: a QoS message says a frame was late, and
 * these are frames the policy replaced by newer ones.
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
 * batch is in running time: from its earliest frame to the earliest end
 * among its frames, never overlapping the batch before. The element
 * reports its latency, what a live batch takes to convert (measured; it
 * grows, with a latency message, when a batch takes longer).
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

#include <string.h>

#include <gst/video/video.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachebatch.h"
#include "gstcudacacheconvertoptions.h"
#include "gstcudacacheelementprops.h"
#include "gstcudacachekeptpools.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_batch_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_batch_debug

enum
{
  PROP_0,
  PROP_BATCH_SIZE,
  PROP_MODE,
  PROP_ROI_TYPE,
  PROP_DROPPED,
  PROP_DEVICE_ID,
  PROP_CACHE_LIMIT,
  PROP_STATS_INTERVAL,
  PROP_FIRST_OPTION,
};

#define DEFAULT_BATCH_SIZE 0
#define DEFAULT_MODE GST_CUDA_CACHE_BATCH_MODE_FRAMES
#define DEFAULT_ROI_TYPE ""

enum
{
  PROP_PAD_0,
  PROP_PAD_DROPPED,
};

/**
 * GstCudaCacheBatchMode:
 * @GST_CUDA_CACHE_BATCH_MODE_FRAMES: one slot per sink pad, its frame
 * @GST_CUDA_CACHE_BATCH_MODE_ROIS: one sink pad; a slot per
 *   #GstVideoRegionOfInterestMeta of its frames
 *
 * What fills the slots of a batch (#GstCudaCacheBatch:mode).
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_CACHE_BATCH_MODE_FRAMES,
  GST_CUDA_CACHE_BATCH_MODE_ROIS,
} GstCudaCacheBatchMode;

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

struct _GstCudaCacheBatchPad
{
  GstAggregatorPad parent;

  /* the aggregator's thread */
  GstCaps *caps;
  GstCudaCacheConverter *converter;
  /* new caps or options since the converter was set up: it is set up
   * again (kernels and stream kept) at the pad's next frame */
  gboolean stale;
  /* the pools the pad offers upstream, over the cache */
  GstCudaCacheKeptPools *kept;
  /* while samples-selected is emitted: the frame the batch took */
  GstBuffer *selected;

  /* under the pad's object lock */
  guint64 dropped;              /* live: older frames a newer one replaced */
};

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
          "Frames of this pad never batched: in a live pipeline each batch "
          "takes the pad's newest queued frame and drops the older ones "
          "(0 in a pipeline that is not live)", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

static void
gst_cuda_cache_batch_pad_init (GstCudaCacheBatchPad * pad)
{
  pad->kept = gst_cuda_cache_kept_pools_new (GST_OBJECT (pad));
}

struct _GstCudaCacheBatch
{
  GstAggregator parent;

  /* properties, under the object lock */
  guint batch_size;
  GstCudaCacheBatchMode mode;
  gchar *roi_type;
  GQuark roi_type_quark;        /* 0: every region */
  guint64 dropped;              /* the pads' together */
  GstCudaCacheConvertOptions options;

  /* the aggregator's thread */
  GstCudaCacheTensorInfo out_info;      /* the batch */
  GstCaps *slot_caps;           /* one slot: the batch's, of 1 */
  gboolean cuda;                /* batches of CUDA memory */
  GstCudaContext *context;      /* the inputs' (CUDA memory) */
  GstBufferPool *batch_pool;
  /* rois: a converter per slot, its source rectangle set to the region
   * the slot shows, and the conversion options they are made from */
  GstCudaCacheConverter **roi_converters;
  guint n_roi_converters;
  GstStructure *roi_config;
  /* not live, CUDA batches: the batch launched last, held while the next
   * one is prepared (its frames were queued when it launched), sent once
   * that is launched, with what it reads until it is written: its frames
   * and converters */
  GstBuffer *pending;
  GstClockTime pending_pts;
  GstClockTime pending_end;
  GPtrArray *pending_frames;
  GPtrArray *pending_converters;
  /* the stream of the batches, in the inputs' context, made with the
   * first: one stream orders each launch after the one before */
  CUstream stream;

  /* under the object lock: the properties every element has
   * (gstcudacacheelementprops.h); the cache the batches come from, known
   * once their pool is made; the cache-limit last written, when (0:
   * never), and the cache it was offered to */
  gint device_id;
  GstCudaCache *cache;
  guint64 limit_bytes;
  gint64 limit_asked_at;
  GstCudaCache *limit_cache;
  guint stats_interval_ms;
  GstClockTime last_stats;

  /* the aggregator's thread: the latency reported (update_latency ()) */
  GstClockTime latency;

  /* held across a pad request, so that mode=rois's one-pad check and the
   * pad it admits are one step (two requests at once get one pad) */
  GMutex request_lock;
};

#define gst_cuda_cache_batch_parent_class parent_class
G_DEFINE_TYPE (GstCudaCacheBatch, gst_cuda_cache_batch, GST_TYPE_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE (cudacachebatch, "cudacachebatch",
    GST_RANK_NONE, GST_TYPE_CUDA_CACHE_BATCH);

static void
gst_cuda_cache_batch_clear_roi_converters (GstCudaCacheBatch * self)
{
  guint i;

  for (i = 0; i < self->n_roi_converters; i++)
    gst_clear_object (&self->roi_converters[i]);
  g_clear_pointer (&self->roi_converters, g_free);
  self->n_roi_converters = 0;
}

static GstFlowReturn gst_cuda_cache_batch_finish (GstCudaCacheBatch * self,
    GstBuffer * outbuf, GstClockTime pts, GstClockTime end);

/* Waits for the pending batch, if any, and sends it (@send) or drops it
 * (flushing, stopping). Its frames and converters go once it is
 * written. */
static GstFlowReturn
gst_cuda_cache_batch_flush_pending (GstCudaCacheBatch * self, gboolean send)
{
  GstBuffer *outbuf = g_steal_pointer (&self->pending);
  GError *error = NULL;
  GstFlowReturn ret = GST_FLOW_OK;

  if (!outbuf)
    return GST_FLOW_OK;
  if (!gst_cuda_cache_converter_wait_batch (outbuf, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", error ? error->message :
            "the batch's conversion failed"), (NULL));
    g_clear_error (&error);
    send = FALSE;
    ret = GST_FLOW_ERROR;
  }
  g_ptr_array_set_size (self->pending_frames, 0);
  g_ptr_array_set_size (self->pending_converters, 0);
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
  if (!self->stream && self->context && gst_cuda_context_push (self->context)) {
    if (!gst_cuda_result (CuStreamCreate (&self->stream,
                CU_STREAM_NON_BLOCKING)))
      self->stream = NULL;
    gst_cuda_context_pop (NULL);
  }
  return self->stream;
}

static void
gst_cuda_cache_batch_stream_clear (GstCudaCacheBatch * self)
{
  if (self->stream && gst_cuda_context_push (self->context)) {
    gst_cuda_result (CuStreamDestroy (self->stream));
    gst_cuda_context_pop (NULL);
  }
  self->stream = NULL;
}

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

/* Offers the cache-limit last written to the batches' cache, once per
 * cache (@again: a new write), where both are known: a limit set later on
 * the cache, by anyone, wins (gst_cuda_cache_set_limit_if_newer ()) */
static void
gst_cuda_cache_batch_offer_limit (GstCudaCacheBatch * self, gboolean again)
{
  GstCudaCache *cache = NULL;
  guint64 limit_bytes;
  gint64 asked_at;

  GST_OBJECT_LOCK (self);
  limit_bytes = self->limit_bytes;
  asked_at = self->limit_asked_at;
  if (self->cache && asked_at != 0 && (again || self->limit_cache !=
          self->cache)) {
    cache = gst_object_ref (self->cache);
    gst_object_replace ((GstObject **) & self->limit_cache,
        (GstObject *) cache);
  }
  GST_OBJECT_UNLOCK (self);
  if (!cache)
    return;
  if (gst_cuda_cache_set_limit_if_newer (cache, limit_bytes, asked_at))
    GST_DEBUG_OBJECT (self, "cache-limit %" G_GUINT64_FORMAT " applied to %"
        GST_PTR_FORMAT, limit_bytes, cache);
  gst_object_unref (cache);
}

/* stats-interval: the batches' cache's statistics once the interval has
 * passed since the last (@now: at once, as at the end of the stream) */
static void
gst_cuda_cache_batch_post_stats (GstCudaCacheBatch * self, gboolean now)
{
  GstCudaCache *cache = NULL;
  GstClockTime interval, t = gst_util_get_timestamp ();

  GST_OBJECT_LOCK (self);
  interval = self->stats_interval_ms * GST_MSECOND;
  if (interval > 0 && self->cache) {
    if (!GST_CLOCK_TIME_IS_VALID (self->last_stats) && !now)
      self->last_stats = t;
    else if (now || t - self->last_stats >= interval) {
      self->last_stats = t;
      cache = gst_object_ref (self->cache);
    }
  }
  GST_OBJECT_UNLOCK (self);
  if (cache) {
    gst_cuda_cache_post_stats (GST_ELEMENT (self), cache, self->cuda);
    gst_object_unref (cache);
  }
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
  } else if (prop_id == PROP_DEVICE_ID) {
    GST_OBJECT_LOCK (self);
    self->device_id = g_value_get_int (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_CACHE_LIMIT) {
    GST_OBJECT_LOCK (self);
    self->limit_bytes = g_value_get_uint64 (value);
    self->limit_asked_at = g_get_monotonic_time ();
    GST_OBJECT_UNLOCK (self);
    gst_cuda_cache_batch_offer_limit (self, TRUE);
  } else if (prop_id == PROP_STATS_INTERVAL) {
    GST_OBJECT_LOCK (self);
    self->stats_interval_ms = g_value_get_uint (value);
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
  } else if (prop_id == PROP_DEVICE_ID) {
    GST_OBJECT_LOCK (self);
    g_value_set_int (value, self->device_id);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_CACHE_LIMIT) {
    GstCudaCache *cache;
    guint64 limit_bytes;

    /* the negotiated cache's limit; before, the value written or 0 */
    GST_OBJECT_LOCK (self);
    cache = self->cache ? gst_object_ref (self->cache) : NULL;
    limit_bytes = self->limit_asked_at != 0 ? self->limit_bytes : 0;
    GST_OBJECT_UNLOCK (self);
    if (cache) {
      limit_bytes = gst_cuda_cache_get_limit (cache);
      gst_object_unref (cache);
    }
    g_value_set_uint64 (value, limit_bytes);
  } else if (prop_id == PROP_STATS_INTERVAL) {
    GST_OBJECT_LOCK (self);
    g_value_set_uint (value, self->stats_interval_ms);
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

  gst_cuda_cache_batch_flush_pending (self, FALSE);
  gst_cuda_cache_batch_reset (self);
  gst_cuda_cache_batch_stream_clear (self);
  gst_clear_object (&self->context);
  g_ptr_array_unref (self->pending_frames);
  g_ptr_array_unref (self->pending_converters);
  g_free (self->roi_type);
  gst_cuda_cache_convert_options_clear (&self->options);
  g_mutex_clear (&self->request_lock);
  gst_clear_object (&self->cache);
  gst_clear_object (&self->limit_cache);
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
  GList *l;

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
    pad->stale = TRUE;
  }

  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, aggpad, event);
}

/* Frames before or after their pad's segment are not batched, as
 * videoaggregator clips them */
static GstBuffer *
gst_cuda_cache_batch_clip (GstAggregator * agg, GstAggregatorPad * aggpad,
    GstBuffer * buf)
{
  GstClockTime start = GST_BUFFER_PTS (buf), stop = GST_CLOCK_TIME_NONE;
  gboolean inside;

  GST_OBJECT_LOCK (aggpad);
  if (!GST_CLOCK_TIME_IS_VALID (start) ||
      aggpad->segment.format != GST_FORMAT_TIME) {
    GST_OBJECT_UNLOCK (aggpad);
    return buf;
  }
  if (GST_BUFFER_DURATION_IS_VALID (buf))
    stop = start + GST_BUFFER_DURATION (buf);
  inside = gst_segment_clip (&aggpad->segment, GST_FORMAT_TIME, start, stop,
      NULL, NULL);
  GST_OBJECT_UNLOCK (aggpad);
  if (inside)
    return buf;
  GST_DEBUG_OBJECT (aggpad, "frame of %" GST_TIME_FORMAT " outside the "
      "segment: not batched", GST_TIME_ARGS (start));
  gst_buffer_unref (buf);
  return NULL;
}

/* The sink pads, each with a reference, for a walk outside the lock */
static GList *
gst_cuda_cache_batch_ref_sink_pads (GstElement * element)
{
  GList *pads = NULL, *l;

  GST_OBJECT_LOCK (element);
  for (l = element->sinkpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (element);
  return pads;
}

/* The element's latency: what a batch's conversion takes, from its
 * deadline to its push, so that a syncing sink downstream receives it in
 * time. Measured: each batch that takes longer than the latency reported
 * raises it to twice that time (rounded up to a millisecond, at most a
 * second), and gst_aggregator_set_latency () tells the pipeline. Live
 * pipelines add it to the upstream latency; the latency property adds to
 * it (and sets how long a batch waits for slower pads). */
static void
gst_cuda_cache_batch_update_latency (GstCudaCacheBatch * self,
    GstClockTime took)
{
  GstClockTime latency;

  if (took <= self->latency)
    return;
  latency = MIN (GST_SECOND, gst_util_uint64_scale_ceil (2 * took, 1,
          GST_MSECOND) * GST_MSECOND);
  GST_DEBUG_OBJECT (self, "a batch took %" GST_TIME_FORMAT ": latency %"
      GST_TIME_FORMAT, GST_TIME_ARGS (took), GST_TIME_ARGS (latency));
  self->latency = latency;
  gst_aggregator_set_latency (GST_AGGREGATOR (self), latency, latency);
}

/* A pool of @caps, in the output's kind of memory, active */
static GstBufferPool *
gst_cuda_cache_batch_pool_new (GstCudaCacheBatch * self, GstCaps * caps,
    gsize size)
{
  GstBufferPool *pool = self->cuda ? gst_cuda_cache_pool_new (self->context) :
      gst_cuda_cache_system_pool_new (NULL);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCudaCache *cache = self->cuda ?
      gst_cuda_cache_device_get_cache (self->context) :
      gst_cuda_cache_get_system ();

  GST_OBJECT_LOCK (self);
  gst_object_replace ((GstObject **) & self->cache, (GstObject *) cache);
  GST_OBJECT_UNLOCK (self);
  gst_object_unref (cache);
  gst_cuda_cache_batch_offer_limit (self, FALSE);

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
  GST_OBJECT_LOCK (self);
  device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);
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
  GST_OBJECT_LOCK (self);
  if (!self->context)
    self->context = gst_object_ref (context);
  GST_OBJECT_UNLOCK (self);
  if (context != self->context) {
    gst_cuda_cache_batch_flush_pending (self, TRUE);
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
    gst_cuda_cache_batch_flush_pending (self, TRUE);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: a frame before caps",
            GST_PAD_NAME (pad)), (NULL));
    return NULL;
  }
  if (pad->converter && pad->stale) {
    GstStructure *config = gst_cuda_cache_convert_options_take_config
        (&self->options, GST_ELEMENT (self));

    if (!gst_cuda_cache_converter_reconfigure (pad->converter, pad->caps,
            self->slot_caps, config, &error)) {
      gst_cuda_cache_batch_flush_pending (self, TRUE);
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s: %s",
              GST_PAD_NAME (pad), error ? error->message : "cannot convert"),
          ("from %" GST_PTR_FORMAT " to %" GST_PTR_FORMAT, pad->caps,
              self->slot_caps));
      g_clear_error (&error);
      return NULL;
    }
    pad->stale = FALSE;
  }
  if (!pad->converter) {
    GstStructure *config = gst_cuda_cache_convert_options_take_config
        (&self->options, GST_ELEMENT (self));

    pad->stale = FALSE;
    pad->converter = gst_cuda_cache_converter_new (pad->caps,
        self->slot_caps, self->cuda ? self->context : NULL, config, &error);
    if (!pad->converter) {
      gst_cuda_cache_batch_flush_pending (self, TRUE);
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

/* Slot @index of @meta: @buf's, converted by @converter, cut from the
 * region of interest @roi_id (-1: the whole frame) */
static void
gst_cuda_cache_batch_set_slot (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad, GstCudaCacheConverter * converter,
    GstBuffer * buf, guint index, gint roi_id, GstCudaCacheBatchMeta * meta)
{
  /* the converter's picture meta, on a buffer of no memory */
  GstBuffer *holder = gst_buffer_new ();
  GstCudaCachePictureMeta *pmeta =
      gst_cuda_cache_converter_add_picture_meta (converter, holder);
  gchar *stream_id = gst_pad_get_stream_id (GST_PAD (pad));

  gst_cuda_cache_batch_meta_set_slot (meta, index, GST_PAD_NAME (pad),
      stream_id, GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf), pmeta,
      roi_id);
  g_free (stream_id);
  gst_buffer_unref (holder);
}

/* The frame @pad gives the next batch: its next one or, @live, its newest
 * queued, the older ones dropped and counted (frames a live source made
 * faster than batches go out) */
static GstBuffer *
gst_cuda_cache_batch_pad_take (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad, gboolean live)
{
  GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (pad);
  GstBuffer *buf = gst_aggregator_pad_pop_buffer (aggpad);
  GstBuffer *newer;

  while (live && buf && (newer = gst_aggregator_pad_pop_buffer (aggpad))) {
    GST_DEBUG_OBJECT (pad, "dropping the frame of %" GST_TIME_FORMAT
        ": a newer one (%" GST_TIME_FORMAT ") is queued",
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
        GST_TIME_ARGS (GST_BUFFER_PTS (newer)));
    GST_OBJECT_LOCK (pad);
    pad->dropped++;
    GST_OBJECT_UNLOCK (pad);
    GST_OBJECT_LOCK (self);
    self->dropped++;
    GST_OBJECT_UNLOCK (self);
    gst_buffer_unref (buf);
    buf = newer;
  }
  return buf;
}

/* A batch buffer from the element's pool, with its meta */
static GstBuffer *
gst_cuda_cache_batch_acquire (GstCudaCacheBatch * self, guint n)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstBuffer *outbuf = NULL;

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
    gst_cuda_cache_batch_flush_pending (self, TRUE);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, ("no memory for a "
            "batch of %" G_GSIZE_FORMAT " bytes", self->out_info.size), (NULL));
    return NULL;
  }
  gst_buffer_add_cuda_cache_batch_meta (outbuf, n);
  return outbuf;
}

/* @pts and @end, running times, in the output's segment, never before the
 * end of what went out before; moves the output's position to the end
 * where @advance (gst_cuda_cache_batch_output_times ()).
 * As videoaggregator's, the output's time is running time: frames of
 * pads whose segments differ are compared on one clock. */
static void
gst_cuda_cache_batch_to_output (GstCudaCacheBatch * self, GstClockTime * pts,
    GstClockTime * end, gboolean advance)
{
  GstSegment *segment =
      &GST_AGGREGATOR_PAD (GST_AGGREGATOR (self)->srcpad)->segment;

  if (!GST_CLOCK_TIME_IS_VALID (*pts))
    return;
  GST_OBJECT_LOCK (self);
  *pts = gst_segment_position_from_running_time (segment, GST_FORMAT_TIME,
      *pts);
  if (GST_CLOCK_TIME_IS_VALID (*end))
    *end = gst_segment_position_from_running_time (segment, GST_FORMAT_TIME,
        *end);
  if (GST_CLOCK_TIME_IS_VALID (segment->position) &&
      (!GST_CLOCK_TIME_IS_VALID (*pts) || *pts < segment->position))
    *pts = segment->position;
  if (GST_CLOCK_TIME_IS_VALID (*end) && GST_CLOCK_TIME_IS_VALID (*pts) &&
      *end < *pts)
    *end = *pts;
  if (advance && GST_CLOCK_TIME_IS_VALID (*pts))
    segment->position = GST_CLOCK_TIME_IS_VALID (*end) ? *end : *pts;
  GST_OBJECT_UNLOCK (self);
}

#define gst_cuda_cache_batch_output_times(self, pts, end) \
    gst_cuda_cache_batch_to_output (self, pts, end, TRUE)

/* Sends @outbuf, of output times @pts to @end */
static GstFlowReturn
gst_cuda_cache_batch_send (GstCudaCacheBatch * self, GstBuffer * outbuf,
    GstClockTime pts, GstClockTime end)
{
  GST_BUFFER_PTS (outbuf) = pts;
  GST_BUFFER_DURATION (outbuf) = GST_CLOCK_TIME_IS_VALID (end) &&
      GST_CLOCK_TIME_IS_VALID (pts) ? end - pts : GST_CLOCK_TIME_NONE;
  return gst_aggregator_finish_buffer (GST_AGGREGATOR (self), outbuf);
}

/* Sends @outbuf of running times @pts to @end, in the output's time */
static GstFlowReturn
gst_cuda_cache_batch_finish (GstCudaCacheBatch * self, GstBuffer * outbuf,
    GstClockTime pts, GstClockTime end)
{
  gst_cuda_cache_batch_output_times (self, &pts, &end);
  return gst_cuda_cache_batch_send (self, outbuf, pts, end);
}

/* @buf's start and end in running time on @pad's segment; NONE where it
 * has none */
static void
gst_cuda_cache_batch_running_times (GstAggregatorPad * pad, GstBuffer * buf,
    GstClockTime * start, GstClockTime * end)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);

  *start = *end = GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (pad);
  if (GST_CLOCK_TIME_IS_VALID (pts) && pad->segment.format == GST_FORMAT_TIME) {
    *start = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME, pts);
    if (GST_BUFFER_DURATION_IS_VALID (buf))
      *end = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME,
          pts + GST_BUFFER_DURATION (buf));
  }
  GST_OBJECT_UNLOCK (pad);
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
        self->slot_caps, self->cuda ? self->context : NULL, config, &error);
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

/* rois, a frame without a region: no batch, a GAP event for its time
 * (running times @pts to @end, moved to the output's) so that downstream
 * (a sink prerolling, a live mixer) moves on */
static void
gst_cuda_cache_batch_push_gap (GstCudaCacheBatch * self, GstPad * pad,
    GstClockTime pts, GstClockTime end)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  GstEvent *segment;

  gst_cuda_cache_batch_output_times (self, &pts, &end);
  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return;
  /* before the first batch the aggregator has sent no segment yet: the
   * one it will send, with the seqnum it gives it (the input segment's) */
  segment = gst_pad_get_sticky_event (agg->srcpad, GST_EVENT_SEGMENT, 0);
  if (!segment) {
    GstEvent *input = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
    GstSegment copy;
    GstEvent *event;

    GST_OBJECT_LOCK (self);
    copy = GST_AGGREGATOR_PAD (agg->srcpad)->segment;
    GST_OBJECT_UNLOCK (self);
    event = gst_event_new_segment (&copy);
    if (input) {
      gst_event_set_seqnum (event, gst_event_get_seqnum (input));
      gst_event_unref (input);
    }
    gst_pad_push_event (agg->srcpad, event);
  }
  gst_clear_event (&segment);
  gst_pad_push_event (agg->srcpad, gst_event_new_gap (pts,
          GST_CLOCK_TIME_IS_VALID (end) ? end - pts : GST_CLOCK_TIME_NONE));
}

/* rois: the batches of @pad's frame @buf, batch-size regions each, the
 * last one's other slots absent; none for a frame without a region */
static GstFlowReturn
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

/* The frame of @aggpad the batch being made takes (within
 * samples-selected), or the next one queued, with its caps and segment */
static GstSample *
gst_cuda_cache_batch_peek_next_sample (GstAggregator * agg,
    GstAggregatorPad * aggpad)
{
  GstCudaCacheBatchPad *pad = GST_CUDA_CACHE_BATCH_PAD (aggpad);
  GstBuffer *buf = pad->selected ? gst_buffer_ref (pad->selected) :
      gst_aggregator_pad_peek_buffer (aggpad);
  GstSample *sample;

  if (!buf)
    return NULL;
  GST_OBJECT_LOCK (aggpad);
  sample = gst_sample_new (buf, pad->caps, &aggpad->segment, NULL);
  GST_OBJECT_UNLOCK (aggpad);
  gst_buffer_unref (buf);
  return sample;
}

/* The aggregator's samples-selected, for the batch of @bufs (running
 * times @pts to @end): a handler reads each pad's frame with
 * gst_aggregator_peek_next_sample () */
static void
gst_cuda_cache_batch_selected (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad ** pads, GstBuffer ** bufs, guint n_pads,
    GstClockTime pts, GstClockTime end)
{
  guint i;

  gst_cuda_cache_batch_to_output (self, &pts, &end, FALSE);
  for (i = 0; i < n_pads; i++)
    pads[i]->selected = bufs[i];
  gst_aggregator_selected_samples (GST_AGGREGATOR (self), pts,
      GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_IS_VALID (end) &&
      GST_CLOCK_TIME_IS_VALID (pts) ? end - pts : GST_CLOCK_TIME_NONE, NULL);
  for (i = 0; i < n_pads; i++)
    pads[i]->selected = NULL;
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

static GstFlowReturn
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
  GError *error = NULL;
  guint n_pads = 0, i, n_bufs = 0, launches = 0;
  gboolean all_eos = TRUE, options_changed, rois, follows_pads, pipelined;
  gboolean live = GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (agg));
  GstClockTime started;
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

  for (i = 0; i < n_pads; i++) {
    GstAggregatorPad *aggpad = GST_AGGREGATOR_PAD (pads[i]);

    bufs[i] = gst_cuda_cache_batch_pad_take (self, pads[i], live);
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
    started = gst_util_get_timestamp ();
    ret = gst_cuda_cache_batch_aggregate_rois (self, pads[0], bufs[0]);
    if (live)
      gst_cuda_cache_batch_update_latency (self,
          gst_util_get_timestamp () - started);
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
  started = gst_util_get_timestamp ();
  if (!(pipelined ? gst_cuda_cache_converter_launch_batch :
          gst_cuda_cache_converter_convert_batch) (converters, bufs, n,
          outbuf, self->cuda ? gst_cuda_cache_batch_stream (self) : NULL,
          &launches, &error)) {
    gst_cuda_cache_batch_post_error (self, pads, n_pads, error);
    g_clear_error (&error);
    ret = GST_FLOW_ERROR;
    goto done;
  }
  GST_LOG_OBJECT (self, "a batch of %u, %u frames, in %u launches%s", n,
      n_bufs, launches, pipelined ? ", launched" : "");
  /* live, each batch is converted whole before it is sent */
  if (live)
    gst_cuda_cache_batch_update_latency (self,
        gst_util_get_timestamp () - started);
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
    gst_cuda_cache_converter_wait_batch (outbuf, NULL);
  } else {
    self->pending = g_steal_pointer (&outbuf);
    self->pending_pts = pts;
    self->pending_end = end;
    for (i = 0; i < n_pads; i++) {
      if (!bufs[i])
        continue;
      g_ptr_array_add (self->pending_frames, g_steal_pointer (&bufs[i]));
      g_ptr_array_add (self->pending_converters,
          gst_object_ref (converters[i]));
    }
    /* held back only while the next batch's frames are there to be
     * prepared meanwhile: an application that waits for this batch
     * before it sends more gets it now */
    if (!gst_cuda_cache_batch_next_queued (pads, n_pads))
      ret = gst_cuda_cache_batch_flush_pending (self, TRUE);
  }

done:
  /* the statistics while batches flow, and once more at the end */
  if (ret == GST_FLOW_OK || ret == GST_FLOW_EOS)
    gst_cuda_cache_batch_post_stats (self, ret == GST_FLOW_EOS);
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

/* Live, the running time a batch is due by, less the latency: its
 * oldest queued frame's. A batch goes out once every pad has a frame, or
 * at that deadline with the frames there are then; with no frame queued
 * there is no deadline. */
static GstClockTime
gst_cuda_cache_batch_get_next_time (GstAggregator * agg)
{
  GstClockTime next = GST_CLOCK_TIME_NONE;
  GList *pads = gst_cuda_cache_batch_ref_sink_pads (GST_ELEMENT (agg)), *l;

  for (l = pads; l; l = l->next) {
    GstAggregatorPad *aggpad = l->data;
    GstBuffer *buf = gst_aggregator_pad_peek_buffer (aggpad);
    GstClockTime t = GST_CLOCK_TIME_NONE;

    if (!buf)
      continue;
    GST_OBJECT_LOCK (aggpad);
    if (GST_BUFFER_PTS_IS_VALID (buf) && aggpad->segment.format ==
        GST_FORMAT_TIME)
      t = gst_segment_to_running_time (&aggpad->segment, GST_FORMAT_TIME,
          GST_BUFFER_PTS (buf));
    GST_OBJECT_UNLOCK (aggpad);
    gst_buffer_unref (buf);
    /* a frame of no time is due at once */
    if (!GST_CLOCK_TIME_IS_VALID (t))
      t = 0;
    if (!GST_CLOCK_TIME_IS_VALID (next) || t < next)
      next = t;
  }
  g_list_free_full (pads, gst_object_unref);
  return next;
}

/* The pipeline's CUDA context, as nvcodec's elements share it: given by
 * the bin (set_context) or a neighbour (query), else the first CUDA
 * frame's. Frames of another context are refused. */
static void
gst_cuda_cache_batch_set_context (GstElement * element, GstContext * context)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (element);
  GstCudaContext *cuda = NULL;
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);
  /* not under the object lock: gst-cuda logs with the element's path */
  if (gst_cuda_handle_set_context (element, context, device_id, &cuda) && cuda) {
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
  GST_OBJECT_LOCK (self);
  if (self->context)
    context = gst_object_ref (self->context);
  GST_OBJECT_UNLOCK (self);
  pool = gst_cuda_cache_kept_pools_get (pad->kept,
      GST_CUDA_CACHE_POOL_PROPOSED, caps, context, NULL, 0, 0, &size, &reason);
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
  gboolean follows_pads, refused;

  g_mutex_lock (&self->request_lock);
  GST_OBJECT_LOCK (self);
  follows_pads = self->batch_size == 0;
  refused = self->mode == GST_CUDA_CACHE_BATCH_MODE_ROIS &&
      element->numsinkpads > 0;
  GST_OBJECT_UNLOCK (self);
  /* as muxers refuse a pad they cannot take: a warning that says why,
   * and no pad */
  if (refused) {
    g_mutex_unlock (&self->request_lock);
    GST_ELEMENT_WARNING (self, CORE, PAD, ("mode=rois takes one sink pad: "
            "a second one was requested and refused"), (NULL));
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
  if (follows_pads)
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (element));
}

static gboolean
gst_cuda_cache_batch_stop (GstAggregator * agg)
{
  GstCudaCacheBatch *self = GST_CUDA_CACHE_BATCH (agg);
  GstCudaContext *context;
  GstCudaCache *cache, *limit_cache;
  GList *l;

  gst_cuda_cache_batch_flush_pending (self, FALSE);
  gst_cuda_cache_batch_reset (self);
  gst_cuda_cache_batch_stream_clear (self);
  /* the converters' device frames and tables, blocks of the cache, go
   * back with the element's resources; the next start makes them again */
  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next) {
    gst_clear_object (&GST_CUDA_CACHE_BATCH_PAD (l->data)->converter);
    /* the pools offered upstream hold the context's cache group */
    gst_cuda_cache_kept_pools_clear (GST_CUDA_CACHE_BATCH_PAD (l->data)->kept);
  }
  /* the next start takes the context it is given, or its first frame's,
   * and its cache */
  context = g_steal_pointer (&self->context);
  cache = g_steal_pointer (&self->cache);
  limit_cache = g_steal_pointer (&self->limit_cache);
  self->last_stats = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&cache);
  gst_clear_object (&limit_cache);
  gst_clear_object (&context);
  return TRUE;
}

/* A flush drops the batch not sent yet, once the device is done with it */
static GstFlowReturn
gst_cuda_cache_batch_flush (GstAggregator * agg)
{
  gst_cuda_cache_batch_flush_pending (GST_CUDA_CACHE_BATCH (agg), FALSE);
  return GST_FLOW_OK;
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
          "its dropped property): in a live pipeline each batch takes each "
          "pad's newest queued frame and drops the older ones; 0 in a "
          "pipeline that is not live", 0, G_MAXUINT64, 0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      gst_cuda_cache_param_spec_device_id ());
  g_object_class_install_property (gobject_class, PROP_CACHE_LIMIT,
      gst_cuda_cache_param_spec_cache_limit ());
  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      gst_cuda_cache_param_spec_stats_interval ());
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
  /* live: a batch goes out at its deadline, the slots of pads without a
   * frame by then absent */
  agg_class->get_next_time =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_batch_get_next_time);
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
  self->latency = 0;
  self->device_id = -1;
  self->last_stats = GST_CLOCK_TIME_NONE;
  self->roi_type = g_strdup (DEFAULT_ROI_TYPE);
  gst_cuda_cache_convert_options_init (&self->options);
  self->pending_frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  self->pending_converters = g_ptr_array_new_with_free_func (gst_object_unref);
}
