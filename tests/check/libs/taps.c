/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The host side of the CUDA kernels, without a device: the taps' table a
 * plan uploads (kernels/convert-params.h) against a double-precision
 * reference of GStreamer's LINEAR taps, the tiles' ranges against the
 * shared memory the host sizes, and the direct kernel's windows and row
 * groups against the taps. The kernels read the table
 * without a bound check, so every index in it must be inside the input and
 * inside what a tile stages. Then the kernel each plan picks from
 * kernels/kernel-list.h, and the tables' arenas as blocks of a cache, on
 * system memory.
 *
 * The planning (gstcudacacheplan.c) and the kernels' memory
 * (gstcudacachescratch.c) make no CUDA call: this links them from the
 * library's internal static library. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "../cudacache-check.h"
#include <gst/cudacache/cudacache.h>

#include "gstcudacacheplan-private.h"
#include "gstcudacachescratch-private.h"

/* every pair of these, crossed (larger sizes: the common conversions) */
static const gint sizes[] = { 1, 2, 3, 5, 7, 16, 33, 97, 321, 643 };

/* A plan's parameters for @in_format @in_w x @in_h to RGBA @out_w x @out_h
 * (picture @dw x @dh at @dx, @dy), as gst_cuda_cache_plan_params () sets the ones the taps
 * depend on, and its axes' scaling (*lq, *inc: the 2-tap path). */
static void
params_init (ConvertParams * p, gint in_format, gint in_w, gint in_h,
    gint out_w, gint out_h, gint dx, gint dy, gint dw, gint dh, gint site,
    gboolean * lq, gint * inc)
{
  memset (p, 0, sizeof (*p));
  p->in_format = in_format;
  p->out_format = CONVERT_FORMAT_RGBA;
  p->in_width = in_w;
  p->in_height = in_h;
  p->out_width = out_w;
  p->out_height = out_h;
  p->dest_x = dx;
  p->dest_y = dy;
  p->dest_width = dw;
  p->dest_height = dh;
  p->chroma_site = site;
  if (!gst_cuda_cache_plan_is_yuv (in_format))
    gst_cuda_cache_plan_packed_layout (in_format, &p->in_r, &p->in_g, &p->in_b,
        &p->in_pixel_bytes);
  gst_cuda_cache_plan_axes (p, lq, inc);
}

static gint32
tab_int (const GArray * table, gint offset)
{
  return (gint32) g_array_index (table, guint32, offset);
}

static gfloat
tab_float (const GArray * table, gint offset)
{
  gfloat v;

  memcpy (&v, &g_array_index (table, guint32, offset), sizeof (v));
  return v;
}

/* GstVideoResampler's LINEAR taps of output @j in double, folded inside
 * the input: ref[i - start] for source index i. */
static void
reference_taps (gint in_size, gint out_size, gint n, gdouble fx, gint j,
    gint start, gdouble * ref)
{
  gdouble x = (0.5 + j) / out_size * in_size + (n > 1 ? -0.5 : 0.0);
  gdouble sum = 0.0, w[GST_CUDA_CACHE_PLAN_MAX_TAPS];
  gint first, l;

  x = CLAMP (x, 0.0, in_size - 1.0);
  first = (gint) floor (x) - (n - 1) / 2;
  for (l = 0; l < n; l++) {
    w[l] = MAX (0.0, 1.0 - fabs (x - (first + l)) * fx);
    sum += w[l];
  }
  for (l = 0; l < n; l++)
    ref[l] = 0.0;
  for (l = 0; l < n; l++)
    ref[CLAMP (first + l, 0, in_size - 1) - start] += w[l] / sum;
}

/* Every picture index of one axis of @table (TAB_X_START or TAB_Y_START),
 * for an input of @in_size and a picture of @out_size. */
