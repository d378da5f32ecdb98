/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The LINEAR method on the CPU (gstcudacachelinear-private.h): the tiled
 * kernel's arithmetic (kernels/convert-tile.cu) in C, from the same plan
 * and the same table of taps, so that the CPU path is the definition the
 * kernels follow rather than GstVideoConverter's 8-bit passes (up to 83
 * levels apart at sharp chroma edges). Separable: each input row the
 * output needs is filtered across once (4:2:0 input as Y, U and V, or, as
 * the kernels do where the picture grows, converted to 8-bit RGB first),
 * then the output rows down and converted. Each thread makes a slice of
 * output rows, keeping the last rows it filtered across in a ring.
 *
 * Operation for operation as the kernels: the same weights, the sums in
 * the same order, the fixed-point sums of 4:2:0 input exact; only nvcc's
 * fused multiply-adds round differently (this file is built without
 * contraction), so that a value lands at most a level from the kernels'
 * where it falls near a half.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcudacachelinear-private.h"
#include "gstcudacacheplan-private.h"

/* One thread's slice of rows of gst_cuda_cache_parallel_rows () */
typedef struct
{
  GstCudaCacheRowsFunc func;
  gpointer data;
  gint y0, y1;
} Slice;

static gpointer
slice_run (gpointer data)
{
  Slice *s = data;

  s->func (s->data, s->y0, s->y1);
  return NULL;
}

void
gst_cuda_cache_parallel_rows (GstCudaCacheRowsFunc func, gpointer data,
    gint rows, gint align, guint threads)
{
  Slice slices[16];
  GThread *t[16];
  guint n = CLAMP (threads, 1, G_N_ELEMENTS (slices)), i;
  gint units = (rows + align - 1) / align;

  /* a few rows are not worth a thread */
  n = MIN (n, (guint) MAX (rows / 16, 1));
  for (i = 0; i < n; i++) {
    slices[i].func = func;
    slices[i].data = data;
    slices[i].y0 = MIN ((gint) ((gint64) units * i / n) * align, rows);
    slices[i].y1 = MIN ((gint) ((gint64) units * (i + 1) / n) * align, rows);
  }
  for (i = 1; i < n; i++)
    t[i] = g_thread_new ("cudacache-rows", slice_run, &slices[i]);
  slice_run (&slices[0]);
  for (i = 1; i < n; i++)
    g_thread_join (t[i]);
}

typedef enum
{
  OUT_PACKED,
  OUT_YUV420,
  OUT_RGB_ROWS,
} OutKind;

struct _GstCudaCacheLinear
{
  ConvertParams p;
  GArray *table;
  OutKind out;
  gboolean nv12_out;
  gboolean yuv;                 /* 4:2:0 input */
  gboolean yuv_h;               /* filtered as Y, U, V (not converted first) */
  gint out_alpha;               /* packed 4-byte output: the 4th byte's offset */

  /* the table's arrays (kernels/convert-params.h) */
  const gint32 *x_start, *x_cstart, *y_start, *y_cstart;
  const gfloat *x_w, *x_cw, *y_w, *y_cw;
  const guint32 *x_q, *x_cq;
};

