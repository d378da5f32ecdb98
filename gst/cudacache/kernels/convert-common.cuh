/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* What the families of cudacacheconvert's CUDA kernels share (each family
 * is a .cu of its own, see kernel-list.h): the conversion's definition
 * (gstcudacachekernels-private.h) as device functions. Reading the input's
 * pixels and taps, converting between YUV and RGB, storing packed pixels,
 * tensors and 4:2:0 blocks, the fill, the fixed-point sums of the direct
 * and tiled kernels' horizontal pass, and the grid's completion signal.
 * Every function is static: each family's module has its own copy. */

#ifndef __GST_CUDA_CACHE_CONVERT_COMMON_CUH__
#define __GST_CUDA_CACHE_CONVERT_COMMON_CUH__

#include <cstddef>
#include <cuda_fp16.h>

#include "convert-params.h"
#include "kernel-list.h"

static_assert (sizeof (ConvertParams) == CONVERT_PARAMS_SIZE,
    "ConvertParams layout");
static_assert (offsetof (ConvertParams, in_format) ==
    CONVERT_PARAMS_IN_FORMAT_OFFSET, "ConvertParams layout");
static_assert (offsetof (ConvertParams, x_fx) == CONVERT_PARAMS_X_FX_OFFSET,
    "ConvertParams layout");
static_assert (sizeof (ConvertBatchSlot) == CONVERT_BATCH_SLOT_SIZE,
    "ConvertBatchSlot layout");
static_assert (sizeof (ConvertBatch) == CONVERT_BATCH_SIZE,
    "ConvertBatch layout");
static_assert (CONVERT_FIXED_TAPS == 8, "fixed_sum () takes 8 taps");
static_assert (CONVERT_DIRECT_NARROW_TAPS == 6,
    "the direct kernels' narrow windows take 6 taps");

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

__device__ static __forceinline__ int
clip8 (int v)
{
  return min (max (v, 0), 255);
}

/* The stand-in frames' arithmetic (7. of the definition), operation for
 * operation as the CPU path's C makes them, each rounded on its own (no
 * fused multiply-add, which the CPU path does not do either): the same
 * 8-bit values on both. a + f * (b - a): */
__device__ static __forceinline__ float
stand_in_lerp (float a, float b, float f)
{
  return __fadd_rn (a, __fmul_rn (f, __fsub_rn (b, a)));
}

/* @v, 0 <= v < 2^23, as a float, exactly: 2^23 + v made in the exponent
 * and mantissa, less 2^23, two full-rate instructions instead of the
 * quarter-rate integer conversion */
__device__ static __forceinline__ float
exact_float (int v)
{
  return __fsub_rn (__int_as_float (0x4B000000 | v), 8388608.0f);
}

/* floor (@x) clamped to 0..255 (NaN: 0), the same as
 * clip8 (__float2int_rd (x)): one conversion, which saturates to its
 * 8-bit type */
__device__ static __forceinline__ int
floor_u8 (float x)
{
  unsigned int r;

  asm ("cvt.rmi.u8.f32 %0, %1;":"=r" (r):"f" (x));
  return (int) r;
}

/* one row of a matrix, m[0] * y + m[1] * u + m[2] * v + m[3] in that
 * order, rounded half up and clamped as to_u8 () */
