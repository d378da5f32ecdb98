/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:gstcudacacheconverter
 * @title: GstCudaCacheConverter
 * @short_description: converts, scales and packs frames into images or
 *     tensors, on the GPU or the CPU
 *
 * A #GstCudaCacheConverter is made from input caps (`video/x-raw`: NV12,
 * I420, RGBA, BGRA, RGBx, BGRx, RGB or BGR), output caps (the same video
 * formats, or a 3-channel, batch-1 `other/tensors` of uint8, float16 or
 * float32 in NCHW or NHWC layout) and a config of
 * `GST_CUDA_CACHE_CONVERTER_OPT_*` fields. It owns everything about the
 * conversion: colour matrices, scaling and letterbox geometry, tensor
 * normalisation, the CUDA kernels' per-caps launch plan and the CPU path
 * (the kernels' taps and arithmetic in C, on all cores), which follow one
 * definition: both give the same values within a level, and each within
 * half a level of the definition (`docs/converter.md`).
 *
 * gst_cuda_cache_converter_convert_buffer() converts CUDA memory on the
 * device, with the kernels built into the library, on a CUDA stream the
 * caller passes (`CUstream`, as gst-cuda's own converter takes it), and
 * system memory on the CPU. Without a stream of the caller's it launches on
 * a non-blocking stream of its own, never on the legacy default stream, so
 * pipelines in one process never wait on each other. Output memory that
 * carries the caller's stream (GStreamer 1.24 and later: a pool configured
 * with gst_buffer_pool_config_set_cuda_stream()) is left flagged
 * %GST_CUDA_MEMORY_TRANSFER_NEED_SYNC, the conversion still queued: nobody
 * waits until a reader of another stream, or the CPU, needs the pixels.
 * Other output (all of 1.22's memory carries no stream) is written when the
 * call returns: the converter waits for its own conversion, and nothing
 * else, through a word of pinned host memory the kernels' last block
 * writes, with no call into the CUDA driver (whose stream synchronisation
 * is serialised between threads); the stream is synchronised only where
 * that word is late. Input written on another stream and not yet waited
 * for is waited for first.
 *
 * Like #GstVideoConverter, a converter is used by one thread at a time:
 * its calls are not serialised against each other. Threads that convert
 * at once each make their own.
 *
 * `cudacacheconvert` is this object behind a #GstBaseTransform; an
 * application converts without a pipeline the same way:
 * |[<!-- language="C" -->
 * GstCudaCacheConverter *conv = gst_cuda_cache_converter_new (in_caps,
 *     out_caps, context, NULL, &error);
 * gst_cuda_cache_converter_convert_buffer (conv, in, out, NULL, &error);
 * ]|
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/cuda/gstcudamemory.h>

#include "gstcudacacheconverter-private.h"
#include "gstcudacacheconvertparams-private.h"
#include "gstcudacacheconvertercpu-private.h"
#include "gstcudacacheconvertercuda-private.h"

GST_DEBUG_CATEGORY (gst_cuda_cache_converter_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_converter_debug

struct _GstCudaCacheConverter
{
  GstObject parent;

  GstCudaContext *context;      /* NULL: the CPU back end only */

  GstCudaCacheConverterOptions options;
  GstCudaCacheConverterInfo info;
  GstCudaCacheConvertParams params;
  /* the last input buffer's GstVideoCropMeta and the frame it lies in,
   * where it had one */
  gboolean has_crop;
  GstCudaCacheInputCrop crop;

  /* the back ends: CUDA where there is a context, made with the converter;
   * the CPU's where there is none, or when system memory first comes */
  GstCudaCacheConverterCuda *cuda;
  GstCudaCacheConverterCpu *cpu;
};

#define gst_cuda_cache_converter_parent_class parent_class
G_DEFINE_TYPE (GstCudaCacheConverter, gst_cuda_cache_converter,
    GST_TYPE_OBJECT);

static void gst_cuda_cache_converter_finalize (GObject * object);

static void
gst_cuda_cache_converter_class_init (GstCudaCacheConverterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->finalize = gst_cuda_cache_converter_finalize;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_converter_debug,
      "cudacacheconverter", 0, "CUDA cache: frame and tensor converter");
}

static void
options_init (GstCudaCacheConverterOptions * options)
{
  guint i;

  options->method = GST_CUDA_CACHE_CONVERTER_DEFAULT_METHOD;
  options->letterbox = GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX;
  options->position = GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX_POSITION;
  options->src_x = options->src_y = 0;
  options->src_width = options->src_height = 0;
  options->channel_order = GST_CUDA_CACHE_CONVERTER_DEFAULT_CHANNEL_ORDER;
  options->scale = GST_CUDA_CACHE_CONVERTER_DEFAULT_SCALE;
  for (i = 0; i < 3; i++) {
    options->fill[i] = GST_CUDA_CACHE_CONVERTER_DEFAULT_FILL_VALUE;
    options->mean[i] = GST_CUDA_CACHE_CONVERTER_DEFAULT_MEAN;
    options->std[i] = GST_CUDA_CACHE_CONVERTER_DEFAULT_STD;
  }
}

static void
gst_cuda_cache_converter_init (GstCudaCacheConverter * self)
{
  options_init (&self->options);
}

static void
gst_cuda_cache_converter_finalize (GObject * object)
{
  GstCudaCacheConverter *self = GST_CUDA_CACHE_CONVERTER (object);

  g_clear_pointer (&self->cpu, gst_cuda_cache_converter_cpu_free);
  g_clear_pointer (&self->cuda, gst_cuda_cache_converter_cuda_free);
  gst_clear_object (&self->context);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* What every layer uses */

void
gst_cuda_cache_converter_set_error (GError ** error, GQuark domain, gint code,
    const gchar * format, ...)
{
  va_list args, again;
  gchar *message;

  if (!error)
    return;

  va_start (args, format);
  G_VA_COPY (again, args);
  message = gst_info_strdup_vprintf (format, args);
  /* NULL where GStreamer was built without its debugging system */
  if (!message)
    message = g_strdup_vprintf (format, again);
  va_end (again);
  va_end (args);
  g_set_error_literal (error, domain, code, message);
  g_free (message);
}

gboolean
gst_cuda_cache_converter_frame_map (GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buf, GstMapFlags flags,
    const gchar * side, GError ** error)
{
  if (gst_video_frame_map (frame, (GstVideoInfo *) info, buf, flags))
    return TRUE;

  g_set_error (error, GST_RESOURCE_ERROR, (flags & GST_MAP_WRITE) ?
      GST_RESOURCE_ERROR_WRITE : GST_RESOURCE_ERROR_READ,
      "could not map the %s buffer (%" G_GSIZE_FORMAT " bytes%s) as a %dx%d "
      "%s frame of %" G_GSIZE_FORMAT " bytes: it is too small, or its video "
      "meta does not fit it", side, gst_buffer_get_size (buf),
      (flags & GST_MAP_CUDA) ? ", CUDA memory" : "",
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_SIZE (info));
  return FALSE;
}

gboolean
gst_cuda_cache_converter_tensor_fits (const GstCudaCacheConverterInfo * info,
    gsize size, GError ** error)
{
  if (size >= info->tensor.size)
    return TRUE;

  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "output buffer of %" G_GSIZE_FORMAT " bytes for a tensor of %"
      G_GSIZE_FORMAT, size, info->tensor.size);
  return FALSE;
}

/* Config */

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
    const GValue *v = gst_value_array_get_value (value, i);

    if (G_VALUE_HOLDS_DOUBLE (v))
      triple[i] = g_value_get_double (v);
    else if (G_VALUE_HOLDS_FLOAT (v))
      triple[i] = g_value_get_float (v);
    else if (G_VALUE_HOLDS_INT (v))
      triple[i] = g_value_get_int (v);
    else
      goto invalid;
    if (!isfinite (triple[i]) || triple[i] < min)
      goto invalid;
  }
  memcpy (out, triple, sizeof (triple));

  return TRUE;

invalid:
  option_error (error, config, field, min > 0 ?
      "a GstValueArray of three finite numbers above 0, one per channel, "
      "such as \"<0.5, 0.5, 0.5>\"" : "a GstValueArray of three finite "
      "numbers, one per channel, such as \"<0.5, 0.5, 0.5>\"");
  return FALSE;
}