GstCudaCacheLinear *
gst_cuda_cache_linear_new (const GstCudaCacheConvertParams * params,
    GError ** error)
{
  GstCudaCacheLinear *l = g_new0 (GstCudaCacheLinear, 1);
  GstCudaCacheConvertParams plan_params = *params;
  ConvertParams *p = &l->p;
  gboolean lq;
  gint inc;

  /* rows handed on are planned as the RGB a tensor is made from: the taps
   * the kernels take for a tensor */
  if (params->out_format == GST_VIDEO_FORMAT_UNKNOWN) {
    l->out = OUT_RGB_ROWS;
    plan_params.channels = 3;
  } else if (params->out_format == GST_VIDEO_FORMAT_NV12 ||
      params->out_format == GST_VIDEO_FORMAT_I420) {
    l->out = OUT_YUV420;
    l->nv12_out = params->out_format == GST_VIDEO_FORMAT_NV12;
  } else {
    l->out = OUT_PACKED;
  }
  if (!gst_cuda_cache_plan_params (&plan_params, p, &lq, &inc)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "the CPU path cannot convert %s of %dx%d to %s of %dx%d",
        gst_video_format_to_string (params->in_format), params->in_width,
        params->in_height, params->out_format == GST_VIDEO_FORMAT_UNKNOWN ?
        "RGB" : gst_video_format_to_string (params->out_format),
        params->out_width, params->out_height);
    g_free (l);
    return NULL;
  }
  l->table = gst_cuda_cache_plan_build_table (p, lq, inc);
  l->yuv = gst_cuda_cache_plan_is_yuv (p->in_format);
  l->yuv_h = l->yuv && !p->convert_first;
  if (l->out == OUT_PACKED)
    l->out_alpha = 6 - p->out_r - p->out_g - p->out_b;

#define TAB(t) (&g_array_index (l->table, guint32, p->tab[t]))
  l->x_start = (const gint32 *) TAB (TAB_X_START);
  l->x_w = (const gfloat *) TAB (TAB_X_W);
  l->y_start = (const gint32 *) TAB (TAB_Y_START);
  l->y_w = (const gfloat *) TAB (TAB_Y_W);
  if (l->yuv) {
    l->x_cstart = (const gint32 *) TAB (TAB_X_CSTART);
    l->x_cw = (const gfloat *) TAB (TAB_X_CW);
    l->y_cstart = (const gint32 *) TAB (TAB_Y_CSTART);
    l->y_cw = (const gfloat *) TAB (TAB_Y_CW);
  }
  if (p->x_fixed) {
    l->x_q = TAB (TAB_X_Q);
    l->x_cq = TAB (TAB_X_CQ);
  }
#undef TAB

  return l;
}

void
gst_cuda_cache_linear_free (GstCudaCacheLinear * l)
{
  if (!l)
    return;
  g_array_unref (l->table);
  g_free (l);
}

/* One frame's conversion, as the threads share it */
typedef struct
{
  const GstCudaCacheLinear *l;
  const guint8 *in[3];
  gint in_stride[3];
  guint8 *out[3];
  gint out_stride[3];
  GstCudaCacheLinearRows rows;
  gpointer data;
} Run;

/* the kernels' to_u8 (): rounded half up, clamped. floorf () is a call
 * into libm where SSE4.1 is not given; clamped first, the truncation of
 * the non-negative value is its floor, in one instruction. */
static inline guint
to_u8 (gfloat v)
{
  v = v + 0.5f;
  return (guint) (v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v);
}

/* the kernels' chroma_index () and chroma_frac () */
static inline gint
chroma_index (gint i, gboolean cosited)
{
  return cosited ? i >> 1 : (i - 1) >> 1;
}

static inline gfloat
chroma_frac (gint i, gboolean cosited, gboolean interpolate)
{
  if (cosited)
    return interpolate && (i & 1) ? 0.5f : 0.0f;
  return (i & 1) ? 0.25f : 0.75f;
}

/* The fixed-point sum of @n bytes @src[0], @src[@step], ... with the
 * paired 16-bit weights @q, as a value: exact, as the kernels' */
static inline gfloat
fixed_sum (const guint8 * src, gint step, const guint32 * q, gint n)
{
  guint32 acc = 0;
  gint l;

  for (l = 0; l < n; l++)
    acc += ((q[l >> 1] >> (16 * (l & 1))) & 0xffff) * src[l * step];
  return (gfloat) acc *(1.0f / CONVERT_FIXED_ONE);
}

