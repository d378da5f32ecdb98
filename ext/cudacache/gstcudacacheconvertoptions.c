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
  guint i;

  memset (o, 0, sizeof (*o));
  o->letterbox = GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX;
  o->method = GST_CUDA_CACHE_CONVERTER_DEFAULT_METHOD;
  o->position = GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX_POSITION;
  o->fill[0] = o->fill[1] = o->fill[2] =
      GST_CUDA_CACHE_CONVERTER_DEFAULT_FILL_VALUE;
  o->channel_order = GST_CUDA_CACHE_CONVERTER_DEFAULT_CHANNEL_ORDER;
  o->scale = GST_CUDA_CACHE_CONVERTER_DEFAULT_SCALE;
  for (i = 0; i < 3; i++) {
    o->mean[i] = GST_CUDA_CACHE_CONVERTER_DEFAULT_MEAN;
    o->std[i] = GST_CUDA_CACHE_CONVERTER_DEFAULT_STD;
  }
}

void
gst_cuda_cache_convert_options_clear (GstCudaCacheConvertOptions * o)
{
  g_clear_pointer (&o->refusal, g_free);
}

/* No element spec: GObject would replace each value not of its type by
 * the default and refuse the array with a GLib warning, and Python's
 * Gst.ValueArray([1, 2, 3]) holds ints. get_triple () takes any number and
 * checks the range. */
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
          "tensor's channel order: three numbers above 0, e.g. "
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

static gboolean
get_triple (GstCudaCacheConvertOptions * o, GstElement * element,
    const GValue * value, const gchar * name, gdouble min, gdouble out[3])
{
  /* what the property takes, written as a user would */
  const gchar *example = g_str_equal (name, "fill-rgb") ?
      "<124, 116, 104>" : g_str_equal (name, "std") ?
      "<0.229, 0.224, 0.225>" : "<0.485, 0.456, 0.406>";
  gdouble triple[3];
  guint i;

  if (gst_value_array_get_size (value) != 3)
    goto wrong_size;
  /* numbers of any type: "<1, 2, 3>" parses as integers, and Python's
   * Gst.ValueArray of ints holds ints */
  for (i = 0; i < 3; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    GValue d = G_VALUE_INIT;

    g_value_init (&d, G_TYPE_DOUBLE);
    if (!g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE) ||
        !g_value_transform (v, &d)) {
      g_value_unset (&d);
      goto not_numbers;
    }
    triple[i] = g_value_get_double (&d);
    g_value_unset (&d);
    if (!(triple[i] >= min && triple[i] <= G_MAXFLOAT))
      goto out_of_range;
  }
  for (i = 0; i < 3; i++)
    out[i] = triple[i];

  return TRUE;

  /* ERRORS */
wrong_size:
  {
    refuse_property (o, element,
        g_strdup_printf ("%s takes three values, one per "
            "channel, such as \"%s\"; %u given: keeping the previous ones",
            name, example, gst_value_array_get_size (value)));
    return FALSE;
  }
not_numbers:
  {
    refuse_property (o, element,
        g_strdup_printf ("%s takes three numbers, such "
            "as \"%s\"; a value of type %s given: keeping the previous ones",
            name, example,
            G_VALUE_TYPE_NAME (gst_value_array_get_value (value, i))));
    return FALSE;
  }
out_of_range:
  {
    refuse_property (o, element,
        g_strdup_printf ("%s takes three numbers%s up to "
            "%g; value %u is %g: keeping the previous ones", name,
            min > 0 ? " above 0" : " from -3.4e38", G_MAXFLOAT, i, triple[i]));
    return FALSE;
  }
}

/* fill-rgb: three whole numbers from 0 to 255 */
static gboolean
get_fill_rgb (GstCudaCacheConvertOptions * o, GstElement * element,
    const GValue * value, gdouble out[3])
{
  gdouble triple[3];
  guint i;

  if (!get_triple (o, element, value, "fill-rgb", 0, triple))
    return FALSE;
  for (i = 0; i < 3; i++) {
    if (triple[i] > 255 || triple[i] != floor (triple[i])) {
      refuse_property (o, element,
          g_strdup_printf ("fill-rgb takes three whole "
              "numbers from 0 to 255, such as \"<114, 114, 114>\"; value %u "
              "is %g: keeping the previous ones", i, triple[i]));
      return FALSE;
    }
    out[i] = triple[i];
  }

  return TRUE;
}

