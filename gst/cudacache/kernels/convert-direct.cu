/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The direct kernels of cudacacheconvert (convert_direct): for 4:2:0
 * input to RGB or a tensor with at most 8 taps per axis, the common case
 * of inference pipelines, a thread per CONVERT_DIRECT_ROWS output pixels
 * of a column, reading straight from global memory with no shared memory
 * and no barrier; every input row a thread reads is filtered horizontally
 * once for all its pixels, in 16-bit fixed point. */

#include "convert-common.cuh"

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
        IN == CONVERT_IN_NV12 ? 2 * (int) xs.y : (int) xs.y, &csh);
    const unsigned int *row_v = IN == CONVERT_IN_I420 ?
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

      if (IN == CONVERT_IN_NV12) {
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
    store_rgb < OUT > (p, ox, oy, c);
  }
}

/* a minimum of one block per SM: the bound the direct kernels were
 * measured with (it steers nvcc's register allocation); @taps, the
 * windows' (CONVERT_FIXED_TAPS or CONVERT_DIRECT_NARROW_TAPS) */
#define DIRECT_KERNEL(family, name, IN, OUT, taps) \
extern "C" __global__ void __launch_bounds__ (CONVERT_TILE_W * \
    CONVERT_DIRECT_WARPS, 1) \
name (const ConvertParams p) \
{ \
  convert_direct < IN, OUT, taps > (p); \
  signal_done (p); \
}

GST_CUDA_CACHE_DIRECT_KERNELS (DIRECT_KERNEL)

/* the same, a slot of a batch per z index (ConvertBatch) */
#define DIRECT_BATCH_KERNEL(family, name, IN, OUT, taps) \
extern "C" __global__ void __launch_bounds__ (CONVERT_TILE_W * \
    CONVERT_DIRECT_WARPS, 1) \
name (const ConvertBatch b) \
{ \
  const ConvertBatchSlot & s = batch_slot (b); \
  if (batch_block_in_slot (s)) \
    convert_direct < IN, OUT, taps > (s.params); \
  signal_done_to (b.done_counter, b.done_flag, b.done_seq); \
}

GST_CUDA_CACHE_DIRECT_BATCH_KERNELS (DIRECT_BATCH_KERNEL)
