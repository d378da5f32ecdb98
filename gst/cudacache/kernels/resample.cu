/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The resampling presets' kernels (convert-params.h's PresetConvert): the
 * source's 8-bit RGB resampled by OpenCV's or Pillow's arithmetic, a
 * pixel a thread, and stored in the output in the same launch. Each kind
 * repeats gstcudacacheresample.c's arithmetic to the bit: integer sums
 * where it sums integers, and where it works in floats the same float
 * operations in the same order, each rounded on its own (the _rn
 * intrinsics: no fused multiply-add, which the CPU path does not do
 * either). 4:2:0 input is read as the stand-in of
 * gstcudacacheconvertercpu.c (chroma upsampled as sited, then the matrix,
 * rounded half up), worked out per pixel read. The picture's 8-bit RGB is
 * stored through convert-common.cuh's stores, as the conversion kernels
 * would store it converting that picture at 1:1: there every tap's weight
 * is 1 or 0, so their sums are the 8-bit value itself, as a float. */

#include "convert-common.cuh"

static_assert (sizeof (PresetParams) == PRESET_PARAMS_SIZE,
    "PresetParams layout");
static_assert (sizeof (PresetConvert) == PRESET_CONVERT_SIZE,
    "PresetConvert layout");
static_assert (sizeof (PresetBatchSlot) == PRESET_BATCH_SLOT_SIZE,
    "PresetBatchSlot layout");

#define PIL_BITS 22

__device__ static __forceinline__ const int *
preset_tab (const PresetParams & p, int offset)
{
  return (const int *) p.tab + offset;
}

/* The 8-bit RGB of source pixel (x, y): packed RGB as it is, 4:2:0 as its
 * stand-in. */
__device__ static int3
source_rgb (const PresetParams & p, int x, int y)
{
  if (p.in_format != CONVERT_FORMAT_NV12 && p.in_format != CONVERT_FORMAT_I420) {
    const unsigned char *s = (const unsigned char *) p.in_data[0] +
        (long long) y * p.in_stride[0] + (long long) x * p.in_pixel_bytes;

    return make_int3 (__ldg (s + p.in_r), __ldg (s + p.in_g),
        __ldg (s + p.in_b));
  }

  bool h_cosited = (p.chroma_site & CONVERT_CHROMA_H_COSITED) != 0;
  bool v_cosited = (p.chroma_site & CONVERT_CHROMA_V_COSITED) != 0;
  int cw = (p.in_width + 1) / 2, ch = (p.in_height + 1) / 2;
  int cy0 = v_cosited ? y / 2 : (y >= 1 ? (y - 1) / 2 : -1);
  float fy = v_cosited ? 0.0f : ((y & 1) ? 0.25f : 0.75f);
  int ra = clamp_int (cy0, 0, ch - 1), rb = clamp_int (cy0 + 1, 0, ch - 1);
  int cx0 = h_cosited ? x / 2 : (x >= 1 ? (x - 1) / 2 : -1);
  float fx = h_cosited ? ((x & 1) ? 0.5f : 0.0f) : ((x & 1) ? 0.25f : 0.75f);
  int ca = clamp_int (cx0, 0, cw - 1), cb = clamp_int (cx0 + 1, 0, cw - 1);
  float yv = __ldg ((const unsigned char *) p.in_data[0] +
      (long long) y * p.in_stride[0] + x);
  float c[2];
  int k;

  for (k = 0; k < 2; k++) {
    const unsigned char *top, *bot;
    int step, at;

    if (p.in_format == CONVERT_FORMAT_NV12) {
      top = (const unsigned char *) p.in_data[1] + (long long) ra *
          p.in_stride[1];
      bot = (const unsigned char *) p.in_data[1] + (long long) rb *
          p.in_stride[1];
      step = 2;
      at = k;
    } else {
      top = (const unsigned char *) p.in_data[1 + k] + (long long) ra *
          p.in_stride[1 + k];
      bot = (const unsigned char *) p.in_data[1 + k] + (long long) rb *
          p.in_stride[1 + k];
      step = 1;
      at = 0;
    }
    float t = stand_in_lerp (__ldg (top + step * ca + at), __ldg (top + step * cb +
            at), fx);
    float b = stand_in_lerp (__ldg (bot + step * ca + at), __ldg (bot + step * cb +
            at), fx);

    c[k] = stand_in_lerp (t, b, fy);
  }

  return make_int3 (stand_in_row (p.yuv_to_rgb, yv, c[0], c[1]),
      stand_in_row (p.yuv_to_rgb + 4, yv, c[0], c[1]),
      stand_in_row (p.yuv_to_rgb + 8, yv, c[0], c[1]));
}