/* The fill: one value for red, green and blue, or an array of three. */
static gboolean
get_fill (const GstStructure * config, guint fill[3])
{
  const GValue *value = gst_structure_get_value (config,
      GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE);
  guint i;

  if (!value)
    return TRUE;
  if (G_VALUE_HOLDS_UINT (value) || G_VALUE_HOLDS_INT (value)) {
    gint64 v = G_VALUE_HOLDS_UINT (value) ?
        (gint64) g_value_get_uint (value) : (gint64) g_value_get_int (value);

    if (v < 0 || v > 255)
      return FALSE;
    fill[0] = fill[1] = fill[2] = (guint) v;
    return TRUE;
  }
  if (!GST_VALUE_HOLDS_ARRAY (value) || gst_value_array_get_size (value) != 3)
    return FALSE;
  for (i = 0; i < 3; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    gint64 c;

    if (G_VALUE_HOLDS_UINT (v))
      c = g_value_get_uint (v);
    else if (G_VALUE_HOLDS_INT (v))
      c = g_value_get_int (v);
    else
      return FALSE;
    if (c < 0 || c > 255)
      return FALSE;
    fill[i] = (guint) c;
  }

  return TRUE;
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
    guint k;

    for (k = 0; known_options[k]; k++) {
      if (g_str_equal (name, known_options[k]))
        break;
    }
    if (known_options[k])
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

/* Parses @config over @options; @options is left alone on failure. */
static gboolean
options_from_config (GstCudaCacheConverterOptions * options,
    const GstStructure * config, GError ** error)
{
  GstCudaCacheConverterOptions parsed = *options;
  const GValue *value;

  if (!config)
    return TRUE;
  if (config_has_unknown (config, error))
    return FALSE;

  if (gst_structure_has_field (config, GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX)
      && !gst_structure_get_boolean (config,
          GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, &parsed.letterbox))
    goto invalid_letterbox;
  value = gst_structure_get_value (config, GST_CUDA_CACHE_CONVERTER_OPT_METHOD);
  if (value) {
    if (!G_VALUE_HOLDS (value, GST_TYPE_CUDA_CACHE_RESIZE_METHOD))
      goto invalid_method;
    parsed.method = g_value_get_enum (value);
  }
  value = gst_structure_get_value (config,
      GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION);
  if (value) {
    if (!G_VALUE_HOLDS (value, GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION))
      goto invalid_position;
    parsed.position = g_value_get_enum (value);
  }
  if (!get_fill (config, parsed.fill))
    goto invalid_fill_value;
  if (!get_source (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_X, &parsed.src_x,
          error) ||
      !get_source (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y, &parsed.src_y,
          error) ||
      !get_source (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH,
          &parsed.src_width, error) ||
      !get_source (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT,
          &parsed.src_height, error))
    return FALSE;
  value = gst_structure_get_value (config,
      GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER);
  if (value) {
    if (!G_VALUE_HOLDS (value, GST_TYPE_CUDA_CACHE_CHANNEL_ORDER))
      goto invalid_channel_order;
    parsed.channel_order = g_value_get_enum (value);
  }
  if (gst_structure_has_field (config, GST_CUDA_CACHE_CONVERTER_OPT_SCALE)
      && (!gst_structure_get_double (config,
              GST_CUDA_CACHE_CONVERTER_OPT_SCALE, &parsed.scale)
          || !isfinite (parsed.scale)))
    goto invalid_scale;
  if (!get_triple (config, GST_CUDA_CACHE_CONVERTER_OPT_MEAN, parsed.mean,
          -G_MAXDOUBLE, error) ||
      !get_triple (config, GST_CUDA_CACHE_CONVERTER_OPT_STD, parsed.std,
          G_MINDOUBLE, error))
    return FALSE;

  *options = parsed;
  return TRUE;

  /* ERRORS */
invalid_letterbox:
  option_error (error, config, GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX,
      "a gboolean (true or false)");
  return FALSE;
invalid_method:
  option_error (error, config, GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
      "a GstCudaCacheResizeMethod (linear, nearest, bilinear, area or "
      "antialias)");
  return FALSE;
invalid_position:
  option_error (error, config,
      GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
      "a GstCudaCacheLetterboxPosition (center or top-left)");
  return FALSE;
invalid_fill_value:
  option_error (error, config, GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE,
      "a guint from 0 to 255, or a GstValueArray of three (red, green, "
      "blue), such as \"<114, 114, 114>\"");
  return FALSE;
invalid_channel_order:
  option_error (error, config, GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER,
      "a GstCudaCacheChannelOrder (rgb or bgr)");
  return FALSE;
invalid_scale:
  option_error (error, config, GST_CUDA_CACHE_CONVERTER_OPT_SCALE,
      "a finite gdouble");
  return FALSE;
}

/* Caps */

static gboolean
format_supported (GstVideoFormat format, gboolean input)
{
  switch (format) {
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
    case GST_VIDEO_FORMAT_YUY2:
    case GST_VIDEO_FORMAT_UYVY:
      return input;
    case GST_VIDEO_FORMAT_GRAY8:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      return TRUE;
    default:
      return FALSE;
  }
}

static gboolean
video_from_caps (GstVideoInfo * info, const GstCaps * caps, const gchar * side,
    GError ** error)
{
  if (!gst_video_info_from_caps (info, caps)) {
    gst_cuda_cache_converter_set_error (error, GST_CORE_ERROR,
        GST_CORE_ERROR_NEGOTIATION, "%s caps do not describe a video frame "
        "GStreamer can lay out (a field missing or out of range, or a frame "
        "too large to address): %" GST_PTR_FORMAT, side, caps);
    return FALSE;
  }
  if (!format_supported (GST_VIDEO_INFO_FORMAT (info),
          g_str_equal (side, "input"))) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "%s format %s is not one the converter %s (NV12, I420, RGBA, "
        "BGRA, RGBx, BGRx, RGB, BGR, GRAY8%s)", side,
        GST_VIDEO_INFO_NAME (info),
        g_str_equal (side, "input") ? "takes" : "makes",
        g_str_equal (side, "input") ? "; P010_10LE, P016_LE, YUY2, UYVY" : "");
    return FALSE;
  }
  if (GST_VIDEO_INFO_IS_INTERLACED (info)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "%s caps are interlaced; the converter takes progressive frames", side);
    return FALSE;
  }

  return TRUE;
}

