/* SPDX-License-Identifier: LGPL-2.1-or-later */

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
 * (#GstVideoConverter and a packing loop), which follow one definition, so
 * that both give the same pixels within the tolerances documented in
 * `docs/elements.md`.
 *
 * gst_cuda_cache_converter_convert_buffer() converts CUDA memory on the
 * device, with the kernels built into the library, and system memory on
 * the CPU. Without a stream of the caller's it launches on a non-blocking
 * stream of its own and waits only for its own conversion, so pipelines in
 * one process never wait on each other: the kernels' last block writes a
 * word of pinned host memory that the converter reads, with no call into
 * the CUDA driver (whose stream synchronisation is serialised between
 * threads), and the stream is synchronised only where that word is late.
 * With GStreamer 1.24 and later, output memory that carries a
 * #GstCudaStream (a pool configured with
 * gst_buffer_pool_config_set_cuda_stream()) is written on that stream and
 * left flagged %GST_CUDA_MEMORY_TRANSFER_NEED_SYNC instead: nobody waits
 * until a reader of another stream, or the CPU, needs the pixels. Input
 * written on another stream and not yet waited for is waited for first.
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

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacacheconverter.h"
#include "gstcudacachetensor.h"
#include "gstcudacachekernels-private.h"
#include "gstcudacache-compat-private.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_converter_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_converter_debug

/* What the config says, parsed. */
typedef struct
{
  gboolean letterbox;
  guint fill_value;
  GstCudaCacheChannelOrder channel_order;
  gdouble scale;
  gdouble mean[3];
  gdouble std[3];
} ConverterOptions;

typedef struct _CpuPath CpuPath;

/* What a pair of caps says, parsed. */
typedef struct
{
  GstVideoInfo in_info;
  gboolean tensor_out;
  GstVideoInfo out_info;        /* video output */
  GstCudaCacheTensorInfo tensor;        /* tensor output */
} ConverterCaps;

struct _GstCudaCacheConverter
{
  GstObject parent;

  GstCudaContext *context;      /* NULL: the CPU path only */

  ConverterOptions options;
  ConverterCaps caps;
  GstCudaCacheConvertParams params;

  CpuPath *cpu;                 /* made when first needed */

  /* CUDA path */
  GstCudaCacheKernels *kernels;
  GstCudaCacheKernelPlan *plan;
  GstCudaCacheStream *stream;   /* made on first use */
  /* its conversions' completion signal, made with it; NULL: wait for the
   * stream */
  GstCudaCacheKernelDone *done;
  /* 16-bit input's 8-bit copy, made with the first such caps */
  GstCudaCacheNarrowed *narrowed;
};

#define gst_cuda_cache_converter_parent_class parent_class
G_DEFINE_TYPE (GstCudaCacheConverter, gst_cuda_cache_converter,
    GST_TYPE_OBJECT);

static void gst_cuda_cache_converter_finalize (GObject * object);

/* g_set_error () with GStreamer's printf, which knows GST_PTR_FORMAT
 * (GLib's would print the pointer) */
static void
set_error (GError ** error, GQuark domain, gint code, const gchar * format, ...)
G_GNUC_PRINTF (4, 5);

     static void
         set_error (GError ** error, GQuark domain, gint code,
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

static void cpu_path_free (CpuPath * cpu);

static void
gst_cuda_cache_converter_class_init (GstCudaCacheConverterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->finalize = gst_cuda_cache_converter_finalize;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_converter_debug,
      "cudacacheconverter", 0, "CUDA cache: frame and tensor converter");
}

static void
options_init (ConverterOptions * options)
{
  guint i;

  options->letterbox = GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX;
  options->fill_value = GST_CUDA_CACHE_CONVERTER_DEFAULT_FILL_VALUE;
  options->channel_order = GST_CUDA_CACHE_CONVERTER_DEFAULT_CHANNEL_ORDER;
  options->scale = GST_CUDA_CACHE_CONVERTER_DEFAULT_SCALE;
  for (i = 0; i < 3; i++) {
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

  g_clear_pointer (&self->cpu, cpu_path_free);
  g_clear_pointer (&self->plan, gst_cuda_cache_kernel_plan_free);
  g_clear_pointer (&self->done, gst_cuda_cache_kernel_done_free);
  g_clear_pointer (&self->narrowed, gst_cuda_cache_narrowed_free);
  g_clear_pointer (&self->kernels, gst_cuda_cache_kernels_free);
  gst_cuda_cache_compat_stream_clear (&self->stream);
  gst_clear_object (&self->context);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* Config */

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
  g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
      "%s takes three finite numbers%s, one per channel, such as "
      "\"<0.5, 0.5, 0.5>\"", field, min > 0 ? " above 0" : "");
  return FALSE;
}

/* Parses @config over @options; @options is left alone on failure. */
static gboolean
options_from_config (ConverterOptions * options, const GstStructure * config,
    GError ** error)
{
  ConverterOptions parsed = *options;
  const GValue *value;

  if (!config)
    return TRUE;

  if (gst_structure_has_field (config, GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX)
      && !gst_structure_get_boolean (config,
          GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, &parsed.letterbox))
    goto invalid_field;
  if (gst_structure_has_field (config, GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE)
      && (!gst_structure_get_uint (config,
              GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE, &parsed.fill_value)
          || parsed.fill_value > 255))
    goto invalid_field;
  value = gst_structure_get_value (config,
      GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER);
  if (value) {
    if (!G_VALUE_HOLDS (value, GST_TYPE_CUDA_CACHE_CHANNEL_ORDER))
      goto invalid_field;
    parsed.channel_order = g_value_get_enum (value);
  }
  if (gst_structure_has_field (config, GST_CUDA_CACHE_CONVERTER_OPT_SCALE)
      && (!gst_structure_get_double (config,
              GST_CUDA_CACHE_CONVERTER_OPT_SCALE, &parsed.scale)
          || !isfinite (parsed.scale)))
    goto invalid_field;
  if (!get_triple (config, GST_CUDA_CACHE_CONVERTER_OPT_MEAN, parsed.mean,
          -G_MAXDOUBLE, error) ||
      !get_triple (config, GST_CUDA_CACHE_CONVERTER_OPT_STD, parsed.std,
          G_MINDOUBLE, error))
    return FALSE;

  *options = parsed;
  return TRUE;

invalid_field:
  set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
      "invalid converter config %" GST_PTR_FORMAT, config);
  return FALSE;
}

