/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The loader of cudacacheconvert's CUDA kernels (kernels/convert.cu): nvcc
 * builds them into a fatbin embedded in the plugin; this loads it into a
 * #GstCudaContext and launches one conversion at a time through gst-cuda's
 * driver wrappers. The driver is never linked: gst-cuda loads it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachekernels-private.h"
#include "kernels/convert-params.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_kernels_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

#ifdef HAVE_CUDA_KERNELS

/* kernels/embed.py writes them, from nvcc's fatbin */
G_GNUC_INTERNAL extern const unsigned char gst_cuda_cache_kernels_fatbin[];
G_GNUC_INTERNAL extern const gsize gst_cuda_cache_kernels_fatbin_len;

/* the generic kernels' blocks, as convert.cu has them */
#define GENERIC_THREADS 256

/* GstVideoResampler's limit on the taps of one output pixel, per axis */
#define MAX_TAPS 128

/* shared memory a block may use without asking the driver for more */
#define MAX_SHARED_BYTES (48 * 1024)

/* fewer tiles of 16 rows than this: tiles of 8 */
#define MIN_TILED_BLOCKS 2048

G_STATIC_ASSERT (sizeof (ConvertParams) == CONVERT_PARAMS_SIZE);
G_STATIC_ASSERT (G_STRUCT_OFFSET (ConvertParams, in_format) ==
    CONVERT_PARAMS_IN_FORMAT_OFFSET);
G_STATIC_ASSERT (G_STRUCT_OFFSET (ConvertParams, x_fx) ==
    CONVERT_PARAMS_X_FX_OFFSET);

/* the kernels come in input kinds x output kinds, as convert.cu names
 * them */
enum
{
  IN_KIND_NV12,
  IN_KIND_I420,
  IN_KIND_RGB4,
  IN_KIND_RGB3,
  N_IN_KINDS
};

enum
{
  OUT_KIND_PACKED,
  OUT_KIND_YUV420,
  OUT_KIND_TENSOR,
  N_OUT_KINDS
};

static const gchar *in_kind_names[N_IN_KINDS] = { "nv12", "i420", "rgb4",
  "rgb3"
};

static const gchar *out_kind_names[N_OUT_KINDS] = { "packed", "yuv420",
  "tensor"
};

struct _GstCudaCacheKernels
{
  GstCudaContext *context;
  CUmodule module;
  CUfunction tile[N_IN_KINDS][N_OUT_KINDS];
  CUfunction generic[N_IN_KINDS][N_OUT_KINDS];
};