__device__ static __forceinline__ int
stand_in_row (const float *m, float y, float u, float v)
{
  return floor_u8 (__fadd_rn (__fadd_rn (__fadd_rn (__fadd_rn (__fmul_rn
                  (m[0], y), __fmul_rn (m[1], u)), __fmul_rn (m[2], v)),
          m[3]), 0.5f));
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
  if (IN == CONVERT_IN_NV12) {
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
  if (IN == CONVERT_IN_RGB4 && p.in_aligned) {
    unsigned int v = __ldg ((const unsigned int *) row + x);

    return make_float3 ((float) ((v >> (8 * p.in_r)) & 0xff),
        (float) ((v >> (8 * p.in_g)) & 0xff),
        (float) ((v >> (8 * p.in_b)) & 0xff));
  }
  row += x * (IN == CONVERT_IN_RGB4 ? 4 : 3);
  return make_float3 (__ldg (row + p.in_r), __ldg (row + p.in_g),
      __ldg (row + p.in_b));
}

/* One output pixel's 8-bit R, G, B as the packed format's bytes, in
 * memory order: R, G, B, 255, then the format's order in one byte
 * permutation (the fourth byte, alpha or padding, is 255) */
__device__ static __forceinline__ unsigned int
packed_word_u8 (const ConvertParams & p, unsigned int r, unsigned int g,
    unsigned int b)
{
  return __byte_perm (r | (g << 8) | (b << 16) | 0xff000000u, 0, p.out_perm);
}

/* One output pixel's RGB (unrounded, 0..255 scale) as the packed
 * format's bytes, in memory order. */
__device__ static __forceinline__ unsigned int
packed_word (const ConvertParams & p, float3 c)
{
  return packed_word_u8 (p, to_u8 (c.x), to_u8 (c.y), to_u8 (c.z));
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

/* One output pixel's gray from its RGB (unrounded, 0..255 scale): the
 * output's luma, rgb_to_yuv's first row, of the 8-bit RGB that packed
 * output would hold (so the CPU path, which packs gray from an 8-bit RGB
 * frame, gives the same values), unrounded. */
__device__ static __forceinline__ float
gray_of (const ConvertParams & p, float3 c)
{
  const float *m = p.rgb_to_yuv;

  return m[0] * (float) to_u8 (c.x) + m[1] * (float) to_u8 (c.y) +
      m[2] * (float) to_u8 (c.z) + m[3];
}

/* The index of pixel (x, y) in a 1-channel tensor */
__device__ static __forceinline__ unsigned long long
gray_index (const ConvertParams & p, int x, int y)
{
  return (unsigned long long) y * p.out_width + x;
}

/* Stores gray @g (unrounded) of pixel (x, y): the 1-channel tensor's
 * value, normalised as channel 0. */
__device__ static __forceinline__ void
store_gray (const ConvertParams & p, int x, int y, float g)
{
  store_tensor_value (p, gray_index (p, x, y), normalise (p, g, 0));
}

/* Stores one output pixel's RGB (unrounded, 0..255 scale) as OUT's
 * values: packed, a tensor or gray. */
template < int OUT > __device__ static __forceinline__ void
store_rgb (const ConvertParams & p, int x, int y, float3 c)
{
  if (OUT == CONVERT_OUT_PACKED)
    store_packed (p, x, y, c);
  else if (OUT == CONVERT_OUT_TENSOR)
    store_tensor (p, x, y, c);
  else if (OUT == CONVERT_OUT_GRAY)
    store_gray (p, x, y, gray_of (p, c));
}

/* The fill colour as the output's values, worked out once for a run of
 * border pixels: the packed format's word, or the tensor's channels (a
 * 1-channel tensor's in t.x). */
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

  if (OUT == CONVERT_OUT_GRAY) {
    f.word = 0u;
    f.t = make_float3 (normalise (p, gray_of (p, fill), 0), 0.0f, 0.0f);
    return f;
  }
  f.word = OUT == CONVERT_OUT_TENSOR ? 0u : packed_word (p, fill);
  f.t = OUT == CONVERT_OUT_TENSOR ? tensor_values (p, fill) : fill;
  return f;
}

/* Stores fill_values () @f at pixel (x, y) */
template < int OUT > __device__ static __forceinline__ void
store_fill (const ConvertParams & p, int x, int y, const Fill & f)
{
  if (OUT == CONVERT_OUT_GRAY) {
    store_tensor_value (p, gray_index (p, x, y), f.t.x);
  } else if (OUT == CONVERT_OUT_TENSOR) {
    store_tensor_values (p, x, y, f.t);
  } else {
    store_packed_word (p, x, y, f.word);
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
signal_done_to (unsigned long long counter, unsigned long long flag,
    unsigned int seq)
{
  unsigned int last, prev;

  if (!flag)
    return;

  __syncthreads ();
  if (threadIdx.x != 0 || threadIdx.y != 0)
    return;

  last = gridDim.x * gridDim.y * gridDim.z - 1;
#if __CUDA_ARCH__ >= 700
  asm volatile ("atom.acq_rel.gpu.global.inc.u32 %0, [%1], %2;":"=r" (prev)
      :"l" (counter), "r" (last):"memory");
  if (prev == last)
    asm volatile ("st.relaxed.sys.global.u32 [%0], %1;"::"l" (flag),
        "r" (seq):"memory");
#else
  /* no scoped atomics before sm_70: fences around a relaxed one */
  __threadfence ();
  prev = atomicInc ((unsigned int *) counter, last);
  if (prev == last) {
    __threadfence ();
    *(volatile unsigned int *) flag = seq;
  }
#endif
}

__device__ static __forceinline__ void
signal_done (const ConvertParams & p)
{
  signal_done_to (p.done_counter, p.done_flag, p.done_seq);
}

/* A batch kernel's slot (ConvertBatchSlot): the slot of the block's z
 * index, and whether the block lies in that slot's own grid. */
__device__ static __forceinline__ const ConvertBatchSlot &
batch_slot (const ConvertBatch & b)
{
  return ((const ConvertBatchSlot *) b.slots)[blockIdx.z];
}

__device__ static __forceinline__ bool
batch_block_in_slot (const ConvertBatchSlot & s)
{
  return blockIdx.x < s.grid_w && blockIdx.y < s.grid_h;
}

#endif /* __GST_CUDA_CACHE_CONVERT_COMMON_CUH__ */
