/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The planning of a conversion for the CUDA kernels
 * (gstcudacacheplan-private.h): GstVideoResampler's taps per axis, worked
 * out in the kernels' table, the tiles of the tiled kernel, the windows
 * and row groups of the direct kernel, and the kernel and grid a
 * conversion launches. Pure arithmetic on the host, no CUDA driver call:
 * the loader (gstcudacachekernels.c) uploads and launches what this
 * plans, and the tests check it without a device. Its length is the
 * table's: a dozen arrays the kernels read without a bound check, each
 * worked out here and nowhere else. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/video/video.h>

#include "gstcudacacheplan-private.h"

GST_DEBUG_CATEGORY (gst_cuda_cache_kernels_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

/* the tallest tile, in output rows; a shorter one where the taller would
 * make fewer blocks than this (two per SM of an H100) */
#define MAX_TILE_H 32
#define MIN_TILED_BLOCKS 264

G_STATIC_ASSERT (sizeof (ConvertParams) == CONVERT_PARAMS_SIZE);
G_STATIC_ASSERT (sizeof (ConvertBatchSlot) == CONVERT_BATCH_SLOT_SIZE);
G_STATIC_ASSERT (sizeof (ConvertBatch) == CONVERT_BATCH_SIZE);
G_STATIC_ASSERT (sizeof (PresetParams) == PRESET_PARAMS_SIZE);
G_STATIC_ASSERT (sizeof (PresetConvert) == PRESET_CONVERT_SIZE);
G_STATIC_ASSERT (sizeof (PresetBatchSlot) == PRESET_BATCH_SLOT_SIZE);
G_STATIC_ASSERT (G_STRUCT_OFFSET (ConvertParams, in_format) ==
    CONVERT_PARAMS_IN_FORMAT_OFFSET);
G_STATIC_ASSERT (G_STRUCT_OFFSET (ConvertParams, x_fx) ==
    CONVERT_PARAMS_X_FX_OFFSET);

const GstCudaCacheKernelInfo gst_cuda_cache_kernel_info[] = {
#define KERNEL_INFO(FAMILY, name, in, out, taps) \
  {G_STRINGIFY (name), GST_CUDA_CACHE_KERNEL_FAMILY_ ## FAMILY, in, out, \
        taps, FALSE},
#define BATCH_KERNEL_INFO(FAMILY, name, in, out, taps) \
  {G_STRINGIFY (name), GST_CUDA_CACHE_KERNEL_FAMILY_ ## FAMILY, in, out, \
        taps, TRUE},
  GST_CUDA_CACHE_SINGLE_KERNELS (KERNEL_INFO)
      GST_CUDA_CACHE_BATCH_KERNELS (BATCH_KERNEL_INFO)
#undef KERNEL_INFO
#undef BATCH_KERNEL_INFO
};

G_STATIC_ASSERT (G_N_ELEMENTS (gst_cuda_cache_kernel_info) ==
    GST_CUDA_CACHE_N_KERNELS);

void
gst_cuda_cache_kernels_init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_kernels_debug, "cudacachekernels",
        0, "cudacacheconvert's CUDA kernels");
    g_once_init_leave (&once, 1);
  }
}

GstCudaCacheKernelId
gst_cuda_cache_kernel_find (GstCudaCacheKernelFamily family, gint in,
    gint out, gint taps)
{
  guint i;

  for (i = 0; i < GST_CUDA_CACHE_N_KERNELS; i++) {
    const GstCudaCacheKernelInfo *k = &gst_cuda_cache_kernel_info[i];

    if (!k->batch && k->family == family && k->in == in && k->out == out &&
        k->taps == taps)
      return (GstCudaCacheKernelId) i;
  }
  return GST_CUDA_CACHE_KERNEL_NONE;
}

GstCudaCacheKernelId
gst_cuda_cache_kernel_batch_twin (GstCudaCacheKernelId kernel)
{
  const GstCudaCacheKernelInfo *s;
  guint i;

  g_return_val_if_fail (kernel >= 0 && kernel < GST_CUDA_CACHE_N_KERNELS,
      GST_CUDA_CACHE_KERNEL_NONE);

  s = &gst_cuda_cache_kernel_info[kernel];
  for (i = 0; i < GST_CUDA_CACHE_N_KERNELS && !s->batch; i++) {
    const GstCudaCacheKernelInfo *k = &gst_cuda_cache_kernel_info[i];

    if (k->batch && k->family == s->family && k->in == s->in &&
        k->out == s->out && k->taps == s->taps)
      return (GstCudaCacheKernelId) i;
  }
  return GST_CUDA_CACHE_KERNEL_NONE;
}

gint
gst_cuda_cache_plan_format (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_NV12:
      return CONVERT_FORMAT_NV12;
    case GST_VIDEO_FORMAT_I420:
      return CONVERT_FORMAT_I420;
    case GST_VIDEO_FORMAT_RGBA:
      return CONVERT_FORMAT_RGBA;
    case GST_VIDEO_FORMAT_BGRA:
      return CONVERT_FORMAT_BGRA;
    case GST_VIDEO_FORMAT_RGBx:
      return CONVERT_FORMAT_RGBx;
    case GST_VIDEO_FORMAT_BGRx:
      return CONVERT_FORMAT_BGRx;
    case GST_VIDEO_FORMAT_RGB:
      return CONVERT_FORMAT_RGB;
    case GST_VIDEO_FORMAT_BGR:
      return CONVERT_FORMAT_BGR;
    default:
      return -1;
  }
}