/* GStreamer's caps parser, not the user, decides the type of an unquoted
 * value: dimensions=64:48 is read as a flagset (not even a fixed one),
 * dimensions=640 as an int. Says what to write instead. */
static gboolean
tensor_dimensions_are_string (const GstCaps * caps, GError ** error)
{
  const GstStructure *s;
  const GValue *dims;
  gchar *given;

  if (gst_caps_get_size (caps) != 1)
    return TRUE;
  s = gst_caps_get_structure (caps, 0);
  dims = gst_structure_get_value (s, "dimensions");
  if (!gst_structure_has_name (s, GST_CUDA_CACHE_TENSOR_CAPS_NAME) || !dims ||
      G_VALUE_HOLDS_STRING (dims) || GST_VALUE_HOLDS_LIST (dims))
    return TRUE;

  given = gst_value_serialize (dims);
  g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "output tensor caps cannot be made: dimensions=(%s)%s is not a string "
      "(GStreamer reads two numbers such as 64:48 as a flagset, one as an "
      "int): write it as a string of three or four numbers, e.g. "
      "dimensions=(string)640:640:3:1 (W:H:3:1 for NCHW, 3:W:H:1 for NHWC)",
      G_VALUE_TYPE_NAME (dims), given ? given : "?");
  g_free (given);
  return FALSE;
}

/* Says which part of tensor caps the converter cannot make. */
static void
tensor_caps_error (const GstCaps * caps, GError ** error)
{
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  const gchar *types = gst_structure_get_string (s, "types");
  const gchar *layout = gst_structure_get_string (s, "layout");
  const gchar *dims = gst_structure_get_string (s, "dimensions");
  GstCudaCacheTensorDType dtype;
  GstCudaCacheTensorLayout tensor_layout;
  gchar **parts = NULL;
  const gchar *why;
  guint i, n = 0;
  gboolean numbers = TRUE;

  if (dims) {
    parts = g_strsplit (dims, ":", -1);
    n = g_strv_length (parts);
    for (i = 0; i < n; i++) {
      guint64 v;

      if (!g_ascii_string_to_unsigned (parts[i], 10, 1, G_MAXUINT32, &v, NULL))
        numbers = FALSE;
    }
    g_strfreev (parts);
  }

  if (!types || !gst_cuda_cache_tensor_dtype_from_string (types, &dtype))
    why = "types must be one of uint8, float16, float32";
  else if (layout && !gst_cuda_cache_tensor_layout_from_string (layout,
          &tensor_layout))
    why = "layout must be NCHW or NHWC";
  else if (!dims || n < 1 || n > GST_CUDA_CACHE_TENSOR_N_DIMS || !numbers)
    why = "dimensions must be one to four numbers from 1 up, innermost "
        "first, those left out being 1 (W:H:3:1 for NCHW, 3:W:H:1 for " "NHWC)";
  else
    why = "the tensor is too large to address";

  gst_cuda_cache_converter_set_error (error, GST_CORE_ERROR,
      GST_CORE_ERROR_NEGOTIATION, "output tensor caps cannot be made: %s (%"
      GST_PTR_FORMAT ")", why, caps);
}

