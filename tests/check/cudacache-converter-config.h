/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* GstCudaCacheConverter's config on system memory: a refused config
 * changes nothing, the config is one canonical record of every option
 * (as get_config () and check_config () give it), and a refused option is
 * named with the value given and what it takes. Included by
 * libs/converter.c, whose converter_new (), TENSOR and RGBA_64x48 it
 * uses. */

#ifndef __CUDACACHE_CONVERTER_CONFIG_H__
#define __CUDACACHE_CONVERTER_CONFIG_H__

#include <string.h>
#include <gst/cudacache/cudacache.h>
#include "cudacache-check.h"
#include "cudacache-config.h"

GST_START_TEST (test_rejected_config_changes_nothing)
{
  GstCudaCacheConverter *conv = converter_new (RGBA_64x48,
      TENSOR "types=float32,dimensions=32:32:3:1",
      gst_structure_from_string ("c, GstCudaCacheConverter.letterbox=true",
          NULL));
  GstStructure *before, *after;
  GstVideoRectangle rect;
  GError *error = NULL;

  before = gst_cuda_cache_converter_get_config (conv);
  fail_if (gst_cuda_cache_converter_set_config (conv,
          gst_structure_from_string ("c, GstCudaCacheConverter.letterbox="
              "false, GstCudaCacheConverter.std=<1.0, 0.0, 1.0>", NULL),
          &error));
  fail_unless (error != NULL && strstr (error->message, "from 1e-12"));
  g_clear_error (&error);
  after = gst_cuda_cache_converter_get_config (conv);
  fail_unless (gst_structure_is_equal (before, after));
  /* the letterbox, from the config that stayed */
  fail_unless (test_picture_rect (conv, &rect));
  fail_unless_equals_int (rect.h, 24);

  gst_structure_free (before);
  gst_structure_free (after);
  gst_object_unref (conv);
}

GST_END_TEST;

/* The config is one record of the options: what a converter is given,
 * written as gst-launch and Python write it (enum nicks as strings, ints
 * for doubles, one fill for three), comes back canonical and whole from
 * get_config, which gst_cuda_cache_converter_check_config () makes of it
 * too, and which makes the same converter again */