/* Caps */

/* The bits of 16-bit 4:2:0 input's samples (P010_10LE, P016_LE: NV12's
 * planes, the bits at the top; the formats GStreamer 1.22's CUDA memory
 * lays out), else 0 */
static gint
input_depth (const GstVideoInfo * info)
{
  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
      return GST_VIDEO_INFO_COMP_DEPTH (info, 0);
    default:
      return 0;
  }
}

static gboolean
format_supported (GstVideoFormat format, gboolean input)
{
  switch (format) {
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
      return input;
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
    set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "%s caps do not describe a video frame GStreamer can lay out (a "
        "field missing or out of range, or a frame too large to address): %"
        GST_PTR_FORMAT, side, caps);
    return FALSE;
  }
  if (!format_supported (GST_VIDEO_INFO_FORMAT (info),
          g_str_equal (side, "input"))) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "%s format %s is not one the converter %s (NV12, I420, RGBA, "
        "BGRA, RGBx, BGRx, RGB, BGR%s)", side, GST_VIDEO_INFO_NAME (info),
        g_str_equal (side, "input") ? "takes" : "makes",
        g_str_equal (side, "input") ? "; P010_10LE, P016_LE" : "");
    return FALSE;
  }
  if (GST_VIDEO_INFO_IS_INTERLACED (info)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "%s caps are interlaced; the converter takes progressive frames", side);
    return FALSE;
  }

  return TRUE;
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
  else if (!dims || n != GST_CUDA_CACHE_TENSOR_N_DIMS || !numbers)
    why = "dimensions must be four numbers from 1 up, innermost first "
        "(W:H:3:1 for NCHW, 3:W:H:1 for NHWC)";
  else
    why = "the tensor is too large to address";

  set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "output tensor caps cannot be made: %s (%" GST_PTR_FORMAT ")", why, caps);
}

static gboolean
caps_parse (ConverterCaps * parsed, const GstCaps * in_caps,
    const GstCaps * out_caps, GError ** error)
{
  const GstCaps *unfixed = !gst_caps_is_fixed (in_caps) ? in_caps :
      !gst_caps_is_fixed (out_caps) ? out_caps : NULL;

  /* EMPTY and ANY too: what follows reads one structure of each */
  if (unfixed) {
    set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "%s caps are not fixed: %" GST_PTR_FORMAT, unfixed == in_caps ?
        "input" : "output", unfixed);
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
  if (gst_cuda_cache_tensor_info_get_channels (&parsed->tensor) != 3 ||
      gst_cuda_cache_tensor_info_get_batch (&parsed->tensor) != 1) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the converter makes tensors of 3 channels and batch 1; the caps ask "
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

/* Colour */

/* A YUV info's colorimetry: luma weights, and the 8-bit offset of Y and
 * the ranges of Y and of U, V. */
static void
color_coefficients (const GstVideoInfo * info, gdouble * kr, gdouble * kb,
    gdouble * oy, gdouble * sy, gdouble * suv)
{
  gint offset[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];

  if (!gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, kr, kb)) {
    *kr = 0.299;
    *kb = 0.114;
  }
  gst_video_color_range_offsets (info->colorimetry.range, info->finfo, offset,
      scale);
  *oy = offset[0];
  *sy = scale[0];
  *suv = scale[1];
}

/* The kernels' yuv_to_rgb for a YUV input: 8-bit Y'CbCr to R'G'B' on the
 * 0..255 scale. */
static void
yuv_to_rgb_matrix (const GstVideoInfo * info, gfloat m[12])
{
  gdouble kr, kb, kg, oy, sy, suv;
  gdouble to_rgb[3][3];
  guint c;

  color_coefficients (info, &kr, &kb, &oy, &sy, &suv);
  kg = 1.0 - kr - kb;

  /* R'G'B' (0..1) from Y' (0..1) and Pb, Pr (-0.5..0.5) */
  to_rgb[0][0] = 1.0;
  to_rgb[0][1] = 0.0;
  to_rgb[0][2] = 2.0 * (1.0 - kr);
  to_rgb[2][0] = 1.0;
  to_rgb[2][1] = 2.0 * (1.0 - kb);
  to_rgb[2][2] = 0.0;
  to_rgb[1][0] = 1.0;
  to_rgb[1][1] = -kb * to_rgb[2][1] / kg;
  to_rgb[1][2] = -kr * to_rgb[0][2] / kg;

  for (c = 0; c < 3; c++) {
    gdouble my = 255.0 * to_rgb[c][0] / sy;
    gdouble mu = 255.0 * to_rgb[c][1] / suv;
    gdouble mv = 255.0 * to_rgb[c][2] / suv;

    m[4 * c] = my;
    m[4 * c + 1] = mu;
    m[4 * c + 2] = mv;
    m[4 * c + 3] = -my * oy - (mu + mv) * 128.0;
  }
}

/* The kernels' rgb_to_yuv for a YUV output:
 * Y = oy + sy * Y'; U = 128 + suv * Pb; V = 128 + suv * Pr. */