static gboolean
info_from_caps (GstCudaCacheConverterInfo * parsed, const GstCaps * in_caps,
    const GstCaps * out_caps, GError ** error)
{
  const GstCaps *unfixed = !gst_caps_is_fixed (in_caps) ? in_caps :
      !gst_caps_is_fixed (out_caps) ? out_caps : NULL;

  if (!tensor_dimensions_are_string (out_caps, error))
    return FALSE;
  /* EMPTY and ANY too: what follows reads one structure of each */
  if (unfixed) {
    gst_cuda_cache_converter_set_error (error, GST_CORE_ERROR,
        GST_CORE_ERROR_NEGOTIATION, "%s caps are not fixed: %"
        GST_PTR_FORMAT, unfixed == in_caps ? "input" : "output", unfixed);
    return FALSE;
  }
  if (!video_from_caps (&parsed->in_info, in_caps, "input", error))
    return FALSE;

  parsed->tensor_out = gst_structure_has_name (gst_caps_get_structure
      (out_caps, 0), GST_CUDA_CACHE_TENSOR_CAPS_NAME);
  if (!parsed->tensor_out)
    return video_from_caps (&parsed->out_info, out_caps, "output", error);

  if (!gst_cuda_cache_tensor_info_from_caps (&parsed->tensor, out_caps)) {
    tensor_caps_error (out_caps, error);
    return FALSE;
  }
  if ((gst_cuda_cache_tensor_info_get_channels (&parsed->tensor) != 3 &&
          gst_cuda_cache_tensor_info_get_channels (&parsed->tensor) != 1) ||
      gst_cuda_cache_tensor_info_get_batch (&parsed->tensor) != 1) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the converter makes tensors of 3 channels (colour) or 1 (gray) and "
        "batch 1; the caps ask "
        "for %u channel(s) and batch %u (%s dimensions are %s)",
        gst_cuda_cache_tensor_info_get_channels (&parsed->tensor),
        gst_cuda_cache_tensor_info_get_batch (&parsed->tensor),
        gst_cuda_cache_tensor_layout_to_string (parsed->tensor.layout),
        parsed->tensor.layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC ?
        "C:W:H:N, innermost first" : "W:H:C:N, innermost first");
    return FALSE;
  }
  if (gst_cuda_cache_tensor_info_get_width (&parsed->tensor) > G_MAXINT / 4 ||
      gst_cuda_cache_tensor_info_get_height (&parsed->tensor) > G_MAXINT / 4) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "a tensor of %ux%u pixels is larger than the converter addresses",
        gst_cuda_cache_tensor_info_get_width (&parsed->tensor),
        gst_cuda_cache_tensor_info_get_height (&parsed->tensor));
    return FALSE;
  }

  return TRUE;
}

/* Applies new caps and options; on failure nothing changes. */
static gboolean
gst_cuda_cache_converter_configure (GstCudaCacheConverter * self,
    const GstCudaCacheConverterInfo * info,
    const GstCudaCacheConverterOptions * options, GError ** error)
{
  GstCudaCacheConvertParams params;
  GstCudaCacheConverterCpu *cpu = NULL;
  GstVideoRectangle source;

  if (!gst_cuda_cache_convert_params_source (&info->in_info, options,
          self->has_crop ? &self->crop : NULL, &source, error))
    return FALSE;
  gst_cuda_cache_convert_params_fill (&params, info, options, &source);

  /* the CUDA back end where there is a context, the CPU's where not: each
   * is ready for the first frame and refuses what it cannot do now */
  if (self->context) {
    if (!self->cuda)
      self->cuda = gst_cuda_cache_converter_cuda_new (self->context, error);
    if (!self->cuda ||
        !gst_cuda_cache_converter_cuda_set_params (self->cuda, info, &params,
            error))
      return FALSE;
  } else {
    cpu = gst_cuda_cache_converter_cpu_new (info, &params, self->cpu, error);
    if (!cpu)
      return FALSE;
  }

  /* a converter with a context makes its CPU back end again, for these
   * caps, when system memory comes */
  g_clear_pointer (&self->cpu, gst_cuda_cache_converter_cpu_free);
  self->cpu = cpu;
  self->info = *info;
  self->options = *options;
  self->params = params;

  GST_DEBUG_OBJECT (self, "%dx%d %s -> %dx%d %s, picture at %d,%d %dx%d",
      params.in_width, params.in_height, GST_VIDEO_INFO_NAME (&info->in_info),
      params.out_width, params.out_height, info->tensor_out ? "tensor" :
      GST_VIDEO_INFO_NAME (&info->out_info), params.dest_x, params.dest_y,
      params.dest_width, params.dest_height);

  return TRUE;
}

/**
 * gst_cuda_cache_converter_new:
 * @in_caps: fixed `video/x-raw` caps of the input
 * @out_caps: fixed `video/x-raw` or `other/tensors` caps of the output
 * @context: (nullable): the #GstCudaContext of the CUDA memory to convert;
 *     %NULL for a converter of system memory only
 * @config: (transfer full) (nullable): `GST_CUDA_CACHE_CONVERTER_OPT_*`
 *     fields, or %NULL for the defaults
 * @error: (nullable): where to say why the conversion cannot be made
 *
 * Makes a converter. With a @context the CUDA kernels are loaded into it
 * at once, so that an error shows here rather than at the first frame.
 *
 * Returns: (transfer full) (nullable): a new converter, or %NULL with
 *     @error set if the caps or the config are not a conversion it makes
 *
 * Since: 0.1
 */
GstCudaCacheConverter *
gst_cuda_cache_converter_new (const GstCaps * in_caps,
    const GstCaps * out_caps, GstCudaContext * context, GstStructure * config,
    GError ** error)
{
  GstCudaCacheConverter *self;
  GstCudaCacheConverterOptions options;
  GstCudaCacheConverterInfo info;

  g_return_val_if_fail (GST_IS_CAPS (in_caps), NULL);
  g_return_val_if_fail (GST_IS_CAPS (out_caps), NULL);
  g_return_val_if_fail (context == NULL || GST_IS_CUDA_CONTEXT (context), NULL);

  options_init (&options);
  if (!options_from_config (&options, config, error) ||
      !info_from_caps (&info, in_caps, out_caps, error)) {
    if (config)
      gst_structure_free (config);
    return NULL;
  }
  if (config)
    gst_structure_free (config);

  self = g_object_new (GST_TYPE_CUDA_CACHE_CONVERTER, NULL);
  gst_object_ref_sink (self);
  if (context)
    self->context = gst_object_ref (context);

  if (!gst_cuda_cache_converter_configure (self, &info, &options, error)) {
    gst_object_unref (self);
    return NULL;
  }

  return self;
}

