/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The passes that make the frame the conversion kernels read in place of
 * input they do not read themselves, as gstcudacachekernels-private.h
 * defines them: 16-bit 4:2:0 input (P010_10LE, P016_LE) narrowed to an
 * 8-bit NV12 frame, 4:2:2 packed input (YUY2, UYVY) converted to RGBx. */

#include "convert-common.cuh"

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
 * top) to an 8-bit NV12 frame, which the conversion kernels convert. A
 * thread narrows CONVERT_NARROW_SAMPLES samples of a row: one 16-byte load
 * and one 8-byte store where both are aligned, else sample by sample. Rows
 * 0 to @height - 1 are luma, the rest chroma; block row b narrows rows b,
 * b + gridDim.y, ... (a grid has at most 65535 rows of blocks). */
extern "C" __global__ void __launch_bounds__ (CONVERT_NARROW_THREADS)
gst_cuda_cache_narrow_16 (const unsigned char
    *src_y, int src_y_stride, const unsigned char *src_uv, int src_uv_stride,
    unsigned char *dst_y, int dst_y_stride, unsigned char *dst_uv,
    int dst_uv_stride, int width, int height, int depth)
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

/* YUY2 and UYVY (@order: CONVERT_ORDER_*) to 8-bit RGBx, a pixel a
 * thread: U and V upsampled across as chroma_h () does for 4:2:0 input
 * (@cosited: CONVERT_CHROMA_H_COSITED or 0), then @m (yuv_to_rgb's layout),
 * each channel rounded and clamped as to_u8 (), with the CPU path's float
 * operations (stand_in_row ()); x is 255. Block row b
 * converts rows b, b + gridDim.y, ... */
extern "C" __global__ void __launch_bounds__ (CONVERT_UNPACK_THREADS)
gst_cuda_cache_unpack_422 (const unsigned char *src, int src_stride,
    unsigned char *dst, int dst_stride, int width, int height, int order,
    int cosited, const ConvertMatrix m)
{
  int x = blockIdx.x * CONVERT_UNPACK_THREADS + threadIdx.x;
  int cw = (width + 1) >> 1;
  int y0 = order & 0xff, u_at = (order >> 8) & 0xff;
  int y1 = (order >> 16) & 0xff, v_at = order >> 24;
  int c0 = chroma_index (x, cosited != 0);
  int ca = 4 * clamp_int (c0, 0, cw - 1), cb = 4 * clamp_int (c0 + 1, 0,
      cw - 1);
  float f = chroma_frac (x, cosited != 0, true);
  int at = 4 * (x >> 1) + ((x & 1) ? y1 : y0);
  int row;

  if (x >= width)
    return;

  for (row = blockIdx.y; row < height; row += gridDim.y) {
    const unsigned char *s = src + (long long) row * src_stride;
    float ua = __ldg (s + ca + u_at), ub = __ldg (s + cb + u_at);
    float va = __ldg (s + ca + v_at), vb = __ldg (s + cb + v_at);
    float yv = __ldg (s + at);
    float u = stand_in_lerp (ua, ub, f), v = stand_in_lerp (va, vb, f);
    unsigned int r = stand_in_row (m.m, yv, u, v);
    unsigned int g = stand_in_row (m.m + 4, yv, u, v);
    unsigned int b = stand_in_row (m.m + 8, yv, u, v);

    ((unsigned int *) (dst + (long long) row * dst_stride))[x] =
        r | (g << 8) | (b << 16) | 0xff000000u;
  }
}
