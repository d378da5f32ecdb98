/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The layout a pool's caps define, the cache key that names it, and the
 * layouts a pool remembers; formats checked against the headers' lists.
 * Shared by both pools and the converter. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudacache-private.h"

gboolean
gst_cuda_cache_format_in_list (GstVideoFormat format, const gchar * list)
{
  const gchar *name = gst_video_format_to_string (format);
  gchar **names;
  gboolean found = FALSE;
  guint i;

  if (!name)
    return FALSE;
  names = g_strsplit_set (list, "{}, ", -1);
  for (i = 0; names[i] && !found; i++)
    found = g_str_equal (names[i], name);
  g_strfreev (names);

  return found;
}

gboolean
gst_cuda_cache_layout_from_caps (GstCudaCacheLayout * layout,
    const GstCaps * caps)
{
  const GstStructure *s;

  if (!caps || gst_caps_get_size (caps) != 1)
    return FALSE;

  s = gst_caps_get_structure (caps, 0);
  if (gst_structure_has_name (s, GST_CUDA_CACHE_TENSOR_CAPS_NAME)) {
    layout->kind = GST_CUDA_CACHE_KIND_TENSOR;
    return gst_cuda_cache_tensor_info_from_caps (&layout->tensor, caps);
  }

  layout->kind = GST_CUDA_CACHE_KIND_IMAGE;
  return gst_video_info_from_caps (&layout->video, caps);
}

/* Everything that fixes a block's size and layout goes in the key; what does
 * not (framerate, colorimetry, ...) stays out, so those caps share blocks. */
gchar *
gst_cuda_cache_layout_to_key (const GstCudaCacheLayout * layout,
    const gchar * prefix)
{
  const GstVideoInfo *info = &layout->video;
  GString *key;
  guint i;

  if (layout->kind == GST_CUDA_CACHE_KIND_TENSOR) {
    gchar *desc = gst_cuda_cache_tensor_info_to_string (&layout->tensor);
    gchar *ret = g_strdup_printf ("%s tensor %s", prefix, desc);

    g_free (desc);
    return ret;
  }

  key = g_string_new (NULL);
  g_string_append_printf (key, "%s image %s %dx%d%s size=%" G_GSIZE_FORMAT,
      prefix, gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      GST_VIDEO_INFO_IS_INTERLACED (info) ? " interlaced" : "",
      GST_VIDEO_INFO_SIZE (info));
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++)
    g_string_append_printf (key, " p%u=%" G_GSIZE_FORMAT "+%d", i,
        GST_VIDEO_INFO_PLANE_OFFSET (info, i),
        GST_VIDEO_INFO_PLANE_STRIDE (info, i));

  return g_string_free (key, FALSE);
}

void
gst_cuda_cache_layout_get_signature (const GstCudaCacheLayout * layout,
    GstCudaCacheLayoutSignature * sig)
{
  const GstVideoInfo *info = &layout->video;
  guint i;

  /* zeroed first: padding takes part in the memcmp */
  memset (sig, 0, sizeof (*sig));
  sig->kind = layout->kind;
  if (layout->kind == GST_CUDA_CACHE_KIND_TENSOR) {
    sig->dtype = layout->tensor.dtype;
    sig->tensor_layout = layout->tensor.layout;
    memcpy (sig->dims, layout->tensor.dims, sizeof (sig->dims));
    return;
  }

  sig->format = GST_VIDEO_INFO_FORMAT (info);
  sig->width = GST_VIDEO_INFO_WIDTH (info);
  sig->height = GST_VIDEO_INFO_HEIGHT (info);
  sig->interlace_mode = GST_VIDEO_INFO_INTERLACE_MODE (info);
  sig->size = GST_VIDEO_INFO_SIZE (info);
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    sig->offset[i] = GST_VIDEO_INFO_PLANE_OFFSET (info, i);
    sig->stride[i] = GST_VIDEO_INFO_PLANE_STRIDE (info, i);
  }
}

static void
gst_cuda_cache_known_layout_free (GstCudaCacheKnownLayout * known)
{
  g_free (known->key);
  g_free (known);
}

void
gst_cuda_cache_known_layouts_clear (GstCudaCacheKnownLayouts * layouts)
{
  g_queue_clear_full (&layouts->known,
      (GDestroyNotify) gst_cuda_cache_known_layout_free);
}