static void
check_axis (const ConvertParams * p, const GArray * table, gint t,
    gint in_size, gint out_size, gint n, gint nc, gfloat fx, gboolean lq,
    gboolean fixed, const gchar * what)
{
  gint csize = (in_size + 1) / 2, j, l;

  for (j = 0; j < out_size; j++) {
    gint start = tab_int (table, p->tab[t] + j);
    gdouble ref[GST_CUDA_CACHE_PLAN_MAX_TAPS], sum = 0.0;

    fail_unless (start >= 0 && start + n <= in_size,
        "%s %d: taps from %d, %d of them, past an input of %d", what, j,
        start, n, in_size);
    if (!lq) {
      /* not GstVideoScaler's 2-tap path: GstVideoResampler's taps, within
       * what the float position (as the CPU path's float taps) allows */
      gdouble tol = 1e-5 + in_size * 2.0 / (1 << 24);

      reference_taps (in_size, out_size, n, fx, j, start, ref);
      for (l = 0; l < n; l++) {
        gfloat w = tab_float (table, p->tab[t + TAB_X_W - TAB_X_START] +
            j * n + l);

        fail_unless (fabs (w - ref[l]) < tol, "%s %d tap %d: %g, not %g",
            what, j, l, w, ref[l]);
      }
    }
    for (l = 0; l < n; l++) {
      gfloat w = tab_float (table, p->tab[t + TAB_X_W - TAB_X_START] +
          j * n + l);

      fail_unless (w >= 0.0f, "%s %d tap %d: %g", what, j, l, w);
      sum += w;
    }
    fail_unless (fabs (sum - 1.0) < 1e-5, "%s %d: weights sum to %g", what,
        j, sum);

    if (nc > 0) {
      gint cstart = tab_int (table, p->tab[t + TAB_X_CSTART - TAB_X_START] + j);

      fail_unless (cstart >= 0 && cstart + nc <= csize,
          "%s %d: chroma taps from %d, %d of them, past %d samples", what, j,
          cstart, nc, csize);
      sum = 0.0;
      for (l = 0; l < nc; l++) {
        gfloat w = tab_float (table, p->tab[t + TAB_X_CW - TAB_X_START] +
            j * nc + l);

        fail_unless (w >= 0.0f, "%s %d chroma tap %d: %g", what, j, l, w);
        sum += w;
      }
      fail_unless (fabs (sum - 1.0) < 1e-5, "%s %d: chroma weights sum to "
          "%g", what, j, sum);
    }

    if (fixed) {
      gint k, q_sum = 0, cq_sum = 0;

      fail_unless (p->tab[TAB_X_Q] % 4 == 0 && p->tab[TAB_X_CQ] % 4 == 0,
          "fixed-point weights not 16-byte aligned");
      for (k = 0; k < CONVERT_FIXED_TAPS; k++) {
        guint32 q = g_array_index (table, guint32, p->tab[TAB_X_Q] +
            j * (CONVERT_FIXED_TAPS / 2) + k / 2);
        guint32 cq = g_array_index (table, guint32, p->tab[TAB_X_CQ] +
            j * (CONVERT_FIXED_TAPS / 2) + k / 2);
        gint v = (k & 1) ? q >> 16 : q & 0xffff;
        gint cv = (k & 1) ? cq >> 16 : cq & 0xffff;

        if (k >= n) {
          fail_unless_equals_int (v, 0);
        } else {
          fail_unless (abs (v - (gint) lrintf (tab_float (table,
                          p->tab[TAB_X_W] + j * n + k) * CONVERT_FIXED_ONE))
              <= n, "%s %d fixed tap %d: %d", what, j, k, v);
        }
        if (k >= nc) {
          fail_unless_equals_int (cv, 0);
        }
        q_sum += v;
        cq_sum += cv;
      }
      fail_unless_equals_int (q_sum, CONVERT_FIXED_ONE);
      fail_unless_equals_int (cq_sum, CONVERT_FIXED_ONE);
    }
  }
}

/* The tiled kernel's ranges: every tile's taps inside the rows and bytes
 * it stages, and those inside the shared memory the host sized. */
static void
check_tiles (const ConvertParams * p, const GArray * table)
{
  gboolean yuv = gst_cuda_cache_plan_is_yuv (p->in_format);
  gint bw = (p->out_width + CONVERT_TILE_W - 1) / CONVERT_TILE_W;
  gint bh = (p->out_height + p->tile_h - 1) / p->tile_h;
  gint bpp = yuv ? 1 : p->in_pixel_bytes;
  gint b, j;

  fail_unless (gst_cuda_cache_plan_tile_shared_bytes (p) <=
      GST_CUDA_CACHE_PLAN_MAX_SHARED_BYTES);
  fail_unless (p->tab[TAB_TILE_X] % 4 == 0 && p->tab[TAB_TILE_Y] % 4 == 0);
  for (b = 0; b < bw; b++) {
    const gint32 *v = (const gint32 *) &g_array_index (table, guint32,
        p->tab[TAB_TILE_X] + 4 * b);
    gint pc0 = MAX (b * CONVERT_TILE_W, p->dest_x);
    gint pc1 = MIN ((b + 1) * CONVERT_TILE_W, p->dest_x + p->dest_width);

    if (pc0 >= pc1)
      continue;
    /* the bytes staged: convert_tile () stages at most tile_pitch - 30 */
    fail_unless ((v[1] + 1 - v[0]) * bpp <= p->tile_pitch - 30,
        "tile column %d: columns %d..%d do not fit %d bytes", b, v[0], v[1],
        p->tile_pitch);
    for (j = pc0; j < pc1; j++) {
      gint s = tab_int (table, p->tab[TAB_X_START] + j - p->dest_x);

      fail_unless (s >= v[0] && s + p->x_taps - 1 <= v[1]);
      if (yuv) {
        gint cs = tab_int (table, p->tab[TAB_X_CSTART] + j - p->dest_x);

        fail_unless (cs >= v[2] && cs + p->x_ctaps - 1 <= v[3]);
      }
    }
    if (yuv) {
      gint bpc = p->in_format == CONVERT_FORMAT_NV12 ? 2 : 1;

      fail_unless ((v[3] + 1 - v[2]) * bpc <= p->tile_chroma_pitch - 30,
          "tile column %d: chroma %d..%d do not fit %d bytes", b, v[2], v[3],
          p->tile_chroma_pitch);
    }
  }
  for (b = 0; b < bh; b++) {
    const gint32 *v = (const gint32 *) &g_array_index (table, guint32,
        p->tab[TAB_TILE_Y] + 4 * b);
    gint pr0 = MAX (b * p->tile_h, p->dest_y);
    gint pr1 = MIN ((b + 1) * p->tile_h, p->dest_y + p->dest_height);

    if (pr0 >= pr1)
      continue;
    fail_unless (v[1] <= p->tile_rows, "tile row %d: %d rows, %d staged", b,
        v[1], p->tile_rows);
    fail_unless (v[0] >= 0 && v[0] + v[1] <= p->in_height);
    for (j = pr0; j < pr1; j++) {
      gint s = tab_int (table, p->tab[TAB_Y_START] + j - p->dest_y);

      fail_unless (s >= v[0] && s + p->y_taps <= v[0] + v[1]);
      if (yuv) {
        gint cs = tab_int (table, p->tab[TAB_Y_CSTART] + j - p->dest_y);

        fail_unless (v[3] <= p->tile_chroma_rows);
        fail_unless (cs >= v[2] && cs + p->y_ctaps <= v[2] + v[3],
            "tile row %d, row %d: chroma rows %d.. (%d) outside %d..%d", b,
            j, cs, p->y_ctaps, v[2], v[2] + v[3] - 1);
      }
    }
  }
}

