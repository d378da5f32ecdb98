/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The resampling presets' kernels (convert-params.h's PresetConvert): the
 * source's 8-bit RGB resampled by OpenCV's or Pillow's arithmetic and
 * stored in the output in the same launch, a kernel per group of kinds
 * (PRESET_GROUP_*). Each kind repeats gstcudacacheresample.c's arithmetic
 * to the bit: integer sums where it sums integers, and where it works in
 * floats the same float operations in the same order, each rounded on its
 * own (the _rn intrinsics: no fused multiply-add, which the CPU path does
 * not do either). 4:2:0 input is read as the stand-in of
 * gstcudacacheconvertercpu.c (chroma upsampled as sited, then the matrix,
 * rounded half up), worked out where a pixel is read; a pixel's taps side
 * by side (OpenCV's two and area's) read the chroma samples they share
 * once. The picture's 8-bit RGB is stored through convert-common.cuh's
 * stores, as the conversion kernels would store it converting that
 * picture at 1:1: there every tap's weight is 1 or 0, so their sums are
 * the 8-bit value itself.
 *
 * A thread makes an output pixel (a 2x2 block of 4:2:0 output), but for
 * Pillow's kinds, whose taps overlap: there a block makes its source
 * tile's stand-in and Pillow's 8-bit horizontal pass once in shared
 * memory, and each thread the vertical pass of its pixel. */

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

/* How a kernel reads the source, chosen for the whole launch (a
 * template argument, so that no thread issues the others' reads): packed
 * RGB, 4:2:0 with its chroma pairs in 16-bit words (NV12 on even
 * addresses), or 4:2:0 with its chroma in bytes (I420, NV12 elsewhere) */
enum
{
  SOURCE_PACKED,
  SOURCE_PAIRS,
  SOURCE_PLANES,
};

/* One 4:2:0 chroma sample pair of chroma row @r, column @cx, as one word:
 * U in its low half, V in its high half. Sums of such words with small
 * non-negative weights are the two sums side by side (each stays below
 * 2^16). */
template < int S > __device__ static __forceinline__ unsigned int
chroma_word (const PresetParams & p, int cx, int r)
{
  const unsigned char *u = (const unsigned char *) p.in_data[1] +
      (long long) r * p.in_stride[1];

  if (S == SOURCE_PAIRS)
    return __byte_perm (__ldg ((const unsigned short *) u + cx), 0, 0x4140);
  if (p.in_format == CONVERT_FORMAT_NV12)
    return __ldg (u + 2 * cx) | ((unsigned int) __ldg (u + 2 * cx + 1) << 16);
  return __ldg (u + cx) | ((unsigned int) __ldg ((const unsigned char *)
          p.in_data[2] + (long long) r * p.in_stride[2] + cx) << 16);
}

/* Where the 4:2:0 stand-in's chroma of pixel index @i along an axis comes
 * from: its first sample @c0 (chroma_index ()) and the second's weight @w
 * in quarters, chroma_frac () times 4: centred, 1/4 or 3/4; cosited, the
 * odd pixels halfway where @interpolated (across), and the sample itself
 * where not (down: the CPU path repeats cosited chroma rows) */
__device__ static __forceinline__ void
chroma_phase (bool cosited, bool interpolated, int i, int *c0, int *w)
{
  *c0 = chroma_index (i, cosited);
  *w = cosited ? (interpolated && (i & 1) ? 2 : 0) : ((i & 1) ? 1 : 3);
}

/* Two chroma words weighted by quarters @w: (4 - w) a + w b */
__device__ static __forceinline__ unsigned int
chroma_lerp (unsigned int a, unsigned int b, int w)
{
  return (4 - w) * a + w * b;
}

/* The stand-in's 8-bit RGB of luma @yv and the chroma word @uv16 in
 * sixteenths: each sum exact in floats, the same float the CPU path's two
 * interpolations give */
__device__ static __forceinline__ int3
stand_in_rgb (const PresetParams & p, int yv, unsigned int uv16)
{
  float y = exact_float (yv);
  float u = __fmul_rn (exact_float (uv16 & 0xffff), 0.0625f);
  float v = __fmul_rn (exact_float (uv16 >> 16), 0.0625f);

  return make_int3 (stand_in_row (p.yuv_to_rgb, y, u, v),
      stand_in_row (p.yuv_to_rgb + 4, y, u, v),
      stand_in_row (p.yuv_to_rgb + 8, y, u, v));
}