struct _GstCudaCacheKernelPlan
{
  GstCudaCacheKernels *kernels;
  ConvertParams params;         /* all but the planes' pointers and strides */
  gint in_kind;
  CUfunction function;
  guint grid_w;
  guint grid_h;
  guint block_w;
  guint block_h;
  guint shared_bytes;
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

/* Byte offsets of R, G, B in a packed RGB pixel, and its size. */
static void
packed_layout (gint format, gint * r, gint * g, gint * b, gint * bytes)
{
  gboolean bgr = format == CONVERT_FORMAT_BGRA ||
      format == CONVERT_FORMAT_BGRx || format == CONVERT_FORMAT_BGR;

  *r = bgr ? 2 : 0;
  *g = 1;
  *b = bgr ? 0 : 2;
  *bytes = format == CONVERT_FORMAT_RGB || format == CONVERT_FORMAT_BGR ? 3 : 4;
}

/* The first tap of output index @j along one axis, shifted inside the
 * input, as convert.cu's fold_taps () works it out: GstVideoResampler's
 * double arithmetic, operation by operation, or GstVideoScaler's 2-tap
 * fixed-point step @inc. */
static gint
tap_start (gint j, gint in_size, gint out_size, gint n_taps, gboolean lq,
    gint inc)
{
  gint first;

  if (lq) {
    first = (j * inc) >> 16;
  } else {
    gdouble x = (0.5 + (gdouble) j) / out_size * in_size +
        (n_taps > 1 ? -0.5 : 0.0);

    x = CLAMP (x, 0.0, (gdouble) (in_size - 1));
    first = (gint) floor (x) - (n_taps - 1) / 2;
  }

  return CLAMP (first, 0, in_size - n_taps);
}

/* convert.cu's chroma_index (): the chroma row or column below luma
 * index @i */
static gint
chroma_index (gint i, gboolean cosited)
{
  if (cosited)
    return i / 2;
  return i >= 1 ? (i - 1) / 2 : -1;
}

/* convert.cu's chroma_taps () */
static gint
chroma_taps (gint n_taps)
{
  return n_taps / 2 + 3;
}

static gboolean
is_yuv_format (gint format)
{
  return format == CONVERT_FORMAT_NV12 || format == CONVERT_FORMAT_I420;
}

/* The input rows (luma rows for YUV) and chroma rows one tile of a block
 * row reads, at most, as convert.cu's convert_tile () finds them. */
static void
tile_rows (const ConvertParams * p, gint tile_h, gint * rows,
    gint * chroma_rows)
{
  gboolean cosited = (p->chroma_site & CONVERT_CHROMA_V_COSITED) != 0;
  gint ch = (p->in_height + 1) / 2, ncy = chroma_taps (p->y_taps);
  gint oy0;

  *rows = 1;
  *chroma_rows = 1;
  for (oy0 = 0; oy0 < p->out_height; oy0 += tile_h) {
    gint pr0 = MAX (oy0, p->dest_y);
    gint pr1 = MIN (oy0 + tile_h, p->dest_y + p->dest_height);
    gint s0, s1;

    if (pr0 >= pr1)
      continue;
    s0 = tap_start (pr0 - p->dest_y, p->in_height, p->dest_height,
        p->y_taps, FALSE, 0);
    s1 = tap_start (pr1 - 1 - p->dest_y, p->in_height, p->dest_height,
        p->y_taps, FALSE, 0);
    *rows = MAX (*rows, s1 + p->y_taps - s0);
    if (is_yuv_format (p->in_format)) {
      gint c0 = MAX (0, chroma_index (s0, cosited));
      gint c1 = MIN (ch - 1, MAX (0, chroma_index (s1, cosited)) + ncy - 1);

      *chroma_rows = MAX (*chroma_rows, c1 - c0 + 1);
    }
  }
}

/* The bytes of one input row (of each chroma plane) that one block keeps
 * in shared memory: the widest range of bytes a tile reads, plus the slack
 * of copying whole aligned 16-byte words. */
static void
tile_pitches (const ConvertParams * p, gint * pitch, gint * chroma_pitch)
{
  gboolean cosited = (p->chroma_site & CONVERT_CHROMA_H_COSITED) != 0;
  gint cw = (p->in_width + 1) / 2, ncx = chroma_taps (p->x_taps);
  gint bytes = 1, chroma_bytes = 1;
  gint ox0;

  for (ox0 = 0; ox0 < p->out_width; ox0 += CONVERT_TILE_W) {
    gint pc0 = MAX (ox0, p->dest_x);
    gint pc1 = MIN (ox0 + CONVERT_TILE_W, p->dest_x + p->dest_width);
    gint s0, s1;

    if (pc0 >= pc1)
      continue;
    s0 = tap_start (pc0 - p->dest_x, p->in_width, p->dest_width, p->x_taps,
        p->x_lq, p->x_inc);
    s1 = tap_start (pc1 - 1 - p->dest_x, p->in_width, p->dest_width,
        p->x_taps, p->x_lq, p->x_inc);
    if (is_yuv_format (p->in_format)) {
      gint c0 = MAX (0, chroma_index (s0, cosited));
      gint c1 = MIN (cw - 1, MAX (0, chroma_index (s1, cosited)) + ncx - 1);

      bytes = MAX (bytes, s1 + p->x_taps - s0);
      chroma_bytes = MAX (chroma_bytes, (c1 - c0 + 1) *
          (p->in_format == CONVERT_FORMAT_NV12 ? 2 : 1));
    } else {
      bytes = MAX (bytes, (s1 + p->x_taps - s0) * p->in_pixel_bytes);
    }
  }

  *pitch = GST_ROUND_UP_16 (bytes + 30);
  *chroma_pitch = GST_ROUND_UP_16 (chroma_bytes + 30);
}

/* Shared memory of one block of the tiled kernel, as convert_tile () lays
 * it out. */
static guint64
tile_shared_bytes (const ConvertParams * p)
{
  gboolean yuv = is_yuv_format (p->in_format);
  gboolean yuv_out = is_yuv_format (p->out_format);
  guint64 tw = CONVERT_TILE_W, th = p->tile_h;
  guint64 ncx = yuv ? chroma_taps (p->x_taps) : 0;
  guint64 ncy = yuv ? chroma_taps (p->y_taps) : 0;
  guint64 floats, bytes;

  floats = 2 * tw + (p->x_taps + ncx) * tw + 2 * th + th * (p->y_taps + ncy);
  floats += tw * (yuv && !p->convert_first ?
      p->tile_rows + 2 * p->tile_chroma_rows : 3 * p->tile_rows);
  if (yuv_out)
    floats += 3 * tw * th;
  bytes = GST_ROUND_UP_4 (floats) * sizeof (gfloat) +
      (guint64) p->tile_rows * p->tile_pitch;
  if (yuv)
    bytes += (guint64) p->tile_chroma_rows * p->tile_chroma_pitch *
        (p->in_format == CONVERT_FORMAT_I420 ? 2 : 1);
  if (yuv && p->convert_first)
    bytes += (guint64) p->tile_rows * p->tile_pitch * 4;

  return bytes;
}

static gint
in_kind (gint format)
{
  switch (format) {
    case CONVERT_FORMAT_NV12:
      return IN_KIND_NV12;
    case CONVERT_FORMAT_I420:
      return IN_KIND_I420;
    case CONVERT_FORMAT_RGB:
    case CONVERT_FORMAT_BGR:
      return IN_KIND_RGB3;
    default:
      return IN_KIND_RGB4;
  }
}

static gint
out_kind (gint format)
{
  switch (format) {
    case CONVERT_FORMAT_NV12:
    case CONVERT_FORMAT_I420:
      return OUT_KIND_YUV420;
    case CONVERT_FORMAT_TENSOR:
      return OUT_KIND_TENSOR;
    default:
      return OUT_KIND_PACKED;
  }
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
  CUfunction tile[N_IN_KINDS][N_OUT_KINDS];
  CUfunction generic[N_IN_KINDS][N_OUT_KINDS];
  CUmodule module = NULL;
  gboolean ok;
  guint i, o;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  gst_cuda_cache_kernels_init_debug ();

  if (!gst_cuda_context_push (context)) {
    GST_ERROR_OBJECT (context, "could not push the CUDA context");
    return NULL;
  }

  ok = gst_cuda_result (CuModuleLoadData (&module,
          gst_cuda_cache_kernels_fatbin));
  for (i = 0; ok && i < N_IN_KINDS; i++) {
    for (o = 0; ok && o < N_OUT_KINDS; o++) {
      gchar *tile_name = g_strdup_printf ("gst_cuda_cache_convert_tile_%s_%s",
          in_kind_names[i], out_kind_names[o]);
      gchar *generic_name =
          g_strdup_printf ("gst_cuda_cache_convert_generic_%s_%s",
          in_kind_names[i], out_kind_names[o]);

      ok = gst_cuda_result (CuModuleGetFunction (&tile[i][o], module,
              tile_name)) &&
          gst_cuda_result (CuModuleGetFunction (&generic[i][o], module,
              generic_name));
      if (!ok)
        GST_ERROR ("the module lacks %s or %s", tile_name, generic_name);
      g_free (generic_name);
      g_free (tile_name);
    }
  }
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
  memcpy (self->tile, tile, sizeof (tile));
  memcpy (self->generic, generic, sizeof (generic));

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
  GstCudaCacheKernelPlan *plan;
  gint in_stride[3], out_stride[3];
  gboolean ok;
  guint i;

  g_return_val_if_fail (kernels != NULL, FALSE);
  g_return_val_if_fail (params != NULL, FALSE);

  plan = gst_cuda_cache_kernel_plan_new (kernels, params);
  if (!plan)
    return FALSE;

  for (i = 0; i < 3; i++) {
    in_stride[i] = params->in_stride[i];
    out_stride[i] = params->out_stride[i];
  }
  ok = gst_cuda_cache_kernel_plan_launch (plan, params->in_data, in_stride,
      params->out_data, out_stride, stream);
  if (ok) {
    if (gst_cuda_context_push (kernels->context)) {
      ok = gst_cuda_result (CuStreamSynchronize (stream));
      gst_cuda_context_pop (NULL);
    } else {
      GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context");
      ok = FALSE;
    }
  }
  gst_cuda_cache_kernel_plan_free (plan);

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
    gst_cuda_result (CuModuleUnload (kernels->module));
    gst_cuda_context_pop (NULL);
  } else {
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context: "
        "leaking the kernels' module");
  }
  gst_object_unref (kernels->context);
  g_free (kernels);
