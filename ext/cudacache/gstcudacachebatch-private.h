/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* What the files of cudacachebatch share: the element and its pads
 * (gstcudacachebatch.c), its frames mode and the batches' conversion
 * (gstcudacachebatchframes.c), its mode=rois (gstcudacachebatchrois.c)
 * and its time (gstcudacachebatchtime.c). */

#ifndef __GST_CUDA_CACHE_BATCH_PRIVATE_H__
#define __GST_CUDA_CACHE_BATCH_PRIVATE_H__

#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudacache/cudacache.h>

#include "gstcudacachebatch.h"
#include "gstcudacacheconvertoptions.h"
#include "gstcudacacheelementstate.h"
#include "gstcudacachekeptpools.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_cache_batch_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_batch_debug

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
  guint64 dropped;              /* live: frames never batched */
  GstClockTime frame_duration;  /* its caps' framerate's; NONE: none */
};

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
  GstBufferPool *batch_pool;
  /* rois: a converter per slot, its source rectangle set to the region
   * the slot shows, and the conversion options they are made from */
  GstCudaCacheConverter **roi_converters;
  guint n_roi_converters;
  GstStructure *roi_config;
  /* not live, CUDA batches: the batch launched last, held while the next
   * one is prepared (its frames were queued when it launched), sent once
   * that is launched; its launch keeps what it reads until it is written */
  GstBuffer *pending;
  GstCudaCacheBatchLaunch *pending_launch;
  GstClockTime pending_pts;
  GstClockTime pending_end;
  /* the stream of the batches, in the inputs' context, made with the
   * first: one stream orders each launch after the one before */
  CUstream stream;

  /* under the object lock: the properties every element has, the
   * context (the inputs', CUDA memory), the cache the batches come from
   * (known once their pool is made), its limit and the stats, as every
   * element keeps them (gstcudacacheelementstate.h). The aggregator's
   * thread reads state.context without the lock once a frame has set it
   * (gst_cuda_cache_batch_check_memory ()): it is only written while
   * NULL, and cleared at stop, which waits for that thread */
  GstCudaCacheElementState state;
  gint tensor_meta;             /* atomic, not under the lock */

  /* under the object lock: live, the running time a batch covers (the
   * fastest pad's frame duration), which is also the latency reported;
   * downstream's last QoS and the batches it let through or dropped */
  GstClockTime window;
  gdouble proportion;
  GstClockTime earliest_time;
  guint64 qos_processed;
  guint64 qos_dropped;

  /* held across a pad request, so that mode=rois's one-pad check and the
   * pad it admits are one step (two requests at once get one pad) */
  GMutex request_lock;
};

/* frames mode, and every batch's buffer, slots and conversion
 * (gstcudacachebatchframes.c) */
G_GNUC_INTERNAL
GstFlowReturn gst_cuda_cache_batch_aggregate (GstAggregator * agg,
    gboolean timeout);

G_GNUC_INTERNAL
GstFlowReturn gst_cuda_cache_batch_flush_pending (GstCudaCacheBatch * self,
    gboolean send);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_stream_clear (GstCudaCacheBatch * self);

G_GNUC_INTERNAL
GstBuffer *gst_cuda_cache_batch_acquire (GstCudaCacheBatch * self, guint n);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_set_slot (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad, GstCudaCacheConverter * converter,
    GstBuffer * buf, guint index, gint roi_id, GstCudaCacheBatchMeta * meta);

/* mode=rois (gstcudacachebatchrois.c) */
G_GNUC_INTERNAL
GstFlowReturn gst_cuda_cache_batch_aggregate_rois (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad, GstBuffer * buf);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_clear_roi_converters (GstCudaCacheBatch * self);

/* time (gstcudacachebatchtime.c) */
G_GNUC_INTERNAL
GstBuffer *gst_cuda_cache_batch_clip (GstAggregator * agg,
    GstAggregatorPad * aggpad, GstBuffer * buf);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_update_window (GstCudaCacheBatch * self);

G_GNUC_INTERNAL
GstFlowReturn gst_cuda_cache_batch_live_take (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad ** pads, guint n_pads, gboolean timeout,
    GstBuffer ** bufs, GstClockTime * start, GstClockTime * end);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_drop (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad * pad, GstBuffer * buf, const gchar * why);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_batch_do_qos (GstCudaCacheBatch * self,
    GstClockTime start, GstClockTime end);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_reset_qos (GstCudaCacheBatch * self);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_update_qos (GstCudaCacheBatch * self,
    GstEvent * event);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_advance (GstCudaCacheBatch * self,
    GstClockTime end);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_push_gap (GstCudaCacheBatch * self, GstPad * pad,
    GstClockTime pts, GstClockTime end);

G_GNUC_INTERNAL
GstSample *gst_cuda_cache_batch_peek_next_sample (GstAggregator * agg,
    GstAggregatorPad * aggpad);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_running_times (GstAggregatorPad * pad,
    GstBuffer * buf, GstClockTime * start, GstClockTime * end);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_to_output (GstCudaCacheBatch * self,
    GstClockTime * pts, GstClockTime * end, gboolean advance);

#define gst_cuda_cache_batch_output_times(self, pts, end) \
    gst_cuda_cache_batch_to_output (self, pts, end, TRUE)

G_GNUC_INTERNAL
GstFlowReturn gst_cuda_cache_batch_send (GstCudaCacheBatch * self,
    GstBuffer * outbuf, GstClockTime pts, GstClockTime end);

G_GNUC_INTERNAL
GstFlowReturn gst_cuda_cache_batch_finish (GstCudaCacheBatch * self,
    GstBuffer * outbuf, GstClockTime pts, GstClockTime end);

G_GNUC_INTERNAL
void gst_cuda_cache_batch_selected (GstCudaCacheBatch * self,
    GstCudaCacheBatchPad ** pads, GstBuffer ** bufs, guint n_pads,
    GstClockTime pts, GstClockTime end);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_BATCH_PRIVATE_H__ */
