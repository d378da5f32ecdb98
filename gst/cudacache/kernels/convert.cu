/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* cudacacheconvert's CUDA kernels: scaling, colour conversion, letterbox
 * fill and tensor packing in one pass, with the semantics that
 * gstcudacachekernels-private.h defines. nvcc builds them ahead of time into
 * a fatbin that the plugin embeds; gstcudacachekernels.c loads and launches
 * them.
 *
 * Two kinds of kernel do the same conversion:
 *
 * - tiled (convert_tile): a block makes CONVERT_TILE_W x tile_h output
 *   pixels. It filters each input row its tile needs horizontally once, into
 *   shared memory (for YUV input: Y per luma row, U and V per chroma row, as
 *   the separable filter and the linear chroma upsampling commute), then
 *   filters those vertically and converts to RGB once per output pixel.
 *   Every input pixel is read about twice (the LINEAR taps overlap by half)
 *   instead of n_taps_x * n_taps_y times. The host picks tile_h so that the
 *   rows fit in 48 KiB of shared memory.
 * - generic (convert_generic*): one thread per output pixel (per 2x2 block
 *   for YUV 4:2:0 output), every 2D tap read and converted; for factors
 *   whose rows do not fit (thousands of input rows per output row). */

#include <cstddef>
#include <cuda_fp16.h>

#include "convert-params.h"

static_assert (sizeof (ConvertParams) == CONVERT_PARAMS_SIZE,
    "ConvertParams layout");
static_assert (offsetof (ConvertParams, in_format) ==
    CONVERT_PARAMS_IN_FORMAT_OFFSET, "ConvertParams layout");
static_assert (offsetof (ConvertParams, x_fx) == CONVERT_PARAMS_X_FX_OFFSET,
    "ConvertParams layout");

/* input kinds: the tiled kernels are built once per kind */
enum
{
  IN_NV12,
  IN_I420,
  IN_RGB4,                      /* RGBA, BGRA, RGBx, BGRx */
  IN_RGB3,                      /* RGB, BGR */
};

/* output kinds */
enum
{
  OUT_PACKED,                   /* RGBA, BGRA, RGBx, BGRx, RGB, BGR */
  OUT_YUV420,                   /* NV12, I420 */
  OUT_TENSOR,
};

/* One output index's taps along one axis (GstVideoResampler's LINEAR):
 * the first source index (before clamping), the source position and the
 * reciprocal of the weights' sum. */
struct Tap
{
  int first;
  float x;
  float norm;
};

__device__ static __forceinline__ int
clamp_int (int v, int lo, int hi)
{
  return min (max (v, lo), hi);
}

__device__ static __forceinline__ float
tap_weight (float x, int i, float fx)
{
  return fmaxf (0.0f, 1.0f - fabsf (x - (float) i) * fx);
}

/* Once per output row or column of a block (or pixel, generic kernels):
 * the position is worked out in double, operation by operation as
 * GstVideoResampler does, so that the first tap is the same as the CPU
 * path's even where the position is a whole number. The taps themselves
 * are FP32. With @lq, GstVideoScaler's 2-tap horizontal path instead:
 * position j * inc in 1/65536 of a pixel, weights in 1/256. */
__device__ static Tap
axis_tap (int j, int in_size, int out_size, int n_taps, float fx, bool lq,
    int inc)
{
  Tap t;
  double x;
  float sum = 0.0f;
  int l;

  if (lq) {
    int pos = j * inc;

    t.first = pos >> 16;
    t.x = (float) t.first + (float) ((pos >> 8) & 0xff) * (1.0f / 256.0f);
    t.norm = 1.0f;
    return t;
  }

  x = __dadd_rn (__dmul_rn (__ddiv_rn (0.5 + (double) j, (double) out_size),
          (double) in_size), n_taps > 1 ? -0.5 : 0.0);
  x = fmin (fmax (x, 0.0), (double) (in_size - 1));

  t.first = (int) floor (x) - (n_taps - 1) / 2;
  t.x = (float) x;
  for (l = 0; l < n_taps; l++)
    sum += tap_weight (t.x, t.first + l, fx);
  t.norm = 1.0f / sum;

  return t;
}