static void
rgb_to_yuv_matrix (const GstVideoInfo * info, gfloat m[12])
{
  gdouble kr, kb, kg, oy, sy, suv;

  color_coefficients (info, &kr, &kb, &oy, &sy, &suv);
  kg = 1.0 - kr - kb;

  m[0] = sy * kr / 255.0;
  m[1] = sy * kg / 255.0;
  m[2] = sy * kb / 255.0;
  m[3] = oy;
  m[4] = suv * -kr / (2.0 * (1.0 - kb)) / 255.0;
  m[5] = suv * -kg / (2.0 * (1.0 - kb)) / 255.0;
  m[6] = suv * 0.5 / 255.0;
  m[7] = 128.0;
  m[8] = suv * 0.5 / 255.0;
  m[9] = suv * -kg / (2.0 * (1.0 - kr)) / 255.0;
  m[10] = suv * -kb / (2.0 * (1.0 - kr)) / 255.0;
  m[11] = 128.0;
}

/* Everything the kernels and the CPU path share, from caps and options:
 * the definition in gstcudacachekernels-private.h. */
static void
params_compute (GstCudaCacheConvertParams * p, const ConverterCaps * caps,
    const ConverterOptions * options)
{
  const GstVideoInfo *in = &caps->in_info;
  gint out_w, out_h;
  guint i;

  memset (p, 0, sizeof (*p));

  if (caps->tensor_out) {
    out_w = gst_cuda_cache_tensor_info_get_width (&caps->tensor);
    out_h = gst_cuda_cache_tensor_info_get_height (&caps->tensor);
    p->out_format = GST_VIDEO_FORMAT_UNKNOWN;
  } else {
    out_w = GST_VIDEO_INFO_WIDTH (&caps->out_info);
    out_h = GST_VIDEO_INFO_HEIGHT (&caps->out_info);
    p->out_format = GST_VIDEO_INFO_FORMAT (&caps->out_info);
  }

  /* 16-bit input is converted as the 8-bit NV12 frame it narrows to */
  p->in_format = input_depth (in) ? GST_VIDEO_FORMAT_NV12 :
      GST_VIDEO_INFO_FORMAT (in);
  p->in_width = GST_VIDEO_INFO_WIDTH (in);
  p->in_height = GST_VIDEO_INFO_HEIGHT (in);
  p->in_chroma_site = GST_VIDEO_INFO_CHROMA_SITE (in);
  p->out_width = out_w;
  p->out_height = out_h;
  p->dest_width = out_w;
  p->dest_height = out_h;
  if (options->letterbox) {
    gdouble r = MIN ((gdouble) out_w / p->in_width,
        (gdouble) out_h / p->in_height);

    p->dest_width = CLAMP ((gint) round (p->in_width * r), 1, out_w);
    p->dest_height = CLAMP ((gint) round (p->in_height * r), 1, out_h);
    p->dest_x = (out_w - p->dest_width) / 2;
    p->dest_y = (out_h - p->dest_height) / 2;
    /* GstVideoConverter aligns the picture to the chroma grid of a 4:2:0
     * output; so do the kernels, and the rectangle apps are given */
    if (!caps->tensor_out && GST_VIDEO_INFO_IS_YUV (&caps->out_info)) {
      p->dest_x &= ~1;
      p->dest_y &= ~1;
    }
  }
  for (i = 0; i < 3; i++)
    p->fill[i] = options->fill_value;

  /* the kernels read each matrix only for YUV on its side */
  if (input_depth (in)) {
    /* the range's offsets and scales of 8-bit samples */
    GstVideoInfo narrowed = *in;

    narrowed.finfo = gst_video_format_get_info (GST_VIDEO_FORMAT_NV12);
    yuv_to_rgb_matrix (&narrowed, p->yuv_to_rgb);
  } else if (GST_VIDEO_INFO_IS_YUV (in)) {
    yuv_to_rgb_matrix (in, p->yuv_to_rgb);
  }
  if (!caps->tensor_out && GST_VIDEO_INFO_IS_YUV (&caps->out_info))
    rgb_to_yuv_matrix (&caps->out_info, p->rgb_to_yuv);

  /* tensor values: v * scale / std - mean / std */
  if (caps->tensor_out) {
    p->dtype = caps->tensor.dtype;
    p->layout = caps->tensor.layout;
  }
  p->bgr = options->channel_order == GST_CUDA_CACHE_CHANNEL_ORDER_BGR;
  for (i = 0; i < 3; i++) {
    p->mul[i] = options->scale / options->std[i];
    p->add[i] = -options->mean[i] / options->std[i];
  }
}

/* CPU path */

/* The CPU path is GstVideoConverter (LINEAR resampler and chroma resampler,
 * no dithering) from the input to the output, or to an RGB frame of the
 * output's size that the tensor is packed from. It is the reference the
 * kernels are held to, quirks included: GstVideoScaler upscales lines of
 * four bytes per pixel (RGBA, and its own unpacked AYUV/ARGB lines)
 * horizontally with a fixed-point two-tap path at corner-aligned positions,
 * and aligns the picture to the chroma grid of a 4:2:0 output; the kernels
 * do the same.
 *
 * 4:2:0 input whose rows change in number takes two GstVideoConverters:
 * one upsamples the chroma to AYUV at the input's size, the other scales
 * and converts that. In one step, GStreamer 1.22's converter gets such a
 * conversion wrong: with a few input rows per output row on a small
 * picture (15x11 or 30x22 to a third) it reads the wrong upsampled rows
 * for the first output rows (30 to 87 levels off), and with several
 * threads it differs from itself on one thread, shrinking (321x241 to
 * 199x147: up to 45 levels) and growing (7x5 to 1283x721: 15 levels with
 * 2 threads or 8). In two steps it does neither, and gives the one-step
 * result wherever that one is right (1080p to 640x360, and 7x5 to 1283x721
 * on one thread, to the level). The upsampling runs on one thread: split
 * over threads, 1.22 upsamples the rows at the slices' edges wrongly
 * (1080p: up to 22 levels). It is kept off GstVideoConverter's fast paths,
 * whose I420 to AYUV repeats each chroma sample where NV12's is
 * interpolated (3x3: 10 levels apart). Where the rows keep their number,
 * one step is right and stays: the AYUV frame's extra rounding would cost
 * a level there. */