/* The entry for @sig, moved to the front; NULL if the pool never saw it. */
const GstCudaCacheKnownLayout *
gst_cuda_cache_known_layouts_lookup (GstCudaCacheKnownLayouts * layouts,
    const GstCudaCacheLayoutSignature * sig)
{
  GList *l;

  for (l = layouts->known.head; l; l = l->next) {
    if (memcmp (&((GstCudaCacheKnownLayout *) l->data)->sig, sig,
            sizeof (*sig)) == 0)
      break;
  }
  if (!l)
    return NULL;

  g_queue_unlink (&layouts->known, l);
  g_queue_push_head_link (&layouts->known, l);
  return l->data;
}

/* Remembers @sig first, forgetting the least recent beyond the maximum. */
const GstCudaCacheKnownLayout *
gst_cuda_cache_known_layouts_add (GstCudaCacheKnownLayouts * layouts,
    const GstCudaCacheLayoutSignature * sig, const gchar * key, gsize size)
{
  GstCudaCacheKnownLayout *known = g_new0 (GstCudaCacheKnownLayout, 1);

  known->sig = *sig;
  known->key = g_strdup (key);
  known->size = size;
  g_queue_push_head (&layouts->known, known);
  if (layouts->known.length > GST_CUDA_CACHE_MAX_KNOWN_LAYOUTS)
    gst_cuda_cache_known_layout_free (g_queue_pop_tail (&layouts->known));

  return known;
}

/* What both pools say when an allocation failed after the cache freed every
 * idle block and retried. */
gchar *
gst_cuda_cache_describe_out_of_memory (GstCudaCache * cache, gsize bytes,
    const gchar * key)
{
  GstCudaCacheStats stats;

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  return g_strdup_printf ("asked for %" G_GSIZE_FORMAT " bytes (\"%s\"); "
      "cache limit %" G_GUINT64_FORMAT " bytes, cache size %" G_GUINT64_FORMAT
      " bytes (%" G_GUINT64_FORMAT " in use), after freeing every idle block "
      "and retrying", bytes, key, stats.cache_limit, stats.current_size,
      stats.used_bytes);
}

/* For a pool's set_config, before anything else: frees the buffers still
 * queued in @pool through @base_class, GstBufferPool's own stop. A
 * deactivated pool frees its buffers when the last one comes back, but
 * GstBufferPool takes the pool's lock for that only after the count of
 * buffers out reached zero; in between, set_config already succeeds, and
 * the activation that follows skips start (the pool still counts as
 * started), so the buffers of the old configuration would be handed out
 * for the new one. Whatever is queued when a configuration is replaced
 * belongs to the old one: with nothing queued this frees nothing. */
void
gst_cuda_cache_pool_discard_queued (GstBufferPool * pool,
    GstBufferPoolClass * base_class)
{
  /* FALSE only where buffers are out, which set_config has ruled out */
  base_class->stop (pool);
}

/* For a pool's start: @base_class's, with *@starting counting the calls
 * in progress, during which GstBufferPool releases the buffers it
 * preallocates into a pool not active yet. */
gboolean
gst_cuda_cache_pool_start_counted (GstBufferPool * pool, gint * starting,
    GstBufferPoolClass * base_class)
{
  gboolean ok;

  g_atomic_int_inc (starting);
  ok = base_class->start (pool);
  g_atomic_int_add (starting, -1);

  return ok;
}

/* For a pool's release_buffer: a buffer that comes back to a pool
 * deactivated while it was out (an element stopped while the application
 * held its samples) goes back to the cache at once, idle and evictable.
 * GstBufferPool would queue it, in use, until the last buffer out came
 * back, which a sink's last sample can put off for as long as the
 * pipeline object lives. The buffer is flagged as GstBufferPool flags one
 * whose memory changed, so that its own release frees it and keeps its
 * count of buffers right. */
void
gst_cuda_cache_pool_release (GstBufferPool * pool, GstBuffer * buffer,
    gint * starting, GstBufferPoolClass * base_class)
{
  if (g_atomic_int_get (starting) == 0 && !gst_buffer_pool_is_active (pool)) {
    GST_LOG_OBJECT (pool, "%" GST_PTR_FORMAT " back after the pool was "
        "deactivated: to the cache", buffer);
    GST_BUFFER_FLAG_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY);
  }
  base_class->release_buffer (pool, buffer);
}
