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
 * A thread makes an output pixel (a 2x2 block of 4:2:0 output) in each
 * of PRESET_ROWS rows of blocks, reading what its column needs (its
 * table record) once, but for Pillow's kinds, whose taps overlap: there
 * a block makes its source tile's stand-in and Pillow's 8-bit horizontal
 * pass once in shared memory, and each thread the vertical pass of its
 * pixel. */

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

/* Where a pixel's taps read the source across: the taps' source columns
 * @x0 and @x1 (x1 - x0 is 0 or 1; packed RGB: their pixels' byte
 * offsets), and for 4:2:0 the clamped chroma columns @c0, @c1, @c2 from
 * x0's first sample on, x0's and x1's chroma weights in quarters, and
 * whether x1's first sample is @c1 (@shift) */
struct ColTaps
{
  int x0, x1;
  int c0, c1, c2;
  int wx0, wx1;
  bool shift;
};

/* The same down (the pixels of a warp share it): the taps' source rows
 * @l0, @l1 (luma, or packed RGB), the chroma rows from y0's first sample
 * on (@u, and @v where the chroma is in two planes), y0's and y1's
 * chroma weights in quarters, and whether y1's first sample is the
 * second row (@down); OpenCV's two taps keep their weights @b0, @b1. */
struct RowTaps
{
  const unsigned char *l0, *l1;
  const unsigned char *u[3], *v[3];
  int wy0, wy1;
  bool down;
  int b0, b1;
};

/* Source columns @xa and @xb (xb - xa is 0 or 1) into @t */
template < int S > __device__ static __forceinline__ void
col_source (const PresetParams & p, int xa, int xb, ColTaps & t)
{
  if (S == SOURCE_PACKED) {
    t.x0 = xa * p.in_pixel_bytes;
    t.x1 = xb * p.in_pixel_bytes;
    return;
  }

  bool cosited = (p.chroma_site & CONVERT_CHROMA_H_COSITED) != 0;
  int cw = (p.in_width + 1) / 2, ca, cb;

  t.x0 = xa;
  t.x1 = xb;
  chroma_phase (cosited, true, xa, &ca, &t.wx0);
  chroma_phase (cosited, true, xb, &cb, &t.wx1);
  t.c0 = clamp_int (ca, 0, cw - 1);
  t.c1 = clamp_int (ca + 1, 0, cw - 1);
  t.c2 = clamp_int (ca + 2, 0, cw - 1);
  t.shift = cb != ca;
}

/* Source rows @ya and @yb (yb - ya is 0 or 1) into @t */
template < int S > __device__ static __forceinline__ void
row_source (const PresetParams & p, int ya, int yb, RowTaps & t)
{
  const unsigned char *l = (const unsigned char *) p.in_data[0];
  int j;

  t.l0 = l + (long long) ya * p.in_stride[0];
  t.l1 = l + (long long) yb * p.in_stride[0];
  if (S == SOURCE_PACKED)
    return;

  bool cosited = (p.chroma_site & CONVERT_CHROMA_V_COSITED) != 0;
  int ch = (p.in_height + 1) / 2, ra, rb;

  chroma_phase (cosited, false, ya, &ra, &t.wy0);
  chroma_phase (cosited, false, yb, &rb, &t.wy1);
  t.down = rb != ra;
  for (j = 0; j < 3; j++) {
    int r = clamp_int (ra + j, 0, ch - 1);

    t.u[j] = (const unsigned char *) p.in_data[1] +
        (long long) r * p.in_stride[1];
    t.v[j] = (const unsigned char *) p.in_data[2] +
        (long long) r * p.in_stride[2];
  }
}

/* One 4:2:0 chroma sample pair, column @cx of the chroma row @u (and @v
 * where the chroma is in two planes), as one word: U in its low half, V
 * in its high half. Sums of such words with small non-negative weights
 * are the two sums side by side (each stays below 2^16). */
template < int S > __device__ static __forceinline__ unsigned int
chroma_word (const PresetParams & p, const unsigned char *u,
    const unsigned char *v, int cx)
{
  if (S == SOURCE_PAIRS)
    return __byte_perm (__ldg ((const unsigned short *) u + cx), 0, 0x4140);
  if (p.in_format == CONVERT_FORMAT_NV12)
    return __ldg (u + 2 * cx) | ((unsigned int) __ldg (u + 2 * cx + 1) << 16);
  return __ldg (u + cx) | ((unsigned int) __ldg (v + cx) << 16);
}