__device__ static __forceinline__ unsigned int
to_u8 (float v)
{
  return (unsigned int) fminf (fmaxf (roundf (v), 0.0f), 255.0f);
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
in_row (const ConvertParams & p, int plane, int y)
{
  return (const unsigned char *) p.in_data[plane] +
      (long long) y * p.in_stride[plane];
}

/* 4:2:0 chroma, upsampled as GstVideoConverter's LINEAR chroma resampler
 * does: luma index i lies between chroma samples chroma_index (i) and the
 * next, at chroma_frac (i) from the first. Chroma sits half a luma pixel
 * right of and below its block's first luma sample unless cosited;
 * vertically cosited chroma is not interpolated (GStreamer 1.22 repeats its
 * rows). */
__device__ static __forceinline__ int
chroma_index (int i, bool cosited)
{
  return cosited ? i >> 1 : (i - 1) >> 1;
}

__device__ static __forceinline__ float
chroma_frac (int i, bool cosited, bool interpolate)
{
  if (cosited)
    return interpolate && (i & 1) ? 0.5f : 0.0f;
  return (i & 1) ? 0.25f : 0.75f;
}

/* U and V of chroma sample c of chroma row @row. */
template < int IN > __device__ static __forceinline__ float2
chroma_at (const ConvertParams & p, const unsigned char *row_u,
    const unsigned char *row_v, int c)
{
  if (IN == IN_NV12) {
    if (p.in_aligned) {
      unsigned int uv = __ldg ((const unsigned short *) row_u + c);

      return make_float2 ((float) (uv & 0xff), (float) (uv >> 8));
    }
    return make_float2 (__ldg (row_u + 2 * c), __ldg (row_u + 2 * c + 1));
  }
  return make_float2 (__ldg (row_u + c), __ldg (row_v + c));
}

/* U and V of chroma row @row_u/@row_v at luma column x, horizontally
 * upsampled. */
template < int IN > __device__ static __forceinline__ float2
chroma_h (const ConvertParams & p, const unsigned char *row_u,
    const unsigned char *row_v, int x)
{
  bool cosited = p.chroma_site & CONVERT_CHROMA_H_COSITED;
  int cw = (p.in_width + 1) >> 1;
  int c0 = chroma_index (x, cosited);
  float f = chroma_frac (x, cosited, true);
  float2 a = chroma_at < IN > (p, row_u, row_v, clamp_int (c0, 0, cw - 1));
  float2 b = chroma_at < IN > (p, row_u, row_v, clamp_int (c0 + 1, 0,
          cw - 1));

  return make_float2 (a.x + f * (b.x - a.x), a.y + f * (b.y - a.y));
}

/* A packed RGB input pixel as R, G, B. */
template < int IN > __device__ static __forceinline__ float3
rgb_at (const ConvertParams & p, const unsigned char *row, int x)
{
  if (IN == IN_RGB4 && p.in_aligned) {
    unsigned int v = __ldg ((const unsigned int *) row + x);

    return make_float3 ((float) ((v >> (8 * p.in_r)) & 0xff),
        (float) ((v >> (8 * p.in_g)) & 0xff),
        (float) ((v >> (8 * p.in_b)) & 0xff));
  }
  row += x * (IN == IN_RGB4 ? 4 : 3);
  return make_float3 (__ldg (row + p.in_r), __ldg (row + p.in_g),
      __ldg (row + p.in_b));
}

/* Input pixel (x, y), inside the input, as RGB (generic kernels). */
template < int IN > __device__ static float3
read_pixel (const ConvertParams & p, int x, int y)
{
  if (IN == IN_NV12 || IN == IN_I420) {
    bool cosited = p.chroma_site & CONVERT_CHROMA_V_COSITED;
    int ch = (p.in_height + 1) >> 1;
    int r0 = chroma_index (y, cosited);
    float f = chroma_frac (y, cosited, false);
    int ra = clamp_int (r0, 0, ch - 1), rb = clamp_int (r0 + 1, 0, ch - 1);
    float2 a = chroma_h < IN > (p, in_row (p, 1, ra),
        IN == IN_I420 ? in_row (p, 2, ra) : NULL, x);
    float2 b = chroma_h < IN > (p, in_row (p, 1, rb),
        IN == IN_I420 ? in_row (p, 2, rb) : NULL, x);

    return yuv_to_rgb (p, __ldg (in_row (p, 0, y) + x),
        a.x + f * (b.x - a.x), a.y + f * (b.y - a.y));
  }
  return rgb_at < IN > (p, in_row (p, 0, y), x);
}

/* Stores of one output pixel's RGB (unrounded, 0..255 scale). */
__device__ static __forceinline__ void
store_packed (const ConvertParams & p, int x, int y, float3 c)
{
  unsigned char *row = (unsigned char *) p.out_data[0] +
      (long long) y * p.out_stride[0];
  unsigned int r = to_u8 (c.x), g = to_u8 (c.y), b = to_u8 (c.z);

  if (p.out_pixel_bytes == 4) {
    /* the fourth byte (alpha or padding) is 255 */
    int a = 6 - p.out_r - p.out_g - p.out_b;
    unsigned int v = (r << (8 * p.out_r)) | (g << (8 * p.out_g)) |
        (b << (8 * p.out_b)) | (255u << (8 * a));

    if (p.out_aligned) {
      ((unsigned int *) row)[x] = v;
    } else {
      row[4 * x] = v & 0xff;
      row[4 * x + 1] = (v >> 8) & 0xff;
      row[4 * x + 2] = (v >> 16) & 0xff;
      row[4 * x + 3] = v >> 24;
    }
  } else {
    row += 3 * x;
    row[p.out_r] = r;
    row[p.out_g] = g;
    row[p.out_b] = b;
  }
}

__device__ static __forceinline__ void
store_tensor_value (const ConvertParams & p, unsigned long long i, float v)
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

/* The CPU path packs the tensor from an 8-bit RGB picture: each value is
 * rounded and clamped to the 8-bit grid first, then normalised with the
 * same two float operations (no fused multiply-add), so that float32
 * tensors are bit-exact wherever the 8-bit values agree. */
__device__ static __forceinline__ float
normalise (const ConvertParams & p, float v, int k)
{
  return __fadd_rn (__fmul_rn ((float) to_u8 (v), p.mul[k]), p.add[k]);
}

__device__ static __forceinline__ void
store_tensor (const ConvertParams & p, int x, int y, float3 c)
{
  unsigned long long plane = (unsigned long long) p.out_width * p.out_height;
  unsigned long long pixel = (unsigned long long) y * p.out_width + x;
  /* channel k of the tensor: R, G, B, or B, G, R */
  float v0 = normalise (p, p.bgr ? c.z : c.x, 0);
  float v1 = normalise (p, c.y, 1);
  float v2 = normalise (p, p.bgr ? c.x : c.z, 2);

  if (p.layout == CONVERT_LAYOUT_NCHW) {
    store_tensor_value (p, pixel, v0);
    store_tensor_value (p, plane + pixel, v1);
    store_tensor_value (p, 2 * plane + pixel, v2);
  } else {
    store_tensor_value (p, pixel * 3, v0);
    store_tensor_value (p, pixel * 3 + 1, v1);
    store_tensor_value (p, pixel * 3 + 2, v2);
  }
}

__device__ static __forceinline__ bool
in_picture_x (const ConvertParams & p, int x)
{
  return x >= p.dest_x && x < p.dest_x + p.dest_width;
}

__device__ static __forceinline__ bool
in_picture_y (const ConvertParams & p, int y)
{
  return y >= p.dest_y && y < p.dest_y + p.dest_height;
}

/* One 2x2 block (bx, by) of a 4:2:0 output from its pixels' RGB, which
 * @rgb gives for output coordinates: Y per pixel, U and V from the mean
 * of the block's pixels inside the output. A block that straddles the
 * picture's edge takes its chroma from its picture pixels only, as
 * GstVideoConverter does (it packs the picture, chroma included, and then
 * only the border's luma on the rows and columns that share chroma with
 * the picture). */
template < typename F > __device__ static void
store_yuv420_block (const ConvertParams & p, int bx, int by, F rgb)
{
  const float *m = p.rgb_to_yuv;
  float3 mean = make_float3 (0.0f, 0.0f, 0.0f);
  float3 picture = make_float3 (0.0f, 0.0f, 0.0f);
  unsigned char *d;
  unsigned char u, v;
  int n = 0, n_picture = 0, dx, dy;

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
      c = rgb (x, y);
      d[x] = to_u8 (m[0] * c.x + m[1] * c.y + m[2] * c.z + m[3]);
      mean.x += c.x;
      mean.y += c.y;
      mean.z += c.z;
      n++;
      if (in_picture_x (p, x) && in_picture_y (p, y)) {
        picture.x += c.x;
        picture.y += c.y;
        picture.z += c.z;
        n_picture++;
      }
    }
  }

  if (n_picture > 0 && n_picture < n) {
    mean = picture;
    n = n_picture;
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

/* ---- generic kernels ---------------------------------------------------- */

#define GENERIC_THREADS 256

/* Output pixel (x, y) as RGB, unrounded, by the whole block: its threads
 * share the 2D taps, each read and converted, and sum them. Every thread
 * gets the result. */
template < int IN > __device__ static float3
sample_generic (const ConvertParams & p, int x, int y)
{
  __shared__ float3 partial[GENERIC_THREADS / 32];
  Tap tx, ty;
  float3 acc = make_float3 (0.0f, 0.0f, 0.0f);
  int n = p.x_taps * p.y_taps, i, lane = threadIdx.x & 31;

  if (!in_picture_x (p, x) || !in_picture_y (p, y))
    return make_float3 (p.fill[0], p.fill[1], p.fill[2]);

  tx = axis_tap (x - p.dest_x, p.in_width, p.dest_width, p.x_taps, p.x_fx,
      p.x_lq, p.x_inc);
  ty = axis_tap (y - p.dest_y, p.in_height, p.dest_height, p.y_taps,
      p.y_fx, false, 0);

  for (i = threadIdx.x; i < n; i += GENERIC_THREADS) {
    int l = i / p.x_taps, m = i % p.x_taps;
    float w = tap_weight (ty.x, ty.first + l, p.y_fx) *
        tap_weight (tx.x, tx.first + m, p.x_fx);
    float3 c;

    if (w <= 0.0f)
      continue;
    c = read_pixel < IN > (p, clamp_int (tx.first + m, 0, p.in_width - 1),
        clamp_int (ty.first + l, 0, p.in_height - 1));
    if (p.convert_first)
      c = make_float3 (to_u8 (c.x), to_u8 (c.y), to_u8 (c.z));
    acc.x += w * c.x;
    acc.y += w * c.y;
    acc.z += w * c.z;
  }

  for (i = 16; i > 0; i /= 2) {
    acc.x += __shfl_xor_sync (0xffffffff, acc.x, i);
    acc.y += __shfl_xor_sync (0xffffffff, acc.y, i);
    acc.z += __shfl_xor_sync (0xffffffff, acc.z, i);
  }
  __syncthreads ();
  if (lane == 0)
    partial[threadIdx.x / 32] = acc;
  __syncthreads ();
  acc = partial[0];
  for (i = 1; i < GENERIC_THREADS / 32; i++) {
    acc.x += partial[i].x;
    acc.y += partial[i].y;
    acc.z += partial[i].z;
  }

  return make_float3 (acc.x * tx.norm * ty.norm, acc.y * tx.norm * ty.norm,
      acc.z * tx.norm * ty.norm);
}

/* For factors whose rows do not fit a tile (thousands of input rows per
 * output row): a block per output pixel, or per 2x2 block of a 4:2:0
 * output. */
template < int IN, int OUT > __device__ static void
convert_generic (const ConvertParams & p)
{
  int x = blockIdx.x, y = blockIdx.y;

  if (OUT == OUT_YUV420) {
    float3 c[4];
    int i;

    /* the block's pixels first: every thread takes part in each */
    for (i = 0; i < 4; i++) {
      int sx = min (2 * x + (i & 1), p.out_width - 1);
      int sy = min (2 * y + (i >> 1), p.out_height - 1);

      c[i] = sample_generic < IN > (p, sx, sy);
    }
    if (threadIdx.x == 0)
      store_yuv420_block (p, x, y,[&] (int sx, int sy) {
            return c[(sx - 2 * x) + 2 * (sy - 2 * y)];}
      );
    return;
  }

  {
    float3 c = sample_generic < IN > (p, x, y);

    if (threadIdx.x != 0)
      return;
    if (OUT == OUT_TENSOR)
      store_tensor (p, x, y, c);
    else
      store_packed (p, x, y, c);
  }
}

/* ---- tiled kernels ------------------------------------------------------ */

/* The chroma taps one row or column of 4:2:0 input folds its n_taps luma
 * taps into. */
__device__ static __forceinline__ int
chroma_taps (int n_taps)
{
  return n_taps / 2 + 3;
}

/* One tile row's or column's taps along one axis, folded: they start at
 * *start, all inside the input (shifted at the edges, as GstVideoResampler
 * does, the clamped taps' weights added to the edge pixel's), and their
 * normalised weights go to w[l * w_stride]. For 4:2:0 input, the chroma
 * rows or columns they read, with the chroma upsampling's weights, are
 * folded the same way from *cstart into cw[k * w_stride]. */
__device__ static void
fold_taps (int j, int in_size, int out_size, int n_taps, float fx, bool lq,
    int inc, bool chroma, bool cosited, bool interpolate, int *start,
    float *w, int *cstart, float *cw, int w_stride)
{
  Tap t = axis_tap (j, in_size, out_size, n_taps, fx, lq, inc);
  int s = clamp_int (t.first, 0, in_size - n_taps);
  int csize = (in_size + 1) >> 1;
  int cs = max (0, chroma_index (s, cosited));
  int l;

  for (l = 0; l < n_taps; l++)
    w[l * w_stride] = 0.0f;
  if (chroma) {
    for (l = 0; l < chroma_taps (n_taps); l++)
      cw[l * w_stride] = 0.0f;
  }

  for (l = 0; l < n_taps; l++) {
    float weight = tap_weight (t.x, t.first + l, fx) * t.norm;
    int i = clamp_int (t.first + l, 0, in_size - 1);

    w[(i - s) * w_stride] += weight;
    if (chroma) {
      int c = chroma_index (i, cosited);
      float f = chroma_frac (i, cosited, interpolate);

      cw[(clamp_int (c, 0, csize - 1) - cs) * w_stride] +=
          weight * (1.0f - f);
      cw[(clamp_int (c + 1, 0, csize - 1) - cs) * w_stride] += weight * f;
    }
  }
  *start = s;
  *cstart = cs;
}

/* Copies bytes [b0, b1) of @n rows of a plane from row @y0 into shared
 * memory at @dst, @pitch bytes a row. Aligned 16-byte words where the
 * planes allow (reading at most 15 bytes either side, inside the row's
 * stride), bytes otherwise; every load of the block in flight at once.
 * Returns the byte of the row that the copy starts at. */
__device__ static int
stage_rows (const ConvertParams & p, int plane, int y0, int n, int b0,
    int b1, unsigned char *dst, int pitch)
{
  int r, i;

  if (p.in_aligned) {
    int w0 = b0 >> 4, nw = ((b1 + 15) >> 4) - w0;

#pragma unroll 2
    for (r = threadIdx.y; r < n; r += CONVERT_TILE_THREADS_Y) {
      const uint4 *src = (const uint4 *) in_row (p, plane, y0 + r) + w0;
      uint4 *d = (uint4 *) (dst + r * pitch);

      for (i = threadIdx.x; i < nw; i += CONVERT_TILE_W)
        d[i] = __ldg (src + i);
    }
    return w0 << 4;
  }

  for (r = threadIdx.y; r < n; r += CONVERT_TILE_THREADS_Y) {
    const unsigned char *src = in_row (p, plane, y0 + r) + b0;

    for (i = threadIdx.x; i < b1 - b0; i += CONVERT_TILE_W)
      dst[r * pitch + i] = __ldg (src + i);
  }
  return b0;
}

template < int IN, int OUT > __device__ static void
convert_tile (const ConvertParams & p)
{
  extern __shared__ float smem[];
  const int tw = CONVERT_TILE_W;
  const bool yuv = IN == IN_NV12 || IN == IN_I420;
  const bool h_cosited = p.chroma_site & CONVERT_CHROMA_H_COSITED;
  const bool v_cosited = p.chroma_site & CONVERT_CHROMA_V_COSITED;
  /* 4:2:0 input is filtered as Y, U and V, or converted to 8-bit RGB
   * first */
  const bool cf = yuv && p.convert_first;
  const bool yuv_h = yuv && !cf;
  int th = p.tile_h, nx = p.x_taps, ny = p.y_taps;
  int ncx = yuv ? chroma_taps (nx) : 0, ncy = yuv ? chroma_taps (ny) : 0;
  int cw = (p.in_width + 1) >> 1, ch = (p.in_height + 1) >> 1;
  int tx = threadIdx.x, ty = threadIdx.y, tid = ty * tw + tx;
  int ox0 = blockIdx.x * tw, oy0 = blockIdx.y * th;
  /* shared memory: the folded taps of the tile's columns ([tap][column])
   * and rows ([row][tap]); the input rows filtered horizontally (per
   * channel, tile_rows or tile_chroma_rows of tw values); for 4:2:0 output
   * the tile's RGB; then the input as it is, 16-byte aligned (tile_rows
   * of tile_pitch bytes, then each chroma plane's) */
  int *col_start = (int *) smem;
  int *col_cstart = col_start + tw;
  float *col_w = smem + 2 * tw;
  float *col_cw = col_w + nx * tw;
  int *row_start = (int *) (col_cw + ncx * tw);
  int *row_cstart = row_start + th;
  float *row_w = (float *) (row_cstart + th);
  float *row_cw = row_w + th * ny;
  float *h0 = row_cw + th * ncy;
  float *h1 = h0 + p.tile_rows * tw;
  float *h2 = h1 + (yuv_h ? p.tile_chroma_rows : p.tile_rows) * tw;
  float *rgb = h2 + (yuv_h ? p.tile_chroma_rows : p.tile_rows) * tw;
  int floats = (int) (rgb - smem) + (OUT == OUT_YUV420 ? 3 * th * tw : 0);
  unsigned char *raw = (unsigned char *) (smem + ((floats + 3) & ~3));
  unsigned char *raw_u = raw + p.tile_rows * p.tile_pitch;
  unsigned char *raw_v = raw_u + p.tile_chroma_rows * p.tile_chroma_pitch;
  /* converted input, cf: tile_rows of tile_pitch RGBx pixels */
  unsigned int *conv = (unsigned int *) (raw_v +
      (IN == IN_I420 ? p.tile_chroma_rows * p.tile_chroma_pitch : 0));
  int pc0 = max (ox0, p.dest_x);
  int pc1 = min (ox0 + tw, p.dest_x + p.dest_width);
  int pr0 = max (oy0, p.dest_y);
  int pr1 = min (oy0 + th, p.dest_y + p.dest_height);
  bool picture = pc0 < pc1 && pr0 < pr1;
  int ry0 = 0, nrows = 0, cr0 = 0, ncrows = 0;
  int o;

  if (picture) {
    int cx0, cx1, base = 0, cbase = 0;

    if (tid < tw) {
      if (in_picture_x (p, ox0 + tid))
        fold_taps (ox0 + tid - p.dest_x, p.in_width, p.dest_width, nx,
            p.x_fx, p.x_lq, p.x_inc, yuv, h_cosited, true, &col_start[tid],
            col_w + tid, &col_cstart[tid], col_cw + tid, tw);
    } else if (tid < tw + th) {
      o = tid - tw;
      if (in_picture_y (p, oy0 + o))
        fold_taps (oy0 + o - p.dest_y, p.in_height, p.dest_height, ny,
            p.y_fx, false, 0, yuv, v_cosited, false, &row_start[o],
            row_w + o * ny,
            &row_cstart[o], row_cw + o * ncy, 1);
    }
    __syncthreads ();

    /* the input this tile reads: rows ry0.., columns cx0..cx1; the host
     * sized the shared memory for the largest such ranges, the min ()s
     * only guard against a mistake */
    ry0 = row_start[pr0 - oy0];
    nrows = min (row_start[pr1 - 1 - oy0] + ny - ry0, p.tile_rows);
    cx0 = col_start[pc0 - ox0];
    cx1 = col_start[pc1 - 1 - ox0] + nx - 1;

    if (yuv) {
      int c0 = col_cstart[pc0 - ox0];
      int c1 = min (cw - 1, col_cstart[pc1 - 1 - ox0] + ncx - 1);
      int bpc = IN == IN_NV12 ? 2 : 1;  /* bytes per chroma sample */

      cr0 = row_cstart[pr0 - oy0];
      ncrows = min (min (ch - 1, row_cstart[pr1 - 1 - oy0] + ncy - 1) -
          cr0 + 1, p.tile_chroma_rows);
      base = stage_rows (p, 0, ry0, nrows, cx0, min (cx1 + 1,
              cx0 + p.tile_pitch - 30), raw, p.tile_pitch);
      cbase = stage_rows (p, 1, cr0, ncrows, c0 * bpc, min ((c1 + 1) * bpc,
              c0 * bpc + p.tile_chroma_pitch - 30), raw_u,
          p.tile_chroma_pitch);
      if (IN == IN_I420)
        stage_rows (p, 2, cr0, ncrows, c0, min (c1 + 1,
                c0 + p.tile_chroma_pitch - 30), raw_v, p.tile_chroma_pitch);
    } else {
      int bpp = IN == IN_RGB4 ? 4 : 3;

      base = stage_rows (p, 0, ry0, nrows, cx0 * bpp, min ((cx1 + 1) * bpp,
              cx0 * bpp + p.tile_pitch - 30), raw, p.tile_pitch);
    }
    __syncthreads ();

    if (cf) {
      int r, i;

      for (r = ty; r < nrows; r += CONVERT_TILE_THREADS_Y) {
        int y = ry0 + r;
        int cy = chroma_index (y, v_cosited);
        float fv = chroma_frac (y, v_cosited, false);
        int ra = clamp_int (clamp_int (cy, 0, ch - 1) - cr0, 0, ncrows - 1);
        int rb = clamp_int (clamp_int (cy + 1, 0, ch - 1) - cr0, 0,
            ncrows - 1);
        const unsigned char *ua = raw_u + ra * p.tile_chroma_pitch - cbase;
        const unsigned char *ub = raw_u + rb * p.tile_chroma_pitch - cbase;
        const unsigned char *va = raw_v + ra * p.tile_chroma_pitch - cbase;
        const unsigned char *vb = raw_v + rb * p.tile_chroma_pitch - cbase;

        for (i = tx; i <= cx1 - cx0; i += tw) {
          int x = cx0 + i;
          int cx = chroma_index (x, h_cosited);
          float fu = chroma_frac (x, h_cosited, true);
          int c0 = clamp_int (cx, 0, cw - 1), c1 = clamp_int (cx + 1, 0, cw - 1);
          float u00, u01, u10, u11, v00, v01, v10, v11, u, v;
          float3 c;

          if (IN == IN_NV12) {
            unsigned int a0 = *(const unsigned short *) (ua + 2 * c0);
            unsigned int a1 = *(const unsigned short *) (ua + 2 * c1);
            unsigned int b0 = *(const unsigned short *) (ub + 2 * c0);
            unsigned int b1 = *(const unsigned short *) (ub + 2 * c1);

            u00 = a0 & 0xff;
            v00 = a0 >> 8;
            u01 = a1 & 0xff;
            v01 = a1 >> 8;
            u10 = b0 & 0xff;
            v10 = b0 >> 8;
            u11 = b1 & 0xff;
            v11 = b1 >> 8;
          } else {
            u00 = ua[c0];
            u01 = ua[c1];
            u10 = ub[c0];
            u11 = ub[c1];
            v00 = va[c0];
            v01 = va[c1];
            v10 = vb[c0];
            v11 = vb[c1];
          }
          u = (1.0f - fv) * (u00 + fu * (u01 - u00)) +
              fv * (u10 + fu * (u11 - u10));
          v = (1.0f - fv) * (v00 + fu * (v01 - v00)) +
              fv * (v10 + fu * (v11 - v10));
          c = yuv_to_rgb (p, raw[r * p.tile_pitch + x - base], u, v);
          conv[r * p.tile_pitch + i] = to_u8 (c.x) | (to_u8 (c.y) << 8) |
              (to_u8 (c.z) << 16);
        }
      }
      ncrows = 0;
      __syncthreads ();
    }

    /* horizontal pass: a warp per input row, a lane per output column */
    if (in_picture_x (p, ox0 + tx)) {
      int s = col_start[tx], cs = col_cstart[tx];
      int r, l;

      for (r = ty; r < nrows + ncrows; r += CONVERT_TILE_THREADS_Y) {
        if (r < nrows) {
          const unsigned char *row = raw + r * p.tile_pitch - base;

          if (yuv_h) {
            float acc = 0.0f;

#pragma unroll 4
            for (l = 0; l < nx; l++)
              acc += col_w[l * tw + tx] * row[s + l];
            h0[r * tw + tx] = acc;
          } else {
            float3 acc = make_float3 (0.0f, 0.0f, 0.0f);

            for (l = 0; l < nx; l++) {
              float w = col_w[l * tw + tx];
              float3 c;

              if (cf) {
                unsigned int v = conv[r * p.tile_pitch + s + l - cx0];

                c = make_float3 ((float) (v & 0xff), (float) ((v >> 8) & 0xff),
                    (float) (v >> 16));
              } else if (IN == IN_RGB4) {
                unsigned int v = *(const unsigned int *) (row + 4 * (s + l));

                c = make_float3 ((float) ((v >> (8 * p.in_r)) & 0xff),
                    (float) ((v >> (8 * p.in_g)) & 0xff),
                    (float) ((v >> (8 * p.in_b)) & 0xff));
              } else {
                const unsigned char *px = row + 3 * (s + l);

                c = make_float3 (px[p.in_r], px[p.in_g], px[p.in_b]);
              }
              acc.x += w * c.x;
              acc.y += w * c.y;
              acc.z += w * c.z;
            }
            h0[r * tw + tx] = acc.x;
            h1[r * tw + tx] = acc.y;
            h2[r * tw + tx] = acc.z;
          }
        } else {
          int cr = r - nrows;
          const unsigned char *row_u = raw_u + cr * p.tile_chroma_pitch -
              cbase;
          const unsigned char *row_v = raw_v + cr * p.tile_chroma_pitch -
              cbase;
          float2 acc = make_float2 (0.0f, 0.0f);

#pragma unroll 4
          for (l = 0; l < ncx; l++) {
            float w = col_cw[l * tw + tx];
            int c = min (cs + l, cw - 1);

            if (IN == IN_NV12) {
              unsigned int uv = *(const unsigned short *) (row_u + 2 * c);

              acc.x += w * (float) (uv & 0xff);
              acc.y += w * (float) (uv >> 8);
            } else {
              acc.x += w * row_u[c];
              acc.y += w * row_v[c];
            }
          }
          h1[cr * tw + tx] = acc.x;
          h2[cr * tw + tx] = acc.y;
        }
      }
    }
    __syncthreads ();
  }

  /* vertical pass and conversion: a lane per output column */
  for (o = ty; o < th; o += CONVERT_TILE_THREADS_Y) {
    int ox = ox0 + tx, oy = oy0 + o;
    float3 c;

    if (ox >= p.out_width || oy >= p.out_height)
      continue;

    if (picture && in_picture_x (p, ox) && in_picture_y (p, oy)) {
      const float *w = row_w + o * ny;
      int rs = row_start[o] - ry0;
      int m;

      if (yuv_h) {
        const float *wc = row_cw + o * ncy;
        int crs = row_cstart[o];
        float y = 0.0f, u = 0.0f, v = 0.0f;

#pragma unroll 4
        for (m = 0; m < ny; m++)
          y += w[m] * h0[(rs + m) * tw + tx];
#pragma unroll 4
        for (m = 0; m < ncy; m++) {
          int i = (min (crs + m, ch - 1) - cr0) * tw + tx;

          u += wc[m] * h1[i];
          v += wc[m] * h2[i];
        }
        c = yuv_to_rgb (p, y, u, v);
      } else {
        float3 acc = make_float3 (0.0f, 0.0f, 0.0f);

        for (m = 0; m < ny; m++) {
          int i = (rs + m) * tw + tx;

          acc.x += w[m] * h0[i];
          acc.y += w[m] * h1[i];
          acc.z += w[m] * h2[i];
        }
        c = acc;
      }
    } else {
      c = make_float3 (p.fill[0], p.fill[1], p.fill[2]);
    }

    if (OUT == OUT_PACKED) {
      store_packed (p, ox, oy, c);
    } else if (OUT == OUT_TENSOR) {
      store_tensor (p, ox, oy, c);
    } else {
      rgb[(o * tw + tx) * 3] = c.x;
      rgb[(o * tw + tx) * 3 + 1] = c.y;
      rgb[(o * tw + tx) * 3 + 2] = c.z;
    }
  }

  if (OUT == OUT_YUV420) {
    int i;

    /* tw and tile_h are even: the tile holds whole 2x2 blocks */
    __syncthreads ();
    for (i = tid; i < (tw / 2) * (th / 2); i += tw * CONVERT_TILE_THREADS_Y) {
      int bx = ox0 / 2 + i % (tw / 2), by = oy0 / 2 + i / (tw / 2);

      if (2 * bx >= p.out_width || 2 * by >= p.out_height)
        continue;
      store_yuv420_block (p, bx, by,[&] (int x, int y) {
            const float *v = rgb + ((y - oy0) * tw + (x - ox0)) * 3;

            return make_float3 (v[0], v[1], v[2]);}
      );
    }
  }
}

/* The kernels, by name: gst_cuda_cache_convert_<tile|generic>_<in>_<out>,
 * in nv12, i420, rgb4, rgb3; out packed, yuv420, tensor. */
#define CONVERT_KERNELS(in_name, IN, out_name, OUT) \
extern "C" __global__ void __launch_bounds__ (CONVERT_TILE_W * \
    CONVERT_TILE_THREADS_Y) \
gst_cuda_cache_convert_tile_ ## in_name ## _ ## out_name (const ConvertParams p) \
{ \
  convert_tile < IN, OUT > (p); \
} \
\
extern "C" __global__ void __launch_bounds__ (GENERIC_THREADS) \
gst_cuda_cache_convert_generic_ ## in_name ## _ ## out_name (const ConvertParams p) \
{ \
  convert_generic < IN, OUT > (p); \
}

#define CONVERT_KERNELS_IN(in_name, IN) \
  CONVERT_KERNELS (in_name, IN, packed, OUT_PACKED) \
  CONVERT_KERNELS (in_name, IN, yuv420, OUT_YUV420) \
  CONVERT_KERNELS (in_name, IN, tensor, OUT_TENSOR)

CONVERT_KERNELS_IN (nv12, IN_NV12)
CONVERT_KERNELS_IN (i420, IN_I420)
CONVERT_KERNELS_IN (rgb4, IN_RGB4)
CONVERT_KERNELS_IN (rgb3, IN_RGB3)
