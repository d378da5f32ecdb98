/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcudacacheconvertoptions.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_convert_options_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_convert_options_debug

void
gst_cuda_cache_convert_options_init (GstCudaCacheConvertOptions * o)
{
  memset (o, 0, sizeof (*o));
  o->config = gst_structure_new_empty ("GstCudaCacheConverter.config");
  /* every option at its default, as the properties read them */
  gst_cuda_cache_converter_check_config (o->config, NULL);
}

void
gst_cuda_cache_convert_options_clear (GstCudaCacheConvertOptions * o)
{
  g_clear_pointer (&o->refusal, g_free);
  g_clear_pointer (&o->config, gst_structure_free);
}

/* No element spec: GObject would replace each value not of its type by
 * the default and refuse the array with a GLib warning, and Python's
 * Gst.ValueArray([1, 2, 3]) holds ints. The converter's config check
 * takes any number and checks the range. */
static GParamSpec *
triple_param_spec (const gchar * name, const gchar * nick, const gchar * blurb)
{
  return gst_param_spec_array (name, nick, blurb, NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
}

void
gst_cuda_cache_convert_options_install (GObjectClass * klass, guint first_id)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_convert_options_debug,
      "cudacacheconvertoptions", 0, "CUDA cache: conversion options");

  g_object_class_install_property (klass,
      first_id + GST_CUDA_CACHE_CONVERT_OPTION_METHOD,
      g_param_spec_enum ("method", "Method",
          "How the picture is resampled: linear (GStreamer's, antialiased), "
          "or the preset of the library the model was trained with: nearest, "
          "bilinear and area (OpenCV's cv2.resize INTER_NEAREST, "
          "INTER_LINEAR, INTER_AREA), antialias (Pillow's BILINEAR), "
          "on system and CUDA memory alike", GST_TYPE_CUDA_CACHE_RESIZE_METHOD,
          GST_CUDA_CACHE_CONVERTER_DEFAULT_METHOD, rw));
  g_object_class_install_property (klass,
      first_id + GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX,
      g_param_spec_boolean ("letterbox", "Letterbox",
          "Keep the picture's display aspect ratio (pixel-aspect-ratio "
          "counted) at letterbox-position, and fill the rest of the output "
          "with fill-value", GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX, rw));
  g_object_class_install_property (klass,
      first_id + GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX_POSITION,
      g_param_spec_enum ("letterbox-position", "Letterbox position",
          "Where a letterboxed picture lies: center (Ultralytics' "
          "LetterBox) or top-left (the bars right and below, DeepStream's "
          "default)", GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION,
          GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX_POSITION, rw));
  g_object_class_install_property (klass,
      first_id + GST_CUDA_CACHE_CONVERT_OPTION_FILL_VALUE,
      g_param_spec_uint ("fill-value", "Fill value",
          "Red, green and blue of the letterbox padding, one value for all "
          "three (before normalisation; sets fill-rgb, and reads its red)", 0,
          255, GST_CUDA_CACHE_CONVERTER_DEFAULT_FILL_VALUE, rw));
  g_object_class_install_property (klass,
      first_id + GST_CUDA_CACHE_CONVERT_OPTION_FILL_RGB,
      triple_param_spec ("fill-rgb", "Fill RGB",
          "Red, green and blue of the letterbox padding, three whole numbers "
          "from 0 to 255 (before normalisation), e.g. \"<124, 116, 104>\" "
          "(default <0, 0, 0>; fill-value sets all three)"));
  g_object_class_install_property (klass,
      first_id + GST_CUDA_CACHE_CONVERT_OPTION_CHANNEL_ORDER,
      g_param_spec_enum ("channel-order", "Channel order",
          "Order of a tensor's colour channels",
          GST_TYPE_CUDA_CACHE_CHANNEL_ORDER,
          GST_CUDA_CACHE_CONVERTER_DEFAULT_CHANNEL_ORDER, rw));
  g_object_class_install_property (klass,
      first_id + GST_CUDA_CACHE_CONVERT_OPTION_SCALE,
      g_param_spec_double ("scale", "Scale",
          "Tensors: factor applied to pixel values (0..255) before mean and "
          "std, e.g. 0.00392156862745098 for 0..1", -G_MAXFLOAT, G_MAXFLOAT,
          GST_CUDA_CACHE_CONVERTER_DEFAULT_SCALE, rw));
  g_object_class_install_property (klass,
      first_id + GST_CUDA_CACHE_CONVERT_OPTION_MEAN, triple_param_spec ("mean",
          "Mean",
          "Tensors: per-channel value subtracted after scaling, in the "
          "tensor's channel order: three numbers, e.g. "
          "\"<0.485, 0.456, 0.406>\" (default <0, 0, 0>)"));
  g_object_class_install_property (klass,
      first_id + GST_CUDA_CACHE_CONVERT_OPTION_STD, triple_param_spec ("std",
          "Standard deviation",
          "Tensors: per-channel divisor applied after the mean, in the "
          "tensor's channel order: three numbers from 1e-12 up, e.g. "
          "\"<0.229, 0.224, 0.225>\" (default <1, 1, 1>)"));
}

/* A property value refused, as GObject refuses one out of range, but as a
 * warning on the bus rather than a GLib warning (which
 * G_DEBUG=fatal-warnings turns into an abort). Without a bus yet
 * (gst_parse_launch () sets properties before it adds elements to the
 * pipeline) it is kept and posted when the element leaves NULL: posting
 * from set_bus would deadlock on the bin's lock, which adding holds.
 * Takes @text. */