gint
gst_cuda_cache_plan_chroma_site (GstVideoChromaSite site)
{
  return (site & GST_VIDEO_CHROMA_SITE_H_COSITED ? CONVERT_CHROMA_H_COSITED :
      0) | (site & GST_VIDEO_CHROMA_SITE_V_COSITED ? CONVERT_CHROMA_V_COSITED :
      0);
}

/* n_taps and fx of one axis, as gst_video_resampler_init () works them out
 * for the LINEAR method: fx from the count before it is clamped to the
 * input size. */
static void
axis_taps (gint in_size, gint out_size, gint32 * n_taps, gfloat * fx)
{
  gdouble scale = in_size / (gdouble) out_size;
  gdouble filter_fx = scale > 1.0 ? 1.0 / scale : 1.0;
  gint n =
      CLAMP ((gint) ceil (2.0 / filter_fx), 1, GST_CUDA_CACHE_PLAN_MAX_TAPS);

  *fx = 2.0 / n;
  *n_taps = MIN (n, in_size);
}

/* Byte offsets of R, G, B in a packed RGB pixel, and its size. */
void
gst_cuda_cache_plan_packed_layout (gint format, gint * r, gint * g, gint * b,
    gint * bytes)
{
  gboolean bgr = format == CONVERT_FORMAT_BGRA ||
      format == CONVERT_FORMAT_BGRx || format == CONVERT_FORMAT_BGR;

  *r = bgr ? 2 : 0;
  *g = 1;
  *b = bgr ? 0 : 2;
  *bytes = format == CONVERT_FORMAT_RGB || format == CONVERT_FORMAT_BGR ? 3 : 4;
}

/* The chroma samples that one output index's @n_taps luma taps read,
 * with the linear upsampling, along an axis of @in_size luma samples: at
 * most n_taps / 2 + 3, and at most the chroma samples there are. */
static gint
chroma_taps (gint n_taps, gint in_size)
{
  return MIN (n_taps / 2 + 3, (in_size + 1) / 2);
}

gboolean
gst_cuda_cache_plan_is_yuv (gint format)
{
  return format == CONVERT_FORMAT_NV12 || format == CONVERT_FORMAT_I420;
}

/* One axis of a conversion, for its taps. */
typedef struct
{
  gint in_size;
  gint out_size;                /* the picture's */
  gint n_taps;
  gfloat fx;
  /* GstVideoScaler's 2-tap fixed-point path: position j * inc in 1/65536
   * of an input pixel, weights in 1/256 */
  gboolean lq;
  gint inc;
  /* 4:2:0 input: the chroma samples' taps too */
  gboolean chroma;
  gboolean cosited;
  gboolean interpolate;
} TapAxis;

/* The LINEAR weight of source index @i for position @x, in the float
 * operations (one fused multiply-add) the kernels used to make it with. */
static gfloat
tap_weight (gfloat x, gint i, gfloat fx)
{
  return MAX (0.0f, fmaf (-fabsf (x - (gfloat) i), fx, 1.0f));
}

/* Output index @j's unfolded taps: the first source index (before
 * clamping), the source position and the reciprocal of the weights' sum.
 * The position is worked out in double, operation by operation as
 * GstVideoResampler does (volatile: no contraction), so that the first tap
 * is the CPU path's even where the position is a whole number. */
static void
axis_tap (const TapAxis * a, gint j, gint32 * first, gfloat * x, gfloat * norm)
{
  volatile gdouble d;
  gfloat sum = 0.0f;
  gint l;

  if (a->lq) {
    /* past 32768 output pixels, j * inc leaves 32 bits */
    gint64 pos = (gint64) j * a->inc;

    *first = (gint32) (pos >> 16);
    *x = (gfloat) * first + (gfloat) ((pos >> 8) & 0xff) * (1.0f / 256.0f);
    *norm = 1.0f;
    return;
  }

  d = (0.5 + (gdouble) j) / (gdouble) a->out_size;
  d = d * (gdouble) a->in_size;
  d = d + (a->n_taps > 1 ? -0.5 : 0.0);
  d = CLAMP (d, 0.0, (gdouble) (a->in_size - 1));
  *first = (gint32) floor (d) - (a->n_taps - 1) / 2;
  *x = (gfloat) d;
  for (l = 0; l < a->n_taps; l++)
    sum += tap_weight (*x, *first + l, a->fx);
  *norm = 1.0f / sum;
}

/* The taps of axis_tap () folded inside the input (convert-params.h's
 * START, W, CSTART, CW): shifted at the edges as GstVideoResampler does,
 * the clamped taps' weights added to the edge pixel's; for 4:2:0 input the
 * chroma samples they read, with the upsampling's weights, folded the same
 * way. */
static void
fold_taps (const TapAxis * a, gint32 first, gfloat x, gfloat norm,
    gint32 * start, gfloat * w, gint32 * cstart, gfloat * cw)
{
  gint csize = (a->in_size + 1) / 2, nc = chroma_taps (a->n_taps, a->in_size);
  gint32 s, cs;
  gint l;

  s = CLAMP (first, 0, a->in_size - a->n_taps);
  /* the chroma window inside the plane too: no tap of it reads past the
   * plane's edge, so the kernels read every sample unclamped */
  cs = CLAMP (gst_cuda_cache_chroma_index (s, a->cosited), 0, csize - nc);

  for (l = 0; l < a->n_taps; l++)
    w[l] = 0.0f;
  for (l = 0; a->chroma && l < nc; l++)
    cw[l] = 0.0f;

  for (l = 0; l < a->n_taps; l++) {
    gfloat weight = tap_weight (x, first + l, a->fx) * norm;
    gint i = CLAMP (first + l, 0, a->in_size - 1);

    w[i - s] += weight;
    if (a->chroma) {
      gint c = gst_cuda_cache_chroma_index (i, a->cosited);
      gfloat f = gst_cuda_cache_chroma_frac (i, a->cosited, a->interpolate);
      gint k0 = CLAMP (c, 0, csize - 1) - cs, k1 = CLAMP (c + 1, 0,
          csize - 1) - cs;

      cw[k0] = fmaf (weight, 1.0f - f, cw[k0]);
      cw[k1] = fmaf (weight, f, cw[k1]);
    }
  }
  *start = s;
  *cstart = cs;
}