/* The effective 16-bit weight of tap @l of the paired weights @q. */
static gint
fixed_weight (const guint32 * q, gint l)
{
  return (q[l / 2] >> (16 * (l & 1))) & 0xffff;
}

/* One row's weights in a direct kernel's group (@i: the row's place in
 * it, @row: the picture row or -1 past the picture): for each of the @n
 * input rows from @first, the weight its @taps taps from @start give it
 * (in the table at @tab_w, CONVERT_FIXED_ONE for 1), else 0. */
static void
check_group_weights (const GArray * table, gint tab_w, const gfloat * w,
    gint first, gint n, gint i, gint row, gint start, gint taps,
    const gchar * what)
{
  const gint G = CONVERT_DIRECT_ROWS;
  gint l;

  for (l = 0; l < n; l++) {
    gint o = first + l - start;
    gfloat want = row >= 0 && o >= 0 && o < taps ?
        tab_float (table, tab_w + row * taps + o) / CONVERT_FIXED_ONE : 0.0f;

    fail_unless (w[l * G + i] == want, "%s: row %d of a group, input row %d: "
        "weight %g, not %g", what, i, first + l, w[l * G + i], want);
  }
}

/* The direct kernel's tables for windows of @n taps: every window inside
 * its row (the kernel reads the words that hold it, unchecked), each pixel
 * weighted as by the tiled kernel's taps, none outside the window, and
 * every group's rows inside the input with each of its rows' weights where
 * that row's taps put them. */
static void
check_direct (const ConvertParams * p, const GArray * table, gint n,
    const gchar * what)
{
  const gint G = CONVERT_DIRECT_ROWS;
  gint csize = (p->in_width + 1) / 2, ch = (p->in_height + 1) / 2;
  gint n_groups = (p->dest_height + G - 1) / G;
  gint j, k, l, i;

  fail_unless (p->tab[TAB_X_DIRECT] % 4 == 0 && p->tab[TAB_Y_GROUP] % 4 == 0
      && p->direct_group % 4 == 0, "%s: tables not 16-byte aligned", what);
  fail_unless (p->direct_group >= 4 + G * (p->direct_rows +
          p->direct_chroma_rows));
  /* the grid's first group row holds output row 0 */
  fail_unless (p->dest_y + p->direct_k0 * G <= 0 &&
      p->dest_y + p->direct_k0 * G > -G);

  for (j = 0; j < p->dest_width; j++) {
    const guint32 *v = &g_array_index (table, guint32,
        p->tab[TAB_X_DIRECT] + 12 * j);
    const guint32 *q = &g_array_index (table, guint32, p->tab[TAB_X_Q] + 4 * j);
    const guint32 *cq = &g_array_index (table, guint32, p->tab[TAB_X_CQ] +
        4 * j);
    gint s = tab_int (table, p->tab[TAB_X_START] + j);
    gint cs = tab_int (table, p->tab[TAB_X_CSTART] + j);
    gint s1 = (gint32) v[0], cs1 = (gint32) v[1], sum = 0, csum = 0;

    fail_unless (s1 >= 0 && s1 + n <= p->in_width,
        "%s: column %d's window %d.. outside %d pixels", what, j, s1,
        p->in_width);
    fail_unless (cs1 >= 0 && cs1 + n <= csize,
        "%s: column %d's chroma window %d.. outside %d samples", what, j, cs1,
        csize);
    for (l = 0; l < CONVERT_FIXED_TAPS; l++) {
      gint o = s1 + l - s, co = cs1 + l - cs;

      /* the kernels read only the window's n weights: the rest are 0 */
      fail_unless_equals_int (fixed_weight (v + 4, l), l < n && o >= 0 &&
          o < CONVERT_FIXED_TAPS ? fixed_weight (q, o) : 0);
      fail_unless_equals_int (fixed_weight (v + 8, l), l < n && co >= 0 &&
          co < CONVERT_FIXED_TAPS ? fixed_weight (cq, co) : 0);
      sum += fixed_weight (v + 4, l);
      csum += fixed_weight (v + 8, l);
    }
    fail_unless_equals_int (sum, CONVERT_FIXED_ONE);
    fail_unless_equals_int (csum, CONVERT_FIXED_ONE);
  }

  for (k = 0; k < n_groups; k++) {
    const gint32 *v = (const gint32 *) &g_array_index (table, guint32,
        p->tab[TAB_Y_GROUP] + k * p->direct_group);
    const gfloat *w = (const gfloat *) (v + 4);
    const gfloat *cw = w + G * p->direct_rows;

    fail_unless (v[0] >= 0 && v[1] >= 1 && v[0] + v[1] <= p->in_height &&
        v[1] <= p->direct_rows, "%s: group %d reads rows %d.. (%d)", what, k,
        v[0], v[1]);
    fail_unless (v[2] >= 0 && v[3] >= 1 && v[2] + v[3] <= ch &&
        v[3] <= p->direct_chroma_rows, "%s: group %d reads chroma rows %d.. "
        "(%d)", what, k, v[2], v[3]);
    for (i = 0; i < G; i++) {
      gint row = k * G + i;
      gint s = row < p->dest_height ? tab_int (table, p->tab[TAB_Y_START] +
          row) : 0;
      gint cs = row < p->dest_height ? tab_int (table, p->tab[TAB_Y_CSTART] +
          row) : 0;

      check_group_weights (table, p->tab[TAB_Y_W], w, v[0], v[1], i,
          row < p->dest_height ? row : -1, s, p->y_taps, what);
      check_group_weights (table, p->tab[TAB_Y_CW], cw, v[2], v[3], i,
          row < p->dest_height ? row : -1, cs, p->y_ctaps, what);
    }
  }
}