/**
 * gst_cuda_cache_converter_set_caps:
 * @converter: a #GstCudaCacheConverter
 * @in_caps: fixed caps of the input
 * @out_caps: fixed caps of the output
 * @error: (nullable): where to say why the conversion cannot be made
 *
 * Reconfigures @converter for other caps, keeping its config, its kernels
 * and its stream: a caps change costs no module load.
 *
 * Returns: %TRUE on success; on failure @converter is unchanged
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_set_caps (GstCudaCacheConverter * converter,
    const GstCaps * in_caps, const GstCaps * out_caps, GError ** error)
{
  return gst_cuda_cache_converter_reconfigure (converter, in_caps, out_caps,
      NULL, error);
}

/**
 * gst_cuda_cache_converter_set_config:
 * @converter: a #GstCudaCacheConverter
 * @config: (transfer full): `GST_CUDA_CACHE_CONVERTER_OPT_*` fields; those
 *     it lacks keep their values
 * @error: (nullable): where to say what is wrong with @config
 *
 * Changes options for the next frame.
 *
 * Returns: %TRUE on success; on failure @converter is unchanged
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_set_config (GstCudaCacheConverter * converter,
    GstStructure * config, GError ** error)
{
  GstCudaCacheConverterOptions options;
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);

  options = converter->options;
  ret = options_from_config (&options, config, error) &&
      gst_cuda_cache_converter_configure (converter, &converter->info,
      &options, error);
  gst_structure_free (config);

  return ret;
}

/**
 * gst_cuda_cache_converter_reconfigure:
 * @converter: a #GstCudaCacheConverter
 * @in_caps: fixed caps of the input
 * @out_caps: fixed caps of the output
 * @config: (transfer full) (nullable): `GST_CUDA_CACHE_CONVERTER_OPT_*`
 *     fields; those it lacks keep their values
 * @error: (nullable): where to say why the conversion cannot be made
 *
 * gst_cuda_cache_converter_set_caps() and
 * gst_cuda_cache_converter_set_config() at once: the conversion is set up
 * once, for the new caps with the new options, where the two calls set it
 * up twice (the CPU path's tables and frames, the kernels'
 * plan), the first time for a pair of caps and options never used.
 *
 * Returns: %TRUE on success; on failure @converter is unchanged
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_reconfigure (GstCudaCacheConverter * converter,
    const GstCaps * in_caps, const GstCaps * out_caps, GstStructure * config,
    GError ** error)
{
  GstCudaCacheConverterOptions options;
  GstCudaCacheConverterInfo info;
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), FALSE);
  g_return_val_if_fail (GST_IS_CAPS (in_caps), FALSE);
  g_return_val_if_fail (GST_IS_CAPS (out_caps), FALSE);

  options = converter->options;
  ret = (!config || options_from_config (&options, config, error)) &&
      info_from_caps (&info, in_caps, out_caps, error) &&
      gst_cuda_cache_converter_configure (converter, &info, &options, error);
  if (config)
    gst_structure_free (config);

  return ret;
}

/**
 * gst_cuda_cache_converter_build_config:
 * @letterbox: %GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX
 * @fill_value: %GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE
 * @channel_order: %GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER
 * @scale: %GST_CUDA_CACHE_CONVERTER_OPT_SCALE
 * @mean: (array fixed-size=3): %GST_CUDA_CACHE_CONVERTER_OPT_MEAN
 * @std: (array fixed-size=3): %GST_CUDA_CACHE_CONVERTER_OPT_STD
 *
 * Returns: (transfer full): a config with every option
 *
 * Since: 0.1
 */
GstStructure *
gst_cuda_cache_converter_build_config (gboolean letterbox, guint fill_value,
    GstCudaCacheChannelOrder channel_order, gdouble scale,
    const gdouble mean[3], const gdouble std[3])
{
  GValue mean_value = G_VALUE_INIT, std_value = G_VALUE_INIT;
  GstStructure *config;
  guint i;

  g_return_val_if_fail (mean != NULL, NULL);
  g_return_val_if_fail (std != NULL, NULL);

  gst_value_array_init (&mean_value, 3);
  gst_value_array_init (&std_value, 3);
  for (i = 0; i < 3; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, mean[i]);
    gst_value_array_append_value (&mean_value, &v);
    g_value_set_double (&v, std[i]);
    gst_value_array_append_and_take_value (&std_value, &v);
  }

  config = gst_structure_new ("GstCudaCacheConverter.config",
      GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, G_TYPE_BOOLEAN, letterbox,
      GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE, G_TYPE_UINT, fill_value,
      GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER,
      GST_TYPE_CUDA_CACHE_CHANNEL_ORDER, channel_order,
      GST_CUDA_CACHE_CONVERTER_OPT_SCALE, G_TYPE_DOUBLE, scale, NULL);
  gst_structure_take_value (config, GST_CUDA_CACHE_CONVERTER_OPT_MEAN,
      &mean_value);
  gst_structure_take_value (config, GST_CUDA_CACHE_CONVERTER_OPT_STD,
      &std_value);

  return config;
}

/**
 * gst_cuda_cache_converter_config_set_fill:
 * @config: a converter config
 * @red: the padding's red, 0 to 255
 * @green: its green
 * @blue: its blue
 *
 * Sets %GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE in @config: one value
 * where the three are equal, an array of three otherwise.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_converter_config_set_fill (GstStructure * config, guint red,
    guint green, guint blue)
{
  const guint fill[3] = { red, green, blue };
  GValue array = G_VALUE_INIT;
  guint i;

  g_return_if_fail (config != NULL);
  g_return_if_fail (red <= 255 && green <= 255 && blue <= 255);

  if (red == green && red == blue) {
    gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE,
        G_TYPE_UINT, red, NULL);
    return;
  }
  gst_value_array_init (&array, 3);
  for (i = 0; i < 3; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_UINT);
    g_value_set_uint (&v, fill[i]);
    gst_value_array_append_and_take_value (&array, &v);
  }
  gst_structure_take_value (config, GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE,
      &array);
}

/**
 * gst_cuda_cache_converter_get_config:
 * @converter: a #GstCudaCacheConverter
 *
 * Returns: (transfer full): every option, as a config
 *
 * Since: 0.1
 */
GstStructure *
gst_cuda_cache_converter_get_config (GstCudaCacheConverter * converter)
{
  const GstCudaCacheConverterOptions *o;
  GstStructure *config;

  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), NULL);

  o = &converter->options;
  config = gst_cuda_cache_converter_build_config (o->letterbox, o->fill[0],
      o->channel_order, o->scale, o->mean, o->std);
  gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
      GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION, o->position,
      GST_CUDA_CACHE_CONVERTER_OPT_METHOD, GST_TYPE_CUDA_CACHE_RESIZE_METHOD,
      o->method, NULL);
  gst_cuda_cache_converter_config_set_fill (config, o->fill[0], o->fill[1],
      o->fill[2]);

  return config;
}

/**
 * gst_cuda_cache_converter_get_context:
 * @converter: a #GstCudaCacheConverter
 *
 * Returns: (transfer none) (nullable): the CUDA context @converter converts
 *     in, %NULL for system memory only
 *
 * Since: 0.1
 */