/* @n weights as CONVERT_FIXED_TAPS 16-bit values in 1/CONVERT_FIXED_ONE,
 * paired into words (the first of a pair in the low half), summing to
 * exactly CONVERT_FIXED_ONE: the rounding's remainder goes to the largest
 * weight, so that a flat input stays flat. */
static void
fixed_taps (const gfloat * w, gint n, guint32 * q)
{
  gint v[CONVERT_FIXED_TAPS] = { 0, };
  gint l, sum = 0, largest = 0;

  for (l = 0; l < n; l++) {
    v[l] = (gint) lrintf (w[l] * CONVERT_FIXED_ONE);
    sum += v[l];
    if (v[l] > v[largest])
      largest = l;
  }
  v[largest] += CONVERT_FIXED_ONE - sum;
  for (l = 0; l < CONVERT_FIXED_TAPS / 2; l++)
    q[l] = (guint32) v[2 * l] | ((guint32) v[2 * l + 1] << 16);
}

/* Appends one axis's arrays to @table, their offsets to tab[]: @base is
 * TAB_X_START or TAB_Y_START, the arrays following in
 * convert-params.h's order. */
static void
build_axis_table (const TapAxis * a, gboolean fixed, GArray * table,
    gint tab[TAB_N], gint base)
{
  gint n = a->n_taps, nc = a->chroma ? chroma_taps (n, a->in_size) : 0;
  gint size = a->out_size, j;
  gint32 *start, *cstart, *tap;
  gfloat *w, *cw;
  guint32 *q = NULL, *cq = NULL;
  guint at;

  at = table->len;
  tab[base + TAB_X_START - TAB_X_START] = at;
  tab[base + TAB_X_W - TAB_X_START] = at + size;
  tab[base + TAB_X_CSTART - TAB_X_START] = at + size + size * n;
  tab[base + TAB_X_CW - TAB_X_START] = at + 2 * size + size * n;
  tab[base + TAB_X_TAP - TAB_X_START] = at + 2 * size + size * (n + nc);
  g_array_set_size (table, at + 5 * size + size * (n + nc));
  if (fixed) {
    g_array_set_size (table, GST_ROUND_UP_4 (table->len));
    tab[TAB_X_Q] = table->len;
    tab[TAB_X_CQ] = table->len + size * (CONVERT_FIXED_TAPS / 2);
    g_array_set_size (table, table->len + size * CONVERT_FIXED_TAPS);
    q = &g_array_index (table, guint32, tab[TAB_X_Q]);
    cq = &g_array_index (table, guint32, tab[TAB_X_CQ]);
  }

  start = (gint32 *) & g_array_index (table, guint32, at);
  w = (gfloat *) (start + size);
  cstart = (gint32 *) (w + size * n);
  cw = (gfloat *) (cstart + size);
  tap = (gint32 *) (cw + size * nc);

  for (j = 0; j < size; j++) {
    gfloat x, norm;

    axis_tap (a, j, &tap[3 * j], &x, &norm);
    fold_taps (a, tap[3 * j], x, norm, &start[j], w + j * n, &cstart[j],
        cw + j * nc);
    memcpy (&tap[3 * j + 1], &x, sizeof (x));
    memcpy (&tap[3 * j + 2], &norm, sizeof (norm));
    if (fixed) {
      fixed_taps (w + j * n, n, q + j * (CONVERT_FIXED_TAPS / 2));
      fixed_taps (cw + j * nc, nc, cq + j * (CONVERT_FIXED_TAPS / 2));
    }
  }
}

/* The whole table of @p's taps (convert-params.h), its offsets into
 * p->tab[]. */
GArray *
gst_cuda_cache_plan_build_table (ConvertParams * p, gboolean lq, gint inc)
{
  GArray *table = g_array_new (FALSE, TRUE, sizeof (guint32));
  gboolean yuv = gst_cuda_cache_plan_is_yuv (p->in_format);
  TapAxis x = { p->in_width, p->dest_width, p->x_taps, p->x_fx, lq, inc,
    yuv, (p->chroma_site & CONVERT_CHROMA_H_COSITED) != 0, TRUE
  };
  TapAxis y = { p->in_height, p->dest_height, p->y_taps, p->y_fx, FALSE, 0,
    yuv, (p->chroma_site & CONVERT_CHROMA_V_COSITED) != 0, FALSE
  };

  p->x_ctaps = yuv ? chroma_taps (p->x_taps, p->in_width) : 0;
  p->y_ctaps = yuv ? chroma_taps (p->y_taps, p->in_height) : 0;
  p->x_fixed = yuv && !p->convert_first && p->x_taps <= CONVERT_FIXED_TAPS &&
      p->x_ctaps <= CONVERT_FIXED_TAPS;
  p->y_padded = p->y_taps <= 8 && p->y_ctaps <= 8;
  build_axis_table (&x, p->x_fixed, table, p->tab, TAB_X_START);
  build_axis_table (&y, FALSE, table, p->tab, TAB_Y_START);

  return table;
}

/* The first folded tap of picture index @j of one axis, from the table. */
static gint
table_start (const GArray * table, const ConvertParams * p, gint t, gint j)
{
  return (gint) g_array_index (table, guint32, p->tab[t] + j);
}