/* One conversion: the table as a plan builds it, checked. */
static void
check_conversion (gint in_format, gint in_w, gint in_h, gint out_w,
    gint out_h, gboolean letterbox, gint site)
{
  ConvertParams p;
  GArray *table;
  gint dx = 0, dy = 0, dw = out_w, dh = out_h;
  gboolean lq;
  gint inc;
  gint taps;
  gchar *what;

  if (letterbox) {
    if ((gint64) in_w * out_h > (gint64) in_h * out_w)
      dh = MAX (1, (gint) ((gint64) out_w * in_h / in_w));
    else
      dw = MAX (1, (gint) ((gint64) out_h * in_w / in_h));
    dx = (out_w - dw) / 2;
    dy = (out_h - dh) / 2;
  }
  params_init (&p, in_format, in_w, in_h, out_w, out_h, dx, dy, dw, dh,
      site, &lq, &inc);
  what = g_strdup_printf ("%d %dx%d to %dx%d (picture %dx%d)", in_format,
      in_w, in_h, out_w, out_h, dw, dh);

  table = gst_cuda_cache_plan_build_table (&p, lq, inc);
  check_axis (&p, table, TAB_X_START, in_w, dw, p.x_taps, p.x_ctaps,
      p.x_fx, lq, p.x_fixed, what);
  check_axis (&p, table, TAB_Y_START, in_h, dh, p.y_taps, p.y_ctaps,
      p.y_fx, FALSE, FALSE, what);

  if (gst_cuda_cache_plan_tiles (&p, table))
    check_tiles (&p, table);
  /* the windows the plan takes, then the wide ones wherever they apply */
  taps = gst_cuda_cache_plan_direct_taps (&p);
  if (gst_cuda_cache_plan_direct (&p, table, taps))
    check_direct (&p, table, taps, what);
  else
    fail_if (gst_cuda_cache_plan_is_yuv (in_format) && p.x_fixed && p.y_padded
        && (in_w + 1) / 2 >= taps, "%s: no direct kernel", what);
  if (gst_cuda_cache_plan_direct (&p, table, CONVERT_FIXED_TAPS))
    check_direct (&p, table, CONVERT_FIXED_TAPS, what);
  /* shrinking across by 3x or less takes the narrow windows (1080p to
   * 640 wide: 6 taps of luma and of chroma) */
  if (gst_cuda_cache_plan_is_yuv (in_format) && in_w <= 3 * dw)
    fail_unless_equals_int (taps, CONVERT_DIRECT_NARROW_TAPS);

  g_array_unref (table);
  g_free (what);
}

GST_START_TEST (test_taps_inside_input)
{
  static const gint formats[] = { CONVERT_FORMAT_NV12, CONVERT_FORMAT_I420,
    CONVERT_FORMAT_RGBA, CONVERT_FORMAT_RGB
  };
  guint f, i, o;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
      for (o = 0; o < G_N_ELEMENTS (sizes); o++) {
        gint in_w = sizes[i], in_h = sizes[(i + 3) % G_N_ELEMENTS (sizes)];
        gint out_w = sizes[o], out_h = sizes[(o + 5) % G_N_ELEMENTS (sizes)];

        /* stretched or letterboxed, chroma centred or cosited, in turn */
        if ((i + o + f) % 2)
          check_conversion (formats[f], in_w, in_h, out_w, out_h, FALSE, 0);
        else
          check_conversion (formats[f], in_w, in_h, out_w, out_h, TRUE,
              CONVERT_CHROMA_H_COSITED);
      }
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_taps_of_common_conversions)
{
  static const gint cases[][4] = {
    {1920, 1080, 640, 640}, {3840, 2160, 640, 640}, {1920, 1080, 300, 170},
    {2560, 64, 64, 60}, {321, 241, 199, 147}, {7, 5, 1283, 721},
    {1920, 1080, 1280, 720}, {1281, 723, 421, 317}, {16, 9, 7, 5},
    {15, 11, 6, 4},
  };
  static const gint sites[] = { 0, CONVERT_CHROMA_H_COSITED,
    CONVERT_CHROMA_H_COSITED | CONVERT_CHROMA_V_COSITED
  };
  guint c, s;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    for (s = 0; s < G_N_ELEMENTS (sites); s++) {
      check_conversion (s == 1 ? CONVERT_FORMAT_I420 : CONVERT_FORMAT_NV12,
          cases[c][0], cases[c][1], cases[c][2], cases[c][3], s != 1, sites[s]);
    }
    check_conversion (CONVERT_FORMAT_RGBA, cases[c][0], cases[c][1],
        cases[c][2], cases[c][3], TRUE, 0);
  }
}

GST_END_TEST;

/* GstVideoResampler's double arithmetic where the position is a whole
 * number: 1920 to 640 puts output 1's centre at input 4.0 exactly. */
GST_START_TEST (test_taps_first_at_whole_positions)
{
  ConvertParams p;
  GArray *table;
  gboolean lq;
  gint inc;

  params_init (&p, CONVERT_FORMAT_RGBA, 1920, 3, 640, 3, 0, 0, 640, 3, 0,
      &lq, &inc);
  table = gst_cuda_cache_plan_build_table (&p, lq, inc);
  /* 6 taps from 2: 1 - |4 - i| / 3 for i = 2..7 is 1/3, 2/3, 1, 2/3, 1/3,
   * 0, which sum to 3 */
  fail_unless_equals_int (tab_int (table, p.tab[TAB_X_START] + 1), 2);
  fail_unless (fabs (tab_float (table, p.tab[TAB_X_W] + 6 + 2) - 1.0 / 3.0)
      < 1e-6);
  fail_unless (fabs (tab_float (table, p.tab[TAB_X_W] + 6 + 0) - 1.0 / 9.0)
      < 1e-6);
  fail_unless (tab_float (table, p.tab[TAB_X_W] + 6 + 5) == 0.0f);
  g_array_unref (table);
}

