/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The converter's config: the one definition of its options (names, types,
 * ranges, defaults), as GstVideoConverter keeps its own in a GstStructure.
 * A config is checked and completed here into its canonical form (every
 * option, each in one type), which is what the converter keeps and
 * gst_cuda_cache_converter_get_config () returns, and what the elements'
 * properties read and write through gst_cuda_cache_converter_check_config ().
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcudacacheconverter-private.h"

#define CONFIG_NAME "GstCudaCacheConverter.config"

/* the bounds of the normalisation, which the kernels compute in float */
#define MEAN_MIN (-G_MAXFLOAT)
#define STD_MIN 1e-12

/* The options a config may hold */
static const gchar *const known_options[] = {
  GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX,
  GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
  GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
  GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE,
  GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER,
  GST_CUDA_CACHE_CONVERTER_OPT_SCALE,
  GST_CUDA_CACHE_CONVERTER_OPT_MEAN,
  GST_CUDA_CACHE_CONVERTER_OPT_STD,
  GST_CUDA_CACHE_CONVERTER_OPT_SRC_X,
  GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y,
  GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH,
  GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT,
  NULL
};

void
gst_cuda_cache_converter_options_init (GstCudaCacheConverterOptions * options)
{
  guint i;

  memset (options, 0, sizeof (*options));
  options->method = GST_CUDA_CACHE_CONVERTER_DEFAULT_METHOD;
  options->letterbox = GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX;
  options->position = GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX_POSITION;
  options->channel_order = GST_CUDA_CACHE_CONVERTER_DEFAULT_CHANNEL_ORDER;
  options->scale = GST_CUDA_CACHE_CONVERTER_DEFAULT_SCALE;
  for (i = 0; i < 3; i++) {
    options->fill[i] = GST_CUDA_CACHE_CONVERTER_DEFAULT_FILL_VALUE;
    options->mean[i] = GST_CUDA_CACHE_CONVERTER_DEFAULT_MEAN;
    options->std[i] = GST_CUDA_CACHE_CONVERTER_DEFAULT_STD;
  }
}

/* Says which option of @config is wrong, the value it was given and what
 * it takes. */
static void
option_error (GError ** error, const GstStructure * config,
    const gchar * field, const gchar * takes)
{
  const GValue *value = gst_structure_get_value (config, field);
  gchar *given = gst_value_serialize (value);

  g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
      "%s=(%s)%s is not valid: it takes %s", field, G_VALUE_TYPE_NAME (value),
      given ? given : "?", takes);
  g_free (given);
}

/* A number of any numeric type: "<1, 2, 3>" parses as integers, and
 * Python's Gst.ValueArray of ints holds ints */
static gboolean
get_number (const GValue * value, gdouble * out)
{
  GValue d = G_VALUE_INIT;
  gboolean ok;

  if (G_VALUE_HOLDS_STRING (value) || G_VALUE_HOLDS_BOOLEAN (value) ||
      !g_value_type_transformable (G_VALUE_TYPE (value), G_TYPE_DOUBLE))
    return FALSE;
  g_value_init (&d, G_TYPE_DOUBLE);
  ok = g_value_transform (value, &d);
  *out = g_value_get_double (&d);
  g_value_unset (&d);

  return ok;
}

/* Three numbers from @min to G_MAXFLOAT, one per channel. */
static gboolean
get_triple (const GstStructure * config, const gchar * field, gdouble out[3],
    gdouble min, GError ** error)
{
  const GValue *value = gst_structure_get_value (config, field);
  gdouble triple[3];
  guint i;

  if (!value)
    return TRUE;
  if (!GST_VALUE_HOLDS_ARRAY (value) || gst_value_array_get_size (value) != 3)
    goto invalid;
  for (i = 0; i < 3; i++) {
    if (!get_number (gst_value_array_get_value (value, i), &triple[i]) ||
        !(triple[i] >= min && triple[i] <= G_MAXFLOAT))
      goto invalid;
  }
  memcpy (out, triple, sizeof (triple));

  return TRUE;

invalid:
  option_error (error, config, field, min > 0 ?
      "a GstValueArray of three numbers from 1e-12 to 3.40282e+38, one per "
      "channel, such as \"<0.229, 0.224, 0.225>\"" : "a GstValueArray of "
      "three numbers from -3.40282e+38 to 3.40282e+38, one per channel, "
      "such as \"<0.485, 0.456, 0.406>\"");
  return FALSE;
}