struct _CpuPath
{
  GstVideoConverter *upsample;  /* 4:2:0 input rescaled: to AYUV, else NULL */
  GstVideoInfo upsample_in;     /* the input it upsamples */
  GstVideoInfo ayuv;
  GstBuffer *ayuv_buf;
  GstVideoConverter *conv;
  GstVideoInfo rgb;             /* tensor output: the frame packed from */
  GstBuffer *rgb_buf;
};

static void
cpu_path_free (CpuPath * cpu)
{
  if (!cpu)
    return;
  g_clear_pointer (&cpu->upsample, gst_video_converter_free);
  gst_clear_buffer (&cpu->ayuv_buf);
  g_clear_pointer (&cpu->conv, gst_video_converter_free);
  gst_clear_buffer (&cpu->rgb_buf);
  g_free (cpu);
}

static GstStructure *
cpu_options (const GstCudaCacheConvertParams * p)
{
  guint fill = p->fill[0];

  return gst_structure_new ("options",
      GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD,
      GST_VIDEO_RESAMPLER_METHOD_LINEAR,
      GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD,
      GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR,
      GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
      GST_VIDEO_DITHER_NONE,
      GST_VIDEO_CONVERTER_OPT_DEST_X, G_TYPE_INT, p->dest_x,
      GST_VIDEO_CONVERTER_OPT_DEST_Y, G_TYPE_INT, p->dest_y,
      GST_VIDEO_CONVERTER_OPT_DEST_WIDTH, G_TYPE_INT, p->dest_width,
      GST_VIDEO_CONVERTER_OPT_DEST_HEIGHT, G_TYPE_INT, p->dest_height,
      GST_VIDEO_CONVERTER_OPT_FILL_BORDER, G_TYPE_BOOLEAN, TRUE,
      GST_VIDEO_CONVERTER_OPT_BORDER_ARGB, G_TYPE_UINT,
      (0xffu << 24) | (fill << 16) | (fill << 8) | fill,
      GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT,
      MIN (g_get_num_processors (), 8), NULL);
}

/* 4:2:0 input whose rows change in number: upsampled first (see CpuPath) */
static gboolean
cpu_needs_upsample (const GstVideoInfo * in,
    const GstCudaCacheConvertParams * p)
{
  GstVideoFormat f = GST_VIDEO_INFO_FORMAT (in);

  return (f == GST_VIDEO_FORMAT_NV12 || f == GST_VIDEO_FORMAT_I420 ||
      input_depth (in) > 0) && p->dest_height != GST_VIDEO_INFO_HEIGHT (in);
}

/* The AYUV frame the first of the two steps upsamples @in to: its size,
 * colorimetry, aspect and rate. FALSE where GStreamer cannot lay out a
 * frame that large. */
static gboolean
cpu_ayuv_info (GstVideoInfo * ayuv, const GstVideoInfo * in)
{
  if (!gst_video_info_set_format (ayuv, GST_VIDEO_FORMAT_AYUV,
          GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in)))
    return FALSE;
  ayuv->colorimetry = in->colorimetry;
  GST_VIDEO_INFO_PAR_N (ayuv) = GST_VIDEO_INFO_PAR_N (in);
  GST_VIDEO_INFO_PAR_D (ayuv) = GST_VIDEO_INFO_PAR_D (in);
  GST_VIDEO_INFO_FPS_N (ayuv) = GST_VIDEO_INFO_FPS_N (in);
  GST_VIDEO_INFO_FPS_D (ayuv) = GST_VIDEO_INFO_FPS_D (in);
  return TRUE;
}

/* The first of the two steps: cpu->upsample_in to cpu->ayuv, the chroma
 * upsampled as in one step (LINEAR, no dithering), on one thread. A
 * quantization other than 1 keeps GstVideoConverter off its fast paths
 * (I420 to AYUV repeats chroma samples); without dithering nothing is
 * quantized. */
static gboolean
cpu_make_upsample (CpuPath * cpu, GError ** error)
{
  cpu->ayuv_buf = gst_buffer_new_allocate (NULL,
      GST_VIDEO_INFO_SIZE (&cpu->ayuv), NULL);
  if (!cpu->ayuv_buf) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "cannot allocate the %" G_GSIZE_FORMAT " bytes of the AYUV frame "
        "the input's chroma is upsampled to", GST_VIDEO_INFO_SIZE (&cpu->ayuv));
    return FALSE;
  }
  cpu->upsample = gst_video_converter_new (&cpu->upsample_in, &cpu->ayuv,
      gst_structure_new ("options",
          GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD,
          GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR,
          GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
          GST_VIDEO_DITHER_NONE, GST_VIDEO_CONVERTER_OPT_DITHER_QUANTIZATION,
          G_TYPE_UINT, 2, GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT, 1,
          NULL));
  if (!cpu->upsample) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "GstVideoConverter cannot convert %s to AYUV",
        GST_VIDEO_INFO_NAME (&cpu->upsample_in));
    return FALSE;
  }
  return TRUE;
}

/* GstVideoConverter finds a frame's row at stride * row in a gint (1.22's
 * FRAME_GET_PLANE_LINE): a plane of 2 GiB or more overflows it and the
 * converter reads and writes outside the frame. Such frames are refused
 * before anything is made. */
static gboolean
cpu_frame_fits (const GstVideoInfo * info, const gchar * what, GError ** error)
{
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    guint64 bytes = (guint64) ABS (GST_VIDEO_INFO_PLANE_STRIDE (info, p)) *
        GST_VIDEO_INFO_HEIGHT (info);

    if (bytes > G_MAXINT) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "the CPU path cannot convert %s of %dx%d %s: its plane %u spans %"
          G_GUINT64_FORMAT " bytes, beyond the 2 GiB GstVideoConverter "
          "addresses (convert CUDA memory instead)", what,
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
          GST_VIDEO_INFO_NAME (info), p, bytes);
      return FALSE;
    }
  }
  return TRUE;
}