GST_END_TEST;

/* Widths past 32768: GstVideoScaler's 2-tap step, 16.16 fixed point,
 * leaves 32 bits before its division, and j * step past 32768 outputs. */
GST_START_TEST (test_taps_wider_than_32768)
{
  const gint in_w = 40000, out_w = 50000;
  ConvertParams p;
  GArray *table;
  gboolean lq;
  gint inc, j, last = 0;

  params_init (&p, CONVERT_FORMAT_RGBA, in_w, 2, out_w, 2, 0, 0, out_w, 2, 0,
      &lq, &inc);
  fail_unless (lq);
  fail_unless_equals_int (inc,
      (gint) ((((gint64) in_w - 1) << 16) / (out_w - 1) - 1));
  fail_unless (inc > 0 && inc < 65536);

  table = gst_cuda_cache_plan_build_table (&p, lq, inc);
  /* the unfolded taps in order and inside the input, up to its right
   * edge (the step is a little less than exact) */
  for (j = 0; j < out_w; j++) {
    gint tap = tab_int (table, p.tab[TAB_X_TAP] + 3 * j);
    gfloat x = tab_float (table, p.tab[TAB_X_TAP] + 3 * j + 1);

    fail_unless (tap >= last && tap <= in_w - 2, "output %d: first tap %d "
        "after %d", j, tap, last);
    fail_unless (x >= tap && x < tap + 1, "output %d: position %g, first "
        "tap %d", j, x, tap);
    last = tap;
  }
  fail_unless_equals_int (last, (gint) (((gint64) (out_w - 1) * inc) >> 16));
  fail_unless (last >= in_w - 3, "the last output reads from %d", last);
  check_axis (&p, table, TAB_X_START, in_w, out_w, p.x_taps, p.x_ctaps,
      p.x_fx, lq, p.x_fixed, "40000 to 50000 wide");
  g_array_unref (table);

  /* and every table of such a conversion, 4:2:0 and packed */
  check_conversion (CONVERT_FORMAT_NV12, in_w, 4, out_w, 6, FALSE, 0);
  check_conversion (CONVERT_FORMAT_RGBA, in_w, 3, out_w, 2, FALSE, 0);
  check_conversion (CONVERT_FORMAT_I420, 2 * in_w, 4, in_w, 4, FALSE, 0);
}

GST_END_TEST;

/* Every kernel of kernels/kernel-list.h once, found by what it converts. */
GST_START_TEST (test_kernel_list)
{
  guint i, j;

  for (i = 0; i < GST_CUDA_CACHE_N_KERNELS; i++) {
    const GstCudaCacheKernelInfo *k = &gst_cuda_cache_kernel_info[i];

    fail_unless (g_str_has_prefix (k->name, "gst_cuda_cache_"), "%s", k->name);
    /* the conversions' kernels; the stand-in passes are found by name,
     * the batch twins from their kernel */
    if (k->batch) {
      GstCudaCacheKernelId single = gst_cuda_cache_kernel_find (k->family,
          k->in, k->out, k->taps);

      fail_unless (k->out == CONVERT_OUT_TENSOR || k->out == CONVERT_OUT_GRAY,
          "%s", k->name);
      fail_unless (single != GST_CUDA_CACHE_KERNEL_NONE, "%s", k->name);
      fail_unless_equals_int (gst_cuda_cache_kernel_batch_twin (single), i);
      fail_unless (g_str_has_suffix (k->name, "_batch"), "%s", k->name);
      fail_unless (g_str_has_prefix (k->name,
              gst_cuda_cache_kernel_info[single].name), "%s", k->name);
    } else if (k->family != GST_CUDA_CACHE_KERNEL_FAMILY_NARROW) {
      fail_unless_equals_int (gst_cuda_cache_kernel_find (k->family, k->in,
              k->out, k->taps), i);
      /* every kernel that makes tensors has a twin */
      fail_unless_equals_int (gst_cuda_cache_kernel_batch_twin (i) !=
          GST_CUDA_CACHE_KERNEL_NONE, k->out == CONVERT_OUT_TENSOR ||
          k->out == CONVERT_OUT_GRAY);
    }
    for (j = 0; j < i; j++)
      fail_if (g_str_equal (k->name, gst_cuda_cache_kernel_info[j].name),
          "%s twice", k->name);
  }
  fail_unless_equals_string (gst_cuda_cache_kernel_info
      [GST_CUDA_CACHE_KERNEL_ID (gst_cuda_cache_narrow_16)].name,
      "gst_cuda_cache_narrow_16");
  fail_unless_equals_string (gst_cuda_cache_kernel_info
      [GST_CUDA_CACHE_KERNEL_ID (gst_cuda_cache_unpack_422)].name,
      "gst_cuda_cache_unpack_422");
  /* a kernel per kind of input for gray, the direct ones' for 4:2:0 */
  fail_unless (gst_cuda_cache_kernel_find (GST_CUDA_CACHE_KERNEL_FAMILY_TILE,
          CONVERT_IN_RGB3, CONVERT_OUT_GRAY, 0) != GST_CUDA_CACHE_KERNEL_NONE);
  fail_unless (gst_cuda_cache_kernel_find
      (GST_CUDA_CACHE_KERNEL_FAMILY_DIRECT, CONVERT_IN_NV12, CONVERT_OUT_GRAY,
          CONVERT_DIRECT_NARROW_TAPS) != GST_CUDA_CACHE_KERNEL_NONE);
  fail_unless_equals_int (gst_cuda_cache_kernel_find
      (GST_CUDA_CACHE_KERNEL_FAMILY_DIRECT, CONVERT_IN_RGB4,
          CONVERT_OUT_PACKED, CONVERT_FIXED_TAPS), GST_CUDA_CACHE_KERNEL_NONE);
  /* the presets: a kernel per group of kinds and kind of output, a twin
   * for tensors and gray */
  for (i = PRESET_GROUP_NEAR; i <= PRESET_GROUP_PIL; i++) {
    for (j = CONVERT_OUT_PACKED; j <= CONVERT_OUT_GRAY; j++) {
      GstCudaCacheKernelId k =
          gst_cuda_cache_kernel_find (GST_CUDA_CACHE_KERNEL_FAMILY_RESAMPLE,
          -1, j, i);

      fail_unless (k != GST_CUDA_CACHE_KERNEL_NONE, "group %u, output %u",
          i, j);
      fail_unless_equals_int (gst_cuda_cache_kernel_batch_twin (k) !=
          GST_CUDA_CACHE_KERNEL_NONE, j == CONVERT_OUT_TENSOR ||
          j == CONVERT_OUT_GRAY);
    }
  }
}

