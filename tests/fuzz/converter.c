/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Fuzz target: a converter from caps and a config given as text, as an
 * application or a gst-launch-1.0 line gives them. The input is up to
 * four lines: the input caps, the output caps, the config (a
 * GstStructure, empty for none) and a crop ("x y width height", empty for
 * none). Checks the config, makes the converter, converts one frame on the
 * CPU and reads its geometry. Every refusal must come with a GError; a
 * config that check_config refuses must be refused by converter_new too,
 * and the config a converter gives back must pass check_config. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cudacache/gstcudacacheconverter.h>

#include "fuzz-common.h"

/* A frame of @caps, its bytes from @data over and over, with the crop
 * @crop_text gives ("x y width height") where it gives one */
static GstBuffer *
make_frame (const GstCaps * caps, const uint8_t * data, size_t size,
    const gchar * crop_text)
{
  GstVideoInfo info;
  GstBuffer *buf;
  gsize i;

  if (!gst_video_info_from_caps (&info, caps) || info.size == 0 ||
      info.size > 16 * MAX_PIXELS)
    return NULL;
  buf = fuzz_buffer_new (info.size, data, size);

  if (*crop_text) {
    guint64 crop[4] = { 0, 0, 0, 0 };
    gchar *end = (gchar *) crop_text;
    GstVideoCropMeta *meta;

    for (i = 0; i < 4; i++)
      crop[i] = g_ascii_strtoull (end, &end, 10);
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&info), GST_VIDEO_INFO_WIDTH (&info),
        GST_VIDEO_INFO_HEIGHT (&info), GST_VIDEO_INFO_N_PLANES (&info),
        info.offset, info.stride);
    meta = gst_buffer_add_video_crop_meta (buf);
    meta->x = (guint) crop[0];
    meta->y = (guint) crop[1];
    meta->width = (guint) crop[2];
    meta->height = (guint) crop[3];
  }
  return buf;
}

static void
convert_one (GstCudaCacheConverter * conv, const GstCaps * in_caps,
    const GstCaps * out_caps, const uint8_t * data, size_t size,
    const gchar * crop_text)
{
  GstCudaCachePictureGeometry geometry;
  GstBuffer *inbuf, *outbuf;
  GError *error = NULL;
  gsize out_size = fuzz_caps_buffer_size (out_caps);
  gdouble x0, y0, x1, y1;

  inbuf = make_frame (in_caps, data, size, crop_text);
  if (inbuf == NULL || out_size == 0 || out_size > 16 * MAX_PIXELS) {
    gst_clear_buffer (&inbuf);
    return;
  }
  outbuf = gst_buffer_new_allocate (NULL, out_size, NULL);

  if (!gst_cuda_cache_converter_convert_buffer (conv, inbuf, outbuf, NULL,
          &error))
    fuzz_expect_error (&error, "gst_cuda_cache_converter_convert_buffer");

  if (gst_cuda_cache_converter_get_geometry (conv, inbuf, &geometry, &error)) {
    gst_cuda_cache_picture_geometry_to_source (&geometry, 1.5, 2.5, &x0, &y0);
    gst_cuda_cache_picture_geometry_from_source (&geometry, x0, y0, &x1, &y1);
    gst_cuda_cache_picture_geometry_box_to_source (&geometry, 0, 0,
        geometry.picture.w, geometry.picture.h, &x0, &y0, &x1, &y1);
  } else {
    fuzz_expect_error (&error, "gst_cuda_cache_converter_get_geometry");
  }

  gst_buffer_unref (outbuf);
  gst_buffer_unref (inbuf);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gchar **fields;
  GstCaps *in_caps = NULL, *out_caps = NULL;
  GstStructure *config = NULL;
  GstCudaCacheConverter *conv;
  GError *error = NULL;
  gboolean config_ok = TRUE;

  fuzz_init ();
  fields = fuzz_split_fields (data, size);
  in_caps = fuzz_caps_from_string (fuzz_field (fields, 0));
  out_caps = fuzz_caps_from_string (fuzz_field (fields, 1));
  if (*fuzz_field (fields, 2))
    config = fuzz_structure_from_string (fuzz_field (fields, 2));

  if (config != NULL) {
    GstStructure *checked = gst_structure_copy (config);

    config_ok = gst_cuda_cache_converter_check_config (checked, &error);
    if (!config_ok)
      fuzz_expect_error (&error, "gst_cuda_cache_converter_check_config");
    gst_structure_free (checked);
  }

  if (in_caps == NULL || out_caps == NULL || !fuzz_caps_small_enough (in_caps)
      || !fuzz_caps_small_enough (out_caps))
    goto done;

  conv = gst_cuda_cache_converter_new (in_caps, out_caps, NULL,
      config ? gst_structure_copy (config) : NULL, &error);
  if (conv == NULL) {
    fuzz_expect_error (&error, "gst_cuda_cache_converter_new");
    goto done;
  }
  if (!config_ok)
    g_error ("gst_cuda_cache_converter_new took a config that "
        "gst_cuda_cache_converter_check_config refuses");

  {
    GstStructure *given = gst_cuda_cache_converter_get_config (conv);

    if (!gst_cuda_cache_converter_check_config (given, &error))
      g_error ("the converter's own config is refused: %s", error->message);
    gst_structure_free (given);
  }

  convert_one (conv, in_caps, out_caps, data, size, fuzz_field (fields, 3));
  gst_object_unref (conv);

done:
  if (config)
    gst_structure_free (config);
  gst_clear_caps (&in_caps);
  gst_clear_caps (&out_caps);
  g_strfreev (fields);
  return 0;
}