/* The CPU path for the converter's caps and params, ready for the first
 * frame. From @old, the path it replaces (or NULL), it takes what still
 * fits once nothing can fail any more: the upsampling step of the same
 * input and the RGB frame of the same size, so that new options or a new
 * output cost no frame. */
static gboolean
gst_cuda_cache_converter_setup_cpu (GstCudaCacheConverter * self,
    CpuPath * old, GError ** error)
{
  const GstCudaCacheConvertParams *p = &self->params;
  const GstVideoInfo *in = &self->caps.in_info;
  GstVideoInfo out = self->caps.out_info;
  gboolean upsample = cpu_needs_upsample (in, p);
  gboolean keep_upsample, keep_rgb;
  CpuPath *cpu;

  if (self->cpu)
    return TRUE;

  cpu = g_new0 (CpuPath, 1);
  if (self->caps.tensor_out) {
    if (!gst_video_info_set_format (&cpu->rgb, GST_VIDEO_FORMAT_RGB,
            p->out_width, p->out_height)) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "the CPU path cannot pack a tensor of %dx%d: GStreamer cannot lay "
          "out the %dx%d RGB frame it is packed from (4 GiB or more)",
          p->out_width, p->out_height, p->out_width, p->out_height);
      cpu_path_free (cpu);
      return FALSE;
    }
    out = cpu->rgb;
  }
  /* GstVideoConverter converts pictures, not frame rates */
  GST_VIDEO_INFO_FPS_N (&out) = GST_VIDEO_INFO_FPS_N (in);
  GST_VIDEO_INFO_FPS_D (&out) = GST_VIDEO_INFO_FPS_D (in);
  if (upsample) {
    cpu->upsample_in = *in;
    if (!cpu_ayuv_info (&cpu->ayuv, in)) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "the CPU path cannot convert %dx%d %s: GStreamer cannot lay out the "
          "AYUV frame of that size its chroma is upsampled to (4 GiB or more)",
          GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in),
          GST_VIDEO_INFO_NAME (in));
      cpu_path_free (cpu);
      return FALSE;
    }
  }
  if (!cpu_frame_fits (in, "an input frame", error) ||
      !cpu_frame_fits (&out, self->caps.tensor_out ?
          "the RGB frame a tensor is packed from" : "an output frame", error)
      || (upsample && !cpu_frame_fits (&cpu->ayuv,
              "the AYUV frame the input's chroma is upsampled to", error))) {
    cpu_path_free (cpu);
    return FALSE;
  }
  keep_upsample = upsample && old && old->upsample &&
      gst_video_info_is_equal (&old->upsample_in, in);
  keep_rgb = self->caps.tensor_out && old && old->rgb_buf &&
      gst_buffer_get_size (old->rgb_buf) == GST_VIDEO_INFO_SIZE (&cpu->rgb);

  cpu->conv = gst_video_converter_new (upsample ? &cpu->ayuv :
      (GstVideoInfo *) in, &out, cpu_options (p));
  if (!cpu->conv) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "GstVideoConverter cannot convert %s to %s",
        GST_VIDEO_INFO_NAME (upsample ? &cpu->ayuv : in),
        self->caps.tensor_out ? "a tensor" : GST_VIDEO_INFO_NAME (&out));
    cpu_path_free (cpu);
    return FALSE;
  }
  if (self->caps.tensor_out && !keep_rgb) {
    cpu->rgb_buf = gst_buffer_new_allocate (NULL,
        GST_VIDEO_INFO_SIZE (&cpu->rgb), NULL);
    if (!cpu->rgb_buf) {
      g_set_error (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NO_SPACE_LEFT, "cannot allocate the %"
          G_GSIZE_FORMAT " bytes of the RGB frame the tensor is packed from",
          GST_VIDEO_INFO_SIZE (&cpu->rgb));
      cpu_path_free (cpu);
      return FALSE;
    }
  }
  if (upsample && !keep_upsample && !cpu_make_upsample (cpu, error)) {
    cpu_path_free (cpu);
    return FALSE;
  }

  /* nothing fails from here on */
  if (keep_rgb)
    cpu->rgb_buf = g_steal_pointer (&old->rgb_buf);
  if (keep_upsample) {
    cpu->upsample = g_steal_pointer (&old->upsample);
    cpu->ayuv_buf = g_steal_pointer (&old->ayuv_buf);
  }

  self->cpu = cpu;
  return TRUE;
}

/* IEEE half from float, round to nearest even. */
static guint16
float_to_half (gfloat f)
{
  union
  {
    gfloat f;
    guint32 u;
  } v = {.f = f };
  guint32 sign = (v.u >> 16) & 0x8000;
  gint32 exp = ((v.u >> 23) & 0xff) - 127 + 15;
  guint32 mant = v.u & 0x7fffff;

  if (((v.u >> 23) & 0xff) == 0xff)     /* inf, nan */
    return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 31)
    return sign | 0x7c00;
  if (exp <= 0) {
    guint32 shift;
    guint32 half, rest;

    if (exp < -10)
      return sign;
    mant |= 0x800000;
    shift = 14 - exp;
    half = mant >> shift;
    rest = mant & ((1u << shift) - 1);
    if (rest > (1u << (shift - 1)) ||
        (rest == (1u << (shift - 1)) && (half & 1)))
      half++;
    return sign | half;
  } else {
    guint32 half = sign | (exp << 10) | (mant >> 13);
    guint32 rest = mant & 0x1fff;

    if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
      half++;                   /* may carry into the exponent: correct */
    return half;
  }
}

