/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The loader of cudacacheconvert's CUDA kernels (kernels/convert.cu): nvcc
 * builds them into a fatbin embedded in the plugin; this loads it into a
 * #GstCudaContext and launches one conversion at a time through gst-cuda's
 * driver wrappers. The driver is never linked: gst-cuda loads it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>

#include "gstcudacachekernels-private.h"
#include "kernels/convert-params.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_kernels_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

#ifdef HAVE_CUDA_KERNELS

/* kernels/embed.py writes them, from nvcc's fatbin */
G_GNUC_INTERNAL extern const unsigned char gst_cuda_cache_kernels_fatbin[];
G_GNUC_INTERNAL extern const gsize gst_cuda_cache_kernels_fatbin_len;

#define BLOCK_SIZE 16

/* GstVideoResampler's limit on the taps of one output pixel, per axis */
#define MAX_TAPS 128

G_STATIC_ASSERT (sizeof (ConvertParams) == 280);
G_STATIC_ASSERT (G_STRUCT_OFFSET (ConvertParams, in_format) == 48);
G_STATIC_ASSERT (G_STRUCT_OFFSET (ConvertParams, x_fx) == 136);

struct _GstCudaCacheKernels
{
  GstCudaContext *context;
  CUmodule module;
  CUfunction convert_rgb;       /* packed RGB video and tensors */
  CUfunction convert_yuv420;    /* NV12 and I420 */
};

#endif /* HAVE_CUDA_KERNELS */

static void
gst_cuda_cache_kernels_init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_kernels_debug, "cudacachekernels",
        0, "cudacacheconvert's CUDA kernels");
    g_once_init_leave (&once, 1);
  }
}

#ifdef HAVE_CUDA_KERNELS

static gboolean
check_result (CUresult result, const gchar * what)
{
  const gchar *name = NULL;

  if (result == CUDA_SUCCESS)
    return TRUE;

  CuGetErrorName (result, &name);
  GST_ERROR ("%s failed: %s (%d)", what, GST_STR_NULL (name), (gint) result);

  return FALSE;
}

static gint
convert_format (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_NV12:
      return CONVERT_FORMAT_NV12;
    case GST_VIDEO_FORMAT_I420:
      return CONVERT_FORMAT_I420;
    case GST_VIDEO_FORMAT_RGBA:
      return CONVERT_FORMAT_RGBA;
    case GST_VIDEO_FORMAT_BGRA:
      return CONVERT_FORMAT_BGRA;
    case GST_VIDEO_FORMAT_RGBx:
      return CONVERT_FORMAT_RGBx;
    case GST_VIDEO_FORMAT_BGRx:
      return CONVERT_FORMAT_BGRx;
    case GST_VIDEO_FORMAT_RGB:
      return CONVERT_FORMAT_RGB;
    case GST_VIDEO_FORMAT_BGR:
      return CONVERT_FORMAT_BGR;
    default:
      return -1;
  }
}

/* n_taps and fx of one axis, as gst_video_resampler_init () works them out
 * for the LINEAR method: fx from the count before it is clamped to the
 * input size. */
static void
axis_taps (gint in_size, gint out_size, gint32 * n_taps, gfloat * fx)
{
  gdouble scale = in_size / (gdouble) out_size;
  gdouble filter_fx = scale > 1.0 ? 1.0 / scale : 1.0;
  gint n = CLAMP ((gint) ceil (2.0 / filter_fx), 1, MAX_TAPS);

  *fx = 2.0 / n;
  *n_taps = MIN (n, in_size);
}

#endif /* HAVE_CUDA_KERNELS */

gboolean
gst_cuda_cache_kernels_built (void)
{
#ifdef HAVE_CUDA_KERNELS
  return TRUE;
#else
  return FALSE;
#endif
}