/* The input that picture indices [@j0, @j1) of one axis read
 * (TAB_X_START: columns, TAB_Y_START: rows): the first and last input
 * index (pixel or luma row) their taps read and, for 4:2:0 input, the
 * first and last chroma sample, into v[0..3]. */
static void
picture_range (const ConvertParams * p, const GArray * table, gint t,
    gint j0, gint j1, gint32 v[4])
{
  gboolean x = t == TAB_X_START;
  gint csize = ((x ? p->in_width : p->in_height) + 1) / 2;

  v[0] = table_start (table, p, t, j0);
  v[1] = table_start (table, p, t, j1 - 1) + (x ? p->x_taps : p->y_taps) - 1;
  v[2] = v[3] = 0;
  if (gst_cuda_cache_plan_is_yuv (p->in_format)) {
    gint ct = t + TAB_X_CSTART - TAB_X_START;

    v[2] = table_start (table, p, ct, j0);
    v[3] = MIN (csize - 1, table_start (table, p, ct, j1 - 1) +
        (x ? p->x_ctaps : p->y_ctaps) - 1);
  }
}

/* The input one tile of an axis reads: picture_range () of tile @b of
 * @tile output indices, clipped to the picture. FALSE for a tile outside
 * the picture, which reads nothing. */
static gboolean
tile_range (const ConvertParams * p, const GArray * table, gint t, gint b,
    gint tile, gint32 v[4])
{
  gboolean x = t == TAB_X_START;
  gint dest = x ? p->dest_x : p->dest_y;
  gint p0 = MAX (b * tile, dest);
  gint p1 = MIN ((b + 1) * tile, dest + (x ? p->dest_width : p->dest_height));

  if (p0 >= p1)
    return FALSE;
  picture_range (p, table, t, p0 - dest, p1 - dest, v);
  return TRUE;
}

/* Appends the tiled kernel's per-block input ranges (TILE_X, TILE_Y) to
 * @table, as convert_tile () reads them, once tile_h is chosen: per block
 * column tile_range () as it is, per block row the first row, how many,
 * the first chroma row, how many. */
static void
build_tile_table (ConvertParams * p, GArray * table)
{
  gint bw = (p->out_width + CONVERT_TILE_W - 1) / CONVERT_TILE_W;
  gint bh = (p->out_height + p->tile_h - 1) / p->tile_h;
  gint32 *v;
  gint b;

  g_array_set_size (table, GST_ROUND_UP_4 (table->len));
  p->tab[TAB_TILE_X] = table->len;
  p->tab[TAB_TILE_Y] = table->len + 4 * bw;
  g_array_set_size (table, table->len + 4 * (bw + bh));
  v = (gint32 *) & g_array_index (table, guint32, p->tab[TAB_TILE_X]);
  for (b = 0; b < bw; b++, v += 4)
    tile_range (p, table, TAB_X_START, b, CONVERT_TILE_W, v);
  v = (gint32 *) & g_array_index (table, guint32, p->tab[TAB_TILE_Y]);
  for (b = 0; b < bh; b++, v += 4) {
    if (!tile_range (p, table, TAB_Y_START, b, p->tile_h, v))
      continue;
    v[1] = v[1] - v[0] + 1;
    if (gst_cuda_cache_plan_is_yuv (p->in_format))
      v[3] = v[3] - v[2] + 1;
  }
}

/* The input rows (luma rows for YUV) and chroma rows one tile of a block
 * row reads, at most, as the kernels' convert_tile () finds them. */
static void
tile_rows (const ConvertParams * p, const GArray * table, gint tile_h,
    gint * rows, gint * chroma_rows)
{
  gint32 v[4];
  gint b;

  *rows = 1;
  *chroma_rows = 1;
  for (b = 0; b * tile_h < p->out_height; b++) {
    if (!tile_range (p, table, TAB_Y_START, b, tile_h, v))
      continue;
    *rows = MAX (*rows, v[1] - v[0] + 1);
    if (gst_cuda_cache_plan_is_yuv (p->in_format))
      *chroma_rows = MAX (*chroma_rows, v[3] - v[2] + 1);
  }
}

/* The bytes of one input row (of each chroma plane) that one block keeps
 * in shared memory: the widest range of bytes a tile reads, plus the slack
 * of copying whole aligned 16-byte words. */
static void
tile_pitches (const ConvertParams * p, const GArray * table, gint * pitch,
    gint * chroma_pitch)
{
  gboolean yuv = gst_cuda_cache_plan_is_yuv (p->in_format);
  gint bpp = yuv ? 1 : p->in_pixel_bytes;
  gint bpc = p->in_format == CONVERT_FORMAT_NV12 ? 2 : 1;
  gint bytes = 1, chroma_bytes = 1;
  gint32 v[4];
  gint b;

  for (b = 0; b * CONVERT_TILE_W < p->out_width; b++) {
    if (!tile_range (p, table, TAB_X_START, b, CONVERT_TILE_W, v))
      continue;
    bytes = MAX (bytes, (v[1] - v[0] + 1) * bpp);
    if (yuv)
      chroma_bytes = MAX (chroma_bytes, (v[3] - v[2] + 1) * bpc);
  }

  *pitch = GST_ROUND_UP_16 (bytes + 30);
  *chroma_pitch = GST_ROUND_UP_16 (chroma_bytes + 30);
}

/* The log2 of the power of two of 16-byte words, at least those of a row
 * of @pitch bytes, at most the block's threads, that the kernels'
 * stage_tile () lays a block's threads over. */
