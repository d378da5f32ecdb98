/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:gstcudacachebatchmeta
 * @title: GstCudaCacheBatchMeta
 * @short_description: what each slot of a batch tensor holds, and the map
 *   back to its stream's frame
 *
 * A batch tensor holds many frames, one per slot along its first
 * dimension. #GstCudaCacheBatchMeta says, per slot, whether it holds a
 * frame and which: the sink pad and stream-id it came through, its
 * timestamps, the region of ROI it was cut from, and its picture's
 * geometry, from which gst_cuda_cache_picture_geometry_box_to_source () maps
 * a model's box found in the slot back to that frame.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacachebatchmeta.h"
#include "gstcudacachetensor.h"

#include <string.h>

/**
 * gst_cuda_cache_batch_meta_api_get_type:
 *
 * The API type of #GstCudaCacheBatchMeta: an application gives it to
 * gst_buffer_get_meta() or a meta API query (gst_query_find_allocation_meta())
 * to look for the meta.
 *
 * Returns: the #GType of the meta's API
 *
 * Since: 0.1
 */
GType
gst_cuda_cache_batch_meta_api_get_type (void)
{
  static GType type = 0;
  /* its slots are the tensor's first dimension, each with a picture's
   * geometry (as GstCudaCachePictureMeta's): a transform that reshapes,
   * scales or flips the tensor without knowing the meta drops it */
  static const gchar *tags[] = { GST_META_TAG_VIDEO_SIZE_STR,
    GST_META_TAG_VIDEO_ORIENTATION_STR, GST_CUDA_CACHE_META_TAG_TENSOR_STR,
    NULL
  };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCudaCacheBatchMetaAPI", tags);
    g_once_init_leave (&type, t);
  }

  return type;
}

static void
slot_clear (GstCudaCacheBatchSlot * slot)
{
  g_free (slot->pad_name);
  g_free (slot->stream_id);
  memset (slot, 0, sizeof (*slot));
  slot->pts = slot->duration = GST_CLOCK_TIME_NONE;
  slot->geometry.scale_x = slot->geometry.scale_y = 1.0;
  slot->roi_id = -1;
}

static gboolean
gst_cuda_cache_batch_meta_init (GstMeta * meta, gpointer params,
    GstBuffer * buffer)
{
  GstCudaCacheBatchMeta *bmeta = (GstCudaCacheBatchMeta *) meta;

  bmeta->n_slots = 0;
  bmeta->slots = NULL;
  return TRUE;
}

static void
gst_cuda_cache_batch_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstCudaCacheBatchMeta *bmeta = (GstCudaCacheBatchMeta *) meta;
  guint i;

  for (i = 0; i < bmeta->n_slots; i++)
    slot_clear (&bmeta->slots[i]);
  g_free (bmeta->slots);
  bmeta->slots = NULL;
  bmeta->n_slots = 0;
}

/* A whole copy keeps the slots; a region of the buffer is not the batch */
static gboolean
gst_cuda_cache_batch_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstCudaCacheBatchMeta *bmeta = (GstCudaCacheBatchMeta *) meta;
  GstCudaCacheBatchMeta *copy;
  guint i;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  if (((GstMetaTransformCopy *) data)->region)
    return TRUE;

  copy = gst_buffer_add_cuda_cache_batch_meta (dest, bmeta->n_slots);
  if (!copy)
    return FALSE;
  for (i = 0; i < bmeta->n_slots; i++) {
    copy->slots[i] = bmeta->slots[i];
    copy->slots[i].pad_name = g_strdup (bmeta->slots[i].pad_name);
    copy->slots[i].stream_id = g_strdup (bmeta->slots[i].stream_id);
  }
  return TRUE;
}

/**
 * gst_cuda_cache_batch_meta_get_info:
 *
 * The registered #GstMetaInfo of #GstCudaCacheBatchMeta: an application that
 * adds the meta with gst_buffer_add_meta() or compares a meta's info uses it.
 *
 * Returns: (transfer none): the meta's #GstMetaInfo
 *
 * Since: 0.1
 */
const GstMetaInfo *
gst_cuda_cache_batch_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi =
        gst_meta_register (GST_CUDA_CACHE_BATCH_META_API_TYPE,
        "GstCudaCacheBatchMeta", sizeof (GstCudaCacheBatchMeta),
        gst_cuda_cache_batch_meta_init, gst_cuda_cache_batch_meta_free,
        gst_cuda_cache_batch_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }

  return info;
}