/* One level from 0 to 255: a whole number of any numeric type */
static gboolean
get_level (const GValue * value, guint * out)
{
  gdouble v;

  if (!get_number (value, &v) || !(v >= 0 && v <= 255) || v != floor (v))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

/* The fill: one level for red, green and blue, or an array of three. */
static gboolean
get_fill (const GstStructure * config, guint fill[3], GError ** error)
{
  const GValue *value = gst_structure_get_value (config,
      GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE);
  guint i, parsed[3];

  if (!value)
    return TRUE;
  if (!GST_VALUE_HOLDS_ARRAY (value)) {
    if (!get_level (value, &parsed[0]))
      goto invalid;
    parsed[1] = parsed[2] = parsed[0];
  } else {
    if (gst_value_array_get_size (value) != 3)
      goto invalid;
    for (i = 0; i < 3; i++) {
      if (!get_level (gst_value_array_get_value (value, i), &parsed[i]))
        goto invalid;
    }
  }
  memcpy (fill, parsed, sizeof (parsed));

  return TRUE;

invalid:
  option_error (error, config, GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE,
      "a whole number from 0 to 255, or a GstValueArray of three (red, "
      "green, blue), such as \"<114, 114, 114>\"");
  return FALSE;
}

/* An enum option: a value of its type, or its nick or name as a string,
 * as gst-launch and Python write it */
static gboolean
get_enum (const GstStructure * config, const gchar * field, GType type,
    gint * out, GError ** error)
{
  const GValue *value = gst_structure_get_value (config, field);
  GEnumClass *klass;
  GString *takes;
  guint i;

  if (!value)
    return TRUE;
  if (G_VALUE_HOLDS (value, type)) {
    *out = g_value_get_enum (value);
    return TRUE;
  }

  klass = g_type_class_ref (type);
  if (G_VALUE_HOLDS_STRING (value) && g_value_get_string (value)) {
    const gchar *s = g_value_get_string (value);
    GEnumValue *v = g_enum_get_value_by_nick (klass, s);

    if (!v)
      v = g_enum_get_value_by_name (klass, s);
    if (v) {
      *out = v->value;
      g_type_class_unref (klass);
      return TRUE;
    }
  }
  takes = g_string_new ("a ");
  g_string_append (takes, g_type_name (type));
  for (i = 0; i < klass->n_values; i++) {
    g_string_append_printf (takes, "%s%s", i == 0 ? " (" :
        i + 1 < klass->n_values ? ", " : " or ", klass->values[i].value_nick);
  }
  g_string_append (takes, "), or its name as a string");
  option_error (error, config, field, takes->str);
  g_string_free (takes, TRUE);
  g_type_class_unref (klass);
  return FALSE;
}

/* One of the source rectangle's fields: an int, 0 or more. */
static gboolean
get_source (const GstStructure * config, const gchar * field, gint * out,
    GError ** error)
{
  const GValue *value = gst_structure_get_value (config, field);

  if (!value)
    return TRUE;
  if (!G_VALUE_HOLDS_INT (value) || g_value_get_int (value) < 0) {
    option_error (error, config, field, "a gint, 0 or more");
    return FALSE;
  }
  *out = g_value_get_int (value);

  return TRUE;
}

/* A field of @config that is no option (a misspelt one, or a name
 * without its GstCudaCacheConverter. prefix), in @error: it would be
 * ignored without a word */
static gboolean
config_has_unknown (const GstStructure * config, GError ** error)
{
  gint i, n = gst_structure_n_fields (config);

  for (i = 0; i < n; i++) {
    const gchar *name = gst_structure_nth_field_name (config, i);
    gchar *options;

    if (g_strv_contains (known_options, name))
      continue;
    options = g_strjoinv (", ", (gchar **) known_options);
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "%s is no option of the converter's config; the options are %s",
        name, options);
    g_free (options);
    return TRUE;
  }

  return FALSE;
}

gboolean
gst_cuda_cache_converter_options_parse (GstCudaCacheConverterOptions *
    options, const GstStructure * config, GError ** error)
{
  GstCudaCacheConverterOptions parsed = *options;
  gint method = parsed.method, position = parsed.position;
  gint order = parsed.channel_order;

  if (!config)
    return TRUE;
  if (config_has_unknown (config, error))
    return FALSE;

  if (gst_structure_has_field (config, GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX)
      && !gst_structure_get_boolean (config,
          GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, &parsed.letterbox)) {
    option_error (error, config, GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX,
        "a gboolean (true or false)");
    return FALSE;
  }
  if (gst_structure_has_field (config, GST_CUDA_CACHE_CONVERTER_OPT_SCALE)
      && (!gst_structure_get_double (config,
              GST_CUDA_CACHE_CONVERTER_OPT_SCALE, &parsed.scale)
          || !(fabs (parsed.scale) <= G_MAXFLOAT))) {
    option_error (error, config, GST_CUDA_CACHE_CONVERTER_OPT_SCALE,
        "a gdouble from -3.40282e+38 to 3.40282e+38");
    return FALSE;
  }
  if (!get_enum (config, GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
          GST_TYPE_CUDA_CACHE_RESIZE_METHOD, &method, error) ||
      !get_enum (config, GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
          GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION, &position, error) ||
      !get_enum (config, GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER,
          GST_TYPE_CUDA_CACHE_CHANNEL_ORDER, &order, error) ||
      !get_fill (config, parsed.fill, error) ||
      !get_source (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_X, &parsed.src_x,
          error) ||
      !get_source (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y, &parsed.src_y,
          error) ||
      !get_source (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH,
          &parsed.src_width, error) ||
      !get_source (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT,
          &parsed.src_height, error) ||
      !get_triple (config, GST_CUDA_CACHE_CONVERTER_OPT_MEAN, parsed.mean,
          MEAN_MIN, error) ||
      !get_triple (config, GST_CUDA_CACHE_CONVERTER_OPT_STD, parsed.std,
          STD_MIN, error))
    return FALSE;
  parsed.method = method;
  parsed.position = position;
  parsed.channel_order = order;

  *options = parsed;
  return TRUE;
}

