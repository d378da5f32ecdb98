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
 * - direct (convert_direct): for 4:2:0 input to RGB or a tensor with at
 *   most 8 taps per axis, the common case of inference pipelines, a
 *   thread per CONVERT_DIRECT_ROWS output pixels of a column, reading
 *   straight from global memory with no shared memory and no barrier;
 *   every input row a thread reads is filtered horizontally once for all
 *   its pixels, in 16-bit fixed point.
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
static_assert (CONVERT_FIXED_TAPS == 8, "fixed_sum () takes 8 taps");
static_assert (CONVERT_DIRECT_NARROW_TAPS == 6,
    "the direct kernels' narrow windows take 6 taps");

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

/* The taps' table (convert-params.h): array @t's values. */
__device__ static __forceinline__ const int *
tab_int (const ConvertParams & p, int t)
{
  return (const int *) p.taps + p.tab[t];
}

__device__ static __forceinline__ const float *
tab_float (const ConvertParams & p, int t)
{
  return (const float *) p.taps + p.tab[t];
}

/* Picture index @j's unfolded taps along one axis (TAB_X_TAP or
 * TAB_Y_TAP). */
__device__ static __forceinline__ Tap
load_tap (const ConvertParams & p, int t, int j)
{
  const int *e = tab_int (p, t) + 3 * j;
  Tap r;

  r.first = __ldg (e);
  r.x = __int_as_float (__ldg (e + 1));
  r.norm = __int_as_float (__ldg (e + 2));
  return r;
}