GstCudaCacheKernels *
gst_cuda_cache_kernels_new (GstCudaContext * context)
{
#ifdef HAVE_CUDA_KERNELS
  GstCudaCacheKernels *self;
  CUmodule module = NULL;
  CUfunction convert_rgb = NULL, convert_yuv420 = NULL;
  gboolean ok;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  gst_cuda_cache_kernels_init_debug ();

  if (!gst_cuda_context_push (context)) {
    GST_ERROR_OBJECT (context, "could not push the CUDA context");
    return NULL;
  }

  ok = check_result (CuModuleLoadData (&module,
          gst_cuda_cache_kernels_fatbin), "cuModuleLoadData") &&
      check_result (CuModuleGetFunction (&convert_rgb, module,
          "gst_cuda_cache_convert_rgb"), "cuModuleGetFunction") &&
      check_result (CuModuleGetFunction (&convert_yuv420, module,
          "gst_cuda_cache_convert_yuv420"), "cuModuleGetFunction");
  if (!ok && module)
    CuModuleUnload (module);

  gst_cuda_context_pop (NULL);

  if (!ok) {
    GST_ERROR_OBJECT (context, "could not load the kernels (a fatbin of %"
        G_GSIZE_FORMAT " bytes) on this device",
        gst_cuda_cache_kernels_fatbin_len);
    return NULL;
  }

  self = g_new0 (GstCudaCacheKernels, 1);
  self->context = gst_object_ref (context);
  self->module = module;
  self->convert_rgb = convert_rgb;
  self->convert_yuv420 = convert_yuv420;

  GST_DEBUG_OBJECT (context, "loaded the kernels (a fatbin of %"
      G_GSIZE_FORMAT " bytes)", gst_cuda_cache_kernels_fatbin_len);

  return self;
#else
  gst_cuda_cache_kernels_init_debug ();
  GST_INFO ("the plugin was built without its CUDA kernels (no nvcc)");

  return NULL;
#endif
}

gboolean
gst_cuda_cache_kernels_convert (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params, CUstream stream)
{
#ifdef HAVE_CUDA_KERNELS
  ConvertParams p = { 0, };
  void *args[] = { &p };
  CUfunction function;
  guint grid_w, grid_h, i;
  gboolean ok;

  g_return_val_if_fail (kernels != NULL, FALSE);
  g_return_val_if_fail (params != NULL, FALSE);

  p.in_format = convert_format (params->in_format);
  if (params->out_format == GST_VIDEO_FORMAT_UNKNOWN)
    p.out_format = CONVERT_FORMAT_TENSOR;
  else
    p.out_format = convert_format (params->out_format);
  if (p.in_format < 0 || p.out_format < 0) {
    GST_ERROR ("cannot convert %s to %s",
        gst_video_format_to_string (params->in_format),
        params->out_format == GST_VIDEO_FORMAT_UNKNOWN ? "a tensor" :
        gst_video_format_to_string (params->out_format));
    return FALSE;
  }
  if (params->in_width <= 0 || params->in_height <= 0 ||
      params->out_width <= 0 || params->out_height <= 0 ||
      params->dest_width <= 0 || params->dest_height <= 0 ||
      !params->in_data[0] || !params->out_data[0]) {
    GST_ERROR ("invalid conversion: %dx%d to %dx%d, picture at %d,%d %dx%d",
        params->in_width, params->in_height, params->out_width,
        params->out_height, params->dest_x, params->dest_y,
        params->dest_width, params->dest_height);
    return FALSE;
  }

  for (i = 0; i < 3; i++) {
    p.in_data[i] = params->in_data[i];
    p.in_stride[i] = params->in_stride[i];
    p.out_data[i] = params->out_data[i];
    p.out_stride[i] = params->out_stride[i];
    p.fill[i] = params->fill[i];
    p.mul[i] = params->mul[i];
    p.add[i] = params->add[i];
  }
  for (i = 0; i < 12; i++) {
    p.yuv_to_rgb[i] = params->yuv_to_rgb[i];
    p.rgb_to_yuv[i] = params->rgb_to_yuv[i];
  }
  p.in_width = params->in_width;
  p.in_height = params->in_height;
  p.out_width = params->out_width;
  p.out_height = params->out_height;
  p.dest_x = params->dest_x;
  p.dest_y = params->dest_y;
  p.dest_width = params->dest_width;
  p.dest_height = params->dest_height;
  axis_taps (p.in_width, p.dest_width, &p.x_taps, &p.x_fx);
  axis_taps (p.in_height, p.dest_height, &p.y_taps, &p.y_fx);
  p.dtype = params->dtype == GST_CUDA_CACHE_TENSOR_DTYPE_U8 ? CONVERT_DTYPE_U8 :
      params->dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F16 ? CONVERT_DTYPE_F16 :
      CONVERT_DTYPE_F32;
  p.layout = params->layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC ?
      CONVERT_LAYOUT_NHWC : CONVERT_LAYOUT_NCHW;
  p.bgr = params->bgr ? 1 : 0;
  p.chroma_site =
      (params->in_chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED ?
      CONVERT_CHROMA_H_COSITED : 0) |
      (params->in_chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED ?
      CONVERT_CHROMA_V_COSITED : 0);

  /* YUV 4:2:0 outputs: one thread per 2x2 block */
  if (p.out_format == CONVERT_FORMAT_NV12 ||
      p.out_format == CONVERT_FORMAT_I420) {
    function = kernels->convert_yuv420;
    grid_w = ((p.out_width + 1) / 2 + BLOCK_SIZE - 1) / BLOCK_SIZE;
    grid_h = ((p.out_height + 1) / 2 + BLOCK_SIZE - 1) / BLOCK_SIZE;
  } else {
    function = kernels->convert_rgb;
    grid_w = (p.out_width + BLOCK_SIZE - 1) / BLOCK_SIZE;
    grid_h = (p.out_height + BLOCK_SIZE - 1) / BLOCK_SIZE;
  }

  GST_LOG ("%dx%d %s to %dx%d %s, picture at %d,%d %dx%d, %dx%d taps",
      p.in_width, p.in_height, gst_video_format_to_string (params->in_format),
      p.out_width, p.out_height, p.out_format == CONVERT_FORMAT_TENSOR ?
      "tensor" : gst_video_format_to_string (params->out_format), p.dest_x,
      p.dest_y, p.dest_width, p.dest_height, p.x_taps, p.y_taps);

  if (!gst_cuda_context_push (kernels->context)) {
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context");
    return FALSE;
  }

  ok = check_result (CuLaunchKernel (function, grid_w, grid_h, 1, BLOCK_SIZE,
          BLOCK_SIZE, 1, 0, stream, args, NULL), "cuLaunchKernel") &&
      check_result (CuStreamSynchronize (stream), "cuStreamSynchronize");

  gst_cuda_context_pop (NULL);

  return ok;
#else
  g_return_val_if_reached (FALSE);
#endif
}