GST_END_TEST;

/* A conversion's plan from its parameters: @out_format UNKNOWN for a
 * tensor. */
static gboolean
plan_conversion (GstCudaCachePlan * plan, GstVideoFormat in_format,
    gint in_w, gint in_h, GstVideoFormat out_format, gint out_w, gint out_h,
    gint dx, gint dy, gint dw, gint dh)
{
  GstCudaCacheConvertParams params;
  ConvertParams key;
  gboolean lq;
  gint inc;

  memset (&params, 0, sizeof (params));
  params.in_format = in_format;
  params.in_width = in_w;
  params.in_height = in_h;
  params.out_format = out_format;
  params.out_width = out_w;
  params.out_height = out_h;
  params.dest_x = dx;
  params.dest_y = dy;
  params.dest_width = dw;
  params.dest_height = dh;
  params.dtype = GST_CUDA_CACHE_TENSOR_DTYPE_F32;
  params.layout = GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW;
  if (!gst_cuda_cache_plan_params (&params, &key, &lq, &inc))
    return FALSE;
  gst_cuda_cache_plan_init (plan, &key, lq, inc);
  return TRUE;
}

/* The kernel and grid each kind of conversion launches. */
GST_START_TEST (test_plans_pick_kernels)
{
  GstCudaCachePlan plan;

  /* 1080p to a letterboxed 640x640: tiles, and the narrow direct windows */
  fail_unless (plan_conversion (&plan, GST_VIDEO_FORMAT_NV12, 1920, 1080,
          GST_VIDEO_FORMAT_RGBA, 640, 640, 0, 140, 640, 360));
  fail_unless_equals_int (plan.tiled.kernel,
      GST_CUDA_CACHE_KERNEL_ID (gst_cuda_cache_convert_tile_nv12_packed));
  fail_unless_equals_int (plan.direct.kernel,
      GST_CUDA_CACHE_KERNEL_ID (gst_cuda_cache_convert_direct6_nv12_packed));
  fail_unless_equals_int (plan.n_planes, 2);
  fail_unless_equals_int (plan.tiled.block_w, CONVERT_TILE_W);
  fail_unless_equals_int (plan.tiled.block_h, CONVERT_TILE_THREADS_Y);
  fail_unless_equals_int (plan.tiled.grid_w, 640 / CONVERT_TILE_W);
  fail_unless (plan.tiled.shared_bytes > 0 &&
      plan.tiled.shared_bytes <= GST_CUDA_CACHE_PLAN_MAX_SHARED_BYTES);
  fail_unless_equals_int (plan.direct.block_w * plan.direct.block_h,
      CONVERT_TILE_W * CONVERT_DIRECT_WARPS);
  gst_cuda_cache_plan_clear (&plan);

  /* I420 to a tensor, shrinking across by 4: 8-tap windows */
  fail_unless (plan_conversion (&plan, GST_VIDEO_FORMAT_I420, 2560, 1440,
          GST_VIDEO_FORMAT_UNKNOWN, 640, 640, 0, 0, 640, 640));
  fail_unless_equals_int (plan.direct.kernel,
      GST_CUDA_CACHE_KERNEL_ID (gst_cuda_cache_convert_direct8_i420_tensor));
  fail_unless_equals_int (plan.n_planes, 3);
  gst_cuda_cache_plan_clear (&plan);

  /* packed RGB to NV12: no direct kernel */
  fail_unless (plan_conversion (&plan, GST_VIDEO_FORMAT_BGR, 1280, 720,
          GST_VIDEO_FORMAT_NV12, 640, 360, 0, 0, 640, 360));
  fail_unless_equals_int (plan.tiled.kernel,
      GST_CUDA_CACHE_KERNEL_ID (gst_cuda_cache_convert_tile_rgb3_yuv420));
  fail_unless_equals_int (plan.direct.kernel, GST_CUDA_CACHE_KERNEL_NONE);
  fail_unless_equals_int (plan.n_planes, 1);
  gst_cuda_cache_plan_clear (&plan);

  /* 2000 input rows an output row: no tile fits, a block a pixel */
  fail_unless (plan_conversion (&plan, GST_VIDEO_FORMAT_RGBA, 1920, 4000,
          GST_VIDEO_FORMAT_RGBA, 640, 2, 0, 0, 640, 2));
  fail_unless_equals_int (plan.tiled.kernel,
      GST_CUDA_CACHE_KERNEL_ID (gst_cuda_cache_convert_generic_rgb4_packed));
  fail_unless_equals_int (plan.tiled.shared_bytes, 0);
  fail_unless_equals_int (plan.tiled.block_w, CONVERT_GENERIC_THREADS);
  fail_unless_equals_int (plan.tiled.grid_w, 640);
  fail_unless_equals_int (plan.tiled.grid_h, 2);
  gst_cuda_cache_plan_clear (&plan);

  /* what the kernels do not do */
  fail_if (plan_conversion (&plan, GST_VIDEO_FORMAT_GRAY8, 64, 64,
          GST_VIDEO_FORMAT_RGBA, 64, 64, 0, 0, 64, 64));
  fail_if (plan_conversion (&plan, GST_VIDEO_FORMAT_NV12, 64, 64,
          GST_VIDEO_FORMAT_RGBA, 64, 64, 8, 0, 64, 64));
}