#endif
}

GstCudaCacheKernelPlan *
gst_cuda_cache_kernel_plan_new (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params)
{
#ifdef HAVE_CUDA_KERNELS
  GstCudaCacheKernelPlan *plan;
  ConvertParams p = { 0, };
  gint out, cpu_out, max_tile_h;
  guint i;

  g_return_val_if_fail (kernels != NULL, NULL);
  g_return_val_if_fail (params != NULL, NULL);

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
    return NULL;
  }
  if (params->in_width <= 0 || params->in_height <= 0 ||
      params->out_width <= 0 || params->out_height <= 0 ||
      params->dest_width <= 0 || params->dest_height <= 0 ||
      params->dest_x < 0 || params->dest_y < 0 ||
      params->dest_x + params->dest_width > params->out_width ||
      params->dest_y + params->dest_height > params->out_height) {
    GST_ERROR ("invalid conversion: %dx%d to %dx%d, picture at %d,%d %dx%d",
        params->in_width, params->in_height, params->out_width,
        params->out_height, params->dest_x, params->dest_y,
        params->dest_width, params->dest_height);
    return NULL;
  }

  for (i = 0; i < 3; i++) {
    p.fill[i] = params->fill[i];
    p.mul[i] = params->mul[i];
    p.add[i] = params->add[i];
  }
  for (i = 0; i < 12; i++) {
    p.yuv_to_rgb[i] = params->yuv_to_rgb[i];
    p.rgb_to_yuv[i] = params->rgb_to_yuv[i];
  }
  if (in_kind (p.in_format) == IN_KIND_RGB3 ||
      in_kind (p.in_format) == IN_KIND_RGB4)
    packed_layout (p.in_format, &p.in_r, &p.in_g, &p.in_b, &p.in_pixel_bytes);
  out = out_kind (p.out_format);
  if (out == OUT_KIND_PACKED)
    packed_layout (p.out_format, &p.out_r, &p.out_g, &p.out_b,
        &p.out_pixel_bytes);
  p.in_width = params->in_width;
  p.in_height = params->in_height;
  p.out_width = params->out_width;
  p.out_height = params->out_height;
  p.dest_x = params->dest_x;
  p.dest_y = params->dest_y;
  p.dest_width = params->dest_width;
  p.dest_height = params->dest_height;
  /* GstVideoConverter aligns the picture to the chroma grid of a 4:2:0
   * output */
  if (out == OUT_KIND_YUV420) {
    p.dest_x &= ~1;
    p.dest_y &= ~1;
  }
  axis_taps (p.in_width, p.dest_width, &p.x_taps, &p.x_fx);
  axis_taps (p.in_height, p.dest_height, &p.y_taps, &p.y_fx);
  /* GstVideoScaler's horizontal 2-tap path (an upscale of 8-bit pixels):
   * corners aligned, a fixed-point step */
  /* GStreamer converts 4:2:0 input to RGB before scaling when the picture
   * grows, after it when it shrinks */
  if (in_kind (p.in_format) <= IN_KIND_I420 && (out == OUT_KIND_PACKED ||
          out == OUT_KIND_TENSOR) &&
      (gint64) p.dest_width * p.dest_height > (gint64) p.in_width * p.in_height)
    p.convert_first = 1;
  /* GstVideoScaler's horizontal 2-tap path: used on 8-bit lines of 1 or
   * 4 components, so not where GstVideoConverter scales RGB or BGR in
   * place (same format in and out; tensors are made from RGB) */
  cpu_out = out == OUT_KIND_TENSOR ? CONVERT_FORMAT_RGB : p.out_format;
  if (p.x_taps == 2 && p.in_width != p.dest_width &&
      !(p.in_format == cpu_out && (cpu_out == CONVERT_FORMAT_RGB ||
              cpu_out == CONVERT_FORMAT_BGR))) {
    p.x_lq = 1;
    p.x_inc = p.dest_width == 1 ? 0 :
        ((p.in_width - 1) << 16) / (p.dest_width - 1) - 1;
    p.x_fx = 1.0f;
  }
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

  plan = g_new0 (GstCudaCacheKernelPlan, 1);
  plan->kernels = kernels;
  plan->in_kind = in_kind (p.in_format);

  /* the tiled kernel with the tallest tile whose input rows fit in shared
   * memory; the generic one where not even two output rows' do (thousands
   * of input rows per output row). Tiles of 8 rows where 16 would make too
   * few blocks to keep every SM busy (an H100 holds about 1,600 of them at
   * once; 1080p to 640x640 made 800, its SMs a third occupied). */
  tile_pitches (&p, &p.tile_pitch, &p.tile_chroma_pitch);
  max_tile_h = (guint64) ((p.out_width + CONVERT_TILE_W - 1) /
      CONVERT_TILE_W) * ((p.out_height + 15) / 16) < MIN_TILED_BLOCKS ? 8 : 16;
  for (p.tile_h = max_tile_h; p.tile_h >= 2; p.tile_h /= 2) {
    guint64 bytes;

    tile_rows (&p, p.tile_h, &p.tile_rows, &p.tile_chroma_rows);
    bytes = tile_shared_bytes (&p);
    if (bytes <= MAX_SHARED_BYTES) {
      plan->shared_bytes = bytes;
      break;
    }
  }

  if (p.tile_h >= 2) {
    plan->function = kernels->tile[plan->in_kind][out];
    plan->block_w = CONVERT_TILE_W;
    plan->block_h = CONVERT_TILE_THREADS_Y;
    plan->grid_w = (p.out_width + CONVERT_TILE_W - 1) / CONVERT_TILE_W;
    plan->grid_h = (p.out_height + p.tile_h - 1) / p.tile_h;
  } else {
    p.tile_h = p.tile_rows = p.tile_chroma_rows = 0;
    p.tile_pitch = p.tile_chroma_pitch = 0;
    plan->function = kernels->generic[plan->in_kind][out];
    plan->shared_bytes = 0;
    plan->block_w = GENERIC_THREADS;
    plan->block_h = 1;
    /* a block per output pixel, or per 2x2 block of a 4:2:0 output */
    if (out == OUT_KIND_YUV420) {
      plan->grid_w = (p.out_width + 1) / 2;
      plan->grid_h = (p.out_height + 1) / 2;
    } else {
      plan->grid_w = p.out_width;
      plan->grid_h = p.out_height;
    }
  }
  plan->params = p;

  GST_DEBUG ("%dx%d %s to %dx%d %s, picture at %d,%d %dx%d, %dx%d taps: "
      "%s kernel, %ux%u blocks of %ux%u, tile of %d rows reading up to %d "
      "rows of %d bytes (%d of chroma, of %d), %u bytes of shared memory",
      p.in_width, p.in_height, gst_video_format_to_string (params->in_format),
      p.out_width, p.out_height, p.out_format == CONVERT_FORMAT_TENSOR ?
      "tensor" : gst_video_format_to_string (params->out_format), p.dest_x,
      p.dest_y, p.dest_width, p.dest_height, p.x_taps, p.y_taps,
      p.tile_h ? "tiled" : "generic", plan->grid_w, plan->grid_h,
      plan->block_w, plan->block_h, p.tile_h, p.tile_rows, p.tile_pitch,
      p.tile_chroma_rows, p.tile_chroma_pitch, plan->shared_bytes);

  return plan;