GstCudaContext *
gst_cuda_cache_kernels_get_context (GstCudaCacheKernels * kernels)
{
#ifdef HAVE_CUDA_KERNELS
  g_return_val_if_fail (kernels != NULL, NULL);

  return kernels->context;
#else
  return NULL;
#endif
}

void
gst_cuda_cache_kernels_free (GstCudaCacheKernels * kernels)
{
#ifdef HAVE_CUDA_KERNELS
  if (!kernels)
    return;

  if (gst_cuda_context_push (kernels->context)) {
    check_result (CuModuleUnload (kernels->module), "cuModuleUnload");
    gst_cuda_context_pop (NULL);
  } else {
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context: "
        "leaking the kernels' module");
  }
  gst_object_unref (kernels->context);
  g_free (kernels);
#endif
}

/* Interim plan: the parameters, kept per caps, launched by the converter
 * (the kernels' rewrite replaces this). */
struct _GstCudaCacheKernelPlan
{
  GstCudaCacheKernels *kernels;
  GstCudaCacheConvertParams params;
};

GstCudaCacheKernelPlan *
gst_cuda_cache_kernel_plan_new (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params)
{
  GstCudaCacheKernelPlan *plan = g_new0 (GstCudaCacheKernelPlan, 1);

  plan->kernels = kernels;
  plan->params = *params;
  return plan;
}

gboolean
gst_cuda_cache_kernel_plan_launch (GstCudaCacheKernelPlan * plan,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], CUstream stream)
{
  guint i;

  for (i = 0; i < 3; i++) {
    plan->params.in_data[i] = in_data[i];
    plan->params.in_stride[i] = in_stride[i];
    plan->params.out_data[i] = out_data[i];
    plan->params.out_stride[i] = out_stride[i];
  }
  return gst_cuda_cache_kernels_convert (plan->kernels, &plan->params, stream);
}

void
gst_cuda_cache_kernel_plan_free (GstCudaCacheKernelPlan * plan)
{
  g_free (plan);
}