/* The tensor from an RGB frame. */
static void
pack_tensor (const GstCudaCacheConvertParams * p, const GstVideoFrame * rgb,
    guint8 * dst)
{
  gint w = p->out_width, h = p->out_height, x, y, k;
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (rgb, 0);
  const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (rgb, 0);

  for (y = 0; y < h; y++) {
    const guint8 *row = src + (gsize) y * stride;

    for (x = 0; x < w; x++) {
      for (k = 0; k < 3; k++) {
        gfloat v = row[3 * x + (p->bgr ? 2 - k : k)] * p->mul[k] + p->add[k];
        gsize i = p->layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW ?
            ((gsize) k * h + y) * w + x : ((gsize) y * w + x) * 3 + k;

        switch (p->dtype) {
          case GST_CUDA_CACHE_TENSOR_DTYPE_U8:
            dst[i] = (guint8) CLAMP (lrintf (v), 0, 255);
            break;
          case GST_CUDA_CACHE_TENSOR_DTYPE_F16:
            ((guint16 *) dst)[i] = float_to_half (v);
            break;
          case GST_CUDA_CACHE_TENSOR_DTYPE_F32:
            ((gfloat *) dst)[i] = v;
            break;
        }
      }
    }
  }
}

static gboolean
tensor_fits (GstCudaCacheConverter * self, gsize size, GError ** error)
{
  if (size >= self->caps.tensor.size)
    return TRUE;

  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
      "output buffer of %" G_GSIZE_FORMAT " bytes for a tensor of %"
      G_GSIZE_FORMAT, size, self->caps.tensor.size);
  return FALSE;
}

/* gst_video_frame_map (), saying which buffer did not map and why it may
 * not have */
static gboolean
frame_map (GstVideoFrame * frame, const GstVideoInfo * info, GstBuffer * buf,
    GstMapFlags flags, const gchar * side, GError ** error)
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

static gboolean
gst_cuda_cache_converter_convert_cpu (GstCudaCacheConverter * self,
    GstBuffer * inbuf, GstBuffer * outbuf, GError ** error)
{
  const GstVideoInfo *out_info;
  GstVideoFrame in_frame, out_frame;
  GstBuffer *target;
  GstMapInfo map;

  if (!gst_cuda_cache_converter_setup_cpu (self, NULL, error))
    return FALSE;

  target = self->caps.tensor_out ? self->cpu->rgb_buf : outbuf;
  out_info = self->caps.tensor_out ? &self->cpu->rgb : &self->caps.out_info;

  if (!frame_map (&in_frame, &self->caps.in_info, inbuf, GST_MAP_READ,
          "input", error))
    return FALSE;
  /* a tensor's picture is the converter's own buffer: only ever mapped */
  if (!frame_map (&out_frame, out_info, target, GST_MAP_READWRITE, "output",
          error)) {
    gst_video_frame_unmap (&in_frame);
    return FALSE;
  }
  if (self->cpu->upsample) {
    GstVideoFrame ayuv_frame;

    if (!gst_video_frame_map (&ayuv_frame, &self->cpu->ayuv,
            self->cpu->ayuv_buf, GST_MAP_READWRITE)) {
      gst_video_frame_unmap (&out_frame);
      gst_video_frame_unmap (&in_frame);
      goto map_failed;
    }
    gst_video_converter_frame (self->cpu->upsample, &in_frame, &ayuv_frame);
    gst_video_converter_frame (self->cpu->conv, &ayuv_frame, &out_frame);
    gst_video_frame_unmap (&ayuv_frame);
  } else {
    gst_video_converter_frame (self->cpu->conv, &in_frame, &out_frame);
  }
  gst_video_frame_unmap (&in_frame);

  if (self->caps.tensor_out) {
    if (!gst_buffer_map (outbuf, &map, GST_MAP_WRITE)) {
      gst_video_frame_unmap (&out_frame);
      goto map_failed;
    }
    if (!tensor_fits (self, map.size, error)) {
      gst_buffer_unmap (outbuf, &map);
      gst_video_frame_unmap (&out_frame);
      return FALSE;
    }
    pack_tensor (&self->params, &out_frame, map.data);
    gst_buffer_unmap (outbuf, &map);
  }
  gst_video_frame_unmap (&out_frame);

  return TRUE;

map_failed:
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "could not map a buffer for the conversion");
  return FALSE;
}

/* CUDA path */

static gboolean
gst_cuda_cache_converter_setup_cuda (GstCudaCacheConverter * self,
    GError ** error)
{
  GstCudaCacheKernelPlan *plan;

  if (!self->kernels)
    self->kernels = gst_cuda_cache_kernels_new (self->context);
  if (!self->kernels) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "cannot convert CUDA memory: %s", gst_cuda_cache_kernels_built ()?
        "the library's kernels do not load on this device" :
        "the library was built without its CUDA kernels (no nvcc); "
        "convert in system memory instead");
    return FALSE;
  }

  plan = gst_cuda_cache_kernel_plan_new (self->kernels, &self->params);
  if (!plan) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "the CUDA kernels cannot convert %s to %s",
        GST_VIDEO_INFO_NAME (&self->caps.in_info), self->caps.tensor_out ?
        "a tensor" : GST_VIDEO_INFO_NAME (&self->caps.out_info));
    return FALSE;
  }
  /* 16-bit input's 8-bit copy: its room now, so that a device without it
   * refuses the caps rather than the first frame */
  if (input_depth (&self->caps.in_info)) {
    if (!self->narrowed)
      self->narrowed = gst_cuda_cache_narrowed_new (self->kernels);
    if (!gst_cuda_cache_narrowed_reserve (self->narrowed,
            self->params.in_width, self->params.in_height)) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
          "no device memory for the 8-bit copy of %dx%d %s input",
          self->params.in_width, self->params.in_height,
          GST_VIDEO_INFO_NAME (&self->caps.in_info));
      gst_cuda_cache_kernel_plan_free (plan);
      return FALSE;
    }
  }
  g_clear_pointer (&self->plan, gst_cuda_cache_kernel_plan_free);
  self->plan = plan;

  return TRUE;
}

