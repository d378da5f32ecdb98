/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The tiled kernels of cudacacheconvert (convert_tile): a block makes
 * CONVERT_TILE_W x tile_h output pixels. It filters each input row its
 * tile needs horizontally once, into shared memory (for YUV input: Y per
 * luma row, U and V per chroma row, as the separable filter and the linear
 * chroma upsampling commute), then filters those vertically and converts
 * to RGB once per output pixel. Every input pixel is read about twice (the
 * LINEAR taps overlap by half) instead of n_taps_x * n_taps_y times. The
 * host picks tile_h so that the rows fit in 48 KiB of shared memory. */

#include "convert-common.cuh"

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
  const bool yuv = IN == CONVERT_IN_NV12 || IN == CONVERT_IN_I420;
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
  if (IN == CONVERT_IN_I420)
    v.init ((const unsigned char *) p.in_data[2], p.in_stride[2], cy0, cw0,
        cn, ((cb1 + 15) >> 4) - cw0, dst_v, p.tile_chroma_pitch,
        p.stage_chroma_shift, tid);
  y.load ();
  if (yuv)
    u.load ();
  if (IN == CONVERT_IN_I420)
    v.load ();
  y.store ();
  if (yuv)
    u.store ();
  if (IN == CONVERT_IN_I420)
    v.store ();
  y.rest (tid);
  if (yuv)
    u.rest (tid);
  if (IN == CONVERT_IN_I420)
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

/* One block's tile, in one function: its layout in shared memory, the
 * taps, the staging, the conversion before scaling, the horizontal pass,
 * the vertical pass and the stores. It stays whole because the measured
 * machine code does: split into inlined device functions, nvcc optimises
 * each one on its own before inlining it, and every tiled kernel's code
 * changed (a layout struct or scalar arguments alike; only the border
 * fill and the 4:2:0 stores came out unchanged). */
template < int IN, int OUT > __device__ static void
convert_tile (const ConvertParams & p)
{
  extern __shared__ float smem[];
  const int tw = CONVERT_TILE_W;
  const bool yuv = IN == CONVERT_IN_NV12 || IN == CONVERT_IN_I420;
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
  int floats = (int) (rgb - smem) +
      (OUT == CONVERT_OUT_YUV420 ? 3 * th * tw : 0);
  unsigned char *raw = (unsigned char *) (smem + ((floats + 3) & ~3));
  unsigned char *raw_u = raw + p.tile_rows * p.tile_pitch;
  unsigned char *raw_v = raw_u + p.tile_chroma_rows * p.tile_chroma_pitch;
  /* converted input, cf: tile_rows of tile_pitch RGBx pixels */
  unsigned int *conv = (unsigned int *) (raw_v +
      (IN == CONVERT_IN_I420 ? p.tile_chroma_rows * p.tile_chroma_pitch : 0));
  int pc0 = max (ox0, p.dest_x);
  int pc1 = min (ox0 + tw, p.dest_x + p.dest_width);
  int pr0 = max (oy0, p.dest_y);
  int pr1 = min (oy0 + th, p.dest_y + p.dest_height);
  bool picture = pc0 < pc1 && pr0 < pr1;
  int ry0 = 0, nrows = 0, cr0 = 0, ncrows = 0;
  unsigned int q[CONVERT_FIXED_TAPS / 2], cq[CONVERT_FIXED_TAPS / 2];
  int o;

  /* a tile of the border only: the fill colour, without the taps */
  if (!picture && OUT != CONVERT_OUT_YUV420) {
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
        /* bytes per chroma sample */
        int bpc = IN == CONVERT_IN_NV12 ? 2 : 1;

        stage_tile < IN > (p, ry0, nrows, cx0, min (cx1 + 1,
                cx0 + p.tile_pitch - 30), raw, cr0, ncrows, c0 * bpc,
            min ((c1 + 1) * bpc, c0 * bpc + p.tile_chroma_pitch - 30), raw_u,
            IN == CONVERT_IN_I420 ? raw_v : NULL, &base, &cbase);
      } else {
        int bpp = IN == CONVERT_IN_RGB4 ? 4 : 3;

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
          int c0 = clamp_int (cx, 0, cw - 1);
          int c1 = clamp_int (cx + 1, 0, cw - 1);
          float u00, u01, u10, u11, v00, v01, v10, v11, u, v;
          float3 c;

          if (IN == CONVERT_IN_NV12) {
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
        off = r * p.tile_chroma_pitch - cbase +
            (IN == CONVERT_IN_NV12 ? 2 * cs : cs);
        dst = h1 + r * tw + tx;
        for (; r < ncrows; r += CONVERT_TILE_THREADS_Y) {
          float2 uv;

          if (IN == CONVERT_IN_NV12) {
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
                } else if (IN == CONVERT_IN_RGB4) {
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

              if (IN == CONVERT_IN_NV12) {
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

    if (OUT != CONVERT_OUT_YUV420) {
      store_rgb < OUT > (p, ox, oy, c);
    } else {
      rgb[(o * tw + tx) * 3] = c.x;
      rgb[(o * tw + tx) * 3 + 1] = c.y;
      rgb[(o * tw + tx) * 3 + 2] = c.z;
    }
  }

  if (OUT == CONVERT_OUT_YUV420) {
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

#define TILE_KERNEL(family, name, IN, OUT, taps) \
extern "C" __global__ void __launch_bounds__ (CONVERT_TILE_W * \
    CONVERT_TILE_THREADS_Y, TILE_MIN_BLOCKS) \
name (const ConvertParams p) \
{ \
  convert_tile < IN, OUT > (p); \
  signal_done (p); \
}

GST_CUDA_CACHE_TILE_KERNELS (TILE_KERNEL)

/* the same, a slot of a batch per z index (ConvertBatch) */
#define TILE_BATCH_KERNEL(family, name, IN, OUT, taps) \
extern "C" __global__ void __launch_bounds__ (CONVERT_TILE_W * \
    CONVERT_TILE_THREADS_Y, TILE_MIN_BLOCKS) \
name (const ConvertBatch b) \
{ \
  const ConvertBatchSlot & s = batch_slot (b); \
  if (batch_block_in_slot (s)) \
    convert_tile < IN, OUT > (s.params); \
  signal_done_to (b.done_counter, b.done_flag, b.done_seq); \
}

GST_CUDA_CACHE_TILE_BATCH_KERNELS (TILE_BATCH_KERNEL)