static gint
stage_shift (gint pitch)
{
  gint shift = 0;

  while ((1 << shift) < pitch / 16 &&
      (1 << shift) < CONVERT_TILE_W * CONVERT_TILE_THREADS_Y)
    shift++;
  return shift;
}

/* Shared memory of one block of the tiled kernel, as convert_tile () lays
 * it out. */
guint64
gst_cuda_cache_plan_tile_shared_bytes (const ConvertParams * p)
{
  gboolean yuv = gst_cuda_cache_plan_is_yuv (p->in_format);
  gboolean yuv_out = gst_cuda_cache_plan_is_yuv (p->out_format);
  guint64 tw = CONVERT_TILE_W, th = p->tile_h;
  guint64 ncx = p->x_ctaps, ncy = p->y_ctaps;
  guint64 pad = p->y_padded ? 8 : 0;
  guint64 floats, bytes;

  floats = 2 * tw + (p->x_taps + ncx) * tw + 2 * th;
  floats += th * (p->y_padded ? 16 : p->y_taps + ncy);
  floats += tw * (yuv && !p->convert_first ?
      p->tile_rows + 2 * p->tile_chroma_rows : 3 * p->tile_rows);
  floats += 3 * tw * pad;
  if (yuv_out)
    floats += 3 * tw * th;
  bytes = GST_ROUND_UP_4 (floats) * sizeof (gfloat) +
      (guint64) p->tile_rows * p->tile_pitch;
  if (yuv)
    bytes += (guint64) p->tile_chroma_rows * p->tile_chroma_pitch *
        (p->in_format == CONVERT_FORMAT_I420 ? 2 : 1);
  if (yuv && p->convert_first)
    bytes += (guint64) p->tile_rows * p->tile_pitch * 4;
  /* the fixed-point pass reads whole words up to 20 bytes past a row's
   * taps (their weights 0) */
  bytes += 32;

  return bytes;
}

static gint
in_kind (gint format)
{
  switch (format) {
    case CONVERT_FORMAT_NV12:
      return CONVERT_IN_NV12;
    case CONVERT_FORMAT_I420:
      return CONVERT_IN_I420;
    case CONVERT_FORMAT_RGB:
    case CONVERT_FORMAT_BGR:
      return CONVERT_IN_RGB3;
    default:
      return CONVERT_IN_RGB4;
  }
}

static gint
out_kind (gint format)
{
  switch (format) {
    case CONVERT_FORMAT_NV12:
    case CONVERT_FORMAT_I420:
      return CONVERT_OUT_YUV420;
    case CONVERT_FORMAT_TENSOR:
      return CONVERT_OUT_TENSOR;
    case CONVERT_FORMAT_GRAY_TENSOR:
      return CONVERT_OUT_GRAY;
    default:
      return CONVERT_OUT_PACKED;
  }
}

/* The scaling of @p's axes, from its formats and sizes: taps and fx per
 * axis, whether 4:2:0 input is converted before it is scaled, and in *lq
 * and *inc whether and with which step x takes GstVideoScaler's 2-tap
 * fixed-point path. */
void
gst_cuda_cache_plan_axes (ConvertParams * p, gboolean * lq, gint * inc)
{
  gint out = out_kind (p->out_format);
  gint cpu_out;

  axis_taps (p->in_width, p->dest_width, &p->x_taps, &p->x_fx);
  axis_taps (p->in_height, p->dest_height, &p->y_taps, &p->y_fx);
  /* GStreamer converts 4:2:0 input to RGB before scaling when the picture
   * grows, after it when it shrinks */
  if (in_kind (p->in_format) <= CONVERT_IN_I420 && out != CONVERT_OUT_YUV420 &&
      (gint64) p->dest_width * p->dest_height >
      (gint64) p->in_width * p->in_height)
    p->convert_first = 1;
  /* GstVideoScaler's horizontal 2-tap path (an upscale of 8-bit pixels:
   * corners aligned, a fixed-point step): used on 8-bit lines of 1 or 4
   * components, so not where GstVideoConverter scales RGB or BGR in place
   * (same format in and out; tensors are made from RGB) */
  cpu_out = out == CONVERT_OUT_TENSOR || out == CONVERT_OUT_GRAY ?
      CONVERT_FORMAT_RGB : p->out_format;
  *lq = FALSE;
  *inc = 0;
  if (p->x_taps == 2 && p->in_width != p->dest_width &&
      !(p->in_format == cpu_out && (cpu_out == CONVERT_FORMAT_RGB ||
              cpu_out == CONVERT_FORMAT_BGR))) {
    *lq = TRUE;
    /* in 64 bits: the step of an input wider than 32768 pixels does not
     * fit 16.16 fixed point in an int before the division */
    *inc = p->dest_width == 1 ? 0 :
        (gint) ((((gint64) p->in_width - 1) << 16) / (p->dest_width - 1) - 1);
    p->x_fx = 1.0f;
  }
}

/* The tiled kernel's tiles for @p, once its taps are in @table: the
 * tallest tile whose input rows fit in a block's shared memory, at most
 * MAX_TILE_H rows, shorter where a taller one would make fewer than
 * MIN_TILED_BLOCKS blocks; its pitches, staging shifts and per-block ranges
 * (appended to @table) in @p. Returns a block's shared memory, or 0 (the
 * tile fields 0) where not even tiles of 2 rows fit: thousands of input
 * rows per output row, for the generic kernel. */