/* Luma row @r across into @dst (dest_width values) */
static void
across_luma (const Run * run, gint r, gfloat * dst)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  const guint8 *row = run->in[0] + (gsize) r * run->in_stride[0];
  gint n = p->x_taps, x, k;

  for (x = 0; x < p->dest_width; x++) {
    const guint8 *src = row + l->x_start[x];

    if (l->x_q) {
      dst[x] = fixed_sum (src, 1, l->x_q + x * (CONVERT_FIXED_TAPS / 2), n);
    } else {
      const gfloat *w = l->x_w + x * n;
      gfloat acc = 0.0f;

      for (k = 0; k < n; k++)
        acc += w[k] * src[k];
      dst[x] = acc;
    }
  }
}

/* Chroma row @r across into @dst: U and V, dest_width pairs */
static void
across_chroma (const Run * run, gint r, gfloat * dst)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  gboolean nv12 = p->in_format == CONVERT_FORMAT_NV12;
  const guint8 *u = run->in[1] + (gsize) r * run->in_stride[1];
  const guint8 *v = nv12 ? u + 1 : run->in[2] + (gsize) r * run->in_stride[2];
  gint n = p->x_ctaps, step = nv12 ? 2 : 1, x, k;

  for (x = 0; x < p->dest_width; x++) {
    gint at = l->x_cstart[x] * step;

    if (l->x_cq) {
      const guint32 *q = l->x_cq + x * (CONVERT_FIXED_TAPS / 2);

      dst[2 * x] = fixed_sum (u + at, step, q, n);
      dst[2 * x + 1] = fixed_sum (v + at, step, q, n);
    } else {
      const gfloat *w = l->x_cw + x * n;
      gfloat a = 0.0f, b = 0.0f;

      for (k = 0; k < n; k++) {
        a += w[k] * u[at + k * step];
        b += w[k] * v[at + k * step];
      }
      dst[2 * x] = a;
      dst[2 * x + 1] = b;
    }
  }
}

/* 4:2:0 row @r converted to 8-bit RGB before scaling, as the tiled
 * kernel's convert-first step: every pixel's chroma from the two chroma
 * rows and columns around it, then the matrix, rounded and clamped */
static void
convert_row (const Run * run, gint r, guint8 * dst)
{
  const ConvertParams *p = &run->l->p;
  const gfloat *m = p->yuv_to_rgb;
  gboolean nv12 = p->in_format == CONVERT_FORMAT_NV12;
  gboolean h_cosited = (p->chroma_site & CONVERT_CHROMA_H_COSITED) != 0;
  gboolean v_cosited = (p->chroma_site & CONVERT_CHROMA_V_COSITED) != 0;
  gint cw = (p->in_width + 1) >> 1, ch = (p->in_height + 1) >> 1;
  gint cy = chroma_index (r, v_cosited), step = nv12 ? 2 : 1, x;
  gfloat fv = chroma_frac (r, v_cosited, FALSE);
  gint ra = CLAMP (cy, 0, ch - 1), rb = CLAMP (cy + 1, 0, ch - 1);
  const guint8 *luma = run->in[0] + (gsize) r * run->in_stride[0];
  const guint8 *ua = run->in[1] + (gsize) ra * run->in_stride[1];
  const guint8 *ub = run->in[1] + (gsize) rb * run->in_stride[1];
  const guint8 *va = nv12 ? ua + 1 : run->in[2] + (gsize) ra *
      run->in_stride[2];
  const guint8 *vb = nv12 ? ub + 1 : run->in[2] + (gsize) rb *
      run->in_stride[2];

  for (x = 0; x < p->in_width; x++) {
    gint cx = chroma_index (x, h_cosited);
    gfloat fu = chroma_frac (x, h_cosited, TRUE);
    gint c0 = CLAMP (cx, 0, cw - 1) * step, c1 = CLAMP (cx + 1, 0,
        cw - 1) * step;
    gfloat u00 = ua[c0], u01 = ua[c1], u10 = ub[c0], u11 = ub[c1];
    gfloat v00 = va[c0], v01 = va[c1], v10 = vb[c0], v11 = vb[c1];
    gfloat u = (1.0f - fv) * (u00 + fu * (u01 - u00)) +
        fv * (u10 + fu * (u11 - u10));
    gfloat v = (1.0f - fv) * (v00 + fu * (v01 - v00)) +
        fv * (v10 + fu * (v11 - v10));
    gfloat y = luma[x];

    dst[3 * x] = to_u8 (m[0] * y + m[1] * u + m[2] * v + m[3]);
    dst[3 * x + 1] = to_u8 (m[4] * y + m[5] * u + m[6] * v + m[7]);
    dst[3 * x + 2] = to_u8 (m[8] * y + m[9] * u + m[10] * v + m[11]);
  }
}