static void
refuse_property (GstCudaCacheConvertOptions * o, GstElement * element,
    gchar * text)
{
  GST_WARNING_OBJECT (element, "%s", text);
  if (GST_ELEMENT_BUS (element)) {
    GST_ELEMENT_WARNING (element, LIBRARY, SETTINGS, ("%s", text), (NULL));
    g_free (text);
    return;
  }
  GST_OBJECT_LOCK (element);
  g_free (o->refusal);
  o->refusal = text;
  GST_OBJECT_UNLOCK (element);
}

void
gst_cuda_cache_convert_options_post_refusal (GstCudaCacheConvertOptions * o,
    GstElement * element)
{
  gchar *text;

  GST_OBJECT_LOCK (element);
  text = g_steal_pointer (&o->refusal);
  GST_OBJECT_UNLOCK (element);
  if (text) {
    GST_ELEMENT_WARNING (element, LIBRARY, SETTINGS, ("%s", text), (NULL));
    g_free (text);
  }
}

/* The config field of option @option */
static const gchar *
option_field (guint option)
{
  switch (option) {
    case GST_CUDA_CACHE_CONVERT_OPTION_METHOD:
      return GST_CUDA_CACHE_CONVERTER_OPT_METHOD;
    case GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX:
      return GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX;
    case GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX_POSITION:
      return GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION;
    case GST_CUDA_CACHE_CONVERT_OPTION_FILL_VALUE:
    case GST_CUDA_CACHE_CONVERT_OPTION_FILL_RGB:
      return GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE;
    case GST_CUDA_CACHE_CONVERT_OPTION_CHANNEL_ORDER:
      return GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER;
    case GST_CUDA_CACHE_CONVERT_OPTION_SCALE:
      return GST_CUDA_CACHE_CONVERTER_OPT_SCALE;
    case GST_CUDA_CACHE_CONVERT_OPTION_MEAN:
      return GST_CUDA_CACHE_CONVERTER_OPT_MEAN;
    case GST_CUDA_CACHE_CONVERT_OPTION_STD:
      return GST_CUDA_CACHE_CONVERTER_OPT_STD;
    default:
      g_assert_not_reached ();
      return NULL;
  }
}

/* Every property writes its option into a copy of the config, which the
 * library checks (gst_cuda_cache_converter_check_config (), the one check
 * of the options): a refused value keeps the previous one. Copy, check
 * and commit are one hold of the lock, so that two properties set at once
 * both stick. */
void
gst_cuda_cache_convert_options_set (GstCudaCacheConvertOptions * o,
    GstElement * element, guint option, const GValue * value)
{
  const gchar *field = option_field (option);
  GstStructure *config, *old = NULL;
  GError *error = NULL;
  const gchar *prefix = "GstCudaCacheConverter.";
  const gchar *message;
  gboolean ok;

  GST_OBJECT_LOCK (element);
  config = gst_structure_copy (o->config);
  gst_structure_set_value (config, field, value);
  ok = gst_cuda_cache_converter_check_config (config, &error);
  if (ok) {
    old = o->config;
    o->config = g_steal_pointer (&config);
    o->changed = TRUE;
  }
  GST_OBJECT_UNLOCK (element);

  g_clear_pointer (&old, gst_structure_free);
  if (ok)
    return;

  /* the property's name where the config's field has another */
  message = error ? error->message : "the value was refused";
  if (g_str_has_prefix (message, prefix))
    message += strlen (prefix);
  /* the config's fill takes one number too, the property only three */
  if (option == GST_CUDA_CACHE_CONVERT_OPTION_FILL_RGB &&
      g_str_has_prefix (message, "fill-value=")) {
    gchar *given = gst_value_serialize (value);

    refuse_property (o, element, g_strdup_printf ("fill-rgb=(%s)%s is not "
            "valid: it takes a GstValueArray of three whole numbers from 0 "
            "to 255 (red, green, blue), such as \"<114, 114, 114>\" "
            "(fill-value sets all three to one number); keeping the "
            "previous value", G_VALUE_TYPE_NAME (value), given ? given : "?"));
    g_free (given);
  } else {
    refuse_property (o, element, g_strdup_printf ("%s; keeping the "
            "previous value", message));
  }
  g_clear_error (&error);
  gst_structure_free (config);
}

void
gst_cuda_cache_convert_options_get (GstCudaCacheConvertOptions * o,
    GstElement * element, guint option, GValue * value)
{
  const GValue *v;

  GST_OBJECT_LOCK (element);
  v = gst_structure_get_value (o->config, option_field (option));
  switch (option) {
    case GST_CUDA_CACHE_CONVERT_OPTION_FILL_VALUE:
      /* red: the one value of a gray fill */
      g_value_set_uint (value, g_value_get_uint (gst_value_array_get_value (v,
                  0)));
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_METHOD:
    case GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX_POSITION:
    case GST_CUDA_CACHE_CONVERT_OPTION_CHANNEL_ORDER:
      g_value_set_enum (value, g_value_get_enum (v));
      break;
    default:
      /* the canonical config holds each option in the property's type */
      g_value_copy (v, value);
      break;
  }
  GST_OBJECT_UNLOCK (element);
}

GstStructure *
gst_cuda_cache_convert_options_take_config (GstCudaCacheConvertOptions * o,
    GstElement * element)
{
  GstStructure *config;

  GST_OBJECT_LOCK (element);
  config = gst_structure_copy (o->config);
  o->changed = FALSE;
  GST_OBJECT_UNLOCK (element);

  return config;
}