/* Chroma row @j's pair at column @cx */
template < int S > __device__ static __forceinline__ unsigned int
chroma_of (const PresetParams & p, const RowTaps & rt, int j, int cx)
{
  return chroma_word < S > (p, rt.u[j], rt.v[j], cx);
}

/* The packed RGB pixel at byte offset @off of source row @row */
__device__ static __forceinline__ int3
packed_rgb (const PresetParams & p, const unsigned char *row, int off)
{
  return make_int3 (__ldg (row + off + p.in_r), __ldg (row + off + p.in_g),
      __ldg (row + off + p.in_b));
}

/* The 8-bit RGB of source pixel (x0, y0) of @ct and @rt: packed RGB as it
 * is, 4:2:0 as its stand-in. The stand-in's chroma is two linear
 * interpolations (across, then down) at a quarter-sample phase (0, 1/4,
 * 1/2 or 3/4), each exact in floats: its value is a sum of the four
 * samples in integer sixteenths, the same float the CPU path's
 * interpolations give, made with integers. */
template < int S > __device__ static __forceinline__ int3
tap_rgb (const PresetParams & p, const ColTaps & ct, const RowTaps & rt)
{
  if (S == SOURCE_PACKED)
    return packed_rgb (p, rt.l0, ct.x0);
  return stand_in_rgb (p, __ldg (rt.l0 + ct.x0),
      chroma_lerp (chroma_lerp (chroma_of < S > (p, rt, 0, ct.c0),
              chroma_of < S > (p, rt, 0, ct.c1), ct.wx0),
          chroma_lerp (chroma_of < S > (p, rt, 1, ct.c0),
              chroma_of < S > (p, rt, 1, ct.c1), ct.wx0), rt.wy0));
}

/* The 8-bit RGB of source pixel (x, y) */
template < int S > __device__ static int3
source_rgb (const PresetParams & p, int x, int y)
{
  ColTaps ct;
  RowTaps rt;

  col_source < S > (p, x, x, ct);
  row_source < S > (p, y, y, rt);
  return tap_rgb < S > (p, ct, rt);
}

/* source_quad () of 4:2:0: the four share their chroma samples (3x3
 * pairs at most, read once) and the interpolations across */
template < int S > __device__ static __forceinline__ void
stand_in_quad (const PresetParams & p, const ColTaps & ct, const RowTaps & rt,
    int3 q[4])
{
  unsigned int across0[3], across1[3];
  int j;

  for (j = 0; j < 3; j++) {
    unsigned int a = chroma_of < S > (p, rt, j, ct.c0);
    unsigned int b = chroma_of < S > (p, rt, j, ct.c1);
    unsigned int c = chroma_of < S > (p, rt, j, ct.c2);

    across0[j] = chroma_lerp (a, b, ct.wx0);
    across1[j] = ct.shift ? chroma_lerp (b, c, ct.wx1) :
        chroma_lerp (a, b, ct.wx1);
  }

  q[0] = stand_in_rgb (p, __ldg (rt.l0 + ct.x0),
      chroma_lerp (across0[0], across0[1], rt.wy0));
  q[1] = stand_in_rgb (p, __ldg (rt.l0 + ct.x1),
      chroma_lerp (across1[0], across1[1], rt.wy0));
  q[2] = stand_in_rgb (p, __ldg (rt.l1 + ct.x0),
      rt.down ? chroma_lerp (across0[1], across0[2], rt.wy1) :
      chroma_lerp (across0[0], across0[1], rt.wy1));
  q[3] = stand_in_rgb (p, __ldg (rt.l1 + ct.x1),
      rt.down ? chroma_lerp (across1[1], across1[2], rt.wy1) :
      chroma_lerp (across1[0], across1[1], rt.wy1));
}

/* The 8-bit RGB of the four source pixels (x0, y0), (x1, y0), (x0, y1),
 * (x1, y1) of @ct and @rt, as tap_rgb () makes each */