GST_END_TEST;

/* The kernels' memory on system memory: blocks the test's functions make,
 * and where they were freed. */
static GThread *freed_on[8];
static gint n_freed;

static void
block_freed (gpointer data)
{
  gint i = g_atomic_int_add (&n_freed, 1);

  if (i < (gint) G_N_ELEMENTS (freed_on))
    freed_on[i] = g_thread_self ();
  g_free (data);
}

static GstMemory *
system_alloc (gsize row_bytes, gsize rows, gpointer user_data)
{
  gsize bytes = row_bytes * rows;
  gpointer data = g_malloc0 (bytes);

  return gst_memory_new_wrapped (0, data, bytes, 0, bytes, data, g_free);
}

static GstMemory *
system_alloc_tracked (gsize row_bytes, gsize rows, gpointer user_data)
{
  gsize bytes = row_bytes * rows;
  gpointer data = g_malloc0 (bytes);

  return gst_memory_new_wrapped (0, data, bytes, 0, bytes, data, block_freed);
}

static guint64
system_address (GstMemory * block, gpointer user_data)
{
  GstMapInfo map;
  guint64 address;

  fail_unless (gst_memory_map (block, &map, GST_MAP_READ));
  address = (guintptr) map.data;
  gst_memory_unmap (block, &map);
  return address;
}

static gboolean
system_upload (guint64 address, gconstpointer src, gsize bytes,
    gpointer user_data)
{
  memcpy ((gpointer) (guintptr) address, src, bytes);
  return TRUE;
}

static void
system_retire (GstMemory * block, gpointer user_data)
{
  (*(gint *) user_data)++;
  gst_memory_unref (block);
}

/* The tap tables' arenas and the narrowed frames are blocks of the cache:
 * counted in its size, used while held, idle once released, trimmed to
 * its limit, and freed on its reaper thread. */
GST_START_TEST (test_kernels_memory_in_cache)
{
  const GstCudaCacheScratchFuncs funcs = { system_alloc_tracked,
    system_address, system_upload, system_retire
  };
  const gsize arena = GST_CUDA_CACHE_TAP_ARENA_MIN_BYTES;
  const gsize frame = 1920 * (1080 + 540);
  GstCudaCache *cache;
  GstCudaCacheScratch *scratch;
  GstCudaCacheTapArena *a, *b;
  GstCudaCacheStats stats;
  GstMemory *block;
  ConvertParams p;
  GArray *table;
  guint64 address, again;
  gboolean lq;
  gint inc, retired = 0, w;

  n_freed = 0;
  cache = gst_cuda_cache_new (0, GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  gst_cuda_cache_set_limit (cache, 64 * 1024 * 1024);
  scratch = gst_cuda_cache_scratch_new (cache, "cuda-context:test", &funcs,
      &retired);

  /* a plan's table: one arena, in use, holding it */
  params_init (&p, CONVERT_FORMAT_NV12, 1920, 1080, 640, 640, 0, 140, 640,
      360, 0, &lq, &inc);
  table = gst_cuda_cache_plan_build_table (&p, lq, inc);
  a = gst_cuda_cache_scratch_place_table (scratch, table, &address);
  fail_unless (a != NULL);
  fail_unless (memcmp ((gconstpointer) (guintptr) address, table->data,
          table->len * sizeof (guint32)) == 0);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.current_size, arena);
  fail_unless_equals_uint64 (stats.used_bytes, arena);
  fail_unless_equals_uint64 (stats.misses, 1);

  /* the same taps again share it */
  b = gst_cuda_cache_scratch_place_table (scratch, table, &again);
  fail_unless (b == a);
  fail_unless_equals_uint64 (again, address);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.current_size, arena);
  fail_unless_equals_uint64 (stats.misses, 1);
  g_array_unref (table);

  /* a narrowed 1080p frame's block, used, then idle */
  block = gst_cuda_cache_scratch_acquire (scratch, 1920, 1080 + 540);
  fail_unless (block != NULL);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.current_size, arena + frame);
  fail_unless_equals_uint64 (stats.used_bytes, arena + frame);
  gst_memory_unref (block);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.current_size, arena + frame);
  fail_unless_equals_uint64 (stats.idle_bytes, frame);

  /* the current arena stays when its tables go */
  gst_cuda_cache_scratch_release_table (scratch, a);
  gst_cuda_cache_scratch_release_table (scratch, b);
  fail_unless_equals_int (retired, 0);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.used_bytes, arena);

  /* tables of other caps until the arena fills: the full one is retired
   * and back in the cache, where the next arena finds it */
  for (w = 100; retired == 0 && w < 2000; w++) {
    params_init (&p, CONVERT_FORMAT_NV12, 1920, 1080, w, 640, 0, 0, w, 640,
        0, &lq, &inc);
    table = gst_cuda_cache_plan_build_table (&p, lq, inc);
    a = gst_cuda_cache_scratch_place_table (scratch, table, &address);
    fail_unless (a != NULL);
    gst_cuda_cache_scratch_release_table (scratch, a);
    g_array_unref (table);
  }
  fail_unless_equals_int (retired, 1);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.hits, 1);
  fail_unless_equals_uint64 (stats.misses, 2);
  fail_unless_equals_uint64 (stats.current_size, arena + frame);
  fail_unless_equals_uint64 (stats.used_bytes, arena);

  /* held to the limit: the idle frame goes, on the reaper thread */
  gst_cuda_cache_set_limit (cache, arena);
  gst_cuda_cache_drain (cache);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.current_size, arena);
  fail_unless_equals_uint64 (stats.evictions, 1);
  fail_unless_equals_int (n_freed, 1);
  fail_unless (freed_on[0] != g_thread_self ());

  /* the last user of the group gone, its arena is freed too */
  gst_cuda_cache_scratch_free (scratch);
  fail_unless_equals_int (retired, 2);
  gst_cuda_cache_drain (cache);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.current_size, 0);
  fail_unless_equals_int (n_freed, 2);
  fail_unless (freed_on[1] != g_thread_self ());
  gst_object_unref (cache);
}