__device__ static __forceinline__ int
luma_at (const PresetParams & p, int x, int y)
{
  return __ldg ((const unsigned char *) p.in_data[0] +
      (long long) y * p.in_stride[0] + x);
}

/* The 8-bit RGB of source pixel (x, y): packed RGB as it is, 4:2:0 as its
 * stand-in. The stand-in's chroma is two linear interpolations (across,
 * then down) at a quarter-sample phase (0, 1/4, 1/2 or 3/4), each exact in
 * floats: its value is a sum of the four samples in integer sixteenths,
 * the same float the CPU path's interpolations give, made with integers. */
template < int S > __device__ static int3
source_rgb (const PresetParams & p, int x, int y)
{
  if (S == SOURCE_PACKED) {
    const unsigned char *s = (const unsigned char *) p.in_data[0] +
        (long long) y * p.in_stride[0] + (long long) x * p.in_pixel_bytes;

    return make_int3 (__ldg (s + p.in_r), __ldg (s + p.in_g),
        __ldg (s + p.in_b));
  }

  int cw = (p.in_width + 1) / 2, ch = (p.in_height + 1) / 2;
  int cx0, wx, cy0, wy;

  chroma_phase ((p.chroma_site & CONVERT_CHROMA_H_COSITED) != 0, true, x,
      &cx0, &wx);
  chroma_phase ((p.chroma_site & CONVERT_CHROMA_V_COSITED) != 0, false, y,
      &cy0, &wy);
  int ca = clamp_int (cx0, 0, cw - 1), cb = clamp_int (cx0 + 1, 0, cw - 1);
  int ra = clamp_int (cy0, 0, ch - 1), rb = clamp_int (cy0 + 1, 0, ch - 1);

  return stand_in_rgb (p, luma_at (p, x, y),
      chroma_lerp (chroma_lerp (chroma_word < S > (p, ca, ra),
              chroma_word < S > (p, cb, ra), wx),
          chroma_lerp (chroma_word < S > (p, ca, rb),
              chroma_word < S > (p, cb, rb), wx), wy));
}

/* The 8-bit RGB of the four source pixels (x0, y0), (x1, y0), (x0, y1),
 * (x1, y1), x1 - x0 and y1 - y0 each 0 or 1, as source_rgb () makes each:
 * for 4:2:0 the four share their chroma samples (3x3 pairs at most, read
 * once) and the interpolations across. */
template < int S > __device__ static void
source_quad (const PresetParams & p, int x0, int x1, int y0, int y1,
    int3 q[4])
{
  if (S == SOURCE_PACKED) {
    q[0] = source_rgb < S > (p, x0, y0);
    q[1] = source_rgb < S > (p, x1, y0);
    q[2] = source_rgb < S > (p, x0, y1);
    q[3] = source_rgb < S > (p, x1, y1);
    return;
  }

  bool h_cosited = (p.chroma_site & CONVERT_CHROMA_H_COSITED) != 0;
  bool v_cosited = (p.chroma_site & CONVERT_CHROMA_V_COSITED) != 0;
  int cw = (p.in_width + 1) / 2, ch = (p.in_height + 1) / 2;
  int cx0, wx0, cx1, wx1, cy0, wy0, cy1, wy1, j;
  unsigned int across0[3], across1[3];

  chroma_phase (h_cosited, true, x0, &cx0, &wx0);
  chroma_phase (h_cosited, true, x1, &cx1, &wx1);
  chroma_phase (v_cosited, false, y0, &cy0, &wy0);
  chroma_phase (v_cosited, false, y1, &cy1, &wy1);
  int c0 = clamp_int (cx0, 0, cw - 1), c1 = clamp_int (cx0 + 1, 0, cw - 1);
  int c2 = clamp_int (cx0 + 2, 0, cw - 1);

  /* x1's first sample is x0's or the next (cx1 - cx0 is 0 or 1), and so
   * down */
  for (j = 0; j < 3; j++) {
    int r = clamp_int (cy0 + j, 0, ch - 1);
    unsigned int a = chroma_word < S > (p, c0, r);
    unsigned int b = chroma_word < S > (p, c1, r);
    unsigned int c = chroma_word < S > (p, c2, r);

    across0[j] = chroma_lerp (a, b, wx0);
    across1[j] = cx1 != cx0 ? chroma_lerp (b, c, wx1) :
        chroma_lerp (a, b, wx1);
  }

  bool down = cy1 != cy0;

  q[0] = stand_in_rgb (p, luma_at (p, x0, y0),
      chroma_lerp (across0[0], across0[1], wy0));
  q[1] = stand_in_rgb (p, luma_at (p, x1, y0),
      chroma_lerp (across1[0], across1[1], wy0));
  q[2] = stand_in_rgb (p, luma_at (p, x0, y1),
      down ? chroma_lerp (across0[1], across0[2], wy1) :
      chroma_lerp (across0[0], across0[1], wy1));
  q[3] = stand_in_rgb (p, luma_at (p, x1, y1),
      down ? chroma_lerp (across1[1], across1[2], wy1) :
      chroma_lerp (across1[0], across1[1], wy1));
}