template < int S > __device__ static void
source_quad (const PresetParams & p, const ColTaps & ct, const RowTaps & rt,
    int3 q[4])
{
  if (S == SOURCE_PACKED) {
    q[0] = packed_rgb (p, rt.l0, ct.x0);
    q[1] = packed_rgb (p, rt.l0, ct.x1);
    q[2] = packed_rgb (p, rt.l1, ct.x0);
    q[3] = packed_rgb (p, rt.l1, ct.x1);
  } else {
    stand_in_quad < S > (p, ct, rt, q);
  }
}

/* Calls @f with i and the 8-bit RGB of source pixel x0 + i of row @y,
 * for i from 0 to n - 1 in turn, each as source_rgb () makes it: for
 * 4:2:0 each chroma column the strip reads is weighted down once for the
 * whole strip (the same integer sums, down before across). */
template < int S, typename F > __device__ static __forceinline__ void
source_strip (const PresetParams & p, int x0, int n, int y, F f)
{
  RowTaps rt;
  int i;

  row_source < S > (p, y, y, rt);
  if (S == SOURCE_PACKED) {
    for (i = 0; i < n; i++)
      f (i, packed_rgb (p, rt.l0, (x0 + i) * p.in_pixel_bytes));
    return;
  }

  bool h_cosited = (p.chroma_site & CONVERT_CHROMA_H_COSITED) != 0;
  int cw = (p.in_width + 1) / 2;
  int c, cx, wx;
  auto down =[&](int col) {
    int k = clamp_int (col, 0, cw - 1);

    return chroma_lerp (chroma_of < S > (p, rt, 0, k),
        chroma_of < S > (p, rt, 1, k), rt.wy0);
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
    f (i, stand_in_rgb (p, __ldg (rt.l0 + x), chroma_lerp (a, b, wx)));
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

/* What a thread reads once for the pixels of its column, picture column
 * @px, that it makes in turn: for the kinds of groups NEAR and TWO_TAPS,
 * the first tap's source column @sx, and OpenCV's two weights @a0, @a1
 * (one 16-byte record, convert-params.h's REC). Little: what is held
 * through a thread's loop takes registers from every row's. */
struct PresetCol
{
  int px, sx, a0, a1;
};

template < int G > __device__ static __forceinline__ PresetCol
preset_col (const PresetParams & p, int px)
{
  PresetCol c;

  c.px = c.sx = px;
  c.a0 = c.a1 = 0;
  if (G == PRESET_GROUP_NEAR && p.kind == PRESET_NEAREST) {
    c.sx = __ldg (preset_tab (p, p.x_first) + px);
  } else if (G == PRESET_GROUP_TWO_TAPS) {
    int4 r = __ldg ((const int4 *) preset_tab (p, p.x_rec) + px);

    c.sx = r.x;
    c.a0 = r.y;
    c.a1 = r.z;
  }
  return c;
}

/* Where the taps of picture row @py read the source, for the kinds of
 * groups NEAR and TWO_TAPS (OpenCV's two taps: one 16-byte record) */
template < int G, int S > __device__ static __forceinline__ RowTaps
preset_row (const PresetParams & p, int py)
{
  RowTaps t;

  if (G == PRESET_GROUP_NEAR) {
    int sy = p.kind == PRESET_NEAREST ?
        __ldg (preset_tab (p, p.y_first) + py) : py;

    row_source < S > (p, sy, sy, t);
  } else {
    int4 r = __ldg ((const int4 *) preset_tab (p, p.y_rec) + py);

    t.b0 = r.y;
    t.b1 = r.z;
    row_source < S > (p, clamp_int (r.x, 0, p.in_height - 1),
        clamp_int (r.x + 1, 0, p.in_height - 1), t);
  }
  return t;
}

/* The picture's 8-bit RGB at picture column @pc (preset_col ()), row @y,
 * of the kinds of group G */
template < int G, int S > __device__ static int3
preset_at (const PresetParams & p, const PresetCol & pc, int y)
{
  ColTaps ct;

  if (G == PRESET_GROUP_NEAR) {
    col_source < S > (p, pc.sx, pc.sx, ct);
    return tap_rgb < S > (p, ct, preset_row < G, S > (p, y));
  }

  if (G == PRESET_GROUP_TWO_TAPS) {
    /* OpenCV's two taps across (weights in 1/2048), exact integer sums,
     * of two rows, then down */
    RowTaps rt = preset_row < G, S > (p, y);
    int a0 = pc.a0, a1 = pc.a1, b0 = rt.b0, b1 = rt.b1;
    int3 q[4];

    col_source < S > (p, pc.sx, min (pc.sx + 1, p.in_width - 1), ct);

    if (a1 == 0 && b1 == 0) {
      /* one tap each way (an odd integer factor: every pixel): the
       * others' products are 0, and cv_down () drops a second row of
       * weight 0 whatever it holds */
      int3 s = tap_rgb < S > (p, ct, rt);

      return make_int3 (cv_down (s.x * a0, 0, b0, 0),
          cv_down (s.y * a0, 0, b0, 0), cv_down (s.z * a0, 0, b0, 0));
    }
    source_quad < S > (p, ct, rt, q);
    return make_int3 (cv_down (q[0].x * a0 + q[1].x * a1,
            q[2].x * a0 + q[3].x * a1, b0, b1),
        cv_down (q[0].y * a0 + q[1].y * a1, q[2].y * a0 + q[3].y * a1, b0,
            b1), cv_down (q[0].z * a0 + q[1].z * a1,
            q[2].z * a0 + q[3].z * a1, b0, b1));
  }

  int x = pc.px;

  if (G == PRESET_GROUP_AREA) {
    if (p.kind == PRESET_AREA_HALF) {
      ColTaps c2;
      RowTaps r2;
      int3 q[4];

      col_source < S > (p, 2 * x, 2 * x + 1, c2);
      row_source < S > (p, 2 * y, 2 * y + 1, r2);
      source_quad < S > (p, c2, r2, q);
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
            y * p.factor_y + j,[&](int, int3 s) {
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

/* The picture's 8-bit RGB at (x, y) of the kinds of group G, a pixel on
 * its own */
template < int G, int S > __device__ static __forceinline__ int3
preset_pixel (const PresetParams & p, int x, int y)
{
  return preset_at < G, S > (p, preset_col < G > (p, x), y);
}

/* normalise () of the 8-bit value @v, whose to_u8 () is @v itself */
__device__ static __forceinline__ float
normalise_u8 (const ConvertParams & c, int v, int k)
{
  return __fadd_rn (__fmul_rn (exact_float (v), c.mul[k]), c.add[k]);
}

/* Stores the picture's 8-bit RGB @v at output pixel (x, y): packed output
 * and tensors straight from the integers (tensor_values ()'s channels),
 * gray as its float store (whose rounding leaves an integer as it is) */
template < int OUT > __device__ static __forceinline__ void
store_rgb8 (const ConvertParams & c, int x, int y, int3 v)
{
  if (OUT == CONVERT_OUT_PACKED)
    store_packed_word (c, x, y, packed_word_u8 (c, v.x, v.y, v.z));
  else if (OUT == CONVERT_OUT_TENSOR)
    store_tensor_values (c, x, y, make_float3 (normalise_u8 (c,
                c.bgr ? v.z : v.x, 0), normalise_u8 (c, v.y, 1),
            normalise_u8 (c, c.bgr ? v.x : v.z, 2)));
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
 * at a time, the stand-in of the source columns its taps read (@src; a
 * thread a strip of them, source_strip ()), and from it Pillow's 8-bit
 * horizontal pass of its columns (@across, a row per source row its taps
 * read); then each thread sums its pixel's taps down @across. A block
 * row whose taps span more than the tile holds makes its pixels one at a
 * time. The same sums as pil_sum (), in the same order: the same
 * values. */
struct PilTile
{
  unsigned int src[PRESET_BLOCK_H][PRESET_PIL_TILE_W];
  unsigned int across[PRESET_PIL_TILE_ROWS][PRESET_BLOCK_W];
  int rows[2];
};

template < int OUT, int S > __device__ static void
resample_pil_tiled (const ConvertParams & c, const PresetParams & p,
    int grid_h, PilTile & tile)
{
  unsigned int (*src)[PRESET_PIL_TILE_W] = tile.src;
  unsigned int (*across)[PRESET_BLOCK_W] = tile.across;
  int *rows = tile.rows;
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * PRESET_BLOCK_W + tx, px = x - c.dest_x;
  bool same_w = p.in_width == p.out_width;
  bool same_h = p.in_height == p.out_height;
  bool col_in = x < c.out_width && in_picture_x (c, x);
  int sx0, sx1, k, y0, strip;

  /* the block's source columns: every warp holds a row of the block's
   * columns, so each finds the span alone; a thread makes a strip of
   * them side by side, which share their chroma */
  pil_span (p, col_in, same_w, p.x_first, p.x_n, px, &sx0, &sx1);
  for (k = 16; k > 0; k >>= 1) {
    sx0 = min (sx0, __shfl_xor_sync (0xffffffffu, sx0, k));
    sx1 = max (sx1, __shfl_xor_sync (0xffffffffu, sx1, k));
  }
  strip = (sx1 - sx0 + PRESET_BLOCK_W - 1) / PRESET_BLOCK_W;

  for (y0 = blockIdx.y * PRESET_BLOCK_H; y0 < c.out_height;
      y0 += grid_h * PRESET_BLOCK_H) {
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

        if (r < n_rows && (i = tx * strip) < sx1 - sx0)
          source_strip < S > (p, sx0 + i, min (strip, sx1 - sx0 - i),
              sy0 + r,[&](int k, int3 s) {
                src[ty][i + k] = pack_rgb8 (s);
              });
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
 * rows loop past the grid's @grid_h (a batch's slot's own; the plan
 * makes a grid of a PRESET_ROWS-th of the rows, 65535 at most). */
template < int OUT, int G, int S > __device__ static void
resample_convert_from (const ConvertParams & c, const PresetParams & p,
    int grid_h)
{
  int x = blockIdx.x * PRESET_BLOCK_W + threadIdx.x;
  int y;

  if (OUT == CONVERT_OUT_YUV420) {
    if (2 * x >= c.out_width)
      return;
    for (y = blockIdx.y * PRESET_BLOCK_H + threadIdx.y; 2 * y < c.out_height;
        y += grid_h * PRESET_BLOCK_H)
      store_yuv420_block (c, x, y,[&] (int px, int py) {
            return output_rgb < G, S > (c, p, px, py);}
      );
    return;
  }

  if (x >= c.out_width)
    return;

  /* the column's share of its pixels' reading, once for all its rows (a
   * column of the bars takes the picture's first column's, unused) */
  bool col_in = in_picture_x (c, x);
  PresetCol pc = preset_col < G > (p, col_in ? x - c.dest_x : 0);

#pragma unroll 1
  for (y = blockIdx.y * PRESET_BLOCK_H + threadIdx.y; y < c.out_height;
      y += grid_h * PRESET_BLOCK_H) {
    if (col_in && in_picture_y (c, y)) {
      /* hidden from the compiler for the row: it would otherwise make
       * the row's 64-bit addresses of the column once before the loop,
       * more than the registers hold (spilled) */
      asm volatile ("":"+r" (pc.sx));
      store_rgb8 < OUT > (c, x, y, preset_at < G, S > (p, pc,
              y - c.dest_y));
    } else {
      store_fill < OUT > (c, x, y, fill_values < OUT > (c));
    }
  }
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
resample_convert (const ConvertParams & c, const PresetParams & p, int grid_h)
{
  if (G == PRESET_GROUP_PIL && OUT != CONVERT_OUT_YUV420) {
    /* one tile whatever the source */
    __shared__ PilTile tile;

    with_source_kind (p,[&](auto s) {
          resample_pil_tiled < OUT, decltype (s)::value > (c, p, grid_h,
              tile);}
    );
    return;
  }
  with_source_kind (p,[&](auto s) {
        resample_convert_from < OUT, G, decltype (s)::value > (c, p,
            grid_h);}
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
  resample_convert < OUT, G > (a.c, a.p, gridDim.y); \
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
    resample_convert < OUT, G > (s.slot.params, s.preset, s.slot.grid_h); \
  signal_done_to (b.done_counter, b.done_flag, b.done_seq); \
}

GST_CUDA_CACHE_RESAMPLE_BATCH_KERNELS (RESAMPLE_BATCH_KERNEL)