GST_START_TEST (test_config_is_one_record_of_every_option)
{
  static const gchar *const options[] = {
    GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
    GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
    GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE,
    GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER,
    GST_CUDA_CACHE_CONVERTER_OPT_SCALE, GST_CUDA_CACHE_CONVERTER_OPT_MEAN,
    GST_CUDA_CACHE_CONVERTER_OPT_STD, GST_CUDA_CACHE_CONVERTER_OPT_SRC_X,
    GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y, GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH,
    GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT
  };
  const gchar *given = "c, GstCudaCacheConverter.method=area, "
      "GstCudaCacheConverter.letterbox=true, "
      "GstCudaCacheConverter.letterbox-position=top-left, "
      "GstCudaCacheConverter.channel-order=bgr, "
      "GstCudaCacheConverter.fill-value=114, GstCudaCacheConverter.scale=0.5, "
      "GstCudaCacheConverter.mean=<1, 2, 3>, "
      "GstCudaCacheConverter.std=<0.25, 2, 3>, "
      "GstCudaCacheConverter.src-x=2, GstCudaCacheConverter.src-y=4, "
      "GstCudaCacheConverter.src-width=32, GstCudaCacheConverter.src-height=24";
  g_autoptr (GstCaps) in_caps = gst_caps_from_string (RGBA_64x48);
  g_autoptr (GstCaps) out_caps = gst_caps_from_string (RGBA_64x48);
  GstStructure *config, *checked, *again, *defaults, *kept;
  GstCudaCacheConverter *conv, *conv2;
  const GValue *fill, *mean;
  GError *error = NULL;
  gint method, position, order, v;
  guint i;

  conv = gst_cuda_cache_converter_new (in_caps, out_caps, NULL,
      gst_structure_from_string (given, NULL), &error);
  fail_unless (conv != NULL, "%s", error ? error->message : "");
  config = gst_cuda_cache_converter_get_config (conv);
  fail_unless_equals_int (gst_structure_n_fields (config),
      G_N_ELEMENTS (options));
  for (i = 0; i < G_N_ELEMENTS (options); i++)
    fail_unless (gst_structure_has_field (config, options[i]), "%s",
        options[i]);
  fail_unless (gst_structure_get_enum (config,
          GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
          GST_TYPE_CUDA_CACHE_RESIZE_METHOD, &method));
  fail_unless_equals_int (method, GST_CUDA_CACHE_RESIZE_METHOD_AREA);
  fail_unless (gst_structure_get_enum (config,
          GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
          GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION, &position));
  fail_unless_equals_int (position, GST_CUDA_CACHE_LETTERBOX_POSITION_TOP_LEFT);
  fail_unless (gst_structure_get_enum (config,
          GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER,
          GST_TYPE_CUDA_CACHE_CHANNEL_ORDER, &order));
  fail_unless_equals_int (order, GST_CUDA_CACHE_CHANNEL_ORDER_BGR);
  fill = gst_structure_get_value (config,
      GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE);
  fail_unless (GST_VALUE_HOLDS_ARRAY (fill) &&
      gst_value_array_get_size (fill) == 3);
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (g_value_get_uint (gst_value_array_get_value (fill,
                i)), 114);
  mean = gst_structure_get_value (config, GST_CUDA_CACHE_CONVERTER_OPT_MEAN);
  for (i = 0; i < 3; i++)
    fail_unless_equals_float (g_value_get_double (gst_value_array_get_value
            (mean, i)), i + 1.0);
  fail_unless (gst_structure_get_int (config,
          GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT, &v));
  fail_unless_equals_int (v, 24);
  fail_unless (gst_structure_get_int (config,
          GST_CUDA_CACHE_CONVERTER_OPT_SRC_X, &v));
  fail_unless_equals_int (v, 2);

  /* the library's one check makes the same of what was given */
  checked = gst_structure_from_string (given, NULL);
  fail_unless (gst_cuda_cache_converter_check_config (checked, &error), "%s",
      error ? error->message : "");
  fail_unless (gst_structure_is_equal (checked, config));
  /* and a converter made from get_config is the same converter */
  conv2 = gst_cuda_cache_converter_new (in_caps, out_caps, NULL,
      gst_structure_copy (config), &error);
  fail_unless (conv2 != NULL, "%s", error ? error->message : "");
  again = gst_cuda_cache_converter_get_config (conv2);
  fail_unless (gst_structure_is_equal (again, config));

  /* nothing given: every option at its default, as a new converter has */
  defaults = gst_structure_new_empty ("c");
  fail_unless (gst_cuda_cache_converter_check_config (defaults, NULL));
  fail_unless_equals_int (gst_structure_n_fields (defaults),
      G_N_ELEMENTS (options));
  fail_unless (gst_structure_get_enum (defaults,
          GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
          GST_TYPE_CUDA_CACHE_RESIZE_METHOD, &method));
  fail_unless_equals_int (method, GST_CUDA_CACHE_CONVERTER_DEFAULT_METHOD);

  /* a refused config is left as it was */
  kept = gst_structure_from_string ("c, GstCudaCacheConverter.method=area, "
      "GstCudaCacheConverter.scale=(string)x", NULL);
  fail_if (gst_cuda_cache_converter_check_config (kept, &error));
  fail_unless (error != NULL);
  g_clear_error (&error);
  fail_unless_equals_int (gst_structure_n_fields (kept), 2);
  fail_unless_equals_string (gst_structure_get_string (kept,
          GST_CUDA_CACHE_CONVERTER_OPT_METHOD), "area");

  gst_structure_free (kept);
  gst_structure_free (defaults);
  gst_structure_free (again);
  gst_structure_free (checked);
  gst_structure_free (config);
  gst_object_unref (conv2);
  gst_object_unref (conv);
}

GST_END_TEST;

