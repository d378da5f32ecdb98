/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* cudacacheconvert's CUDA kernels: scaling, colour conversion, letterbox
 * fill and tensor packing in one pass, with the semantics that
 * gstcudacachekernels.h defines. nvcc builds them ahead of time into a
 * fatbin that the plugin embeds; gstcudacachekernels.c loads and launches
 * them. */

#include <cstddef>
#include <cuda_fp16.h>

#include "convert-params.h"

static_assert (sizeof (ConvertParams) == 280, "ConvertParams layout");
static_assert (offsetof (ConvertParams, in_format) == 48, "ConvertParams");
static_assert (offsetof (ConvertParams, x_fx) == 136, "ConvertParams");

/* One axis of the separable LINEAR filter (GstVideoResampler's): the first
 * source index, the tap count, the source position and its weights' sum. */
struct Taps
{
  int first;
  int n;
  float x;
  float fx;
  float sum;
};

__device__ static __forceinline__ float
tap_weight (const Taps & t, int l)
{
  return fmaxf (0.0f, 1.0f - fabsf (t.x - (float) (t.first + l)) * t.fx);
}

__device__ static Taps
taps_setup (int j, int in_size, int out_size, int n_taps, float fx)
{
  Taps t;
  double x;
  int l;

  /* as GstVideoResampler computes it, in double */
  x = (0.5 + (double) j) / out_size * in_size - (n_taps > 1 ? 0.5 : 0.0);
  x = fmin (fmax (x, 0.0), (double) (in_size - 1));

  t.first = (int) floor (x) - (n_taps - 1) / 2;
  t.n = n_taps;
  t.x = (float) x;
  t.fx = fx;
  t.sum = 0.0f;
  for (l = 0; l < n_taps; l++)
    t.sum += tap_weight (t, l);

  return t;
}

__device__ static __forceinline__ int
clamp_int (int v, int lo, int hi)
{
  return min (max (v, lo), hi);
}

__device__ static __forceinline__ unsigned char
to_u8 (float v)
{
  return (unsigned char) fminf (fmaxf (roundf (v), 0.0f), 255.0f);
}

__device__ static __forceinline__ float3
yuv_to_rgb (const ConvertParams & p, float y, float u, float v)
{
  const float *m = p.yuv_to_rgb;

  return make_float3 (m[0] * y + m[1] * u + m[2] * v + m[3],
      m[4] * y + m[5] * u + m[6] * v + m[7],
      m[8] * y + m[9] * u + m[10] * v + m[11]);
}

__device__ static __forceinline__ const unsigned char *
plane_row (const ConvertParams & p, int plane, int y)
{
  return (const unsigned char *) p.in_data[plane] +
      (long long) y * p.in_stride[plane];
}

/* Chroma sample (c, r) of a 4:2:0 input, inside its chroma planes. */
__device__ static __forceinline__ float2
chroma_at (const ConvertParams & p, int c, int r)
{
  if (p.in_format == CONVERT_FORMAT_NV12) {
    const unsigned char *s = plane_row (p, 1, r) + c * 2;

    return make_float2 (s[0], s[1]);
  }
  return make_float2 (plane_row (p, 1, r)[c], plane_row (p, 2, r)[c]);
}

/* U and V at luma pixel (x, y), upsampled as GstVideoConverter's LINEAR
 * chroma resampler does: interpolated between the two nearest chroma
 * samples, which sit half a pixel right of and below their block's first
 * luma sample unless cosited; vertically cosited chroma is not
 * interpolated (GStreamer 1.22 repeats its rows). */
__device__ static float2
read_chroma (const ConvertParams & p, int x, int y)
{
  int cw = (p.in_width + 1) / 2, ch = (p.in_height + 1) / 2;
  float u = (p.chroma_site & CONVERT_CHROMA_H_COSITED) ?
      x * 0.5f : (x - 0.5f) * 0.5f;
  float v = (p.chroma_site & CONVERT_CHROMA_V_COSITED) ?
      (float) (y / 2) : (y - 0.5f) * 0.5f;
  int c0 = (int) floorf (u), r0 = (int) floorf (v);
  float fu = u - c0, fv = v - r0;
  int c1 = clamp_int (c0 + 1, 0, cw - 1), r1 = clamp_int (r0 + 1, 0, ch - 1);
  float2 a, b, c, d;

  c0 = clamp_int (c0, 0, cw - 1);
  r0 = clamp_int (r0, 0, ch - 1);
  a = chroma_at (p, c0, r0);
  b = chroma_at (p, c1, r0);
  c = chroma_at (p, c0, r1);
  d = chroma_at (p, c1, r1);

  return make_float2 ((1.0f - fv) * ((1.0f - fu) * a.x + fu * b.x) +
      fv * ((1.0f - fu) * c.x + fu * d.x),
      (1.0f - fv) * ((1.0f - fu) * a.y + fu * b.y) +
      fv * ((1.0f - fu) * c.y + fu * d.y));
}