static void
set_triple (GValue * value, const gdouble in[3])
{
  guint i;

  for (i = 0; i < 3; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, in[i]);
    gst_value_array_append_and_take_value (value, &v);
  }
}

void
gst_cuda_cache_convert_options_set (GstCudaCacheConvertOptions * o,
    GstElement * element, guint option, const GValue * value)
{
  gdouble triple[3];
  gboolean valid = TRUE;

  /* parsed before the lock: a refusal is posted, which takes it */
  if (option == GST_CUDA_CACHE_CONVERT_OPTION_MEAN)
    valid = get_triple (o, element, value, "mean", -G_MAXFLOAT, triple);
  else if (option == GST_CUDA_CACHE_CONVERT_OPTION_STD)
    valid = get_triple (o, element, value, "std", 1e-12, triple);
  else if (option == GST_CUDA_CACHE_CONVERT_OPTION_FILL_RGB)
    valid = get_fill_rgb (o, element, value, triple);

  GST_OBJECT_LOCK (element);
  switch (option) {
    case GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX:
      o->letterbox = g_value_get_boolean (value);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_METHOD:
      o->method = g_value_get_enum (value);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX_POSITION:
      o->position = g_value_get_enum (value);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_FILL_VALUE:
      o->fill[0] = o->fill[1] = o->fill[2] = g_value_get_uint (value);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_FILL_RGB:
      if (valid) {
        guint i;

        for (i = 0; i < 3; i++)
          o->fill[i] = (guint) triple[i];
      }
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_CHANNEL_ORDER:
      o->channel_order = g_value_get_enum (value);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_SCALE:
      o->scale = g_value_get_double (value);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_MEAN:
      if (valid)
        memcpy (o->mean, triple, sizeof (triple));
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_STD:
      if (valid)
        memcpy (o->std, triple, sizeof (triple));
      break;
    default:
      g_assert_not_reached ();
      break;
  }
  o->changed = TRUE;
  GST_OBJECT_UNLOCK (element);
}

void
gst_cuda_cache_convert_options_get (GstCudaCacheConvertOptions * o,
    GstElement * element, guint option, GValue * value)
{
  GST_OBJECT_LOCK (element);
  switch (option) {
    case GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX:
      g_value_set_boolean (value, o->letterbox);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_METHOD:
      g_value_set_enum (value, o->method);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX_POSITION:
      g_value_set_enum (value, o->position);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_FILL_VALUE:
      g_value_set_uint (value, o->fill[0]);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_FILL_RGB:{
      guint i;

      for (i = 0; i < 3; i++) {
        GValue v = G_VALUE_INIT;

        g_value_init (&v, G_TYPE_UINT);
        g_value_set_uint (&v, o->fill[i]);
        gst_value_array_append_and_take_value (value, &v);
      }
      break;
    }
    case GST_CUDA_CACHE_CONVERT_OPTION_CHANNEL_ORDER:
      g_value_set_enum (value, o->channel_order);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_SCALE:
      g_value_set_double (value, o->scale);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_MEAN:
      set_triple (value, o->mean);
      break;
    case GST_CUDA_CACHE_CONVERT_OPTION_STD:
      set_triple (value, o->std);
      break;
    default:
      g_assert_not_reached ();
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
  config = gst_cuda_cache_converter_build_config (o->letterbox, o->fill[0],
      o->channel_order, o->scale, o->mean, o->std);
  gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
      GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION, o->position,
      GST_CUDA_CACHE_CONVERTER_OPT_METHOD, GST_TYPE_CUDA_CACHE_RESIZE_METHOD,
      o->method, NULL);
  gst_cuda_cache_converter_config_set_fill (config, o->fill[0], o->fill[1],
      o->fill[2]);
  o->changed = FALSE;
  GST_OBJECT_UNLOCK (element);

  return config;
}