GST_END_TEST;

/* A block too large for the limit is used, counted, and not kept. */
GST_START_TEST (test_kernels_memory_over_limit)
{
  const GstCudaCacheScratchFuncs funcs = { system_alloc, system_address,
    system_upload, system_retire
  };
  GstCudaCache *cache;
  GstCudaCacheScratch *scratch;
  GstCudaCacheStats stats;
  GstMemory *block;
  gint retired = 0;

  cache = gst_cuda_cache_new (0, GST_CUDA_CACHE_FLAG_NONE);
  gst_cuda_cache_set_limit (cache, 4096);
  scratch = gst_cuda_cache_scratch_new (cache, "cuda-context:test", &funcs,
      &retired);
  block = gst_cuda_cache_scratch_acquire (scratch, 8192, 2);
  fail_unless (block != NULL);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.current_size, 8192 * 2);
  gst_memory_unref (block);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  fail_unless_equals_uint64 (stats.current_size, 0);
  fail_unless_equals_uint64 (stats.evictions, 1);
  gst_cuda_cache_scratch_free (scratch);
  fail_unless_equals_int (retired, 0);
  gst_object_unref (cache);
}

GST_END_TEST;

/* Where a device exists: a converter's taps' table and 8-bit copy of
 * 16-bit frames are blocks of the device's cache, gone once it is. */
GST_START_TEST (test_kernels_memory_on_device)
{
  GstCudaContext *context;
  GstCudaCache *cache;
  GstCudaCacheStats before, during, after;
  GstCudaCacheConverter *conv;
  GstCaps *in_caps, *out_caps;
  GError *error = NULL;
  /* P010 3840x2160 narrowed: rows of 3840 bytes, 2160 + 1080 of them */
  const guint64 frame = 3840 * (2160 + 1080);

  if (gst_cuda_cache_device_get_count () == 0) {
    GST_INFO ("no CUDA device: the kernels' memory is checked on system "
        "memory only");
    return;
  }

  context = gst_cuda_cache_device_open_context (0);
  fail_unless (context != NULL);
  cache = gst_cuda_cache_device_get_cache (context);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &before);

  in_caps = gst_caps_from_string ("video/x-raw,format=P010_10LE,"
      "width=3840,height=2160");
  out_caps = gst_caps_from_string ("video/x-raw,format=RGBA,"
      "width=640,height=640");
  conv = gst_cuda_cache_converter_new (in_caps, out_caps, context, NULL,
      &error);
  fail_unless (conv != NULL, "%s", error ? error->message : "no error");
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &during);
  fail_unless (during.current_size >= before.current_size +
      GST_CUDA_CACHE_TAP_ARENA_MIN_BYTES + frame, "%" G_GUINT64_FORMAT
      " bytes, %" G_GUINT64_FORMAT " before", during.current_size,
      before.current_size);
  fail_unless_equals_uint64 (during.used_bytes - before.used_bytes,
      during.current_size - before.current_size);

  gst_object_unref (conv);
  gst_cuda_cache_drain (cache);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &after);
  fail_unless_equals_uint64 (after.current_size, before.current_size);
  fail_unless_equals_uint64 (after.used_bytes, before.used_bytes);

  gst_caps_unref (in_caps);
  gst_caps_unref (out_caps);
  gst_object_unref (cache);
  gst_object_unref (context);
}

GST_END_TEST;

static Suite *
taps_suite (void)
{
  Suite *s = suite_create ("taps");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_taps_inside_input);
  tcase_add_test (tc, test_taps_of_common_conversions);
  tcase_add_test (tc, test_taps_first_at_whole_positions);
  tcase_add_test (tc, test_taps_wider_than_32768);
  tcase_add_test (tc, test_kernel_list);
  tcase_add_test (tc, test_plans_pick_kernels);
  tcase_add_test (tc, test_kernels_memory_in_cache);
  tcase_add_test (tc, test_kernels_memory_over_limit);
  tcase_add_test (tc, test_kernels_memory_on_device);

  return s;
}

GST_CHECK_MAIN (taps);