guint
gst_cuda_cache_plan_tiles (ConvertParams * p, GArray * table)
{
  guint64 blocks_w = (p->out_width + CONVERT_TILE_W - 1) / CONVERT_TILE_W;
  gint max_tile_h;

  tile_pitches (p, table, &p->tile_pitch, &p->tile_chroma_pitch);
  for (max_tile_h = MAX_TILE_H; max_tile_h > 8; max_tile_h /= 2) {
    if (blocks_w * ((p->out_height + max_tile_h - 1) / max_tile_h) >=
        MIN_TILED_BLOCKS)
      break;
  }
  for (p->tile_h = max_tile_h; p->tile_h >= 2; p->tile_h /= 2) {
    guint64 bytes;

    tile_rows (p, table, p->tile_h, &p->tile_rows, &p->tile_chroma_rows);
    bytes = gst_cuda_cache_plan_tile_shared_bytes (p);
    if (bytes <= GST_CUDA_CACHE_PLAN_MAX_SHARED_BYTES) {
      p->stage_shift = stage_shift (p->tile_pitch);
      p->stage_chroma_shift = stage_shift (p->tile_chroma_pitch);
      build_tile_table (p, table);
      return bytes;
    }
  }

  p->tile_h = p->tile_rows = p->tile_chroma_rows = 0;
  p->tile_pitch = p->tile_chroma_pitch = 0;
  return 0;
}

/* @q's CONVERT_FIXED_TAPS paired 16-bit weights moved @d taps along, into
 * @out: the weights of the same pixels in a window starting @d pixels
 * earlier. The weights moved out are 0 (the window still covers every
 * tap). */
static void
shift_fixed (const guint32 * q, gint d, guint32 * out)
{
  guint32 v[CONVERT_FIXED_TAPS] = { 0, };
  gint l;

  for (l = 0; l + d < CONVERT_FIXED_TAPS; l++)
    v[l + d] = (q[l / 2] >> (16 * (l & 1))) & 0xffff;
  for (l = 0; l < CONVERT_FIXED_TAPS / 2; l++)
    out[l] = v[2 * l] | (v[2 * l + 1] << 16);
}

/* The taps of the direct kernel's windows for @p: the narrow ones where
 * every column has at most CONVERT_DIRECT_NARROW_TAPS of luma and of
 * chroma, else CONVERT_FIXED_TAPS. */
gint
gst_cuda_cache_plan_direct_taps (const ConvertParams * p)
{
  return p->x_taps <= CONVERT_DIRECT_NARROW_TAPS &&
      p->x_ctaps <= CONVERT_DIRECT_NARROW_TAPS ?
      CONVERT_DIRECT_NARROW_TAPS : CONVERT_FIXED_TAPS;
}

/* The direct kernel's tables (convert-params.h's X_DIRECT, Y_GROUP),
 * appended to @table, and its fields of @p, where it applies: 4:2:0 input
 * to packed RGB or a tensor, the fixed-point horizontal pass (at most
 * CONVERT_FIXED_TAPS taps per column, so no conversion before scaling),
 * at most 8 taps per row, chroma at least a window (@n, gst_cuda_cache_plan_direct_taps ())
 * wide. */
gboolean
gst_cuda_cache_plan_direct (ConvertParams * p, GArray * table, gint n)
{
  const gint G = CONVERT_DIRECT_ROWS;
  gint csize = (p->in_width + 1) / 2;
  gint n_groups = (p->dest_height + G - 1) / G;
  gint rows = 0, crows = 0, j, k, l;
  gint32 v[4];
  guint at;

  if (in_kind (p->in_format) > CONVERT_IN_I420 ||
      out_kind (p->out_format) == CONVERT_OUT_YUV420 || !p->x_fixed ||
      !p->y_padded || csize < n)
    return FALSE;

  /* per column: the windows moved inside the rows */
  g_array_set_size (table, GST_ROUND_UP_4 (table->len));
  at = table->len;
  g_array_set_size (table, at + 12 * p->dest_width);
  for (j = 0; j < p->dest_width; j++) {
    guint32 *c = &g_array_index (table, guint32, at + 12 * j);
    gint s = table_start (table, p, TAB_X_START, j);
    gint cs = table_start (table, p, TAB_X_CSTART, j);
    gint s1 = MIN (s, p->in_width - n), cs1 = MIN (cs, csize - n);

    c[0] = s1;
    c[1] = cs1;
    shift_fixed (&g_array_index (table, guint32, p->tab[TAB_X_Q] + 4 * j),
        s - s1, c + 4);
    shift_fixed (&g_array_index (table, guint32, p->tab[TAB_X_CQ] + 4 * j),
        cs - cs1, c + 8);
  }
  p->tab[TAB_X_DIRECT] = at;

  /* per group of rows: the rows its taps read (the starts grow with the
   * row, so the group's first and last row bound them), each row's
   * weights */
  for (k = 0; k < n_groups; k++) {
    picture_range (p, table, TAB_Y_START, k * G, MIN ((k + 1) * G,
            p->dest_height), v);
    rows = MAX (rows, v[1] - v[0] + 1);
    crows = MAX (crows, v[3] - v[2] + 1);
  }
  p->direct_rows = rows;
  p->direct_chroma_rows = crows;
  p->direct_group = GST_ROUND_UP_4 (4 + G * (rows + crows));
  p->direct_k0 = -((p->dest_y + G - 1) / G);
  at = table->len;
  g_array_set_size (table, at + n_groups * p->direct_group);
  p->tab[TAB_Y_GROUP] = at;
  for (k = 0; k < n_groups; k++) {
    gint32 *g = (gint32 *) & g_array_index (table, guint32,
        at + k * p->direct_group);
    gfloat *w = (gfloat *) (g + 4), *cw = w + G * rows;
    gint j0 = k * G, j1 = MIN (j0 + G, p->dest_height) - 1;
    gint s0, cs0;

    picture_range (p, table, TAB_Y_START, j0, j1 + 1, v);
    s0 = v[0];
    cs0 = v[2];
    g[0] = s0;
    g[1] = v[1] - s0 + 1;
    g[2] = cs0;
    g[3] = v[3] - cs0 + 1;
    for (j = j0; j <= j1; j++) {
      const gfloat *tw = (const gfloat *) &g_array_index (table, guint32,
          p->tab[TAB_Y_W] + j * p->y_taps);
      const gfloat *tcw = (const gfloat *) &g_array_index (table, guint32,
          p->tab[TAB_Y_CW] + j * p->y_ctaps);
      gint s = table_start (table, p, TAB_Y_START, j) - s0;
      gint cs = table_start (table, p, TAB_Y_CSTART, j) - cs0;

      /* in 1/CONVERT_FIXED_ONE: the rows' sums come unscaled */
      for (l = 0; l < p->y_taps; l++)
        w[(s + l) * G + j - j0] = tw[l] * (1.0f / CONVERT_FIXED_ONE);
      for (l = 0; l < p->y_ctaps; l++)
        cw[(cs + l) * G + j - j0] = tcw[l] * (1.0f / CONVERT_FIXED_ONE);
    }
  }

  return TRUE;
}