/* Calls @f with the 8-bit RGB of source pixels x0 .. x0 + n - 1 of row
 * @y in turn, each as source_rgb () makes it: for 4:2:0 each chroma
 * column the strip reads is weighted down once for the whole strip (the
 * same integer sums, down before across). */
template < int S, typename F > __device__ static __forceinline__ void
source_strip (const PresetParams & p, int x0, int n, int y, F f)
{
  int i;

  if (S == SOURCE_PACKED) {
    for (i = 0; i < n; i++)
      f (source_rgb < S > (p, x0 + i, y));
    return;
  }

  bool h_cosited = (p.chroma_site & CONVERT_CHROMA_H_COSITED) != 0;
  int cw = (p.in_width + 1) / 2, ch = (p.in_height + 1) / 2;
  int cy0, wy, c, cx, wx;

  chroma_phase ((p.chroma_site & CONVERT_CHROMA_V_COSITED) != 0, false, y,
      &cy0, &wy);
  int ra = clamp_int (cy0, 0, ch - 1), rb = clamp_int (cy0 + 1, 0, ch - 1);
  auto down =[&](int col) {
    int k = clamp_int (col, 0, cw - 1);

    return chroma_lerp (chroma_word < S > (p, k, ra),
        chroma_word < S > (p, k, rb), wy);
  };

  chroma_phase (h_cosited, true, x0, &c, &wx);
  unsigned int a = down (c), b = down (c + 1);

  for (i = 0; i < n; i++) {
    int x = x0 + i;

    /* a pixel's first sample is its left neighbour's or the next */
    chroma_phase (h_cosited, true, x, &cx, &wx);
    if (cx != c) {
      a = b;
      b = down (cx + 1);
      c = cx;
    }
    f (stand_in_rgb (p, luma_at (p, x, y), chroma_lerp (a, b, wx)));
  }
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
template < int S > __device__ static float3
area_across (const PresetParams & p, int x, int y)
{
  const int *begin = preset_tab (p, p.x_area);
  const int *src = preset_tab (p, p.x_area_src);
  const float *alpha = (const float *) preset_tab (p, p.x_area_alpha);
  float3 b = make_float3 (0.0f, 0.0f, 0.0f);
  int k, end = __ldg (begin + x + 1);

  for (k = __ldg (begin + x); k < end; k++) {
    int3 s = source_rgb < S > (p, __ldg (src + k), y);
    float a = __ldg (alpha + k);

    b.x = __fadd_rn (b.x, __fmul_rn (exact_float (s.x), a));
    b.y = __fadd_rn (b.y, __fmul_rn (exact_float (s.y), a));
    b.z = __fadd_rn (b.z, __fmul_rn (exact_float (s.z), a));
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
template < int S > __device__ static int3
pil_across (const PresetParams & p, int x, int y)
{
  if (p.in_width == p.out_width)
    return source_rgb < S > (p, x, y);
  return pil_sum (p, p.x_first, p.x_n, p.x_w, p.x_stride, x,[&](int i) {
        return source_rgb < S > (p, i, y);}
  );
}

/* The picture's 8-bit RGB at (x, y) of the kinds of group G, a pixel on
 * its own */
template < int G, int S > __device__ static int3
preset_pixel (const PresetParams & p, int x, int y)
{
  if (G == PRESET_GROUP_NEAR) {
    if (p.kind == PRESET_NEAREST)
      return source_rgb < S > (p, __ldg (preset_tab (p, p.x_first) + x),
          __ldg (preset_tab (p, p.y_first) + y));
    return source_rgb < S > (p, x, y);
  }

  if (G == PRESET_GROUP_TWO_TAPS) {
    /* OpenCV's two taps across (weights in 1/2048), exact integer sums,
     * of two rows, then down */
    int4 rx = __ldg ((const int4 *) preset_tab (p, p.x_rec) + x);
    int4 ry = __ldg ((const int4 *) preset_tab (p, p.y_rec) + y);
    int sx = rx.x, a0 = rx.y, a1 = rx.z;
    int sy = ry.x, b0 = ry.y, b1 = ry.z;
    int3 q[4];

    if (a1 == 0 && b1 == 0) {
      /* one tap each way (an odd integer factor: every pixel): the
       * others' products are 0, and cv_down () drops a second row of
       * weight 0 whatever it holds */
      int3 s = source_rgb < S > (p, sx, clamp_int (sy, 0, p.in_height - 1));

      return make_int3 (cv_down (s.x * a0, 0, b0, 0),
          cv_down (s.y * a0, 0, b0, 0), cv_down (s.z * a0, 0, b0, 0));
    }
    source_quad < S > (p, sx, min (sx + 1, p.in_width - 1),
        clamp_int (sy, 0, p.in_height - 1), clamp_int (sy + 1, 0,
            p.in_height - 1), q);
    return make_int3 (cv_down (q[0].x * a0 + q[1].x * a1,
            q[2].x * a0 + q[3].x * a1, b0, b1),
        cv_down (q[0].y * a0 + q[1].y * a1, q[2].y * a0 + q[3].y * a1, b0,
            b1), cv_down (q[0].z * a0 + q[1].z * a1,
            q[2].z * a0 + q[3].z * a1, b0, b1));
  }

  if (G == PRESET_GROUP_AREA) {
    if (p.kind == PRESET_AREA_HALF) {
      int3 q[4];

      source_quad < S > (p, 2 * x, 2 * x + 1, 2 * y, 2 * y + 1, q);
      return make_int3 ((q[0].x + q[1].x + q[2].x + q[3].x + 2) >> 2,
          (q[0].y + q[1].y + q[2].y + q[3].y + 2) >> 2,
          (q[0].z + q[1].z + q[2].z + q[3].z + 2) >> 2);
    }
    if (p.kind == PRESET_AREA_INTEGER) {
      float scale = __fdiv_rn (1.0f, (float) (p.factor_x * p.factor_y));
      int3 sum = make_int3 (0, 0, 0);
      int j;

      for (j = 0; j < p.factor_y; j++)
        source_strip < S > (p, x * p.factor_x, p.factor_x,
            y * p.factor_y + j,[&](int3 s) {
              sum.x += s.x;
              sum.y += s.y;
              sum.z += s.z;
            });
      return make_int3 (clip8 (__float2int_rn (__fmul_rn ((float) sum.x,
                      scale))), clip8 (__float2int_rn (__fmul_rn ((float)
                      sum.y, scale))),
          clip8 (__float2int_rn (__fmul_rn ((float) sum.z, scale))));
    }

    const int *begin = preset_tab (p, p.y_area);
    const int *src = preset_tab (p, p.y_area_src);
    const float *alpha = (const float *) preset_tab (p, p.y_area_alpha);
    float3 sum = make_float3 (0.0f, 0.0f, 0.0f);
    int t, end = __ldg (begin + y + 1);

    for (t = __ldg (begin + y); t < end; t++) {
      float3 b = area_across < S > (p, x, __ldg (src + t));
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

  /* PRESET_GROUP_PIL */
  if (p.in_height == p.out_height)
    return pil_across < S > (p, x, y);
  return pil_sum (p, p.y_first, p.y_n, p.y_w, p.y_stride, y,[&](int i) {
        return pil_across < S > (p, x, i);}
  );
}

/* Stores the picture's 8-bit RGB @v at output pixel (x, y): packed output
 * straight from the integers, the others as their float stores (whose
 * rounding leaves an integer as it is) */
template < int OUT > __device__ static __forceinline__ void
store_rgb8 (const ConvertParams & c, int x, int y, int3 v)
{
  if (OUT == CONVERT_OUT_PACKED)
    store_packed_word (c, x, y, packed_word_u8 (c, v.x, v.y, v.z));
  else
    store_rgb < OUT > (c, x, y, make_float3 (exact_float (v.x),
            exact_float (v.y), exact_float (v.z)));
}

/* Output pixel (x, y) as the conversion kernels' RGB (unrounded, 0..255
 * scale) of it: the picture's 8-bit pixel as a float, the fill outside
 * the picture */
template < int G, int S > __device__ static __forceinline__ float3
output_rgb (const ConvertParams & c, const PresetParams & p, int x, int y)
{
  if (in_picture_x (c, x) && in_picture_y (c, y)) {
    int3 v = preset_pixel < G, S > (p, x - c.dest_x, y - c.dest_y);

    return make_float3 (exact_float (v.x), exact_float (v.y),
        exact_float (v.z));
  }
  return make_float3 (c.fill[0], c.fill[1], c.fill[2]);
}

/* Output pixel (x, y) of a block row whose picture pixels are its own:
 * the picture's pixel, or the fill */
template < int OUT, int G, int S > __device__ static __forceinline__ void
store_pixel (const ConvertParams & c, const PresetParams & p, int x, int y)
{
  if (in_picture_x (c, x) && in_picture_y (c, y))
    store_rgb8 < OUT > (c, x, y, preset_pixel < G, S > (p, x - c.dest_x,
            y - c.dest_y));
  else
    store_fill < OUT > (c, x, y, fill_values < OUT > (c));
}

__device__ static __forceinline__ unsigned int
pack_rgb8 (int3 v)
{
  return v.x | (v.y << 8) | (v.z << 16);
}

__device__ static __forceinline__ int3
unpack_rgb8 (unsigned int w)
{
  return make_int3 (w & 0xff, (w >> 8) & 0xff, w >> 16);
}

/* The span [*first, *end) of source indices that the taps of picture
 * index @j read along one axis (none where @j is outside the picture:
 * an empty span), the axis's FIRST and N at @first_t, @n_t; @same: the
 * axis keeps its size, a tap each */
__device__ static __forceinline__ void
pil_span (const PresetParams & p, bool inside, bool same, int first_t,
    int n_t, int j, int *first, int *end)
{
  *first = 0x7fffffff;
  *end = -1;
  if (!inside)
    return;
  if (same) {
    *first = j;
    *end = j + 1;
    return;
  }
  *first = __ldg (preset_tab (p, first_t) + j);
  *end = *first + __ldg (preset_tab (p, n_t) + j);
}

/* Pillow's kinds for packed, tensor and gray output: each block row of
 * PRESET_BLOCK_W x PRESET_BLOCK_H pixels makes, PRESET_BLOCK_H source rows
 * at a time, the stand-in of the source columns its taps read (@src), and
 * from it Pillow's 8-bit horizontal pass of its columns (@across, a row
 * per source row its taps read); then each thread sums its pixel's taps
 * down @across. A block row whose taps span more than the tile holds
 * makes its pixels one at a time. The same sums as pil_sum (), in the
 * same order: the same values. */
struct PilTile
{
  unsigned int src[PRESET_BLOCK_H][PRESET_PIL_TILE_W];
  unsigned int across[PRESET_PIL_TILE_ROWS][PRESET_BLOCK_W];
  int rows[2];
};

template < int OUT, int S > __device__ static void
resample_pil_tiled (const ConvertParams & c, const PresetParams & p,
    PilTile & tile)
{
  unsigned int (*src)[PRESET_PIL_TILE_W] = tile.src;
  unsigned int (*across)[PRESET_BLOCK_W] = tile.across;
  int *rows = tile.rows;
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * PRESET_BLOCK_W + tx, px = x - c.dest_x;
  bool same_w = p.in_width == p.out_width;
  bool same_h = p.in_height == p.out_height;
  bool col_in = x < c.out_width && in_picture_x (c, x);
  int sx0, sx1, k, y0;

  /* the block's source columns: every warp holds a row of the block's
   * columns, so each finds the span alone */
  pil_span (p, col_in, same_w, p.x_first, p.x_n, px, &sx0, &sx1);
  for (k = 16; k > 0; k >>= 1) {
    sx0 = min (sx0, __shfl_xor_sync (0xffffffffu, sx0, k));
    sx1 = max (sx1, __shfl_xor_sync (0xffffffffu, sx1, k));
  }

  for (y0 = blockIdx.y * PRESET_BLOCK_H; y0 < c.out_height;
      y0 += gridDim.y * PRESET_BLOCK_H) {
    int y = y0 + ty, py = y - c.dest_y;
    bool in = col_in && y < c.out_height && in_picture_y (c, y);
    int sy0, sy1, n_rows, r0;

    if (tx == 0 && ty == 0) {
      rows[0] = 0x7fffffff;
      rows[1] = -1;
    }
    __syncthreads ();
    pil_span (p, y < c.out_height && in_picture_y (c, y), same_h, p.y_first,
        p.y_n, py, &sy0, &sy1);
    if (tx == 0 && sy1 > sy0) {
      atomicMin (&rows[0], sy0);
      atomicMax (&rows[1], sy1);
    }
    __syncthreads ();
    sy0 = rows[0];
    n_rows = rows[1] - sy0;

    if (sx1 <= sx0 || n_rows <= 0) {
      /* no picture pixel in the block row */
      if (x < c.out_width && y < c.out_height)
        store_fill < OUT > (c, x, y, fill_values < OUT > (c));
    } else if (sx1 - sx0 > PRESET_PIL_TILE_W || n_rows > PRESET_PIL_TILE_ROWS) {
      if (x < c.out_width && y < c.out_height)
        store_pixel < OUT, PRESET_GROUP_PIL, S > (c, p, x, y);
    } else {
      for (r0 = 0; r0 < n_rows; r0 += PRESET_BLOCK_H) {
        int r = r0 + ty, i;

        if (r < n_rows)
          for (i = tx; i < sx1 - sx0; i += PRESET_BLOCK_W)
            src[ty][i] = pack_rgb8 (source_rgb < S > (p, sx0 + i, sy0 + r));
        __syncthreads ();
        if (r < n_rows && col_in)
          across[r][tx] = pack_rgb8 (same_w ?
              unpack_rgb8 (src[ty][px - sx0]) :
              pil_sum (p, p.x_first, p.x_n, p.x_w, p.x_stride, px,[&](int s) {
                    return unpack_rgb8 (src[ty][s - sx0]);}
              ));
        __syncthreads ();
      }
      if (in)
        store_rgb8 < OUT > (c, x, y, same_h ?
            unpack_rgb8 (across[py - sy0][tx]) :
            pil_sum (p, p.y_first, p.y_n, p.y_w, p.y_stride, py,[&](int s) {
                  return unpack_rgb8 (across[s - sy0][tx]);}
            ));
      else if (x < c.out_width && y < c.out_height)
        store_fill < OUT > (c, x, y, fill_values < OUT > (c));
    }
    /* the next block row writes the tile and the span again */
    __syncthreads ();
  }
}

/* Block (bx, by) makes PRESET_BLOCK_W x PRESET_BLOCK_H pixels of the
 * output, or for 4:2:0 output as many 2x2 blocks of pixels (a block's
 * chroma is the mean of its own pixels: no thread needs another's); block
 * rows loop past the grid's (65535 at most). */
template < int OUT, int G, int S > __device__ static void
resample_convert_from (const ConvertParams & c, const PresetParams & p)
{
  int x = blockIdx.x * PRESET_BLOCK_W + threadIdx.x;
  int y;

  if (OUT == CONVERT_OUT_YUV420) {
    if (2 * x >= c.out_width)
      return;
    for (y = blockIdx.y * PRESET_BLOCK_H + threadIdx.y; 2 * y < c.out_height;
        y += gridDim.y * PRESET_BLOCK_H)
      store_yuv420_block (c, x, y,[&] (int px, int py) {
            return output_rgb < G, S > (c, p, px, py);}
      );
    return;
  }

  if (x >= c.out_width)
    return;
  for (y = blockIdx.y * PRESET_BLOCK_H + threadIdx.y; y < c.out_height;
      y += gridDim.y * PRESET_BLOCK_H)
    store_pixel < OUT, G, S > (c, p, x, y);
}

/* Calls @f with the launch's way of reading its source, a SourceKind */
template < int S > struct SourceKind
{
  static const int value = S;
};

template < typename F > __device__ static __forceinline__ void
with_source_kind (const PresetParams & p, F f)
{
  if (p.in_format != CONVERT_FORMAT_NV12 && p.in_format != CONVERT_FORMAT_I420)
    f (SourceKind < SOURCE_PACKED > ());
  else if (p.in_format == CONVERT_FORMAT_NV12 &&
      ((p.in_data[1] | (unsigned int) p.in_stride[1]) & 1) == 0)
    f (SourceKind < SOURCE_PAIRS > ());
  else
    f (SourceKind < SOURCE_PLANES > ());
}

/* resample_convert_from () for the launch's source */
template < int OUT, int G > __device__ static void
resample_convert (const ConvertParams & c, const PresetParams & p)
{
  if (G == PRESET_GROUP_PIL && OUT != CONVERT_OUT_YUV420) {
    /* one tile whatever the source */
    __shared__ PilTile tile;

    with_source_kind (p,[&](auto s) {
          resample_pil_tiled < OUT, decltype (s)::value > (c, p, tile);}
    );
    return;
  }
  with_source_kind (p,[&](auto s) {
        resample_convert_from < OUT, G, decltype (s)::value > (c, p);}
  );
}

/* The blocks of 256 threads a multiprocessor keeps resident that each
 * kernel is built for, which sets its registers: the kernels wait on
 * memory, and the more warps a multiprocessor keeps resident the more of
 * it they hide; fewer registers than these spill. 4:2:0 output makes four
 * pixels a thread. At most the threads a multiprocessor holds: 2048 on
 * sm_80, sm_90 and sm_100, 1024 on sm_75, 1536 on the others. */
#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || \
    __CUDA_ARCH__ == 1030
#define RESAMPLE_SM_BLOCKS 8
#elif __CUDA_ARCH__ == 750
#define RESAMPLE_SM_BLOCKS 4
#else
#define RESAMPLE_SM_BLOCKS 6
#endif
#define RESAMPLE_WANT_BLOCKS(G, OUT, BATCH) ((OUT) == CONVERT_OUT_YUV420 ? 2 : \
    (G) == PRESET_GROUP_NEAR ? ((BATCH) ? 6 : 8) : \
    (G) == PRESET_GROUP_TWO_TAPS ? ((BATCH) ? 4 : 5) : \
    (G) == PRESET_GROUP_PIL && (BATCH) ? 3 : 4)
#define RESAMPLE_BOUNDS(G, OUT, BATCH) \
  __launch_bounds__ (PRESET_BLOCK_W * PRESET_BLOCK_H, \
      RESAMPLE_WANT_BLOCKS (G, OUT, BATCH) < RESAMPLE_SM_BLOCKS ? \
      RESAMPLE_WANT_BLOCKS (G, OUT, BATCH) : RESAMPLE_SM_BLOCKS)

#define RESAMPLE_KERNEL(family, name, IN, OUT, G) \
extern "C" __global__ void \
RESAMPLE_BOUNDS (G, OUT, 0) \
name (const PresetConvert a) \
{ \
  resample_convert < OUT, G > (a.c, a.p); \
  signal_done (a.c); \
}

GST_CUDA_CACHE_RESAMPLE_KERNELS (RESAMPLE_KERNEL)

/* the same, a slot of a batch per z index (ConvertBatch over a table of
 * PresetBatchSlot) */
#define RESAMPLE_BATCH_KERNEL(family, name, IN, OUT, G) \
extern "C" __global__ void \
RESAMPLE_BOUNDS (G, OUT, 1) \
name (const ConvertBatch b) \
{ \
  const PresetBatchSlot & s = \
      ((const PresetBatchSlot *) b.slots)[blockIdx.z]; \
  if (batch_block_in_slot (s.slot)) \
    resample_convert < OUT, G > (s.slot.params, s.preset); \
  signal_done_to (b.done_counter, b.done_flag, b.done_seq); \
}

GST_CUDA_CACHE_RESAMPLE_BATCH_KERNELS (RESAMPLE_BATCH_KERNEL)
