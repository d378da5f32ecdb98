/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The layout a pool's caps define, and the cache key that names it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudacache-private.h"

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