/* RGB row @r across into @dst: R, G, B per picture column. @conv: the
 * row converted first (3 bytes a pixel), else packed RGB input. */
static void
across_rgb (const Run * run, gint r, const guint8 * conv, gfloat * dst)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  const guint8 *row = conv ? conv : run->in[0] + (gsize) r * run->in_stride[0];
  gint bpp = conv ? 3 : p->in_pixel_bytes;
  gint ro = conv ? 0 : p->in_r, go = conv ? 1 : p->in_g, bo = conv ? 2 :
      p->in_b;
  gint n = p->x_taps, x, k;

  for (x = 0; x < p->dest_width; x++) {
    const guint8 *src = row + (gsize) l->x_start[x] * bpp;
    const gfloat *w = l->x_w + x * n;
    gfloat a = 0.0f, b = 0.0f, c = 0.0f;

    for (k = 0; k < n; k++) {
      a += w[k] * src[ro];
      b += w[k] * src[go];
      c += w[k] * src[bo];
      src += bpp;
    }
    dst[3 * x] = a;
    dst[3 * x + 1] = b;
    dst[3 * x + 2] = c;
  }
}

/* Rows filtered across, the last @n of them, by row index modulo @n */
typedef struct
{
  gfloat *data;
  gint n;
  gint width;                   /* values a row */
  gint lo, hi;                  /* rows [lo, hi) are held */
} Ring;

static void
ring_init (Ring * ring, gint n, gint width)
{
  ring->data = g_new (gfloat, (gsize) n * width);
  ring->n = n;
  ring->width = width;
  ring->lo = ring->hi = 0;
}

/* Makes rows [@s, @s + n) held, computing those missing; pointers to
 * each in @rows. */
static void
ring_hold (Ring * ring, const Run * run, gint s, gboolean chroma,
    guint8 * conv, const gfloat ** rows)
{
  gint r, from = s >= ring->lo && s <= ring->hi ? ring->hi : s;

  for (r = from; r < s + ring->n; r++) {
    gfloat *dst = ring->data + (gsize) (r % ring->n) * ring->width;

    if (chroma) {
      across_chroma (run, r, dst);
    } else if (run->l->yuv_h) {
      across_luma (run, r, dst);
    } else if (conv) {
      convert_row (run, r, conv);
      across_rgb (run, r, conv, dst);
    } else {
      across_rgb (run, r, NULL, dst);
    }
  }
  ring->lo = s;
  ring->hi = s + ring->n;
  for (r = 0; r < ring->n; r++)
    rows[r] = ring->data + (gsize) ((s + r) % ring->n) * ring->width;
}

/* The weighted sum down of @n rows, @width values each, into @dst */
static void
sum_down (const gfloat * w, const gfloat ** rows, gint n, gint width,
    gfloat * dst)
{
  gint m, i;

  for (i = 0; i < width; i++)
    dst[i] = 0.0f;
  for (m = 0; m < n; m++) {
    const gfloat *h = rows[m];
    gfloat wm = w[m];

    for (i = 0; i < width; i++)
      dst[i] += wm * h[i];
  }
}

/* The slice's scratch */
typedef struct
{
  Ring ring, chroma;
  const gfloat *rows[GST_CUDA_CACHE_PLAN_MAX_TAPS];
  const gfloat *crows[GST_CUDA_CACHE_PLAN_MAX_TAPS];
  guint8 *conv;
  gfloat *y;                    /* 4:2:0 input: Y, then U and V, down */
  gfloat *uv;
} Scratch;