__device__ static __forceinline__ unsigned int
to_u8 (float v)
{
  /* rounded half up, clamped: GstVideoConverter's integer rounding */
  return (unsigned int) min (max (__float2int_rd (v + 0.5f), 0), 255);
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

/* One output pixel's RGB (unrounded, 0..255 scale) as the packed
 * format's bytes, in memory order. */
__device__ static __forceinline__ unsigned int
packed_word (const ConvertParams & p, float3 c)
{
  /* R, G, B, 255 in memory order, then the format's order in one byte
   * permutation (the fourth byte, alpha or padding, is 255) */
  return __byte_perm (to_u8 (c.x) | (to_u8 (c.y) << 8) |
      (to_u8 (c.z) << 16) | 0xff000000u, 0, p.out_perm);
}

/* Stores packed_word () @v of pixel (x, y). */
__device__ static __forceinline__ void
store_packed_word (const ConvertParams & p, int x, int y, unsigned int v)
{
  unsigned char *row = (unsigned char *) p.out_data[0] +
      (long long) y * p.out_stride[0];

  if (p.out_pixel_bytes == 4) {
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
    row[0] = v & 0xff;
    row[1] = (v >> 8) & 0xff;
    row[2] = (v >> 16) & 0xff;
  }
}

/* Stores of one output pixel's RGB (unrounded, 0..255 scale). */
__device__ static __forceinline__ void
store_packed (const ConvertParams & p, int x, int y, float3 c)
{
  store_packed_word (p, x, y, packed_word (p, c));
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

/* One output pixel's RGB as the tensor's channels 0, 1, 2: R, G, B, or
 * B, G, R, normalised. */
__device__ static __forceinline__ float3
tensor_values (const ConvertParams & p, float3 c)
{
  return make_float3 (normalise (p, p.bgr ? c.z : c.x, 0),
      normalise (p, c.y, 1), normalise (p, p.bgr ? c.x : c.z, 2));
}

/* Stores tensor_values () @t of pixel (x, y). */
__device__ static __forceinline__ void
store_tensor_values (const ConvertParams & p, int x, int y, float3 t)
{
  unsigned long long plane = (unsigned long long) p.out_width * p.out_height;
  unsigned long long pixel = (unsigned long long) y * p.out_width + x;

  if (p.layout == CONVERT_LAYOUT_NCHW) {
    store_tensor_value (p, pixel, t.x);
    store_tensor_value (p, plane + pixel, t.y);
    store_tensor_value (p, 2 * plane + pixel, t.z);
  } else {
    store_tensor_value (p, pixel * 3, t.x);
    store_tensor_value (p, pixel * 3 + 1, t.y);
    store_tensor_value (p, pixel * 3 + 2, t.z);
  }
}

__device__ static __forceinline__ void
store_tensor (const ConvertParams & p, int x, int y, float3 c)
{
  store_tensor_values (p, x, y, tensor_values (p, c));
}

/* The fill colour as the output's values, worked out once for a run of
 * border pixels: the packed format's word, or the tensor's channels. */
struct Fill
{
  unsigned int word;
  float3 t;
};

template < int OUT > __device__ static __forceinline__ Fill
fill_values (const ConvertParams & p)
{
  float3 fill = make_float3 (p.fill[0], p.fill[1], p.fill[2]);
  Fill f;

  f.word = OUT == OUT_TENSOR ? 0u : packed_word (p, fill);
  f.t = OUT == OUT_TENSOR ? tensor_values (p, fill) : fill;
  return f;
}

/* Stores fill_values () @f at pixel (x, y) */
template < int OUT > __device__ static __forceinline__ void
store_fill (const ConvertParams & p, int x, int y, const Fill & f)
{
  if (OUT == OUT_TENSOR)
    store_tensor_values (p, x, y, f.t);
  else
    store_packed_word (p, x, y, f.word);
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

  tx = load_tap (p, TAB_X_TAP, x - p.dest_x);
  ty = load_tap (p, TAB_Y_TAP, y - p.dest_y);

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

/* Picture index @j's folded taps along one axis (@t: TAB_X_START or
 * TAB_Y_START), from the table: the first input index to *start, the
 * normalised weights to w[l * w_stride]; for 4:2:0 input the chroma
 * samples' likewise to *cstart and cw[k * w_stride]. */
__device__ static void
load_taps (const ConvertParams & p, int t, int j, int n, int nc,
    int *start, float *w, int *cstart, float *cw, int w_stride)
{
  const float *tw = tab_float (p, t + TAB_X_W - TAB_X_START) + j * n;
  const float *tcw = tab_float (p, t + TAB_X_CW - TAB_X_START) + j * nc;
  int l;

  *start = __ldg (tab_int (p, t) + j);
  for (l = 0; l < n; l++)
    w[l * w_stride] = __ldg (tw + l);
  if (nc > 0) {
    *cstart = __ldg (tab_int (p, t + TAB_X_CSTART - TAB_X_START) + j);
    for (l = 0; l < nc; l++)
      cw[l * w_stride] = __ldg (tcw + l);
  }
}

/* The fixed-point horizontal pass: the weighted sum of T bytes
 * (CONVERT_FIXED_TAPS, or the direct kernels' CONVERT_DIRECT_NARROW_TAPS;
 * @b0: the first 4, @b1 the next, of which 6 taps read the low half) with
 * the 16-bit weights @q (1/CONVERT_FIXED_ONE, paired), in
 * 1/CONVERT_FIXED_ONE: exact, and exact as a float too (below 2^24). */
template < int T = CONVERT_FIXED_TAPS > __device__ static __forceinline__
    unsigned int
fixed_acc (unsigned int b0, unsigned int b1, const unsigned int *q)
{
  unsigned int acc = __dp2a_lo (q[0], b0, 0u);

  acc = __dp2a_hi (q[1], b0, acc);
  acc = __dp2a_lo (q[2], b1, acc);
  return T == 8 ? __dp2a_hi (q[3], b1, acc) : acc;
}

/* fixed_acc () of NV12's interleaved chroma: U and V of the
 * CONVERT_FIXED_TAPS samples in the 16 bytes @a0.. @a3. */
__device__ static __forceinline__ float2
fixed_acc_uv (unsigned int a0, unsigned int a1, unsigned int a2,
    unsigned int a3, const unsigned int *q)
{
  /* UVUV UVUV -> UUUU, VVVV */
  return make_float2 ((float) fixed_acc (__byte_perm (a0, a1, 0x6420),
          __byte_perm (a2, a3, 0x6420), q),
      (float) fixed_acc (__byte_perm (a0, a1, 0x7531),
          __byte_perm (a2, a3, 0x7531), q));
}

/* fixed_acc_uv () of T taps, from load_window_uv < T > () */
template < int T > __device__ static __forceinline__ float2
fixed_acc_uv_t (uint4 a, const unsigned int *q)
{
  /* UVUV UVUV UVUV (UVUV) -> UUUU UU(UU), VVVV VV(VV) */
  if (T == 8)
    return fixed_acc_uv (a.x, a.y, a.z, a.w, q);
  return make_float2 ((float) fixed_acc < 6 > (__byte_perm (a.x, a.y,
              0x6420), __byte_perm (a.z, 0u, 0x20), q),
      (float) fixed_acc < 6 > (__byte_perm (a.x, a.y, 0x7531),
          __byte_perm (a.z, 0u, 0x31), q));
}

/* fixed_acc () as a value, 1 for CONVERT_FIXED_ONE */
__device__ static __forceinline__ float
fixed_dot (unsigned int b0, unsigned int b1, const unsigned int *q)
{
  return (float) fixed_acc (b0, b1, q) * (1.0f / CONVERT_FIXED_ONE);
}

/* fixed_dot () of the CONVERT_FIXED_TAPS bytes at @off of @raw (16-byte
 * aligned, in shared memory). Reads the aligned words around them: up to
 * 11 bytes past the taps. */
__device__ static __forceinline__ float
fixed_sum (const unsigned char *raw, int off, const unsigned int *q)
{
  const unsigned int *w = (const unsigned int *) (raw + (off & ~3));
  unsigned int sh = (off & 3) * 8;

  return fixed_dot (__funnelshift_r (w[0], w[1], sh),
      __funnelshift_r (w[1], w[2], sh), q);
}

/* fixed_acc_uv () as values, of the CONVERT_FIXED_TAPS samples at @off of
 * @raw (an even byte). Reads up to 19 bytes past them. */
__device__ static __forceinline__ float2
fixed_sum_uv (const unsigned char *raw, int off, const unsigned int *q)
{
  const unsigned int *w = (const unsigned int *) (raw + (off & ~3));
  unsigned int sh = (off & 3) * 8;
  unsigned int w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4];
  float2 uv = fixed_acc_uv (__funnelshift_r (w0, w1, sh),
      __funnelshift_r (w1, w2, sh), __funnelshift_r (w2, w3, sh),
      __funnelshift_r (w3, w4, sh), q);

  return make_float2 (uv.x * (1.0f / CONVERT_FIXED_ONE),
      uv.y * (1.0f / CONVERT_FIXED_ONE));
}

/* Copies bytes [b0, b1) of @n rows of a plane from row @y0 into shared
 * memory at @dst, @pitch bytes a row, a byte at a time (rows not 16-byte
 * aligned). Returns the byte of the row that the copy starts at. */
__device__ static int
stage_rows_bytes (const ConvertParams & p, int plane, int y0, int n, int b0,
    int b1, unsigned char *dst, int pitch)
{
  int r, i;

  for (r = threadIdx.y; r < n; r += CONVERT_TILE_THREADS_Y) {
    const unsigned char *src = in_row (p, plane, y0 + r) + b0;

    for (i = threadIdx.x; i < b1 - b0; i += CONVERT_TILE_W)
      dst[r * pitch + i] = __ldg (src + i);
  }
  return b0;
}

#define TILE_THREADS (CONVERT_TILE_W * CONVERT_TILE_THREADS_Y)

/* blocks of the tiled kernels an SM should hold at once: registers
 * enough for 8 (64 a thread) */
#define TILE_MIN_BLOCKS (1024 / TILE_THREADS)

/* One plane's 16-byte words for stage_tile (): @n rows of @nw words from
 * @src (@stride_w words a row) to @dst (@pitch_w words a row). This
 * thread's share (a column, every rstep-th row) is worked out once; its
 * first B rows are loaded into @v by load and stored by store, so that the
 * caller has every plane's loads in flight before it stores any. */
template < int B > struct StagePlane
{
  const uint4 *src;
  uint4 *dst;
  int stride_w;
  int pitch_w;
  int n;
  int nw;
  int r0;
  int rstep;
  bool wide;
  uint4 v[B];

  /* @shift: log2 of the words of a row that the block's threads are laid
   * over (the host's power of two of at least the widest tile's row, at
   * most TILE_THREADS) */
  __device__ __forceinline__ void
  init (const unsigned char *data, int stride, int y0, int w0, int rows,
      int words, unsigned char *to, int pitch, int shift, int tid)
  {
    int col = tid & ((1 << shift) - 1);

    n = rows;
    nw = words;
    stride_w = stride >> 4;
    pitch_w = pitch >> 4;
    if (nw > (1 << shift)) {
      /* rows wider than the block: rest () copies them */
      wide = true;
      r0 = 0;
      rstep = 1;
      src = (const uint4 *) (data + (long long) y0 * stride) + w0;
      dst = (uint4 *) to;
      return;
    }
    wide = false;
    rstep = TILE_THREADS >> shift;
    r0 = col < nw ? tid >> shift : n;   /* past the row: idle */
    src = (const uint4 *) (data + (long long) (y0 + r0) * stride) + w0 + col;
    dst = (uint4 *) to + r0 * pitch_w + col;
  }

  __device__ __forceinline__ void
  load ()
  {
#pragma unroll
    for (int k = 0; k < B; k++) {
      if (!wide && r0 + k * rstep < n)
        v[k] = __ldg (src + (long long) k * rstep * stride_w);
    }
  }

  __device__ __forceinline__ void
  store ()
  {
#pragma unroll
    for (int k = 0; k < B; k++) {
      if (!wide && r0 + k * rstep < n)
        dst[k * rstep * pitch_w] = v[k];
    }
  }

  /* the rows after the first B, and rows wider than the block */
  __device__ __forceinline__ void
  rest (int tid)
  {
    int r, i;

    if (wide) {
      for (r = 0; r < n; r++) {
        for (i = tid; i < nw; i += TILE_THREADS)
          dst[r * pitch_w + i] = __ldg (src + (long long) r * stride_w + i);
      }
      return;
    }
    for (r = r0 + B * rstep; r < n; r += rstep)
      dst[(r - r0) * pitch_w] = __ldg (src + (long long) (r - r0) * stride_w);
  }
};

/* Copies a tile's input into shared memory: @n rows from row @y0 of plane
 * 0, bytes [b0, b1), to @dst (tile_pitch bytes a row); for 4:2:0 input
 * @cn rows from chroma row @cy0, bytes [cb0, cb1), of plane 1 to @dst_u
 * and, for I420, of plane 2 to @dst_v (tile_chroma_pitch bytes a row).
 * With aligned planes, whole 16-byte words (reading at most 15 bytes
 * either side, inside the rows' stride), every plane's loads in flight
 * before any store, so that a block waits for memory about once. *base
 * and *cbase: the byte of a row that the copies start at. */
template < int IN > __device__ static void
stage_tile (const ConvertParams & p, int y0, int n, int b0, int b1,
    unsigned char *dst, int cy0, int cn, int cb0, int cb1,
    unsigned char *dst_u, unsigned char *dst_v, int *base, int *cbase)
{
  const bool yuv = IN == IN_NV12 || IN == IN_I420;
  int tid = threadIdx.y * CONVERT_TILE_W + threadIdx.x;
  int w0, cw0;
  StagePlane < 4 > y;
  StagePlane < 2 > u, v;

  if (!p.in_aligned) {
    *base = stage_rows_bytes (p, 0, y0, n, b0, b1, dst, p.tile_pitch);
    if (dst_u)
      *cbase = stage_rows_bytes (p, 1, cy0, cn, cb0, cb1, dst_u,
          p.tile_chroma_pitch);
    if (dst_v)
      stage_rows_bytes (p, 2, cy0, cn, cb0, cb1, dst_v, p.tile_chroma_pitch);
    return;
  }

  w0 = b0 >> 4;
  cw0 = cb0 >> 4;
  *base = w0 << 4;
  *cbase = cw0 << 4;
  y.init ((const unsigned char *) p.in_data[0], p.in_stride[0], y0, w0, n,
      ((b1 + 15) >> 4) - w0, dst, p.tile_pitch, p.stage_shift, tid);
  if (yuv)
    u.init ((const unsigned char *) p.in_data[1], p.in_stride[1], cy0, cw0,
        cn, ((cb1 + 15) >> 4) - cw0, dst_u, p.tile_chroma_pitch,
        p.stage_chroma_shift, tid);
  if (IN == IN_I420)
    v.init ((const unsigned char *) p.in_data[2], p.in_stride[2], cy0, cw0,
        cn, ((cb1 + 15) >> 4) - cw0, dst_v, p.tile_chroma_pitch,
        p.stage_chroma_shift, tid);
  y.load ();
  if (yuv)
    u.load ();
  if (IN == IN_I420)
    v.load ();
  y.store ();
  if (yuv)
    u.store ();
  if (IN == IN_I420)
    v.store ();
  y.rest (tid);
  if (yuv)
    u.rest (tid);
  if (IN == IN_I420)
    v.rest (tid);
}

/* The vertical sum of 8 taps: weights @a, @b, values @h[m * @pitch]. */
__device__ static __forceinline__ float
vsum8 (float4 a, float4 b, const float *h, int pitch)
{
  return a.x * h[0] + a.y * h[pitch] + a.z * h[2 * pitch] +
      a.w * h[3 * pitch] + b.x * h[4 * pitch] + b.y * h[5 * pitch] +
      b.z * h[6 * pitch] + b.w * h[7 * pitch];
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
  int ncx = p.x_ctaps, ncy = p.y_ctaps;
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
  /* y_padded: 8 weights a row, and 8 zeroed rows after each channel's */
  const bool vp = p.y_padded;
  const int wsy = vp ? 8 : ny, wsc = vp ? 8 : ncy, pad = vp ? 8 : 0;
  float *row_w = (float *) (row_cstart + th);
  float *row_cw = row_w + th * wsy;
  float *h0 = row_cw + th * wsc;
  float *h1 = h0 + (p.tile_rows + pad) * tw;
  float *h2 = h1 + ((yuv_h ? p.tile_chroma_rows : p.tile_rows) + pad) * tw;
  float *rgb = h2 + ((yuv_h ? p.tile_chroma_rows : p.tile_rows) + pad) * tw;
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
  unsigned int q[CONVERT_FIXED_TAPS / 2], cq[CONVERT_FIXED_TAPS / 2];
  int o;

  /* a tile of the border only: the fill colour, without the taps */
  if (!picture && OUT != OUT_YUV420) {
    Fill fill = fill_values < OUT > (p);

    for (o = ty; o < th; o += CONVERT_TILE_THREADS_Y) {
      int ox = ox0 + tx, oy = oy0 + o;

      if (ox >= p.out_width || oy >= p.out_height)
        break;
      store_fill < OUT > (p, ox, oy, fill);
    }
    return;
  }

  if (picture) {
    int cx0, cx1_tile, base = 0, cbase = 0;

    if (tid < tw) {
      if (in_picture_x (p, ox0 + tid))
        load_taps (p, TAB_X_START, ox0 + tid - p.dest_x, nx, ncx,
            &col_start[tid], col_w + tid, &col_cstart[tid], col_cw + tid, tw);
    } else if (tid < tw + th) {
      o = tid - tw;
      if (in_picture_y (p, oy0 + o)) {
        int l;

        load_taps (p, TAB_Y_START, oy0 + o - p.dest_y, ny, ncy,
            &row_start[o], row_w + o * wsy, &row_cstart[o],
            row_cw + o * wsc, 1);
        for (l = ny; l < wsy; l++)
          row_w[o * wsy + l] = 0.0f;
        for (l = ncy; l < wsc; l++)
          row_cw[o * wsc + l] = 0.0f;
      }
    }
    /* the fixed-point weights of this lane's column, kept in registers */
    if (yuv_h && p.x_fixed && in_picture_x (p, ox0 + tx)) {
      const uint4 *tq = (const uint4 *) tab_int (p, TAB_X_Q) +
          (ox0 + tx - p.dest_x);
      const uint4 *tcq = (const uint4 *) tab_int (p, TAB_X_CQ) +
          (ox0 + tx - p.dest_x);
      uint4 a = __ldg (tq), b = __ldg (tcq);

      q[0] = a.x;
      q[1] = a.y;
      q[2] = a.z;
      q[3] = a.w;
      cq[0] = b.x;
      cq[1] = b.y;
      cq[2] = b.z;
      cq[3] = b.w;
    }

    /* the input this tile reads, from the table: rows ry0.., columns
     * cx0..cx1 (luma), chroma rows cr0.., samples c0..c1; the host sized
     * the shared memory for the largest such ranges, the min ()s only
     * guard against a mistake. Copied while the taps load. */
    {
      int4 xr = __ldg ((const int4 *) tab_int (p, TAB_TILE_X) + blockIdx.x);
      int4 yr = __ldg ((const int4 *) tab_int (p, TAB_TILE_Y) + blockIdx.y);
      int cx1, c0, c1;

      cx0 = xr.x;
      cx1 = xr.y;
      c0 = xr.z;
      c1 = xr.w;
      ry0 = yr.x;
      nrows = min (yr.y, p.tile_rows);
      cr0 = yr.z;
      ncrows = min (yr.w, p.tile_chroma_rows);

      if (yuv) {
        int bpc = IN == IN_NV12 ? 2 : 1;        /* bytes per chroma sample */

        stage_tile < IN > (p, ry0, nrows, cx0, min (cx1 + 1,
                cx0 + p.tile_pitch - 30), raw, cr0, ncrows, c0 * bpc,
            min ((c1 + 1) * bpc, c0 * bpc + p.tile_chroma_pitch - 30), raw_u,
            IN == IN_I420 ? raw_v : NULL, &base, &cbase);
      } else {
        int bpp = IN == IN_RGB4 ? 4 : 3;

        stage_tile < IN > (p, ry0, nrows, cx0 * bpp, min ((cx1 + 1) * bpp,
                cx0 * bpp + p.tile_pitch - 30), raw, 0, 0, 0, 0, NULL, NULL,
            &base, &cbase);
      }
      cx1_tile = cx1;
    }
    /* the padding rows that the unrolled vertical sums read, weighted 0:
     * zeros, not whatever the shared memory held */
    if (vp) {
      int i, hr = yuv_h ? ncrows : nrows;

      for (i = tid; i < 8 * tw; i += TILE_THREADS) {
        h0[nrows * tw + i] = 0.0f;
        h1[hr * tw + i] = 0.0f;
        h2[hr * tw + i] = 0.0f;
      }
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

        for (i = tx; i <= cx1_tile - cx0; i += tw) {
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

      if (yuv_h && p.x_fixed) {
        int off = ty * p.tile_pitch + s - base;
        float *dst = h0 + ty * tw + tx;

        for (r = ty; r < nrows; r += CONVERT_TILE_THREADS_Y) {
          *dst = fixed_sum (raw, off, q);
          off += CONVERT_TILE_THREADS_Y * p.tile_pitch;
          dst += CONVERT_TILE_THREADS_Y * tw;
        }
        /* the chroma rows, from the warp after the one that made the last
         * luma row */
        r = (ty - nrows % CONVERT_TILE_THREADS_Y + CONVERT_TILE_THREADS_Y) %
            CONVERT_TILE_THREADS_Y;
        off = r * p.tile_chroma_pitch - cbase + (IN == IN_NV12 ? 2 * cs : cs);
        dst = h1 + r * tw + tx;
        for (; r < ncrows; r += CONVERT_TILE_THREADS_Y) {
          float2 uv;

          if (IN == IN_NV12) {
            uv = fixed_sum_uv (raw_u, off, cq);
          } else {
            uv = make_float2 (fixed_sum (raw_u, off, cq),
                fixed_sum (raw_v, off, cq));
          }
          dst[0] = uv.x;
          dst[h2 - h1] = uv.y;
          off += CONVERT_TILE_THREADS_Y * p.tile_chroma_pitch;
          dst += CONVERT_TILE_THREADS_Y * tw;
        }
      } else {
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

                  c = make_float3 ((float) (v & 0xff),
                      (float) ((v >> 8) & 0xff), (float) (v >> 16));
                } else if (IN == IN_RGB4) {
                  unsigned int v =
                      *(const unsigned int *) (row + 4 * (s + l));

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
              int c = cs + l;

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
    }
    __syncthreads ();
  }

  /* vertical pass and conversion: a lane per output column */
  for (o = ty; o < th; o += CONVERT_TILE_THREADS_Y) {
    int ox = ox0 + tx, oy = oy0 + o;
    float3 c;

    if (ox >= p.out_width || oy >= p.out_height)
      continue;

    if (picture && in_picture_x (p, ox) && in_picture_y (p, oy) && vp) {
      const float4 *w = (const float4 *) (row_w + o * 8);
      float4 wa = w[0], wb = w[1];
      const float *h = h0 + (row_start[o] - ry0) * tw + tx;
      float y = vsum8 (wa, wb, h, tw);

      if (yuv_h) {
        const float4 *wc = (const float4 *) (row_cw + o * 8);
        float4 ca = wc[0], cb = wc[1];
        int i = (row_cstart[o] - cr0) * tw + tx;

        c = yuv_to_rgb (p, y, vsum8 (ca, cb, h1 + i, tw),
            vsum8 (ca, cb, h2 + i, tw));
      } else {
        int i = (row_start[o] - ry0) * tw + tx;

        c = make_float3 (y, vsum8 (wa, wb, h1 + i, tw),
            vsum8 (wa, wb, h2 + i, tw));
      }
    } else if (picture && in_picture_x (p, ox) && in_picture_y (p, oy)) {
      const float *w = row_w + o * ny;
      int rs = row_start[o] - ry0;
      int m;

      if (yuv_h) {
        const float *wc = row_cw + o * ncy;
        int crs = row_cstart[o];
        float y = 0.0f, u = 0.0f, v = 0.0f;

        const float *hy = h0 + rs * tw + tx;
        const float *hu = h1 + (crs - cr0) * tw + tx;
        const float *hv = h2 + (crs - cr0) * tw + tx;

#pragma unroll 4
        for (m = 0; m < ny; m++)
          y += w[m] * hy[m * tw];
#pragma unroll 4
        for (m = 0; m < ncy; m++) {
          u += wc[m] * hu[m * tw];
          v += wc[m] * hv[m * tw];
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

/* ---- direct kernels ----------------------------------------------------- */

/* The T taps' bytes (T: CONVERT_FIXED_TAPS, or CONVERT_DIRECT_NARROW_TAPS)
 * at byte @sh / 8 of the words at @w, from the words that hold them only:
 * nothing past the window is read. For 6 taps only the low half of .y
 * holds taps. */
template < int T > __device__ static __forceinline__ uint2
load_window (const unsigned int *w, unsigned int sh)
{
  unsigned int w0 = __ldg (w), w1 = __ldg (w + 1);
  /* 8 taps reach into a third word unless aligned, 6 only from byte 3 */
  unsigned int w2 = (T == 8 ? sh != 0 : sh == 24) ? __ldg (w + 2) : 0u;

  return make_uint2 (__funnelshift_r (w0, w1, sh),
      __funnelshift_r (w1, w2, sh));
}

/* load_window () of NV12's chroma: 2 T bytes at an even byte; for 6 taps
 * .w is 0 and the low half of .z holds the last two samples */
template < int T > __device__ static __forceinline__ uint4
load_window_uv (const unsigned int *w, unsigned int sh)
{
  unsigned int w0 = __ldg (w), w1 = __ldg (w + 1), w2 = __ldg (w + 2);

  if (T == 8) {
    unsigned int w3 = __ldg (w + 3), w4 = sh ? __ldg (w + 4) : 0u;

    return make_uint4 (__funnelshift_r (w0, w1, sh),
        __funnelshift_r (w1, w2, sh), __funnelshift_r (w2, w3, sh),
        __funnelshift_r (w3, w4, sh));
  } else {
    unsigned int w3 = sh ? __ldg (w + 3) : 0u;

    return make_uint4 (__funnelshift_r (w0, w1, sh),
        __funnelshift_r (w1, w2, sh), __funnelshift_r (w2, w3, sh), 0u);
  }
}

/* The words of plane @plane's row @y from byte @off on, 4-byte aligned,
 * and in *sh the window's bit offset in them. */
__device__ static __forceinline__ const unsigned int *
row_words (const ConvertParams & p, int plane, int y, int off,
    unsigned int *sh)
{
  *sh = (off & 3) * 8;
  return (const unsigned int *) in_row (p, plane, y) + (off >> 2);
}

/* A group's weights of one input row (Y_GROUP): one per row of the
 * group, in one load. */
__device__ static __forceinline__ void
load_group_weights (const float *w, float *out)
{
  if (CONVERT_DIRECT_ROWS == 4) {
    float4 v = __ldg ((const float4 *) w);

    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
    out[3] = v.w;
  } else if (CONVERT_DIRECT_ROWS == 2) {
    float2 v = __ldg ((const float2 *) w);

    out[0] = v.x;
    out[1] = v.y;
  } else {
    out[0] = __ldg (w);
  }
}

/* 4:2:0 input with at most CONVERT_FIXED_TAPS taps per column, to packed
 * RGB or a tensor, rows 4-byte aligned: no shared memory and no barrier.
 * A thread makes CONVERT_DIRECT_ROWS output pixels of one column: it
 * filters each input row they read horizontally once, straight from
 * global memory (the neighbouring threads' windows overlap, so the rows
 * come through L1), and adds it into each pixel with that row's weight. */
template < int IN, int OUT, int T > __device__ static void
convert_direct (const ConvertParams & p)
{
  const int G = CONVERT_DIRECT_ROWS;
  int ox = blockIdx.x * CONVERT_TILE_W + threadIdx.x;
  int k = p.direct_k0 + (int) (blockIdx.y * CONVERT_DIRECT_WARPS +
      threadIdx.y);
  int oy0 = p.dest_y + k * G;
  /* the group's rows inside the picture: none for the border's groups */
  int rows = k >= 0 ? min (G, p.dest_height - k * G) : 0;
  float y[G], u[G], v[G], w[G];
  int i, r;

#pragma unroll
  for (i = 0; i < G; i++)
    y[i] = u[i] = v[i] = 0.0f;

  if (ox >= p.out_width)
    return;

  /* the border: the fill, worked out once */
  if (rows <= 0 || !in_picture_x (p, ox)) {
    Fill fill = fill_values < OUT > (p);

#pragma unroll
    for (i = 0; i < G; i++) {
      int oy = oy0 + i;

      if (oy < 0)
        continue;
      if (oy >= p.out_height)
        break;
      store_fill < OUT > (p, ox, oy, fill);
    }
    return;
  }

  {
    const uint4 *xr = (const uint4 *) tab_int (p, TAB_X_DIRECT) +
        3 * (ox - p.dest_x);
    uint4 xs = __ldg (xr), qv = __ldg (xr + 1), cqv = __ldg (xr + 2);
    unsigned int q[4] = { qv.x, qv.y, qv.z, qv.w };
    unsigned int cq[4] = { cqv.x, cqv.y, cqv.z, cqv.w };
    const int4 *g = (const int4 *) (tab_int (p, TAB_Y_GROUP) +
        k * p.direct_group);
    int4 gh = __ldg (g);
    const float *gw = (const float *) (g + 1);
    unsigned int sh, csh;
    const unsigned int *row = row_words (p, 0, gh.x, (int) xs.x, &sh);
    const unsigned int *row_u = row_words (p, 1, gh.z,
        IN == IN_NV12 ? 2 * (int) xs.y : (int) xs.y, &csh);
    const unsigned int *row_v = IN == IN_I420 ?
        row_words (p, 2, gh.z, (int) xs.y, &csh) : NULL;

    /* the group's luma rows, each filtered across once and added into each
     * of the group's pixels with its weight there (0 where it is not a
     * tap of that pixel) */
    for (r = 0; r < gh.y; r++) {
      uint2 b = load_window < T > (row, sh);
      float h = (float) fixed_acc < T > (b.x, b.y, q);

      load_group_weights (gw + r * G, w);
#pragma unroll
      for (i = 0; i < G; i++)
        y[i] += w[i] * h;
      row += p.in_stride[0] >> 2;
    }

    /* its chroma rows alike, U and V from the same words for NV12 */
    gw += p.direct_rows * G;
    for (r = 0; r < gh.w; r++) {
      float2 h;

      if (IN == IN_NV12) {
        h = fixed_acc_uv_t < T > (load_window_uv < T > (row_u, csh), cq);
      } else {
        uint2 bu = load_window < T > (row_u, csh);
        uint2 bv = load_window < T > (row_v, csh);

        h = make_float2 ((float) fixed_acc < T > (bu.x, bu.y, cq),
            (float) fixed_acc < T > (bv.x, bv.y, cq));
        row_v += p.in_stride[2] >> 2;
      }
      load_group_weights (gw + r * G, w);
#pragma unroll
      for (i = 0; i < G; i++) {
        u[i] += w[i] * h.x;
        v[i] += w[i] * h.y;
      }
      row_u += p.in_stride[1] >> 2;
    }
  }

  /* the group's pixels; a row past the picture's last is border */
#pragma unroll
  for (i = 0; i < G; i++) {
    int oy = oy0 + i;
    float3 c;

    if (oy >= p.out_height)
      break;
    if (i < rows)
      c = yuv_to_rgb (p, y[i], u[i], v[i]);
    else
      c = make_float3 (p.fill[0], p.fill[1], p.fill[2]);
    if (OUT == OUT_TENSOR)
      store_tensor (p, ox, oy, c);
    else
      store_packed (p, ox, oy, c);
  }
}

/* The grid's completion signal (convert-params.h), after the block's
 * work: every block counts itself once all its threads are done, and the
 * last one to count sets the host's word. The count is one atomic with
 * acquire-release semantics at device scope: after the block barrier, its
 * release orders every write of the block before it, and the last block's
 * acquire orders every other block's writes before the word. The word
 * only tells the host when to go on: whatever reads the frame next is
 * device work the host queues after reading it (a kernel, a copy), so
 * device scope is enough. `atom.inc` wraps the counter to 0 at the last
 * block. __threadfence () before and after a relaxed atomicInc (), the
 * way cooperative grids count, is a sequentially consistent fence each
 * time: it cost 0.35 to 0.5 us more a frame on an H100, and a system-wide
 * fence 0.5 us more again. */
__device__ static __forceinline__ void
signal_done (const ConvertParams & p)
{
  unsigned int last, prev;

  if (!p.done_flag)
    return;

  __syncthreads ();
  if (threadIdx.x != 0 || threadIdx.y != 0)
    return;

  last = gridDim.x * gridDim.y * gridDim.z - 1;
#if __CUDA_ARCH__ >= 700
  asm volatile ("atom.acq_rel.gpu.global.inc.u32 %0, [%1], %2;":"=r" (prev)
      :"l" (p.done_counter), "r" (last):"memory");
  if (prev == last)
    asm volatile ("st.relaxed.sys.global.u32 [%0], %1;"::"l" (p.done_flag),
        "r" (p.done_seq):"memory");
#else
  /* no scoped atomics before sm_70: fences around a relaxed one */
  __threadfence ();
  prev = atomicInc ((unsigned int *) p.done_counter, last);
  if (prev == last) {
    __threadfence ();
    *(volatile unsigned int *) p.done_flag = p.done_seq;
  }
#endif
}

/* a minimum of one block per SM: the bound the direct kernels were
 * measured with (it steers nvcc's register allocation). Named
 * gst_cuda_cache_convert_direct<taps>_<in>_<out>: windows of
 * CONVERT_FIXED_TAPS or CONVERT_DIRECT_NARROW_TAPS taps. */
#define DIRECT_KERNEL(taps, in_name, IN, out_name, OUT) \
extern "C" __global__ void __launch_bounds__ (CONVERT_TILE_W * \
    CONVERT_DIRECT_WARPS, 1) \
gst_cuda_cache_convert_direct ## taps ## _ ## in_name ## _ ## out_name (const ConvertParams p) \
{ \
  convert_direct < IN, OUT, taps > (p); \
  signal_done (p); \
}

#define DIRECT_KERNELS(taps) \
  DIRECT_KERNEL (taps, nv12, IN_NV12, packed, OUT_PACKED) \
  DIRECT_KERNEL (taps, nv12, IN_NV12, tensor, OUT_TENSOR) \
  DIRECT_KERNEL (taps, i420, IN_I420, packed, OUT_PACKED) \
  DIRECT_KERNEL (taps, i420, IN_I420, tensor, OUT_TENSOR)

DIRECT_KERNELS (8)
DIRECT_KERNELS (6)

/* The kernels, by name: gst_cuda_cache_convert_<tile|generic>_<in>_<out>,
 * in nv12, i420, rgb4, rgb3; out packed, yuv420, tensor. */
#define CONVERT_KERNELS(in_name, IN, out_name, OUT) \
extern "C" __global__ void __launch_bounds__ (CONVERT_TILE_W * \
    CONVERT_TILE_THREADS_Y, TILE_MIN_BLOCKS) \
gst_cuda_cache_convert_tile_ ## in_name ## _ ## out_name (const ConvertParams p) \
{ \
  convert_tile < IN, OUT > (p); \
  signal_done (p); \
} \
\
extern "C" __global__ void __launch_bounds__ (GENERIC_THREADS) \
gst_cuda_cache_convert_generic_ ## in_name ## _ ## out_name (const ConvertParams p) \
{ \
  convert_generic < IN, OUT > (p); \
  signal_done (p); \
}

#define CONVERT_KERNELS_IN(in_name, IN) \
  CONVERT_KERNELS (in_name, IN, packed, OUT_PACKED) \
  CONVERT_KERNELS (in_name, IN, yuv420, OUT_YUV420) \
  CONVERT_KERNELS (in_name, IN, tensor, OUT_TENSOR)

CONVERT_KERNELS_IN (nv12, IN_NV12)
CONVERT_KERNELS_IN (i420, IN_I420)
CONVERT_KERNELS_IN (rgb4, IN_RGB4)
CONVERT_KERNELS_IN (rgb3, IN_RGB3)

/* ---- 16-bit 4:2:0 input ------------------------------------------------- */


/* One 16-bit sample of @depth bits at the top, as 8 bits: its bits
 * repeated down to 16, as GStreamer unpacks them, then scaled by
 * 255 / 65535 and rounded, so that a sample widened from 8 bits gives its
 * 8-bit value back. */
__device__ static __forceinline__ unsigned int
narrow_sample (unsigned int v, int depth)
{
  v |= v >> depth;
  return (v * 255u + 32767u) / 65535u;
}

/* P010 and P016 (NV12's planes, 16-bit samples holding @depth bits at the
 * top) to an 8-bit NV12 frame, which the kernels above convert. A thread
 * narrows CONVERT_NARROW_SAMPLES samples of a row: one 16-byte load and one
 * 8-byte store where both are aligned, else sample by sample. Rows 0 to
 * @height - 1 are luma, the rest chroma; block row b narrows rows b,
 * b + gridDim.y, ... (a grid has at most 65535 rows of blocks). */
extern "C" __global__ void __launch_bounds__ (CONVERT_NARROW_THREADS)
gst_cuda_cache_narrow_16 (const unsigned char *src_y, int src_y_stride,
    const unsigned char *src_uv, int src_uv_stride, unsigned char *dst_y,
    int dst_y_stride, unsigned char *dst_uv, int dst_uv_stride, int width,
    int height, int depth)
{
  int x = (blockIdx.x * CONVERT_NARROW_THREADS + threadIdx.x) *
      CONVERT_NARROW_SAMPLES;
  int rows = height + (height + 1) / 2;
  int row, i;

  for (row = blockIdx.y; row < rows; row += gridDim.y) {
    const unsigned short *s;
    unsigned char *d;
    int n;

    if (row < height) {
      s = (const unsigned short *) (src_y + (long long) row * src_y_stride);
      d = dst_y + (long long) row * dst_y_stride;
      n = width;
    } else {
      s = (const unsigned short *) (src_uv + (long long) (row - height) *
          src_uv_stride);
      d = dst_uv + (long long) (row - height) * dst_uv_stride;
      n = 2 * ((width + 1) / 2);
    }
    if (x >= n)
      continue;
    if (x + CONVERT_NARROW_SAMPLES <= n && ((size_t) (s + x) & 15) == 0 &&
        ((size_t) (d + x) & 7) == 0) {
      uint4 w = *(const uint4 *) (s + x);
      unsigned int words[4] = { w.x, w.y, w.z, w.w };
      unsigned long long out = 0;

      for (i = 0; i < CONVERT_NARROW_SAMPLES; i++)
        out |= (unsigned long long) narrow_sample ((words[i / 2] >>
                (16 * (i & 1))) & 0xffff, depth) << (8 * i);
      *(unsigned long long *) (d + x) = out;
    } else {
      for (i = 0; i < CONVERT_NARROW_SAMPLES && x + i < n; i++)
        d[x + i] = (unsigned char) narrow_sample (s[x + i], depth);
    }
  }
}