/* Whether every memory of @buf is CUDA memory of @context. */
static gboolean
buffer_in_context (GstBuffer * buf, GstCudaContext * context,
    const gchar * side, GError ** error)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);

    if (!gst_is_cuda_memory (mem)) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
          "the %s buffer mixes CUDA and system memory", side);
      return FALSE;
    }
    if (GST_CUDA_MEMORY_CAST (mem)->context != context) {
      set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
          "the %s buffer's CUDA memory belongs to another CUDA context "
          "(%" GST_PTR_FORMAT ") than the converter's (%" GST_PTR_FORMAT
          "): its device pointers are not valid there. Let the elements "
          "share one context (GstContext), or download and upload between "
          "them", side, GST_CUDA_MEMORY_CAST (mem)->context, context);
      return FALSE;
    }
  }

  return TRUE;
}

/* The stream every memory of @buf carries, or NULL if they carry none or
 * not all the same. */
static GstCudaCacheStream *
buffer_get_stream (GstBuffer * buf)
{
  GstCudaCacheStream *stream;
  guint i, n = gst_buffer_n_memory (buf);

  stream = gst_cuda_cache_compat_memory_get_stream (gst_buffer_peek_memory
      (buf, 0));
  for (i = 1; i < n && stream; i++) {
    if (gst_cuda_cache_compat_memory_get_stream (gst_buffer_peek_memory (buf,
                i)) != stream)
      stream = NULL;
  }

  return stream;
}

/* Waits for work still pending on @buf's memory from streams other than
 * @stream; work queued on @stream itself is ordered before what follows. */
static void
buffer_sync_other_streams (GstBuffer * buf, CUstream stream)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    GstCudaCacheStream *mem_stream =
        gst_cuda_cache_compat_memory_get_stream (mem);

    if (!mem_stream ||
        gst_cuda_cache_compat_stream_handle (mem_stream) != stream)
      gst_cuda_cache_compat_memory_sync (mem);
  }
}

static void
buffer_set_need_sync (GstBuffer * buf, gboolean need_sync)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++)
    gst_cuda_cache_compat_memory_set_need_sync (gst_buffer_peek_memory (buf,
            i), need_sync);
}

static gboolean
gst_cuda_cache_converter_convert_cuda (GstCudaCacheConverter * self,
    GstBuffer * inbuf, GstBuffer * outbuf, CUstream stream, GError ** error)
{
  const GstCudaCacheConvertParams *p = &self->params;
  guintptr in_data[3] = { 0, }, out_data[3] = { 0, };
  gint in_stride[3] = { 0, }, out_stride[3] = { 0, };
  GstVideoFrame in_frame, out_frame;
  GstMapInfo map;
  GstCudaCacheStream *out_stream = NULL;
  GstCudaCacheKernelDone *done = NULL;
  gboolean own_stream = stream == NULL, narrowed, ok;
  guint i;

  if (!self->context) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "the converter was made without a CUDA context: it converts system "
        "memory only");
    return FALSE;
  }
  if (!buffer_in_context (inbuf, self->context, "input", error) ||
      !buffer_in_context (outbuf, self->context, "output", error))
    return FALSE;

  /* the output's own stream where it carries one (1.24+): the frame is
   * then left to whoever reads it to wait for */
  if (own_stream)
    out_stream = buffer_get_stream (outbuf);
  if (out_stream) {
    stream = gst_cuda_cache_compat_stream_handle (out_stream);
  } else if (own_stream) {
    if (!self->stream) {
      self->stream = gst_cuda_cache_compat_stream_new (self->context);
      if (!self->stream)
        goto stream_failed;
      self->done = gst_cuda_cache_kernel_done_new (self->kernels);
    }
    stream = gst_cuda_cache_compat_stream_handle (self->stream);
    done = self->done;
  }
  /* the output too: its last reader may be on another stream */
  buffer_sync_other_streams (inbuf, stream);
  buffer_sync_other_streams (outbuf, stream);

  if (!frame_map (&in_frame, &self->caps.in_info, inbuf,
          GST_MAP_READ | GST_MAP_CUDA, "input", error))
    return FALSE;
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (&in_frame); i++) {
    in_data[i] = (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&in_frame, i);
    in_stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, i);
  }

  if (self->caps.tensor_out) {
    if (!gst_buffer_map (outbuf, &map, GST_MAP_WRITE | GST_MAP_CUDA)) {
      gst_video_frame_unmap (&in_frame);
      goto map_failed;
    }
    if (!tensor_fits (self, map.size, error)) {
      gst_buffer_unmap (outbuf, &map);
      gst_video_frame_unmap (&in_frame);
      return FALSE;
    }
    out_data[0] = (guintptr) map.data;
  } else {
    if (!frame_map (&out_frame, &self->caps.out_info, outbuf,
            GST_MAP_WRITE | GST_MAP_CUDA, "output", error)) {
      gst_video_frame_unmap (&in_frame);
      return FALSE;
    }
    for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (&out_frame); i++) {
      out_data[i] = (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&out_frame, i);
      out_stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, i);
    }
  }

  /* 16-bit input: its 8-bit copy is what the plan converts */
  narrowed = input_depth (&self->caps.in_info) > 0;
  ok = !narrowed || gst_cuda_cache_narrowed_launch (self->narrowed,
      in_data, in_stride, p->in_width, p->in_height,
      input_depth (&self->caps.in_info), stream, in_data, in_stride);
  if (ok)
    ok = gst_cuda_cache_kernel_plan_launch (self->plan, in_data, in_stride,
        out_data, out_stride, stream, done);
  /* memory that carries no stream (all of 1.22's) says nothing of pending
   * work: whoever reads it next must find the frame written, so the
   * converter's own conversion is waited for here, by its signal where it
   * has one; so is any conversion of 16-bit input, whose 8-bit copy the
   * next frame reuses */
  if (ok && own_stream && !out_stream)
    ok = gst_cuda_cache_kernels_wait (self->kernels, stream, done);
  else if (ok && narrowed)
    ok = gst_cuda_cache_kernels_wait (self->kernels, stream, NULL);

  if (self->caps.tensor_out)
    gst_buffer_unmap (outbuf, &map);
  else
    gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);

  /* the frame is written once the output's stream is waited for, or now;
   * with a caller's stream, the caller waits and flags the memory */
  if (ok && own_stream)
    buffer_set_need_sync (outbuf, out_stream != NULL);

  if (!ok) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "CUDA conversion of %dx%d %s to %dx%d %s failed", p->in_width,
        p->in_height, GST_VIDEO_INFO_NAME (&self->caps.in_info),
        p->out_width, p->out_height, self->caps.tensor_out ? "tensor" :
        GST_VIDEO_INFO_NAME (&self->caps.out_info));
    return FALSE;
  }

  return TRUE;

