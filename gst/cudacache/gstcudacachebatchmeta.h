/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_BATCH_META_H__
#define __GST_CUDA_CACHE_BATCH_META_H__

#include <gst/cudacache/cudacache-prelude.h>
#include <gst/cudacache/gstcudacachepicturemeta.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GstCudaCacheBatchSlot:
 * @present: whether the slot holds a frame; an absent slot's other fields
 *   are empty and its tensor values zeros
 * @pad_name: (nullable): the name of the sink pad the frame came through
 * @stream_id: (nullable): the stream-id of that pad's stream
 * @pts: the frame's presentation timestamp
 * @duration: the frame's duration
 * @geometry: where the picture lies in the slot, the region of the source
 *   frame it shows, and the map between them
 * @roi_id: the id of the #GstVideoRegionOfInterestMeta the slot was cut
 *   from, or -1
 *
 * One slot of a batch: where its frame came from, and the map back to it
 * (gst_cuda_cache_picture_geometry_box_to_source()). The library allocates
 * the slots: fields may be added in the padding.
 *
 * Since: 0.1
 */
typedef struct
{
  gboolean present;
  gchar *pad_name;
  gchar *stream_id;
  GstClockTime pts;
  GstClockTime duration;
  GstCudaCachePictureGeometry geometry;
  gint roi_id;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstCudaCacheBatchSlot;

/**
 * GstCudaCacheBatchMeta:
 * @meta: the parent #GstMeta
 * @n_slots: the batch's slots, its tensor's first dimension
 * @slots: (array length=n_slots): the slots, in the tensor's order
 *
 * What each slot of a batch tensor holds (gst_cuda_cache_batch_meta_get_slot ()).
 *
 * Since: 0.1
 */
typedef struct
{
  GstMeta meta;

  guint n_slots;
  GstCudaCacheBatchSlot *slots;
} GstCudaCacheBatchMeta;

GST_CUDA_CACHE_API
GType gst_cuda_cache_batch_meta_api_get_type (void);
#define GST_CUDA_CACHE_BATCH_META_API_TYPE (gst_cuda_cache_batch_meta_api_get_type ())

GST_CUDA_CACHE_API
const GstMetaInfo *gst_cuda_cache_batch_meta_get_info (void);
#define GST_CUDA_CACHE_BATCH_META_INFO (gst_cuda_cache_batch_meta_get_info ())

GST_CUDA_CACHE_API
GstCudaCacheBatchMeta *gst_buffer_add_cuda_cache_batch_meta (GstBuffer *
    buffer, guint n_slots);

GST_CUDA_CACHE_API
GstCudaCacheBatchMeta *gst_buffer_get_cuda_cache_batch_meta (GstBuffer *
    buffer);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_batch_meta_set_slot (GstCudaCacheBatchMeta * meta,
    guint index, const gchar * pad_name, const gchar * stream_id,
    GstClockTime pts, GstClockTime duration,
    const GstCudaCachePictureGeometry * geometry, gint roi_id);

GST_CUDA_CACHE_API
const GstCudaCacheBatchSlot *gst_cuda_cache_batch_meta_get_slot (const
    GstCudaCacheBatchMeta * meta, guint index);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_BATCH_META_H__ */