gboolean
gst_cuda_cache_plan_params (const GstCudaCacheConvertParams * params,
    ConvertParams * p, gboolean * lq, gint * inc)
{
  guint i;

  g_return_val_if_fail (params != NULL, FALSE);
  g_return_val_if_fail (p != NULL, FALSE);

  gst_cuda_cache_kernels_init_debug ();

  /* compared with memcmp () as the key of a plan: no stray bytes */
  memset (p, 0, sizeof (*p));
  p->in_format = gst_cuda_cache_plan_format (params->in_format);
  if (params->out_format != GST_VIDEO_FORMAT_UNKNOWN)
    p->out_format = gst_cuda_cache_plan_format (params->out_format);
  else if (params->channels == 1)
    p->out_format = CONVERT_FORMAT_GRAY_TENSOR;
  else
    p->out_format = CONVERT_FORMAT_TENSOR;
  /* gray is made, not read: GRAY8 input comes as I420 */
  if (p->in_format < 0 || p->in_format >= CONVERT_FORMAT_TENSOR ||
      p->out_format < 0)
    goto unsupported_formats;
  if (params->in_width <= 0 || params->in_height <= 0 ||
      params->out_width <= 0 || params->out_height <= 0 ||
      params->dest_width <= 0 || params->dest_height <= 0 ||
      params->dest_x < 0 || params->dest_y < 0 ||
      params->dest_x + params->dest_width > params->out_width ||
      params->dest_y + params->dest_height > params->out_height)
    goto invalid_geometry;

  for (i = 0; i < 3; i++) {
    p->fill[i] = params->fill[i];
    p->mul[i] = params->mul[i];
    p->add[i] = params->add[i];
  }
  for (i = 0; i < 12; i++) {
    p->yuv_to_rgb[i] = params->yuv_to_rgb[i];
    p->rgb_to_yuv[i] = params->rgb_to_yuv[i];
  }
  if (in_kind (p->in_format) == CONVERT_IN_RGB3 ||
      in_kind (p->in_format) == CONVERT_IN_RGB4)
    gst_cuda_cache_plan_packed_layout (p->in_format, &p->in_r, &p->in_g,
        &p->in_b, &p->in_pixel_bytes);
  if (out_kind (p->out_format) == CONVERT_OUT_PACKED) {
    gint sel[4];

    gst_cuda_cache_plan_packed_layout (p->out_format, &p->out_r, &p->out_g,
        &p->out_b, &p->out_pixel_bytes);
    sel[p->out_r] = 0;
    sel[p->out_g] = 1;
    sel[p->out_b] = 2;
    sel[p->out_pixel_bytes == 4 ? 6 - p->out_r - p->out_g - p->out_b : 3] = 3;
    p->out_perm = sel[0] | (sel[1] << 4) | (sel[2] << 8) | (sel[3] << 12);
  }
  p->in_width = params->in_width;
  p->in_height = params->in_height;
  p->out_width = params->out_width;
  p->out_height = params->out_height;
  p->dest_x = params->dest_x;
  p->dest_y = params->dest_y;
  p->dest_width = params->dest_width;
  p->dest_height = params->dest_height;
  gst_cuda_cache_plan_axes (p, lq, inc);
  p->dtype = params->dtype == GST_CUDA_CACHE_TENSOR_DTYPE_U8 ?
      CONVERT_DTYPE_U8 : params->dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F16 ?
      CONVERT_DTYPE_F16 : CONVERT_DTYPE_F32;
  p->layout = params->layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC ?
      CONVERT_LAYOUT_NHWC : CONVERT_LAYOUT_NCHW;
  p->bgr = params->bgr ? 1 : 0;
  p->chroma_site = gst_cuda_cache_plan_chroma_site (params->in_chroma_site);

  return TRUE;

  /* ERRORS */
unsupported_formats:
  {
    GST_ERROR ("cannot convert %s to %s",
        gst_video_format_to_string (params->in_format),
        params->out_format == GST_VIDEO_FORMAT_UNKNOWN ? "a tensor" :
        gst_video_format_to_string (params->out_format));
    return FALSE;
  }
invalid_geometry:
  {
    GST_ERROR ("invalid conversion: %dx%d to %dx%d, picture at %d,%d %dx%d",
        params->in_width, params->in_height, params->out_width,
        params->out_height, params->dest_x, params->dest_y,
        params->dest_width, params->dest_height);
    return FALSE;
  }
}