/* OpenCV's two taps across source row @y at output column @x: exact
 * integer sums (weights in 1/2048) */
__device__ static __forceinline__ int3
cv_across (const PresetParams & p, int x, int y)
{
  int s = __ldg (preset_tab (p, p.x_first) + x);
  int w0 = __ldg (preset_tab (p, p.x_w) + 2 * x);
  int w1 = __ldg (preset_tab (p, p.x_w) + 2 * x + 1);
  int3 a = source_rgb (p, s, y);
  int3 b = source_rgb (p, min (s + 1, p.in_width - 1), y);

  return make_int3 (a.x * w0 + b.x * w1, a.y * w0 + b.y * w1,
      a.z * w0 + b.z * w1);
}

/* OpenCV's vectorised VResizeLinear of one value */
__device__ static __forceinline__ int
cv_down (int t0, int t1, int b0, int b1)
{
  int v0 = clamp_int (t0 >> 4, -32768, 32767);
  int v1 = clamp_int (t1 >> 4, -32768, 32767);

  return clip8 ((((v0 * b0) >> 16) + ((v1 * b1) >> 16) + 2) >> 2);
}

/* OpenCV's INTER_AREA across source row @y at output column @x: its
 * table's entries in order, float products and sums */
__device__ static float3
area_across (const PresetParams & p, int x, int y)
{
  const int *begin = preset_tab (p, p.x_area);
  const int *src = preset_tab (p, p.x_area_src);
  const float *alpha = (const float *) preset_tab (p, p.x_area_alpha);
  float3 b = make_float3 (0.0f, 0.0f, 0.0f);
  int k, end = __ldg (begin + x + 1);

  for (k = __ldg (begin + x); k < end; k++) {
    int3 s = source_rgb (p, __ldg (src + k), y);
    float a = __ldg (alpha + k);

    b.x = __fadd_rn (b.x, __fmul_rn ((float) s.x, a));
    b.y = __fadd_rn (b.y, __fmul_rn ((float) s.y, a));
    b.z = __fadd_rn (b.z, __fmul_rn ((float) s.z, a));
  }
  return b;
}

/* Pillow's sum along one axis for output index @j (the axis's FIRST, N,
 * W at @first, @n, @w, @stride weights an index), of the RGB @read gives
 * for a source index: 22-bit weights, rounded by adding half, clipped to
 * 8 bits */
template < typename F > __device__ static __forceinline__ int3
pil_sum (const PresetParams & p, int first, int n, int w, int stride, int j,
    F read)
{
  const int *wj = preset_tab (p, w) + (long long) j * stride;
  int s0 = __ldg (preset_tab (p, first) + j), k;
  int n_j = __ldg (preset_tab (p, n) + j);
  int3 acc = make_int3 (1 << (PIL_BITS - 1), 1 << (PIL_BITS - 1),
      1 << (PIL_BITS - 1));

  for (k = 0; k < n_j; k++) {
    int3 s = read (s0 + k);
    int wk = __ldg (wj + k);

    acc.x += s.x * wk;
    acc.y += s.y * wk;
    acc.z += s.z * wk;
  }
  return make_int3 (clip8 (acc.x >> PIL_BITS), clip8 (acc.y >> PIL_BITS),
      clip8 (acc.z >> PIL_BITS));
}