/**
 * gst_buffer_add_cuda_cache_batch_meta:
 * @buffer: a writable buffer
 * @n_slots: the batch's slots, at least 1
 *
 * Adds the meta with @n_slots absent slots (gst_cuda_cache_batch_meta_set_slot ()
 * fills them).
 *
 * Returns: (transfer none) (nullable): the new meta on @buffer, or %NULL
 *   where @n_slots is 0
 *
 * Since: 0.1
 */
GstCudaCacheBatchMeta *
gst_buffer_add_cuda_cache_batch_meta (GstBuffer * buffer, guint n_slots)
{
  GstCudaCacheBatchMeta *meta;
  guint i;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  if (n_slots == 0)
    return NULL;

  meta = (GstCudaCacheBatchMeta *) gst_buffer_add_meta (buffer,
      GST_CUDA_CACHE_BATCH_META_INFO, NULL);
  if (!meta)
    return NULL;
  meta->slots = g_new0 (GstCudaCacheBatchSlot, n_slots);
  meta->n_slots = n_slots;
  for (i = 0; i < n_slots; i++)
    slot_clear (&meta->slots[i]);

  return meta;
}

/**
 * gst_buffer_get_cuda_cache_batch_meta:
 * @buffer: a buffer
 *
 * Finds the #GstCudaCacheBatchMeta of a buffer `cudacachebatch` made: an
 * application reads it to map each slot of the batch tensor, and the results
 * of its model, back to the stream and frame it came from.
 *
 * Returns: (transfer none) (nullable): @buffer's batch meta, or %NULL
 *
 * Since: 0.1
 */
GstCudaCacheBatchMeta *
gst_buffer_get_cuda_cache_batch_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstCudaCacheBatchMeta *) gst_buffer_get_meta (buffer,
      GST_CUDA_CACHE_BATCH_META_API_TYPE);
}

/**
 * gst_cuda_cache_batch_meta_set_slot:
 * @meta: a #GstCudaCacheBatchMeta
 * @index: the slot
 * @pad_name: (nullable): the sink pad its frame came through
 * @stream_id: (nullable): that pad's stream-id
 * @pts: the frame's presentation timestamp
 * @duration: the frame's duration
 * @geometry: (nullable): the frame's geometry in the slot
 *   (gst_cuda_cache_converter_get_geometry()); %NULL marks the slot absent
 *   and clears it
 * @roi_id: the id of the region of interest the slot was cut from, or -1
 *
 * Fills slot @index of @meta: what an application or element that makes
 * batches itself (an appsrc pushing tensors it filled with
 * gst_cuda_cache_converter_convert_batch(), say) writes, so that readers
 * map each slot back to its frame as they do for `cudacachebatch`'s.
 *
 * Returns: %TRUE, or %FALSE where @index is not a slot of @meta
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_batch_meta_set_slot (GstCudaCacheBatchMeta * meta,
    guint index, const gchar * pad_name, const gchar * stream_id,
    GstClockTime pts, GstClockTime duration,
    const GstCudaCachePictureGeometry * geometry, gint roi_id)
{
  GstCudaCacheBatchSlot *slot;

  g_return_val_if_fail (meta != NULL, FALSE);

  if (index >= meta->n_slots)
    return FALSE;

  slot = &meta->slots[index];
  slot_clear (slot);
  if (!geometry)
    return TRUE;

  slot->present = TRUE;
  slot->pad_name = g_strdup (pad_name);
  slot->stream_id = g_strdup (stream_id);
  slot->pts = pts;
  slot->duration = duration;
  slot->geometry = *geometry;
  slot->roi_id = roi_id;

  return TRUE;
}

/**
 * gst_cuda_cache_batch_meta_get_slot:
 * @meta: a #GstCudaCacheBatchMeta
 * @index: the slot
 *
 * Gives an application what slot @index of a batch tensor holds: the pad,
 * stream, frame and geometry its results map back to.
 *
 * Returns: (transfer none) (nullable): slot @index, or %NULL where @meta
 *   has no such slot
 *
 * Since: 0.1
 */
const GstCudaCacheBatchSlot *
gst_cuda_cache_batch_meta_get_slot (const GstCudaCacheBatchMeta * meta,
    guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  return index < meta->n_slots ? &meta->slots[index] : NULL;
}
