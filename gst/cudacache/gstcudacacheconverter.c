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
 * pipelines in one process never wait on each other. Where the input and
 * output memory both carry the caller's stream (GStreamer 1.24 and later:
 * pools configured with gst_buffer_pool_config_set_cuda_stream()), the
 * output is left flagged %GST_CUDA_MEMORY_TRANSFER_NEED_SYNC, the
 * conversion still queued: nobody waits until a reader of another stream,
 * or the CPU, needs the pixels. Otherwise (all of 1.22's memory carries no
 * stream; input of another stream goes back to a producer that nothing
 * orders after the conversion) the output is written when the call
 * returns: the converter waits for its own conversion, and nothing
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
#include "gstcudacache-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_converter_debug

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
gst_cuda_cache_converter_init (GstCudaCacheConverter * self)
{
  GstCudaCacheConverterOptions defaults;

  gst_cuda_cache_converter_options_init (&defaults);
  self->config = gst_cuda_cache_converter_options_to_config (&defaults);
}

static void
gst_cuda_cache_converter_finalize (GObject * object)
{
  GstCudaCacheConverter *self = GST_CUDA_CACHE_CONVERTER (object);

  g_clear_pointer (&self->cpu, gst_cuda_cache_converter_cpu_free);
  g_clear_pointer (&self->cuda, gst_cuda_cache_converter_cuda_free);
  gst_clear_object (&self->context);
  gst_structure_free (self->config);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* Caps */

static gboolean
video_from_caps (GstVideoInfo * info, const GstCaps * caps, const gchar * side,
    GError ** error)
{
  const gchar *formats = g_str_equal (side, "input") ?
      GST_CUDA_CACHE_CONVERTER_INPUT_FORMATS :
      GST_CUDA_CACHE_CONVERTER_OUTPUT_FORMATS;

  if (!gst_video_info_from_caps (info, caps)) {
    gst_cuda_cache_converter_set_error (error, GST_CORE_ERROR,
        GST_CORE_ERROR_NEGOTIATION, "%s caps do not describe a video frame "
        "GStreamer can lay out (a field missing or out of range, or a frame "
        "too large to address): %" GST_PTR_FORMAT, side, caps);
    return FALSE;
  }
  /* GstVideoInfo takes any int from caps, and lays out no frame below 1 */
  if (GST_VIDEO_INFO_WIDTH (info) < 1 || GST_VIDEO_INFO_HEIGHT (info) < 1) {
    gst_cuda_cache_converter_set_error (error, GST_CORE_ERROR,
        GST_CORE_ERROR_NEGOTIATION, "%s caps give a frame of %dx%d; width "
        "and height must be 1 or more: %" GST_PTR_FORMAT, side,
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), caps);
    return FALSE;
  }
  /* a ratio of 0 (GstVideoInfo takes it from caps) gives no picture shape */
  if (GST_VIDEO_INFO_PAR_N (info) <= 0 || GST_VIDEO_INFO_PAR_D (info) <= 0) {
    gst_cuda_cache_converter_set_error (error, GST_CORE_ERROR,
        GST_CORE_ERROR_NEGOTIATION, "%s caps give a pixel-aspect-ratio of "
        "%d/%d; it must be above 0: %" GST_PTR_FORMAT, side,
        GST_VIDEO_INFO_PAR_N (info), GST_VIDEO_INFO_PAR_D (info), caps);
    return FALSE;
  }
  if (!gst_cuda_cache_format_in_list (GST_VIDEO_INFO_FORMAT (info), formats)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "%s format %s is not one the converter %s: %s", side,
        GST_VIDEO_INFO_NAME (info),
        g_str_equal (side, "input") ? "takes" : "makes", formats);
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

/* @self's config with the options @config holds (transfer full, nullable)
 * over it, checked and canonical; NULL with @error where one is wrong */
static GstStructure *
merge_config (GstCudaCacheConverter * self, GstStructure * config,
    GError ** error)
{
  GstStructure *merged;

  merged = gst_structure_copy (self->config);
  if (!config)
    return merged;
  gst_cuda_cache_converter_config_update (merged, config);
  gst_structure_free (config);
  if (!gst_cuda_cache_converter_check_config (merged, error)) {
    gst_structure_free (merged);
    return NULL;
  }

  return merged;
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

  g_return_val_if_fail (GST_IS_CAPS (in_caps), NULL);
  g_return_val_if_fail (GST_IS_CAPS (out_caps), NULL);
  g_return_val_if_fail (context == NULL || GST_IS_CUDA_CONTEXT (context), NULL);

  self = g_object_new (GST_TYPE_CUDA_CACHE_CONVERTER, NULL);
  gst_object_ref_sink (self);
  if (context)
    self->context = gst_object_ref (context);

  if (!gst_cuda_cache_converter_reconfigure (self, in_caps, out_caps, config,
          error)) {
    gst_object_unref (self);
    return NULL;
  }

  return self;
}

/**
 * gst_cuda_cache_converter_reconfigure:
 * @converter: a #GstCudaCacheConverter
 * @in_caps: (nullable): fixed caps of the input, %NULL to keep them
 * @out_caps: (nullable): fixed caps of the output, %NULL to keep them
 * @config: (transfer full) (nullable): `GST_CUDA_CACHE_CONVERTER_OPT_*`
 *     fields; those it lacks keep their values
 * @error: (nullable): where to say why the conversion cannot be made
 *
 * Sets @converter up for other caps, other options or both, as an element
 * does at a caps event or a property change: the conversion is set up once,
 * for the new caps with the new options, keeping its kernels and its
 * stream (a caps change costs no module load). @in_caps and @out_caps are
 * given together or not at all. Options are checked as
 * gst_cuda_cache_converter_check_config() checks them: a field that is no
 * option is refused with the list of options, rather than ignored.
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
  GstCudaCacheConverterInfo info;
  GstStructure *merged;
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), FALSE);
  g_return_val_if_fail (in_caps == NULL || GST_IS_CAPS (in_caps), FALSE);
  g_return_val_if_fail (out_caps == NULL || GST_IS_CAPS (out_caps), FALSE);
  g_return_val_if_fail ((in_caps == NULL) == (out_caps == NULL), FALSE);

  merged = merge_config (converter, config, error);
  if (!merged)
    return FALSE;
  if (in_caps) {
    ret = info_from_caps (&info, in_caps, out_caps, error);
  } else {
    info = converter->info;
    ret = TRUE;
  }
  ret = ret &&
      gst_cuda_cache_converter_configure (converter, &info, merged, error);
  gst_structure_free (merged);

  return ret;
}

/**
 * gst_cuda_cache_converter_get_config:
 * @converter: a #GstCudaCacheConverter
 *
 * The options @converter converts with, in the canonical form
 * gst_cuda_cache_converter_check_config() describes: every
 * `GST_CUDA_CACHE_CONVERTER_OPT_*` option, each in its one type.
 *
 * Returns: (transfer full): every option, as a config
 *
 * Since: 0.1
 */
GstStructure *
gst_cuda_cache_converter_get_config (GstCudaCacheConverter * converter)
{
  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), NULL);

  return gst_structure_copy (converter->config);
}