GstCudaContext *
gst_cuda_cache_converter_get_context (GstCudaCacheConverter * converter)
{
  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), NULL);

  return converter->context;
}

/**
 * gst_cuda_cache_converter_get_picture_rect:
 * @converter: a #GstCudaCacheConverter
 * @rect: (out caller-allocates): where the input picture lands in the
 *     output, in output pixels
 *
 * With letterboxing, the rest of the output is the fill value: apps map
 * detections back to the input through this rectangle. For NV12 and I420
 * output its x and y are even (the picture starts on the chroma grid, as
 * with GstVideoConverter).
 *
 * Returns: %TRUE
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_get_picture_rect (GstCudaCacheConverter * converter,
    GstVideoRectangle * rect)
{
  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), FALSE);
  g_return_val_if_fail (rect != NULL, FALSE);

  rect->x = converter->params.dest_x;
  rect->y = converter->params.dest_y;
  rect->w = converter->params.dest_width;
  rect->h = converter->params.dest_height;

  return TRUE;
}

/**
 * gst_cuda_cache_converter_add_picture_meta:
 * @converter: a #GstCudaCacheConverter
 * @outbuf: a writable buffer @converter converted into
 *
 * Puts on @outbuf the #GstCudaCachePictureMeta of @converter's conversion:
 * the picture's rectangle (gst_cuda_cache_converter_get_picture_rect ()),
 * the input frame it shows and the scale between them, for mapping
 * positions found in @outbuf back to the input frame.
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL where @outbuf's
 *   metadata is not writable
 *
 * Since: 0.1
 */
GstCudaCachePictureMeta *
gst_cuda_cache_converter_add_picture_meta (GstCudaCacheConverter * converter,
    GstBuffer * outbuf)
{
  GstVideoRectangle picture, source = { 0, 0, 0, 0 }, vis = { 0, 0, 0, 0 };
  gint x1, y1;

  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), NULL);
  g_return_val_if_fail (GST_IS_BUFFER (outbuf), NULL);
  if (!gst_buffer_is_writable (outbuf))
    return NULL;

  vis.w = GST_VIDEO_INFO_WIDTH (&converter->info.in_info);
  vis.h = GST_VIDEO_INFO_HEIGHT (&converter->info.in_info);
  gst_cuda_cache_converter_get_picture_rect (converter, &picture);
  /* in the frame downstream of a crop sees; the region converted, grown
   * to the chroma grid, may reach a pixel past it */
  if (converter->has_crop)
    vis = converter->crop.visible;
  source.x = CLAMP (converter->params.src_x - vis.x, 0, vis.w - 1);
  source.y = CLAMP (converter->params.src_y - vis.y, 0, vis.h - 1);
  x1 = CLAMP (converter->params.src_x + converter->params.in_width - vis.x,
      source.x + 1, vis.w);
  y1 = CLAMP (converter->params.src_y + converter->params.in_height - vis.y,
      source.y + 1, vis.h);
  source.w = x1 - source.x;
  source.h = y1 - source.y;

  return gst_buffer_add_cuda_cache_picture_meta (outbuf, &picture, &source,
      vis.w, vis.h);
}

/* A crop meta on @inbuf that differs from the last buffer's (or its
 * absence where that had one) sets the conversion up for its rectangle:
 * the frame downstream of the crop sees (the caps' size, as videocrop and
 * decoders give it), in the buffer's whole frame (its GstVideoMeta's size,
 * or the caps' without one). A plan per rectangle, which the kernels keep. */
static gboolean
converter_follow_crop (GstCudaCacheConverter * self, GstBuffer * inbuf,
    GError ** error)
{
  GstVideoCropMeta *meta = gst_buffer_get_video_crop_meta (inbuf);
  GstVideoMeta *vmeta = meta ? gst_buffer_get_video_meta (inbuf) : NULL;
  GstCudaCacheInputCrop crop = { 0, };
  gboolean had = self->has_crop;
  GstCudaCacheInputCrop old = self->crop;

  if (meta) {
    crop.width = vmeta ? (gint) vmeta->width :
        GST_VIDEO_INFO_WIDTH (&self->info.in_info);
    crop.height = vmeta ? (gint) vmeta->height :
        GST_VIDEO_INFO_HEIGHT (&self->info.in_info);
    crop.visible.x = (gint) meta->x;
    crop.visible.y = (gint) meta->y;
    crop.visible.w = (gint) meta->width;
    crop.visible.h = (gint) meta->height;
  }
  if (had == (meta != NULL) && (!meta || memcmp (&crop, &old,
              sizeof (crop)) == 0))
    return TRUE;

  self->has_crop = meta != NULL;
  self->crop = crop;
  if (!gst_cuda_cache_converter_configure (self, &self->info, &self->options,
          error)) {
    self->has_crop = had;
    self->crop = old;
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "converting %dx%d at %d,%d of the buffer's frame "
      "(%s)", self->params.in_width, self->params.in_height,
      self->params.src_x, self->params.src_y, meta ? "its crop meta" :
      "no crop meta");

  return TRUE;
}