/* Pillow's across of source row @y at output column @x (the source itself
 * where the width stays): its 8-bit picture between the passes */
__device__ static int3
pil_across (const PresetParams & p, int x, int y)
{
  if (p.in_width == p.out_width)
    return source_rgb (p, x, y);
  return pil_sum (p, p.x_first, p.x_n, p.x_w, p.x_stride, x,[&](int i) {
        return source_rgb (p, i, y);}
  );
}

__device__ static int3
preset_pixel (const PresetParams & p, int x, int y)
{
  switch (p.kind) {
    case PRESET_NEAREST:
      return source_rgb (p, __ldg (preset_tab (p, p.x_first) + x),
          __ldg (preset_tab (p, p.y_first) + y));
    case PRESET_CV_TWO_TAPS:{
      int s = __ldg (preset_tab (p, p.y_first) + y);
      int b0 = __ldg (preset_tab (p, p.y_w) + 2 * y);
      int b1 = __ldg (preset_tab (p, p.y_w) + 2 * y + 1);
      int3 t0 = cv_across (p, x, clamp_int (s, 0, p.in_height - 1));
      int3 t1 = cv_across (p, x, clamp_int (s + 1, 0, p.in_height - 1));

      return make_int3 (cv_down (t0.x, t1.x, b0, b1), cv_down (t0.y, t1.y, b0,
              b1), cv_down (t0.z, t1.z, b0, b1));
    }
    case PRESET_AREA_HALF:{
      int3 a = source_rgb (p, 2 * x, 2 * y);
      int3 b = source_rgb (p, 2 * x + 1, 2 * y);
      int3 e = source_rgb (p, 2 * x, 2 * y + 1);
      int3 f = source_rgb (p, 2 * x + 1, 2 * y + 1);

      return make_int3 ((a.x + b.x + e.x + f.x + 2) >> 2,
          (a.y + b.y + e.y + f.y + 2) >> 2, (a.z + b.z + e.z + f.z + 2) >> 2);
    }
    case PRESET_AREA_INTEGER:{
      float scale = __fdiv_rn (1.0f, (float) (p.factor_x * p.factor_y));
      int3 sum = make_int3 (0, 0, 0);
      int i, j;

      for (j = 0; j < p.factor_y; j++) {
        for (i = 0; i < p.factor_x; i++) {
          int3 s = source_rgb (p, x * p.factor_x + i, y * p.factor_y + j);

          sum.x += s.x;
          sum.y += s.y;
          sum.z += s.z;
        }
      }
      return make_int3 (clip8 (__float2int_rn (__fmul_rn ((float) sum.x,
                      scale))), clip8 (__float2int_rn (__fmul_rn ((float)
                      sum.y, scale))),
          clip8 (__float2int_rn (__fmul_rn ((float) sum.z, scale))));
    }
    case PRESET_AREA:{
      const int *begin = preset_tab (p, p.y_area);
      const int *src = preset_tab (p, p.y_area_src);
      const float *alpha = (const float *) preset_tab (p, p.y_area_alpha);
      float3 sum = make_float3 (0.0f, 0.0f, 0.0f);
      int t, end = __ldg (begin + y + 1);

      for (t = __ldg (begin + y); t < end; t++) {
        float3 b = area_across (p, x, __ldg (src + t));
        float beta = __ldg (alpha + t);
        float3 q = make_float3 (__fmul_rn (b.x, beta), __fmul_rn (b.y, beta),
            __fmul_rn (b.z, beta));

        if (t == __ldg (begin + y)) {
          sum = q;
        } else {
          sum.x = __fadd_rn (sum.x, q.x);
          sum.y = __fadd_rn (sum.y, q.y);
          sum.z = __fadd_rn (sum.z, q.z);
        }
      }
      return make_int3 (clip8 (__float2int_rn (sum.x)),
          clip8 (__float2int_rn (sum.y)), clip8 (__float2int_rn (sum.z)));
    }
    case PRESET_PIL:
      if (p.in_height == p.out_height)
        return pil_across (p, x, y);
      return pil_sum (p, p.y_first, p.y_n, p.y_w, p.y_stride, y,[&](int i) {
            return pil_across (p, x, i);}
      );
    default:
      return source_rgb (p, x, y);
  }
}