void
gst_cuda_cache_plan_init (GstCudaCachePlan * plan, const ConvertParams * key,
    gboolean lq, gint inc)
{
  ConvertParams *p;
  gint in, out;

  g_return_if_fail (plan != NULL);
  g_return_if_fail (key != NULL);

  memset (plan, 0, sizeof (*plan));
  plan->params = *key;
  p = &plan->params;
  in = in_kind (p->in_format);
  out = out_kind (p->out_format);
  plan->n_planes = in == CONVERT_IN_I420 ? 3 : in == CONVERT_IN_NV12 ? 2 : 1;
  plan->table = gst_cuda_cache_plan_build_table (p, lq, inc);

  plan->tiled.shared_bytes = gst_cuda_cache_plan_tiles (p, plan->table);
  if (plan->tiled.shared_bytes) {
    plan->tiled.kernel =
        gst_cuda_cache_kernel_find (GST_CUDA_CACHE_KERNEL_FAMILY_TILE, in, out,
        0);
    plan->tiled.block_w = CONVERT_TILE_W;
    plan->tiled.block_h = CONVERT_TILE_THREADS_Y;
    plan->tiled.grid_w = (p->out_width + CONVERT_TILE_W - 1) / CONVERT_TILE_W;
    plan->tiled.grid_h = (p->out_height + p->tile_h - 1) / p->tile_h;
  } else {
    plan->tiled.kernel =
        gst_cuda_cache_kernel_find (GST_CUDA_CACHE_KERNEL_FAMILY_GENERIC, in,
        out, 0);
    plan->tiled.block_w = CONVERT_GENERIC_THREADS;
    plan->tiled.block_h = 1;
    /* a block per output pixel, or per 2x2 block of a 4:2:0 output */
    if (out == CONVERT_OUT_YUV420) {
      plan->tiled.grid_w = (p->out_width + 1) / 2;
      plan->tiled.grid_h = (p->out_height + 1) / 2;
    } else {
      plan->tiled.grid_w = p->out_width;
      plan->tiled.grid_h = p->out_height;
    }
  }

  plan->direct.kernel = GST_CUDA_CACHE_KERNEL_NONE;
  plan->direct_taps = gst_cuda_cache_plan_direct_taps (p);
  if (gst_cuda_cache_plan_direct (p, plan->table, plan->direct_taps)) {
    /* the groups from the one holding output row 0 to the last's */
    gint G = CONVERT_DIRECT_ROWS;
    gint groups = -p->direct_k0 + (p->out_height - p->dest_y + G - 1) / G;

    plan->direct.kernel =
        gst_cuda_cache_kernel_find (GST_CUDA_CACHE_KERNEL_FAMILY_DIRECT, in,
        out, plan->direct_taps);
    plan->direct.grid_w = (p->out_width + CONVERT_TILE_W - 1) / CONVERT_TILE_W;
    plan->direct.grid_h = (groups + CONVERT_DIRECT_WARPS - 1) /
        CONVERT_DIRECT_WARPS;
    plan->direct.block_w = CONVERT_TILE_W;
    plan->direct.block_h = CONVERT_DIRECT_WARPS;
  }
}

void
gst_cuda_cache_plan_set_output (ConvertParams * p,
    const guintptr out_data[3], const gint out_stride[3])
{
  gint i;

  for (i = 0; i < 3; i++) {
    p->out_data[i] = out_data[i];
    p->out_stride[i] = out_stride[i];
  }
  /* whole-pixel stores where the rows allow them */
  if (p->out_pixel_bytes == 4)
    p->out_aligned = out_data[0] % 4 == 0 && out_stride[0] % 4 == 0;
}

static gint
preset_group (gint kind)
{
  switch (kind) {
    case PRESET_COPY:
    case PRESET_NEAREST:
      return PRESET_GROUP_NEAR;
    case PRESET_CV_TWO_TAPS:
      return PRESET_GROUP_TWO_TAPS;
    case PRESET_AREA_HALF:
    case PRESET_AREA_INTEGER:
    case PRESET_AREA:
      return PRESET_GROUP_AREA;
    case PRESET_PIL:
      return PRESET_GROUP_PIL;
    default:
      return -1;
  }
}

void
gst_cuda_cache_plan_preset (const ConvertParams * p, gint kind,
    GstCudaCacheLaunch * launch)
{
  gint out;
  guint units_w, units_h;

  g_return_if_fail (p != NULL);
  g_return_if_fail (launch != NULL);

  memset (launch, 0, sizeof (*launch));
  out = out_kind (p->out_format);
  launch->kernel =
      gst_cuda_cache_kernel_find (GST_CUDA_CACHE_KERNEL_FAMILY_RESAMPLE, -1,
      out, preset_group (kind));
  /* a thread per pixel, or per 2x2 block of a 4:2:0 output */
  units_w = out == CONVERT_OUT_YUV420 ? (p->out_width + 1) / 2 : p->out_width;
  units_h = out == CONVERT_OUT_YUV420 ? (p->out_height + 1) / 2 : p->out_height;
  launch->block_w = PRESET_BLOCK_W;
  launch->block_h = PRESET_BLOCK_H;
  launch->grid_w = (units_w + PRESET_BLOCK_W - 1) / PRESET_BLOCK_W;
  /* PRESET_ROWS rows of blocks a thread; the kernels loop over the rows
   * past the grid's */
  launch->grid_h = MIN ((units_h + PRESET_BLOCK_H * PRESET_ROWS - 1) /
      (PRESET_BLOCK_H * PRESET_ROWS), 65535);
}

void
gst_cuda_cache_plan_clear (GstCudaCachePlan * plan)
{
  g_return_if_fail (plan != NULL);

  g_clear_pointer (&plan->table, g_array_unref);
}
