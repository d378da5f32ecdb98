/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The generic kernels of cudacacheconvert (convert_generic): one block
 * per output pixel (per 2x2 block for YUV 4:2:0 output), its threads
 * sharing every 2D tap, each read and converted. For factors whose rows
 * do not fit a tile of the tiled kernels (thousands of input rows per
 * output row). */

#include "convert-common.cuh"

/* Input pixel (x, y), inside the input, as RGB. */
template < int IN > __device__ static float3
read_pixel (const ConvertParams & p, int x, int y)
{
  if (IN == CONVERT_IN_NV12 || IN == CONVERT_IN_I420) {
    bool cosited = p.chroma_site & CONVERT_CHROMA_V_COSITED;
    int ch = (p.in_height + 1) >> 1;
    int r0 = chroma_index (y, cosited);
    float f = chroma_frac (y, cosited, false);
    int ra = clamp_int (r0, 0, ch - 1), rb = clamp_int (r0 + 1, 0, ch - 1);
    float2 a = chroma_h < IN > (p, in_row (p, 1, ra),
        IN == CONVERT_IN_I420 ? in_row (p, 2, ra) : NULL, x);
    float2 b = chroma_h < IN > (p, in_row (p, 1, rb),
        IN == CONVERT_IN_I420 ? in_row (p, 2, rb) : NULL, x);

    return yuv_to_rgb (p, __ldg (in_row (p, 0, y) + x),
        a.x + f * (b.x - a.x), a.y + f * (b.y - a.y));
  }
  return rgb_at < IN > (p, in_row (p, 0, y), x);
}

/* Output pixel (x, y) as RGB, unrounded, by the whole block: its threads
 * share the 2D taps, each read and converted, and sum them. Every thread
 * gets the result. */
template < int IN > __device__ static float3
sample_generic (const ConvertParams & p, int x, int y)
{
  __shared__ float3 partial[CONVERT_GENERIC_THREADS / 32];
  Tap tx, ty;
  float3 acc = make_float3 (0.0f, 0.0f, 0.0f);
  int n = p.x_taps * p.y_taps, i, lane = threadIdx.x & 31;

  if (!in_picture_x (p, x) || !in_picture_y (p, y))
    return make_float3 (p.fill[0], p.fill[1], p.fill[2]);

  tx = load_tap (p, TAB_X_TAP, x - p.dest_x);
  ty = load_tap (p, TAB_Y_TAP, y - p.dest_y);

  for (i = threadIdx.x; i < n; i += CONVERT_GENERIC_THREADS) {
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
  for (i = 1; i < CONVERT_GENERIC_THREADS / 32; i++) {
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

  if (OUT == CONVERT_OUT_YUV420) {
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
    store_rgb < OUT > (p, x, y, c);
  }
}

#define GENERIC_KERNEL(family, name, IN, OUT, taps) \
extern "C" __global__ void __launch_bounds__ (CONVERT_GENERIC_THREADS) \
name (const ConvertParams p) \
{ \
  convert_generic < IN, OUT > (p); \
  signal_done (p); \
}

GST_CUDA_CACHE_GENERIC_KERNELS (GENERIC_KERNEL)

/* the same, a slot of a batch per z index (ConvertBatch) */
#define GENERIC_BATCH_KERNEL(family, name, IN, OUT, taps) \
extern "C" __global__ void __launch_bounds__ (CONVERT_GENERIC_THREADS) \
name (const ConvertBatch b) \
{ \
  const ConvertBatchSlot & s = batch_slot (b); \
  if (batch_block_in_slot (s)) \
    convert_generic < IN, OUT > (s.params); \
  signal_done_to (b.done_counter, b.done_flag, b.done_seq); \
}

GST_CUDA_CACHE_GENERIC_BATCH_KERNELS (GENERIC_BATCH_KERNEL)