/* Output pixel (x, y) as the conversion kernels' RGB (unrounded, 0..255
 * scale) of it: the picture's 8-bit pixel as a float, the fill outside
 * the picture */
__device__ static __forceinline__ float3
output_rgb (const ConvertParams & c, const PresetParams & p, int x, int y)
{
  if (in_picture_x (c, x) && in_picture_y (c, y)) {
    int3 v = preset_pixel (p, x - c.dest_x, y - c.dest_y);

    return make_float3 ((float) v.x, (float) v.y, (float) v.z);
  }
  return make_float3 (c.fill[0], c.fill[1], c.fill[2]);
}

/* Block (bx, by) makes PRESET_BLOCK_W x PRESET_BLOCK_H pixels of the
 * output, or for 4:2:0 output as many 2x2 blocks of pixels (a block's
 * chroma is the mean of its own pixels: no thread needs another's); block
 * rows loop past the grid's (65535 at most). */
template < int OUT > __device__ static void
resample_convert (const ConvertParams & c, const PresetParams & p)
{
  int x = blockIdx.x * PRESET_BLOCK_W + threadIdx.x;
  int y;

  if (OUT == CONVERT_OUT_YUV420) {
    if (2 * x >= c.out_width)
      return;
    for (y = blockIdx.y * PRESET_BLOCK_H + threadIdx.y; 2 * y < c.out_height;
        y += gridDim.y * PRESET_BLOCK_H)
      store_yuv420_block (c, x, y,[&] (int px, int py) {
            return output_rgb (c, p, px, py);}
      );
    return;
  }

  if (x >= c.out_width)
    return;
  for (y = blockIdx.y * PRESET_BLOCK_H + threadIdx.y; y < c.out_height;
      y += gridDim.y * PRESET_BLOCK_H) {
    if (in_picture_x (c, x) && in_picture_y (c, y)) {
      int3 v = preset_pixel (p, x - c.dest_x, y - c.dest_y);

      store_rgb < OUT > (c, x, y, make_float3 ((float) v.x, (float) v.y,
              (float) v.z));
    } else {
      store_fill < OUT > (c, x, y, fill_values < OUT > (c));
    }
  }
}

#define RESAMPLE_KERNEL(family, name, IN, OUT, taps) \
extern "C" __global__ void \
__launch_bounds__ (PRESET_BLOCK_W * PRESET_BLOCK_H) \
name (const PresetConvert a) \
{ \
  resample_convert < OUT > (a.c, a.p); \
  signal_done (a.c); \
}

GST_CUDA_CACHE_RESAMPLE_KERNELS (RESAMPLE_KERNEL)

/* the same, a slot of a batch per z index (ConvertBatch over a table of
 * PresetBatchSlot) */
#define RESAMPLE_BATCH_KERNEL(family, name, IN, OUT, taps) \
extern "C" __global__ void \
__launch_bounds__ (PRESET_BLOCK_W * PRESET_BLOCK_H) \
name (const ConvertBatch b) \
{ \
  const PresetBatchSlot & s = \
      ((const PresetBatchSlot *) b.slots)[blockIdx.z]; \
  if (batch_block_in_slot (s.slot)) \
    resample_convert < OUT > (s.slot.params, s.preset); \
  signal_done_to (b.done_counter, b.done_flag, b.done_seq); \
}

GST_CUDA_CACHE_RESAMPLE_BATCH_KERNELS (RESAMPLE_BATCH_KERNEL)
