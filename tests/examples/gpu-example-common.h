/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* What the GPU example programs (ipc-scaleout.c, reconfigure-decode.c)
 * share: checksums of what a frame shows, and the checks that make them
 * skip (exit status 77) where the GStreamer or the machine cannot run them.
 * Header-only: each program is one file plus this. */

#ifndef __GPU_EXAMPLE_COMMON_H__
#define __GPU_EXAMPLE_COMMON_H__

#include <string.h>
#include <gst/gst.h>
#include <gst/video/video.h>

/* meson's exit status of a skipped test */
#define GPU_EXAMPLE_SKIP 77

/* 64-bit FNV-style hash, a word at a time: not cryptographic, only able to
 * tell two frames apart */
static inline guint64
gpu_example_hash (guint64 h, const guint8 * p, gsize n)
{
  while (n >= 8) {
    guint64 w;

    memcpy (&w, p, 8);
    h ^= w;
    h *= G_GUINT64_CONSTANT (0x100000001b3);
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  while (n--) {
    h ^= *p++;
    h *= G_GUINT64_CONSTANT (0x100000001b3);
  }
  return h;
}

#define GPU_EXAMPLE_HASH_SEED G_GUINT64_CONSTANT (0xcbf29ce484222325)

/* The checksum of the pixels a frame shows: each plane's visible rows,
 * visible bytes only, so that two buffers of one picture with different
 * pitches or paddings agree. Maps on the CPU (CUDA memory is downloaded).
 * FALSE where the buffer cannot be mapped. */
static inline gboolean
gpu_example_frame_checksum (GstBuffer * buf, const GstVideoInfo * info,
    guint64 * checksum)
{
  GstVideoFrame frame;
  guint64 h = GPU_EXAMPLE_HASH_SEED;
  guint p;

  if (!gst_video_frame_map (&frame, (GstVideoInfo *) info, buf, GST_MAP_READ))
    return FALSE;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    gsize row_bytes;
    gint rows, y;

    gst_video_format_info_component (frame.info.finfo, p, comp);
    row_bytes = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&frame, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, comp[0]);
    rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, comp[0]);
    for (y = 0; y < rows; y++)
      h = gpu_example_hash (h, data + (gsize) y * stride, row_bytes);
  }
  gst_video_frame_unmap (&frame);

  *checksum = h;
  return TRUE;
}

/* The checksum of a whole buffer's bytes (a packed tensor) */
static inline gboolean
gpu_example_buffer_checksum (GstBuffer * buf, guint64 * checksum)
{
  GstMapInfo map;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return FALSE;
  *checksum = gpu_example_hash (GPU_EXAMPLE_HASH_SEED, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  return TRUE;
}

/* NULL if every element of the NULL-terminated list is registered, or the
 * first one missing */
static inline const gchar *
gpu_example_missing_element (const gchar * const *names)
{
  for (; *names; names++) {
    GstElementFactory *f = gst_element_factory_find (*names);

    if (!f)
      return *names;
    gst_object_unref (f);
  }
  return NULL;
}

static inline gdouble
gpu_example_median3 (gdouble a, gdouble b, gdouble c)
{
  if ((a <= b && b <= c) || (c <= b && b <= a))
    return b;
  if ((b <= a && a <= c) || (c <= a && a <= b))
    return a;
  return c;
}

#endif /* __GPU_EXAMPLE_COMMON_H__ */