/**
 * gst_cuda_cache_converter_convert_buffer:
 * @converter: a #GstCudaCacheConverter
 * @inbuf: a frame of the input caps
 * @outbuf: a writable buffer of the output caps, in the same kind of
 *     memory as @inbuf
 * @stream: (type gpointer) (nullable): a `CUstream` of @converter's context,
 *     owned by the caller, to launch on; %NULL for @converter's own
 *     non-blocking stream
 * @error: (nullable): where to say why the conversion failed
 *
 * Converts one frame. CUDA memory (which must belong to @converter's
 * context) is converted on the device, on @stream. Where every memory of
 * @outbuf was allocated on @stream (GStreamer 1.24 and later: a
 * #GstCudaStream whose handle is @stream, from a pool configured with
 * gst_buffer_pool_config_set_cuda_stream()), the call returns without
 * waiting and leaves the memory flagged %GST_CUDA_MEMORY_TRANSFER_NEED_SYNC,
 * for readers of other streams to wait for. Any other output (all memory
 * of GStreamer 1.22, which carries no stream, and every conversion with
 * @stream %NULL) is written when the call returns: the converter waits for
 * its conversion, without a call into the CUDA driver where the device
 * allows. Input or output memory written on another stream and not yet
 * waited for is waited for first. 16-bit input (P010_10LE, P016_LE) is
 * converted as the 8-bit NV12 frame it rounds to, which the converter
 * keeps: its conversion is waited for before returning, whatever the
 * stream.
 *
 * With @stream %NULL the converter launches on a non-blocking stream of
 * its own, made at the first such call and kept with the converter; never
 * on the legacy default stream, which waits for, and is waited for by,
 * every blocking stream of the context (every pipeline in the process).
 *
 * @stream is a driver `CUstream` (what gst_cuda_stream_get_handle()
 * gives on GStreamer 1.24 and later, or what `cuStreamCreate()` or
 * `torch.cuda.Stream().cuda_stream` make), as gst-cuda's own converter
 * takes it: the one stream type every GStreamer version and CUDA library
 * shares, so the library's API stays the same whichever GStreamer it was
 * built against. Bindings see it as a pointer.
 *
 * System memory is converted on the CPU, and @stream is ignored.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_convert_buffer (GstCudaCacheConverter * converter,
    GstBuffer * inbuf, GstBuffer * outbuf, CUstream stream, GError ** error)
{
  gboolean in_cuda, out_cuda;

  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (inbuf), FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (outbuf), FALSE);

  if (gst_buffer_n_memory (inbuf) == 0 || gst_buffer_n_memory (outbuf) == 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "a buffer without memory");
    return FALSE;
  }
  if (!converter_follow_crop (converter, inbuf, error))
    return FALSE;

  in_cuda = gst_is_cuda_memory (gst_buffer_peek_memory (inbuf, 0));
  out_cuda = gst_is_cuda_memory (gst_buffer_peek_memory (outbuf, 0));
  if (in_cuda != out_cuda) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
        "input in %s memory, output in %s memory: the converter reads and "
        "writes one kind of memory", in_cuda ? "CUDA" : "system",
        out_cuda ? "CUDA" : "system");
    return FALSE;
  }

  if (in_cuda) {
    if (!converter->cuda) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "the converter was made without a CUDA context: it converts "
          "system memory only");
      return FALSE;
    }
    return gst_cuda_cache_converter_cuda_convert (converter->cuda, inbuf,
        outbuf, stream, error);
  }

  if (!converter->cpu) {
    converter->cpu = gst_cuda_cache_converter_cpu_new (&converter->info,
        &converter->params, NULL, error);
    if (!converter->cpu)
      return FALSE;
  }

  return gst_cuda_cache_converter_cpu_convert (converter->cpu, inbuf, outbuf,
      error);
}

gboolean
gst_cuda_cache_converter_batch_map (GstBuffer * outbuf, GstMapFlags flags,
    guint n, gsize slot_size, GstMapInfo * map, GError ** error)
{
  if (!gst_buffer_map (outbuf, map, flags)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "could not map the batch for the conversion");
    return FALSE;
  }
  if (map->size < n * slot_size) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "the batch holds %" G_GSIZE_FORMAT " bytes, less than its %u slots "
        "of %" G_GSIZE_FORMAT, map->size, n, slot_size);
    gst_buffer_unmap (outbuf, map);
    return FALSE;
  }
  return TRUE;
}

static gboolean convert_batch (GstCudaCacheConverter ** converters,
    GstBuffer ** inbufs, guint n_slots, GstBuffer * outbuf, CUstream stream,
    gboolean defer, guint * n_launches, GError ** error);

/* The converter of a present slot, and the tensor it makes: NULL where
 * the slot is absent */
static GstCudaCacheConverter *
batch_slot (GstCudaCacheConverter ** converters, GstBuffer ** inbufs, guint i)
{
  return converters[i] && inbufs[i] ? converters[i] : NULL;
}

/**
 * gst_cuda_cache_batch_slot_domain:
 *
 * The error domain #GST_CUDA_CACHE_BATCH_SLOT_ERROR: a batch conversion
 * that failed on one slot, the error's code that slot's index.
 *
 * Returns: the domain's #GQuark
 *
 * Since: 0.1
 */
GQuark
gst_cuda_cache_batch_slot_domain (void)
{
  return g_quark_from_static_string ("gst-cuda-cache-batch-slot");
}

void
gst_cuda_cache_converter_slot_error (GError ** error, guint slot)
{
  if (!error || !*error)
    return;
  g_prefix_error (error, "slot %u: ", slot);
  (*error)->domain = GST_CUDA_CACHE_BATCH_SLOT_ERROR;
  (*error)->code = (gint) slot;
}