/* A refused option is named, with the value given and what it takes */
GST_START_TEST (test_config_errors_say_option_value_and_range)
{
  static const struct
  {
    const gchar *config;
    const gchar *says;
  } cases[] = {
    {"c, GstCudaCacheConverter.fill-value=(uint)300",
        "GstCudaCacheConverter.fill-value=(guint)300 is not valid: it takes a "
          "whole number from 0 to 255, or a GstValueArray of three (red, "
          "green, blue)"},
    {"c, GstCudaCacheConverter.fill-value=(int)-1",
        "GstCudaCacheConverter.fill-value=(gint)-1 is not valid: it takes a "
          "whole number from 0 to 255"},
    {"c, GstCudaCacheConverter.fill-value=<(uint)1, (uint)2>",
        "GstCudaCacheConverter.fill-value=(GstValueArray)< (uint)1, "
          "(uint)2 > is not valid: it takes a whole number from 0 to 255, or "
          "a GstValueArray of three"},
    {"c, GstCudaCacheConverter.fill-value=<(uint)1, (uint)2, (uint)256>",
        "is not valid: it takes a whole number from 0 to 255, or a "
          "GstValueArray of three"},
    {"c, GstCudaCacheConverter.fill-value=<1.5, 2.0, 3.0>",
        "is not valid: it takes a whole number from 0 to 255, or a "
          "GstValueArray of three"},
    {"c, GstCudaCacheConverter.fill-value=(string)114",
        "is not valid: it takes a whole number from 0 to 255"},
    /* an enum takes its nick as a string, and says which where not */
    {"c, GstCudaCacheConverter.letterbox-position=(string)middle",
        "GstCudaCacheConverter.letterbox-position=(gchararray)middle is "
          "not valid: it takes a GstCudaCacheLetterboxPosition (center or "
          "top-left), or its name as a string"},
    {"c, GstCudaCacheConverter.method=(string)bicubic",
        "GstCudaCacheConverter.method=(gchararray)bicubic is not valid: it "
          "takes a GstCudaCacheResizeMethod (linear, nearest, bilinear, area "
          "or antialias), or its name as a string"},
    {"c, GstCudaCacheConverter.channel-order=(int)1",
        "GstCudaCacheConverter.channel-order=(gint)1 is not valid: it "
          "takes a GstCudaCacheChannelOrder (rgb or bgr), or its name as a "
          "string"},
    /* a name without its prefix, or misspelt, is no option */
    {"c, method=(string)area",
        "method is no option of the converter's config; the options are "
          "GstCudaCacheConverter.letterbox, GstCudaCacheConverter.method, "},
    {"c, GstCudaCacheConverter.letterbx=(boolean)true",
        "GstCudaCacheConverter.letterbx is no option"},
    {"c, GstCudaCacheConverter.letterbox=(string)yes",
        "GstCudaCacheConverter.letterbox=(gchararray)yes is not valid: it "
          "takes a gboolean (true or false)"},
    {"c, GstCudaCacheConverter.scale=(int)2",
        "GstCudaCacheConverter.scale=(gint)2 is not valid: it takes a "
          "gdouble from -3.40282e+38 to 3.40282e+38"},
    {"c, GstCudaCacheConverter.scale=1e39",
        "is not valid: it takes a gdouble from -3.40282e+38 to 3.40282e+38"},
    {"c, GstCudaCacheConverter.mean=<1.0, 2.0>",
        "GstCudaCacheConverter.mean=(GstValueArray)< (double)1, (double)2 > "
          "is not valid: it takes a GstValueArray of three numbers from "
          "-3.40282e+38 to 3.40282e+38, one per channel"},
    {"c, GstCudaCacheConverter.mean=<1.0, 2.0, (string)x>",
        "is not valid: it takes a GstValueArray of three numbers"},
    {"c, GstCudaCacheConverter.std=<1.0, 0.0, 1.0>",
        "GstCudaCacheConverter.std=(GstValueArray)< (double)1, (double)0, "
          "(double)1 > is not valid: it takes a GstValueArray of three "
          "numbers from 1e-12 to 3.40282e+38"},
    {"c, GstCudaCacheConverter.src-x=-2",
        "GstCudaCacheConverter.src-x=(gint)-2 is not valid: it takes a gint, "
          "0 or more"},
  };
  g_autoptr (GstCaps) in_caps = gst_caps_from_string (RGBA_64x48);
  g_autoptr (GstCaps) out_caps = gst_caps_from_string (RGBA_64x48);
  GstCudaCacheConverter *conv = converter_new (RGBA_64x48, RGBA_64x48, NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstStructure *config = gst_structure_from_string (cases[i].config, NULL);
    GError *error = NULL;

    fail_unless (config != NULL, "%s", cases[i].config);
    fail_if (gst_cuda_cache_converter_new (in_caps, out_caps, NULL,
            gst_structure_copy (config), &error));
    fail_unless (error != NULL && strstr (error->message, cases[i].says),
        "\"%s\" does not say \"%s\"", error ? error->message : "",
        cases[i].says);
    g_clear_error (&error);
    /* set_config says the same */
    fail_if (gst_cuda_cache_converter_set_config (conv, config, &error));
    fail_unless (error != NULL && strstr (error->message, cases[i].says),
        "\"%s\" does not say \"%s\"", error ? error->message : "",
        cases[i].says);
    g_clear_error (&error);
  }
  gst_object_unref (conv);
}

GST_END_TEST;

#endif /* __CUDACACHE_CONVERTER_CONFIG_H__ */