/**
 * gst_cuda_cache_converter_get_context:
 * @converter: a #GstCudaCacheConverter
 *
 * Tells an application the CUDA context @converter converts in, to make its
 * streams and the buffers it converts in the same context.
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
 * gst_cuda_cache_converter_get_geometry:
 * @converter: a #GstCudaCacheConverter
 * @inbuf: (nullable): the frame to convert, whose #GstVideoCropMeta the
 *     conversion honours; %NULL for a frame without one
 * @geometry: (out caller-allocates): where the picture lands in the
 *     output, the region of the input frame it shows and the scale
 *     between them
 *
 * What converting @inbuf with @converter's caps and options makes of it,
 * for mapping positions found in the output back to the input frame
 * (gst_cuda_cache_picture_geometry_box_to_source()): with letterboxing,
 * the rest of the output is the fill. The source region is in the frame
 * downstream of a crop sees (the crop meta's rectangle), grown to the
 * chroma grid of subsampled input but never past that frame. For NV12 and
 * I420 output the picture's x and y are even (it starts on the chroma
 * grid, as with GstVideoConverter). Nothing of @converter changes: the
 * answer depends on the arguments alone.
 *
 * Returns: %TRUE; %FALSE with @error set where the options' source
 *     rectangle does not lie in @inbuf's frame
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_get_geometry (GstCudaCacheConverter * converter,
    GstBuffer * inbuf, GstCudaCachePictureGeometry * geometry, GError ** error)
{
  GstCudaCacheConvertParams params;
  const GstCudaCacheConvertParams *p = &params;
  GstCudaCacheInputCrop crop;
  GstVideoRectangle vis = { 0, 0, 0, 0 };
  gboolean has_crop;
  gint x1, y1;

  g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (converter), FALSE);
  g_return_val_if_fail (inbuf == NULL || GST_IS_BUFFER (inbuf), FALSE);
  g_return_val_if_fail (geometry != NULL, FALSE);

  /* the conversion as set up where it is for this crop (every frame of a
   * steady stream, once converted), else worked out for it */
  has_crop = gst_cuda_cache_converter_input_crop (converter, inbuf, &crop);
  if (gst_cuda_cache_converter_crop_is_set_up (converter, has_crop, &crop))
    p = &converter->params;
  else if (!gst_cuda_cache_converter_conversion_params (&converter->info,
          converter->config, has_crop ? &crop : NULL, &params, error))
    return FALSE;

  memset (geometry, 0, sizeof (*geometry));
  geometry->picture.x = p->dest_x;
  geometry->picture.y = p->dest_y;
  geometry->picture.w = p->dest_width;
  geometry->picture.h = p->dest_height;
  vis.w = GST_VIDEO_INFO_WIDTH (&converter->info.in_info);
  vis.h = GST_VIDEO_INFO_HEIGHT (&converter->info.in_info);
  if (has_crop)
    vis = crop.visible;
  /* in the frame downstream of a crop sees; the region converted, grown
   * to the chroma grid, may reach a pixel past it */
  geometry->source.x = CLAMP (p->src_x - vis.x, 0, vis.w - 1);
  geometry->source.y = CLAMP (p->src_y - vis.y, 0, vis.h - 1);
  x1 = CLAMP (p->src_x + p->in_width - vis.x, geometry->source.x + 1, vis.w);
  y1 = CLAMP (p->src_y + p->in_height - vis.y, geometry->source.y + 1, vis.h);
  geometry->source.w = x1 - geometry->source.x;
  geometry->source.h = y1 - geometry->source.y;
  geometry->source_width = vis.w;
  geometry->source_height = vis.h;
  geometry->scale_x = (gdouble) geometry->picture.w / geometry->source.w;
  geometry->scale_y = (gdouble) geometry->picture.h / geometry->source.h;

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
 * @inbuf and @outbuf was allocated on @stream (GStreamer 1.24 and later: a
 * #GstCudaStream whose handle is @stream, from a pool configured with
 * gst_buffer_pool_config_set_cuda_stream()), the call returns without
 * waiting and leaves the output flagged %GST_CUDA_MEMORY_TRANSFER_NEED_SYNC,
 * for readers of other streams to wait for. Otherwise (all memory of
 * GStreamer 1.22, which carries no stream, every conversion with @stream
 * %NULL, and input of another stream, which its producer may write again
 * as soon as @inbuf is let go) the output is written by the time the call
 * returns, the converter waiting for its conversion without a call into
 * the CUDA driver where the device allows. Input or output memory written
 * on another stream and not yet waited for is waited for first. 16-bit input (P010_10LE, P016_LE) is
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
  if (!gst_cuda_cache_converter_follow_crop (converter, inbuf, error))
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

  if (!gst_cuda_cache_converter_get_cpu (converter, error))
    return FALSE;

  return gst_cuda_cache_converter_cpu_convert (converter->cpu, inbuf, outbuf,
      error);
}