/**
 * gst_cuda_cache_converter_convert_batch:
 * @converters: (array length=n_slots) (nullable): per slot, the converter
 *     of its frame, or %NULL where the slot is absent
 * @inbufs: (array length=n_slots) (nullable): per slot, its frame, or
 *     %NULL where the slot is absent
 * @n_slots: the slots of the batch
 * @outbuf: a writable tensor of @n_slots slots along its first dimension,
 *     each slot the tensor every present slot's converter makes (the
 *     converters' output caps: a tensor of batch 1), in the kind of memory
 *     of the frames
 * @stream: (type gpointer) (nullable): a `CUstream` of the converters'
 *     context to launch on; %NULL for the first present slot's
 *     converter's own
 * @n_launches: (out) (optional): the kernel launches the batch took
 *     (CUDA memory; 0 for system memory)
 * @error: (nullable): where to say why the conversion failed
 *
 * Converts frames of many streams into the slots of one tensor: slot i is
 * what gst_cuda_cache_converter_convert_buffer() makes of @inbufs[i] with
 * @converters[i], to the bit, and an absent slot is zeros. The converters
 * may convert different formats, sizes and source rectangles; their
 * outputs must all be the same tensor, and their frames of one kind of
 * memory (and, for CUDA memory, of one context).
 *
 * CUDA memory is converted in one kernel launch per kernel the slots
 * need: one where the frames share a format and are scaled alike (for
 * example, frames of one size), a few for a mix of formats and factors.
 * Each launch reads its slots' parameters from a table the first present
 * slot's converter keeps in the device's cache. The call waits as
 * gst_cuda_cache_converter_convert_buffer() does. System memory is
 * converted on the CPU, a slot at a time, in place.
 *
 * Like a single conversion, a batch is one thread's at a time: the
 * converters of a batch are not converting elsewhere meanwhile.
 *
 * A failure of one slot (its frame, or its converter) is an error of
 * #GST_CUDA_CACHE_BATCH_SLOT_ERROR whose code is the slot's index.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_convert_batch (GstCudaCacheConverter ** converters,
    GstBuffer ** inbufs, guint n_slots, GstBuffer * outbuf, CUstream stream,
    guint * n_launches, GError ** error)
{
  return convert_batch (converters, inbufs, n_slots, outbuf, stream, FALSE,
      n_launches, error);
}

/**
 * gst_cuda_cache_converter_launch_batch:
 * @converters: (array length=n_slots) (nullable): as for
 *     gst_cuda_cache_converter_convert_batch()
 * @inbufs: (array length=n_slots) (nullable): likewise
 * @n_slots: the slots of the batch
 * @outbuf: likewise
 * @stream: (type gpointer) (nullable): likewise
 * @n_launches: (out) (optional): likewise
 * @error: (nullable): where to say why the conversion failed
 *
 * gst_cuda_cache_converter_convert_batch() without its wait: CUDA memory's
 * batch is launched and the call returns at once, so that the caller
 * prepares the next batch while the device converts this one. @outbuf is
 * written once gst_cuda_cache_converter_wait_batch() returns for it; until
 * then the caller keeps @inbufs, @converters and @outbuf, and reads
 * nothing of @outbuf. Launch the batches of one set of converters on one
 * stream (pass one; with %NULL, the first present slot's converter's own),
 * so that a batch's launch waits on the device for the one before.
 * System memory is converted before the call returns, as by
 * gst_cuda_cache_converter_convert_batch().
 *
 * Returns: %TRUE where the batch was launched (or, for system memory,
 *     converted)
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_launch_batch (GstCudaCacheConverter ** converters,
    GstBuffer ** inbufs, guint n_slots, GstBuffer * outbuf, CUstream stream,
    guint * n_launches, GError ** error)
{
  return convert_batch (converters, inbufs, n_slots, outbuf, stream, TRUE,
      n_launches, error);
}

/**
 * gst_cuda_cache_converter_wait_batch:
 * @outbuf: a batch launched by gst_cuda_cache_converter_launch_batch()
 * @error: (nullable): where to say why the conversion failed
 *
 * Waits until the batch launched into @outbuf is written (at once where
 * it is written already, or was system memory). Only then may @outbuf be
 * read, handed on or released, and the batch's input frames released.
 *
 * Returns: %TRUE once @outbuf is written; %FALSE where its conversion
 *     failed on the device
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_wait_batch (GstBuffer * outbuf, GError ** error)
{
  g_return_val_if_fail (GST_IS_BUFFER (outbuf), FALSE);

  return gst_cuda_cache_converter_cuda_wait_batch (outbuf, error);
}

static gboolean
convert_batch (GstCudaCacheConverter ** converters, GstBuffer ** inbufs,
    guint n_slots, GstBuffer * outbuf, CUstream stream, gboolean defer,
    guint * n_launches, GError ** error)
{
  GstCudaCacheConverter *first = NULL;
  gsize slot_size = 0;
  gboolean cuda, ok = TRUE;
  GstMapInfo map;
  guint i;

  g_return_val_if_fail (converters != NULL && inbufs != NULL, FALSE);
  g_return_val_if_fail (n_slots > 0, FALSE);
  g_return_val_if_fail (GST_IS_BUFFER (outbuf), FALSE);

  if (n_launches)
    *n_launches = 0;
  if (gst_buffer_n_memory (outbuf) == 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "a batch buffer without memory");
    return FALSE;
  }
  cuda = gst_is_cuda_memory (gst_buffer_peek_memory (outbuf, 0));

  for (i = 0; i < n_slots; i++) {
    GstCudaCacheConverter *conv = batch_slot (converters, inbufs, i);

    if (!conv)
      continue;
    g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (conv), FALSE);
    g_return_val_if_fail (GST_IS_BUFFER (inbufs[i]), FALSE);
    if (!conv->info.tensor_out) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "its converter makes video, not a tensor");
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
    if (!first) {
      first = conv;
      slot_size = conv->info.tensor.size;
    } else if (!gst_cuda_cache_tensor_info_is_equal (&conv->info.tensor,
            &first->info.tensor)) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "its converter makes another tensor than the other slots'");
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
    if (gst_buffer_n_memory (inbufs[i]) == 0 ||
        gst_is_cuda_memory (gst_buffer_peek_memory (inbufs[i], 0)) != cuda) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
          "its frame is not in %s memory, as the batch is",
          cuda ? "CUDA" : "system");
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
    if (cuda && !conv->cuda) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "its converter was made without a CUDA context: it converts "
          "system memory only");
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
    if (!converter_follow_crop (conv, inbufs[i], error)) {
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
  }
  if (!first) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "a batch without a frame: nothing to convert");
    return FALSE;
  }

  if (cuda) {
    GstCudaCacheConverterCuda **slots =
        g_newa (GstCudaCacheConverterCuda *, n_slots);

    for (i = 0; i < n_slots; i++) {
      GstCudaCacheConverter *conv = batch_slot (converters, inbufs, i);

      slots[i] = conv ? conv->cuda : NULL;
    }
    return gst_cuda_cache_converter_cuda_convert_batch (slots, inbufs,
        n_slots, outbuf, slot_size, stream, defer, n_launches, error);
  }

  /* system memory: each slot converted in place, through a buffer that
   * wraps its bytes */
  if (!gst_cuda_cache_converter_batch_map (outbuf, GST_MAP_WRITE, n_slots,
          slot_size, &map, error))
    return FALSE;
  for (i = 0; i < n_slots && ok; i++) {
    GstCudaCacheConverter *conv = batch_slot (converters, inbufs, i);
    guint8 *data = map.data + i * slot_size;
    GstBuffer *slot;

    if (!conv) {
      memset (data, 0, slot_size);
      continue;
    }
    if (!conv->cpu) {
      conv->cpu = gst_cuda_cache_converter_cpu_new (&conv->info,
          &conv->params, NULL, error);
      if (!conv->cpu) {
        ok = FALSE;
        break;
      }
    }
    slot = gst_buffer_new_wrapped_full (0, data, slot_size, 0, slot_size,
        NULL, NULL);
    ok = gst_cuda_cache_converter_cpu_convert (conv->cpu, inbufs[i], slot,
        error);
    gst_buffer_unref (slot);
    if (!ok)
      gst_cuda_cache_converter_slot_error (error, i);
  }
  gst_buffer_unmap (outbuf, &map);

  return ok;
}