/* Output row @oy as unrounded RGB (3 values a pixel) into @rgb */
static void
make_row (const Run * run, Scratch * s, gint oy, gfloat * rgb)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  gint dw = p->dest_width, x, j;
  gfloat *pic = rgb + 3 * p->dest_x;

  for (x = 0; x < p->out_width; x++) {
    rgb[3 * x] = p->fill[0];
    rgb[3 * x + 1] = p->fill[1];
    rgb[3 * x + 2] = p->fill[2];
  }
  if (oy < p->dest_y || oy >= p->dest_y + p->dest_height)
    return;

  j = oy - p->dest_y;
  ring_hold (&s->ring, run, l->y_start[j], FALSE, s->conv, s->rows);
  if (!l->yuv_h) {
    sum_down (l->y_w + j * p->y_taps, s->rows, p->y_taps, 3 * dw, pic);
    return;
  } else {
    const gfloat *m = p->yuv_to_rgb;

    ring_hold (&s->chroma, run, l->y_cstart[j], TRUE, NULL, s->crows);
    sum_down (l->y_w + j * p->y_taps, s->rows, p->y_taps, dw, s->y);
    sum_down (l->y_cw + j * p->y_ctaps, s->crows, p->y_ctaps, 2 * dw, s->uv);
    for (x = 0; x < dw; x++) {
      gfloat y = s->y[x], u = s->uv[2 * x], v = s->uv[2 * x + 1];

      pic[3 * x] = m[0] * y + m[1] * u + m[2] * v + m[3];
      pic[3 * x + 1] = m[4] * y + m[5] * u + m[6] * v + m[7];
      pic[3 * x + 2] = m[8] * y + m[9] * u + m[10] * v + m[11];
    }
  }
}

/* Row @oy of packed RGB output from its unrounded RGB */
static void
store_packed (const Run * run, gint oy, const gfloat * rgb)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  guint8 *d = run->out[0] + (gsize) oy * run->out_stride[0];
  gint bpp = p->out_pixel_bytes, x;

  for (x = 0; x < p->out_width; x++) {
    d[p->out_r] = to_u8 (rgb[3 * x]);
    d[p->out_g] = to_u8 (rgb[3 * x + 1]);
    d[p->out_b] = to_u8 (rgb[3 * x + 2]);
    if (bpp == 4)
      d[l->out_alpha] = 255;
    d += bpp;
  }
}

/* Output rows @oy (even) and @oy + 1 (where there is one), unrounded RGB
 * at @rgb, as 4:2:0: the kernels' store_yuv420_block () per block */
static void
store_yuv420 (const Run * run, gint oy, const gfloat * rgb)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  const gfloat *m = p->rgb_to_yuv;
  gint by = oy / 2, bx, dx, dy;
  guint8 *u_row = run->out[1] + (gsize) by * run->out_stride[1];
  guint8 *v_row = l->nv12_out ? u_row + 1 :
      run->out[2] + (gsize) by * run->out_stride[2];
  gint step = l->nv12_out ? 2 : 1;

  for (bx = 0; bx < (p->out_width + 1) / 2; bx++) {
    gfloat mean[3] = { 0.0f, 0.0f, 0.0f }, pic[3] = { 0.0f, 0.0f, 0.0f };
    gint n = 0, n_pic = 0;

    for (dy = 0; dy < 2 && oy + dy < p->out_height; dy++) {
      gint y = oy + dy;
      guint8 *d = run->out[0] + (gsize) y * run->out_stride[0];
      gboolean row_in = y >= p->dest_y && y < p->dest_y + p->dest_height;

      for (dx = 0; dx < 2 && 2 * bx + dx < p->out_width; dx++) {
        gint x = 2 * bx + dx;
        const gfloat *c = rgb + (gsize) dy * 3 * p->out_width + 3 * x;

        d[x] = to_u8 (m[0] * c[0] + m[1] * c[1] + m[2] * c[2] + m[3]);
        mean[0] += c[0];
        mean[1] += c[1];
        mean[2] += c[2];
        n++;
        if (row_in && x >= p->dest_x && x < p->dest_x + p->dest_width) {
          pic[0] += c[0];
          pic[1] += c[1];
          pic[2] += c[2];
          n_pic++;
        }
      }
    }
    if (n_pic > 0 && n_pic < n) {
      memcpy (mean, pic, sizeof (mean));
      n = n_pic;
    }
    mean[0] /= n;
    mean[1] /= n;
    mean[2] /= n;
    u_row[bx * step] = to_u8 (m[4] * mean[0] + m[5] * mean[1] +
        m[6] * mean[2] + m[7]);
    v_row[bx * step] = to_u8 (m[8] * mean[0] + m[9] * mean[1] +
        m[10] * mean[2] + m[11]);
  }
}