static void
take_array (GstStructure * config, const gchar * field, GType type,
    const gdouble values[3])
{
  GValue array = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&array, 3);
  for (i = 0; i < 3; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, type);
    if (type == G_TYPE_UINT)
      g_value_set_uint (&v, (guint) values[i]);
    else
      g_value_set_double (&v, values[i]);
    gst_value_array_append_and_take_value (&array, &v);
  }
  gst_structure_take_value (config, field, &array);
}

GstStructure *
gst_cuda_cache_converter_options_to_config (const
    GstCudaCacheConverterOptions * o)
{
  const gdouble fill[3] = { o->fill[0], o->fill[1], o->fill[2] };
  GstStructure *config;

  config = gst_structure_new (CONFIG_NAME,
      GST_CUDA_CACHE_CONVERTER_OPT_METHOD, GST_TYPE_CUDA_CACHE_RESIZE_METHOD,
      o->method,
      GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, G_TYPE_BOOLEAN, o->letterbox,
      GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
      GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION, o->position,
      GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER,
      GST_TYPE_CUDA_CACHE_CHANNEL_ORDER, o->channel_order,
      GST_CUDA_CACHE_CONVERTER_OPT_SCALE, G_TYPE_DOUBLE, o->scale,
      GST_CUDA_CACHE_CONVERTER_OPT_SRC_X, G_TYPE_INT, o->src_x,
      GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y, G_TYPE_INT, o->src_y,
      GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH, G_TYPE_INT, o->src_width,
      GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT, G_TYPE_INT, o->src_height, NULL);
  take_array (config, GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE, G_TYPE_UINT,
      fill);
  take_array (config, GST_CUDA_CACHE_CONVERTER_OPT_MEAN, G_TYPE_DOUBLE,
      o->mean);
  take_array (config, GST_CUDA_CACHE_CONVERTER_OPT_STD, G_TYPE_DOUBLE, o->std);

  return config;
}

void
gst_cuda_cache_converter_config_update (GstStructure * config,
    const GstStructure * from)
{
  gint i, n = gst_structure_n_fields (from);

  for (i = 0; i < n; i++) {
    const gchar *name = gst_structure_nth_field_name (from, i);

    gst_structure_set_value (config, name, gst_structure_get_value (from,
            name));
  }
}

/**
 * gst_cuda_cache_converter_check_config:
 * @config: a converter config: `GST_CUDA_CACHE_CONVERTER_OPT_*` fields
 * @error: (nullable): where to say which option is wrong, what it was given
 *     and what it takes
 *
 * Checks every option @config holds, as gst_cuda_cache_converter_new() and
 * gst_cuda_cache_converter_reconfigure() check them, and on success makes
 * @config the canonical form of what it says, the form
 * gst_cuda_cache_converter_get_config() returns: every option, each in one
 * type (an enum option written as its nick, such as `"area"`, becomes the
 * enum; numbers of another type become the option's; the fill becomes an
 * array of three), those @config lacked at their defaults, under the name
 * `GstCudaCacheConverter.config`.
 *
 * This is the one check of the options: `cudacacheconvert` and
 * `cudacachebatch` check their properties' values through it.
 *
 * Returns: %TRUE where @config is valid; %FALSE with @error set, and
 *     @config unchanged, where an option is wrong
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_check_config (GstStructure * config, GError ** error)
{
  GstCudaCacheConverterOptions options;
  GstStructure *canonical;

  g_return_val_if_fail (config != NULL, FALSE);

  gst_cuda_cache_converter_options_init (&options);
  if (!gst_cuda_cache_converter_options_parse (&options, config, error))
    return FALSE;

  canonical = gst_cuda_cache_converter_options_to_config (&options);
  gst_structure_set_name (config, CONFIG_NAME);
  gst_structure_remove_all_fields (config);
  gst_cuda_cache_converter_config_update (config, canonical);
  gst_structure_free (canonical);

  return TRUE;
}