#else
  g_return_val_if_reached (NULL);
#endif
}

gboolean
gst_cuda_cache_kernel_plan_launch (GstCudaCacheKernelPlan * plan,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], CUstream stream)
{
#ifdef HAVE_CUDA_KERNELS
  ConvertParams p;
  void *args[] = { &p };
  gboolean ok;
  guint i;

  g_return_val_if_fail (plan != NULL, FALSE);
  g_return_val_if_fail (in_data != NULL && in_data[0] != 0, FALSE);
  g_return_val_if_fail (out_data != NULL && out_data[0] != 0, FALSE);

  p = plan->params;
  for (i = 0; i < 3; i++) {
    p.in_data[i] = in_data[i];
    p.in_stride[i] = in_stride[i];
    p.out_data[i] = out_data[i];
    p.out_stride[i] = out_stride[i];
  }
  /* 16-byte loads and whole-pixel stores where the rows allow them */
  p.in_aligned = TRUE;
  for (i = 0; i < (plan->in_kind == IN_KIND_I420 ? 3 :
          plan->in_kind == IN_KIND_NV12 ? 2 : 1); i++) {
    if (in_data[i] % 16 != 0 || in_stride[i] % 16 != 0)
      p.in_aligned = FALSE;
  }
  if (p.out_pixel_bytes == 4)
    p.out_aligned = out_data[0] % 4 == 0 && out_stride[0] % 4 == 0;

  if (!gst_cuda_context_push (plan->kernels->context)) {
    GST_ERROR_OBJECT (plan->kernels->context,
        "could not push the CUDA context");
    return FALSE;
  }

  ok = gst_cuda_result (CuLaunchKernel (plan->function, plan->grid_w,
          plan->grid_h, 1, plan->block_w, plan->block_h, 1,
          plan->shared_bytes, stream, args, NULL));

  gst_cuda_context_pop (NULL);

  return ok;
#else
  g_return_val_if_reached (FALSE);
#endif
}

void
gst_cuda_cache_kernel_plan_free (GstCudaCacheKernelPlan * plan)
{
  g_free (plan);
}