/* Source pixel (x, y), inside the input, as RGB on the 0..255 scale. */
__device__ static float3
read_pixel (const ConvertParams & p, int x, int y)
{
  const unsigned char *s;

  switch (p.in_format) {
    case CONVERT_FORMAT_NV12:
    case CONVERT_FORMAT_I420:{
      float2 uv = read_chroma (p, x, y);

      return yuv_to_rgb (p, plane_row (p, 0, y)[x], uv.x, uv.y);
    }
    case CONVERT_FORMAT_RGBA:
    case CONVERT_FORMAT_RGBx:
      s = plane_row (p, 0, y) + x * 4;
      return make_float3 (s[0], s[1], s[2]);
    case CONVERT_FORMAT_BGRA:
    case CONVERT_FORMAT_BGRx:
      s = plane_row (p, 0, y) + x * 4;
      return make_float3 (s[2], s[1], s[0]);
    case CONVERT_FORMAT_RGB:
      s = plane_row (p, 0, y) + x * 3;
      return make_float3 (s[0], s[1], s[2]);
    case CONVERT_FORMAT_BGR:
    default:
      s = plane_row (p, 0, y) + x * 3;
      return make_float3 (s[2], s[1], s[0]);
  }
}

/* Output pixel (x, y) as RGB, unrounded: the fill colour outside the dest
 * rectangle, the filtered input inside it. */
__device__ static float3
sample (const ConvertParams & p, int x, int y)
{
  Taps tx, ty;
  float3 acc;
  float norm;
  int l, m;

  if (x < p.dest_x || x >= p.dest_x + p.dest_width ||
      y < p.dest_y || y >= p.dest_y + p.dest_height)
    return make_float3 (p.fill[0], p.fill[1], p.fill[2]);

  tx = taps_setup (x - p.dest_x, p.in_width, p.dest_width, p.x_taps, p.x_fx);
  ty = taps_setup (y - p.dest_y, p.in_height, p.dest_height, p.y_taps,
      p.y_fx);

  acc = make_float3 (0.0f, 0.0f, 0.0f);
  for (l = 0; l < ty.n; l++) {
    float wy = tap_weight (ty, l);
    float3 row;
    int sy;

    if (wy <= 0.0f)
      continue;
    sy = clamp_int (ty.first + l, 0, p.in_height - 1);
    row = make_float3 (0.0f, 0.0f, 0.0f);
    for (m = 0; m < tx.n; m++) {
      float wx = tap_weight (tx, m);
      float3 c;

      if (wx <= 0.0f)
        continue;
      c = read_pixel (p, clamp_int (tx.first + m, 0, p.in_width - 1), sy);
      row.x += wx * c.x;
      row.y += wx * c.y;
      row.z += wx * c.z;
    }
    acc.x += wy * row.x;
    acc.y += wy * row.y;
    acc.z += wy * row.z;
  }

  norm = 1.0f / (tx.sum * ty.sum);
  return make_float3 (acc.x * norm, acc.y * norm, acc.z * norm);
}

__device__ static void
write_packed (const ConvertParams & p, int x, int y, float3 c)
{
  unsigned char *d = (unsigned char *) p.out_data[0] +
      (long long) y * p.out_stride[0];
  unsigned char r = to_u8 (c.x), g = to_u8 (c.y), b = to_u8 (c.z);

  switch (p.out_format) {
    case CONVERT_FORMAT_RGBA:
    case CONVERT_FORMAT_RGBx:
      d += x * 4;
      d[0] = r;
      d[1] = g;
      d[2] = b;
      d[3] = 255;
      break;
    case CONVERT_FORMAT_BGRA:
    case CONVERT_FORMAT_BGRx:
      d += x * 4;
      d[0] = b;
      d[1] = g;
      d[2] = r;
      d[3] = 255;
      break;
    case CONVERT_FORMAT_RGB:
      d += x * 3;
      d[0] = r;
      d[1] = g;
      d[2] = b;
      break;
    case CONVERT_FORMAT_BGR:
      d += x * 3;
      d[0] = b;
      d[1] = g;
      d[2] = r;
      break;
    default:
      break;
  }
}