stream_failed:
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
      "could not create a CUDA stream");
  return FALSE;

map_failed:
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "could not map CUDA memory for the conversion");
  return FALSE;
}

/* Applies new caps and options; on failure nothing changes. */
static gboolean
gst_cuda_cache_converter_configure (GstCudaCacheConverter * self,
    const ConverterCaps * caps, const ConverterOptions * options,
    GError ** error)
{
  ConverterCaps old_caps = self->caps;
  ConverterOptions old_options = self->options;
  GstCudaCacheConvertParams old_params = self->params;
  CpuPath *old_cpu = self->cpu;

  self->caps = *caps;
  self->options = *options;
  params_compute (&self->params, caps, options);
  self->cpu = NULL;

  /* the CUDA path where there is a context, the CPU path where not: each
   * is ready for the first frame and refuses what it cannot do now */
  if (self->context ? !gst_cuda_cache_converter_setup_cuda (self, error) :
      !gst_cuda_cache_converter_setup_cpu (self, old_cpu, error)) {
    self->caps = old_caps;
    self->options = old_options;
    self->params = old_params;
    self->cpu = old_cpu;
    return FALSE;
  }
  cpu_path_free (old_cpu);

  GST_DEBUG_OBJECT (self, "%dx%d %s -> %dx%d %s, picture at %d,%d %dx%d",
      self->params.in_width, self->params.in_height,
      GST_VIDEO_INFO_NAME (&caps->in_info), self->params.out_width,
      self->params.out_height, caps->tensor_out ? "tensor" :
      GST_VIDEO_INFO_NAME (&caps->out_info), self->params.dest_x,
      self->params.dest_y, self->params.dest_width, self->params.dest_height);

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
  ConverterOptions options;
  ConverterCaps caps;

  g_return_val_if_fail (GST_IS_CAPS (in_caps), NULL);
  g_return_val_if_fail (GST_IS_CAPS (out_caps), NULL);
  g_return_val_if_fail (context == NULL || GST_IS_CUDA_CONTEXT (context), NULL);

  options_init (&options);
  if (!options_from_config (&options, config, error) ||
      !caps_parse (&caps, in_caps, out_caps, error)) {
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

  if (!gst_cuda_cache_converter_configure (self, &caps, &options, error)) {
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
  ConverterOptions options;
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);

  options = converter->options;
  ret = options_from_config (&options, config, error) &&
      gst_cuda_cache_converter_configure (converter, &converter->caps,
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
 * up twice (the CPU path's GstVideoConverter and frames, the kernels'
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
  ConverterOptions options;
  ConverterCaps caps;
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), FALSE);
  g_return_val_if_fail (GST_IS_CAPS (in_caps), FALSE);
  g_return_val_if_fail (GST_IS_CAPS (out_caps), FALSE);

  options = converter->options;
  ret = (!config || options_from_config (&options, config, error)) &&
      caps_parse (&caps, in_caps, out_caps, error) &&
      gst_cuda_cache_converter_configure (converter, &caps, &options, error);
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
  const ConverterOptions *o;

  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), NULL);

  o = &converter->options;
  return gst_cuda_cache_converter_build_config (o->letterbox, o->fill_value,
      o->channel_order, o->scale, o->mean, o->std);
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
 * gst_cuda_cache_converter_convert_buffer:
 * @converter: a #GstCudaCacheConverter
 * @inbuf: a frame of the input caps
 * @outbuf: a writable buffer of the output caps, in the same kind of
 *     memory as @inbuf
 * @stream: (nullable): a `CUstream` of @converter's context to launch on,
 *     or %NULL
 * @error: (nullable): where to say why the conversion failed
 *
 * Converts one frame. CUDA memory (which must belong to @converter's
 * context) is converted on the device: on @stream, returning without
 * waiting (the caller synchronises @stream before the output is read), or
 * with %NULL on the stream @outbuf's memory carries (GStreamer 1.24 and
 * later), returning without waiting and leaving the memory flagged
 * %GST_CUDA_MEMORY_TRANSFER_NEED_SYNC, or else on @converter's own
 * non-blocking stream, waiting for the conversion before returning. Input
 * memory written on another stream and not yet waited for is waited for
 * first. 16-bit input (P010_10LE, P016_LE) is converted as the 8-bit NV12
 * frame it rounds to, which the converter keeps: its conversion is waited
 * for before returning, whatever the stream.
 * System memory is converted on the CPU.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_convert_buffer (GstCudaCacheConverter * converter,
    GstBuffer * inbuf, GstBuffer * outbuf, gpointer stream, GError ** error)
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

  in_cuda = gst_is_cuda_memory (gst_buffer_peek_memory (inbuf, 0));
  out_cuda = gst_is_cuda_memory (gst_buffer_peek_memory (outbuf, 0));
  if (in_cuda != out_cuda) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
        "input in %s memory, output in %s memory: the converter reads and "
        "writes one kind of memory", in_cuda ? "CUDA" : "system",
        out_cuda ? "CUDA" : "system");
    return FALSE;
  }

  if (in_cuda)
    return gst_cuda_cache_converter_convert_cuda (converter, inbuf, outbuf,
        (CUstream) stream, error);

  return gst_cuda_cache_converter_convert_cpu (converter, inbuf, outbuf, error);
}