/* Output rows [@y0, @y1) of one frame: one thread's slice */
static void
linear_rows (gpointer data, gint y0, gint y1)
{
  const Run *run = data;
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  gsize row_values = (gsize) 3 * p->out_width;
  gfloat *rgb = g_new (gfloat, 2 * row_values);
  guint8 *rgb8 = NULL;
  gsize stride8 = GST_ROUND_UP_4 (row_values);
  Scratch s = { {0,}, };
  gint y, x;

  if (y0 >= y1) {
    g_free (rgb);
    return;
  }
  ring_init (&s.ring, p->y_taps, (l->yuv_h ? 1 : 3) * p->dest_width);
  if (l->yuv_h) {
    ring_init (&s.chroma, p->y_ctaps, 2 * p->dest_width);
    s.y = g_new (gfloat, p->dest_width);
    s.uv = g_new (gfloat, 2 * p->dest_width);
  }
  if (l->yuv && !l->yuv_h)
    s.conv = g_new (guint8, (gsize) 3 * p->in_width);
  if (l->out == OUT_RGB_ROWS)
    rgb8 = g_new (guint8, stride8 * (y1 - y0));

  for (y = y0; y < y1; y++) {
    gfloat *row = rgb + (l->out == OUT_YUV420 ? (y & 1) * row_values : 0);

    make_row (run, &s, y, row);
    switch (l->out) {
      case OUT_PACKED:
        store_packed (run, y, row);
        break;
      case OUT_YUV420:
        if ((y & 1) || y == p->out_height - 1)
          store_yuv420 (run, y & ~1, rgb);
        break;
      case OUT_RGB_ROWS:{
        guint8 *d = rgb8 + stride8 * (y - y0);

        for (x = 0; x < 3 * p->out_width; x++)
          d[x] = to_u8 (row[x]);
        break;
      }
    }
  }
  if (rgb8)
    run->rows (run->data, rgb8, stride8, y0, y1);

  g_free (rgb8);
  g_free (s.conv);
  g_free (s.uv);
  g_free (s.y);
  g_free (s.chroma.data);
  g_free (s.ring.data);
  g_free (rgb);
}

void
gst_cuda_cache_linear_run (const GstCudaCacheLinear * l,
    const guint8 * const in_data[3], const gint in_stride[3],
    guint8 * const out_data[3], const gint out_stride[3],
    GstCudaCacheLinearRows rows, gpointer data, guint threads)
{
  Run run;
  gint i;

  g_return_if_fail (l != NULL);
  g_return_if_fail (l->out != OUT_RGB_ROWS || rows != NULL);

  run.l = l;
  for (i = 0; i < 3; i++) {
    run.in[i] = in_data[i];
    run.in_stride[i] = in_stride[i];
    run.out[i] = out_data ? out_data[i] : NULL;
    run.out_stride[i] = out_stride ? out_stride[i] : 0;
  }
  run.rows = rows;
  run.data = data;
  /* 4:2:0 output: a slice of whole 2x2 blocks */
  gst_cuda_cache_parallel_rows (linear_rows, &run, l->p.out_height,
      l->out == OUT_YUV420 ? 2 : 1, threads);
}