__device__ static __forceinline__ void
store_tensor (const ConvertParams & p, unsigned long long i, float v)
{
  switch (p.dtype) {
    case CONVERT_DTYPE_U8:
      /* round half to even, as the CPU path's lrintf () */
      ((unsigned char *) p.out_data[0])[i] =
          (unsigned char) fminf (fmaxf (rintf (v), 0.0f), 255.0f);
      break;
    case CONVERT_DTYPE_F16:
      ((__half *) p.out_data[0])[i] = __float2half_rn (v);
      break;
    case CONVERT_DTYPE_F32:
    default:
      ((float *) p.out_data[0])[i] = v;
      break;
  }
}

__device__ static void
write_tensor (const ConvertParams & p, int x, int y, float3 c)
{
  unsigned long long plane = (unsigned long long) p.out_width * p.out_height;
  unsigned long long pixel = (unsigned long long) y * p.out_width + x;
  /* channel k of the tensor: R, G, B, or B, G, R */
  float c0 = p.bgr ? c.z : c.x, c2 = p.bgr ? c.x : c.z;
  float v0 = c0 * p.mul[0] + p.add[0];
  float v1 = c.y * p.mul[1] + p.add[1];
  float v2 = c2 * p.mul[2] + p.add[2];

  if (p.layout == CONVERT_LAYOUT_NCHW) {
    store_tensor (p, pixel, v0);
    store_tensor (p, plane + pixel, v1);
    store_tensor (p, 2 * plane + pixel, v2);
  } else {
    store_tensor (p, pixel * 3, v0);
    store_tensor (p, pixel * 3 + 1, v1);
    store_tensor (p, pixel * 3 + 2, v2);
  }
}

/* Packed RGB video and tensor outputs: one thread per output pixel. */
extern "C" __global__ void
gst_cuda_cache_convert_rgb (const ConvertParams p)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float3 c;

  if (x >= p.out_width || y >= p.out_height)
    return;

  c = sample (p, x, y);
  if (p.out_format == CONVERT_FORMAT_TENSOR)
    write_tensor (p, x, y, c);
  else
    write_packed (p, x, y, c);
}

/* NV12 and I420 outputs: one thread per 2x2 block, which owns its four
 * luma samples and its chroma sample. */
extern "C" __global__ void
gst_cuda_cache_convert_yuv420 (const ConvertParams p)
{
  int bx = blockIdx.x * blockDim.x + threadIdx.x;
  int by = blockIdx.y * blockDim.y + threadIdx.y;
  const float *m = p.rgb_to_yuv;
  float3 mean = make_float3 (0.0f, 0.0f, 0.0f);
  unsigned char *d;
  unsigned char u, v;
  int n = 0, dx, dy;

  if (2 * bx >= p.out_width || 2 * by >= p.out_height)
    return;

  for (dy = 0; dy < 2; dy++) {
    int y = 2 * by + dy;

    if (y >= p.out_height)
      break;
    d = (unsigned char *) p.out_data[0] + (long long) y * p.out_stride[0];
    for (dx = 0; dx < 2; dx++) {
      int x = 2 * bx + dx;
      float3 c;

      if (x >= p.out_width)
        break;
      c = sample (p, x, y);
      d[x] = to_u8 (m[0] * c.x + m[1] * c.y + m[2] * c.z + m[3]);
      mean.x += c.x;
      mean.y += c.y;
      mean.z += c.z;
      n++;
    }
  }

  mean.x /= n;
  mean.y /= n;
  mean.z /= n;
  u = to_u8 (m[4] * mean.x + m[5] * mean.y + m[6] * mean.z + m[7]);
  v = to_u8 (m[8] * mean.x + m[9] * mean.y + m[10] * mean.z + m[11]);

  if (p.out_format == CONVERT_FORMAT_NV12) {
    d = (unsigned char *) p.out_data[1] + (long long) by * p.out_stride[1];
    d[2 * bx] = u;
    d[2 * bx + 1] = v;
  } else {
    ((unsigned char *) p.out_data[1] + (long long) by * p.out_stride[1])[bx]
        = u;
    ((unsigned char *) p.out_data[2] + (long long) by * p.out_stride[2])[bx]
        = v;
  }
}
