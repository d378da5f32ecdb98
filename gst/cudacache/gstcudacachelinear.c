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
#ifdef __SSE2__
#include <emmintrin.h>
#endif
/* AVX2 where the CPU has it, chosen at run time */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define HAVE_AVX2_AT_RUN_TIME 1
#include <immintrin.h>
#endif

#include "gstcudacachelinear-private.h"
#include "gstcudacacheplan-private.h"

/* Taps (output samples times the taps of both axes) below which a frame,
 * or a slice of it, is not worth a thread of its own */
#define LINEAR_TAPS_PER_THREAD 65536

/* One call's slices of rows (gst_cuda_cache_parallel_rows ()): the
 * calling thread runs the first, the process's row workers the others */
typedef struct
{
  GstCudaCacheRowsFunc func;
  gpointer data;
  GMutex lock;
  GCond done;
  guint pending;                /* slices the workers have not finished */
} Rows;

typedef struct
{
  Rows *rows;
  gint y0, y1;
} Slice;

static void
slice_run (gpointer data, G_GNUC_UNUSED gpointer user_data)
{
  Slice *s = data;
  Rows *rows = s->rows;

  rows->func (rows->data, s->y0, s->y1);
  g_mutex_lock (&rows->lock);
  if (--rows->pending == 0)
    g_cond_signal (&rows->done);
  g_mutex_unlock (&rows->lock);
}

/* The row workers: threads kept for the process's life, so that a frame
 * costs no thread creation; their work is leaves (no slice waits for
 * another), so callers on any number of threads share them safely. */
static GThreadPool *
row_workers (void)
{
  static GThreadPool *pool;

  if (g_once_init_enter (&pool)) {
    GThreadPool *p = g_thread_pool_new (slice_run, NULL,
        MAX ((gint) g_get_num_processors (), 1), FALSE, NULL);

    g_once_init_leave (&pool, p);
  }

  return pool;
}

guint
gst_cuda_cache_cpu_threads (void)
{
  static gsize threads;

  if (g_once_init_enter (&threads))
    g_once_init_leave (&threads, CLAMP (g_get_num_processors (), 1, 8));

  return (guint) threads;
}

void
gst_cuda_cache_parallel_rows (GstCudaCacheRowsFunc func, gpointer data,
    gint rows, gint align, guint threads)
{
  Slice slices[16];
  Rows r;
  guint n = CLAMP (threads, 1, G_N_ELEMENTS (slices)), i;
  gint units = (rows + align - 1) / align;

  /* a few rows are not worth a thread */
  n = MIN (n, (guint) MAX (rows / 16, 1));
  if (n == 1) {
    func (data, 0, rows);
    return;
  }

  r.func = func;
  r.data = data;
  r.pending = n - 1;
  g_mutex_init (&r.lock);
  g_cond_init (&r.done);
  for (i = 0; i < n; i++) {
    slices[i].rows = &r;
    slices[i].y0 = MIN ((gint) ((gint64) units * i / n) * align, rows);
    slices[i].y1 = MIN ((gint) ((gint64) units * (i + 1) / n) * align, rows);
  }
  for (i = 1; i < n; i++)
    g_thread_pool_push (row_workers (), &slices[i], NULL);
  func (data, slices[0].y0, slices[0].y1);

  g_mutex_lock (&r.lock);
  while (r.pending > 0)
    g_cond_wait (&r.done, &r.lock);
  g_mutex_unlock (&r.lock);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.done);
}

typedef enum
{
  OUT_PACKED,
  OUT_YUV420,
  OUT_RGB_ROWS,
} OutKind;

/* One kind of sample across: the first input index per picture column,
 * and the weights as floats, @stride a column (zero past the taps) */
typedef struct
{
  const gint32 *start;
  gfloat *w;
  gint n;                       /* the taps */
  gint stride;                  /* 4 or 8 where n fits, else n */
  /* every column the input's own, whole (the same width, no letterbox
   * across): the sums are the samples */
  gboolean copy;
} Across;

struct _GstCudaCacheLinear
{
  ConvertParams p;
  GArray *table;
  OutKind out;
  gboolean nv12_out;
  gboolean yuv;                 /* 4:2:0 input */
  gboolean yuv_h;               /* filtered as Y, U, V (not converted first) */
  gint out_alpha;               /* packed 4-byte output: the 4th byte's offset */

  /* across: luma (or RGB) and chroma */
  Across x, xc;
  /* down: the table's arrays (kernels/convert-params.h) */
  const gint32 *y_start, *y_cstart;
  const gfloat *y_w, *y_cw;
};

/* @a's weights from the table: the fixed-point ones as the values they
 * are (q / 32768: exact in a float, and so are their products with a
 * byte and the sums of 8 of them, in any order), else the float ones */
static void
across_init (Across * a, const gint32 * start, const gfloat * w,
    const guint32 * q, gint n, gint width)
{
  gint x, l;

  a->start = start;
  a->n = n;
  a->stride = n <= 4 ? 4 : n <= 8 ? 8 : n;
  a->w = g_new0 (gfloat, (gsize) a->stride * width);
  a->copy = TRUE;
  for (x = 0; x < width; x++) {
    for (l = 0; l < n; l++) {
      gfloat v = q ?
          ((q[x * (CONVERT_FIXED_TAPS / 2) + (l >> 1)] >> (16 * (l & 1))) &
          0xffff) * (1.0f / CONVERT_FIXED_ONE) : w[x * n + l];

      a->w[x * a->stride + l] = v;
      if (v != (start[x] + l == x ? 1.0f : 0.0f))
        a->copy = FALSE;
    }
  }
}

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
  across_init (&l->x, (const gint32 *) TAB (TAB_X_START),
      (const gfloat *) TAB (TAB_X_W), p->x_fixed ? TAB (TAB_X_Q) : NULL,
      p->x_taps, p->dest_width);
  l->y_start = (const gint32 *) TAB (TAB_Y_START);
  l->y_w = (const gfloat *) TAB (TAB_Y_W);
  if (l->yuv) {
    across_init (&l->xc, (const gint32 *) TAB (TAB_X_CSTART),
        (const gfloat *) TAB (TAB_X_CW), p->x_fixed ? TAB (TAB_X_CQ) : NULL,
        p->x_ctaps, p->dest_width);
    l->y_cstart = (const gint32 *) TAB (TAB_Y_CSTART);
    l->y_cw = (const gfloat *) TAB (TAB_Y_CW);
  }
#undef TAB

  return l;
}

void
gst_cuda_cache_linear_free (GstCudaCacheLinear * l)
{
  if (!l)
    return;
  g_free (l->x.w);
  g_free (l->xc.w);
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
  GstCudaCacheLinearSource source;
  gpointer source_data;
} Run;

#define to_u8 gst_cuda_cache_to_u8

/* bytes past a row that the across pass's loads may read */
#define ROW_PAD 16

#ifdef __SSE2__
/* 4 bytes at @p as 4 floats */
static inline __m128
load4 (const guint8 * p)
{
  const __m128i zero = _mm_setzero_si128 ();
  guint32 v;

  memcpy (&v, p, 4);
  return _mm_cvtepi32_ps (_mm_unpacklo_epi16 (_mm_unpacklo_epi8
          (_mm_cvtsi32_si128 ((gint) v), zero), zero));
}

/* the sums of @a, @b, @c and @d's values, in one vector */
static inline __m128
sum4 (__m128 a, __m128 b, __m128 c, __m128 d)
{
  __m128 s0 = _mm_add_ps (_mm_unpacklo_ps (a, b), _mm_unpackhi_ps (a, b));
  __m128 s1 = _mm_add_ps (_mm_unpacklo_ps (c, d), _mm_unpackhi_ps (c, d));

  return _mm_add_ps (_mm_movelh_ps (s0, s1), _mm_movehl_ps (s1, s0));
}

/* column @x's products: its taps' bytes by their weights, in a vector
 * (stride 4) or two (stride 8) */
static inline __m128
products (const Across * a, const guint8 * src, gint x)
{
  const guint8 *s = src + a->start[x];
  const gfloat *w = a->w + x * a->stride;
  __m128 v = _mm_mul_ps (load4 (s), _mm_loadu_ps (w));

  if (a->stride == 8)
    v = _mm_add_ps (v, _mm_mul_ps (load4 (s + 4), _mm_loadu_ps (w + 4)));
  return v;
}
#endif

/* A row of bytes (@src, readable ROW_PAD bytes past its end) across into
 * @dst, a value a picture column. Where the kernels sum in fixed point
 * (at most 8 taps) the sums are exact, in whatever order; else in the
 * kernels' order. */
static void
across_bytes (const Across * a, const guint8 * src, gint width, gfloat * dst)
{
  gint x = 0, l;

  if (a->copy) {
    for (x = 0; x < width; x++)
      dst[x] = src[x];
    return;
  }
#ifdef __SSE2__
  if (a->stride <= 8) {
    for (; x + 4 <= width; x += 4)
      _mm_storeu_ps (dst + x, sum4 (products (a, src, x), products (a, src,
                  x + 1), products (a, src, x + 2), products (a, src, x + 3)));
  }
#endif
  for (; x < width; x++) {
    const guint8 *s = src + a->start[x];
    const gfloat *w = a->w + x * a->stride;
    gfloat acc = 0.0f;

    for (l = 0; l < a->n; l++)
      acc += w[l] * s[l];
    dst[x] = acc;
  }
}

/* A row of RGB pixels of @bpp bytes (3 or 4: @src readable ROW_PAD bytes
 * past its end), R, G and B at byte @ro, @go and @bo of a pixel, across
 * into the planes @dst, @dst + @width and @dst + 2 * @width; each sum in
 * the kernels' order */
static void
across_rgb (const Across * a, const guint8 * src, gint bpp, gint ro, gint go,
    gint bo, gint width, gfloat * dst)
{
  gint x, l;

  for (x = 0; x < width; x++) {
    const guint8 *s = src + (gsize) a->start[x] * bpp;
    const gfloat *w = a->w + x * a->stride;
#ifdef __SSE2__
    gfloat v[4];
    __m128 acc = _mm_setzero_ps ();

    for (l = 0; l < a->n; l++) {
      acc = _mm_add_ps (acc, _mm_mul_ps (_mm_set1_ps (w[l]), load4 (s)));
      s += bpp;
    }
    _mm_storeu_ps (v, acc);
    dst[x] = v[ro];
    dst[width + x] = v[go];
    dst[2 * width + x] = v[bo];
#else
    gfloat r = 0.0f, g = 0.0f, b = 0.0f;

    for (l = 0; l < a->n; l++) {
      r += w[l] * s[ro];
      g += w[l] * s[go];
      b += w[l] * s[bo];
      s += bpp;
    }
    dst[x] = r;
    dst[width + x] = g;
    dst[2 * width + x] = b;
#endif
  }
}

void
gst_cuda_cache_chroma_up (gfloat * a, const gfloat * b, gfloat fv, gint cw,
    gboolean cosited, gint width, gfloat * out)
{
  gint i;

  /* down first, then across: every blend exact, so in the kernels' order
   * (across, then down) the values are the same */
  if (fv != 0.0f) {
    for (i = 0; i < cw; i++)
      a[i] = a[i] + fv * (b[i] - a[i]);
  }
  /* luma pixel 2i and 2i + 1 of chroma sample i: cosited, on it and
   * halfway to the next; else a quarter of the way from the one before,
   * and a quarter of the way to the next. The first and the last samples
   * (whose neighbours are themselves) apart, the rest without a bound */
  for (i = 0; 2 * i < width; i++) {
    gint prev = MAX (i - 1, 0), next = MIN (i + 1, cw - 1);

    if (i == 1 && cw > 2) {
      /* samples 1 .. cw - 2: both neighbours inside */
      gint end = MIN (cw - 1, width / 2);

      if (cosited) {
        for (; i < end; i++) {
          out[2 * i] = a[i];
          out[2 * i + 1] = a[i] + 0.5f * (a[i + 1] - a[i]);
        }
      } else {
        for (; i < end; i++) {
          out[2 * i] = a[i - 1] + 0.75f * (a[i] - a[i - 1]);
          out[2 * i + 1] = a[i] + 0.25f * (a[i + 1] - a[i]);
        }
      }
      if (2 * i >= width)
        break;
      prev = MAX (i - 1, 0);
      next = MIN (i + 1, cw - 1);
    }
    if (cosited) {
      out[2 * i] = a[i];
      if (2 * i + 1 < width)
        out[2 * i + 1] = a[i] + 0.5f * (a[next] - a[i]);
    } else {
      out[2 * i] = a[prev] + 0.75f * (a[i] - a[prev]);
      if (2 * i + 1 < width)
        out[2 * i + 1] = a[i] + 0.25f * (a[next] - a[i]);
    }
  }
}

/* Sample @i's two values of gst_cuda_cache_chroma_up_u8 (), from the
 * samples down in quarters @s */
static inline void
chroma_up_u8_at (const gint32 * s, gint i, gint cw, gboolean cosited,
    gint width, gfloat * out)
{
  gint prev = MAX (i - 1, 0), next = MIN (i + 1, cw - 1);

  out[2 * i] = (cosited ? 4 * s[i] : s[prev] + 3 * s[i]) * 0.0625f;
  if (2 * i + 1 < width)
    out[2 * i + 1] = (cosited ? 2 * (s[i] + s[next]) :
        3 * s[i] + s[next]) * 0.0625f;
}

/* Chroma down in quarters, 4a + q (b - a), of samples @ps bytes apart:
 * inlined for each @ps the formats have, a loop the compiler vectorises */
static inline void
chroma_down_u8 (const guint8 * a, const guint8 * b, gint ps, gint quarters,
    gint cw, gint32 * s)
{
  gint i;

  if (quarters == 0) {
    for (i = 0; i < cw; i++)
      s[i] = 4 * a[i * ps];
  } else {
    for (i = 0; i < cw; i++)
      s[i] = 4 * a[i * ps] + quarters * (b[i * ps] - a[i * ps]);
  }
}

/* The clones of a function are static: a function of the library's with
 * clones would export their resolver (`NAME.resolver`) whatever its own
 * visibility, so the library's entry points call these */
GST_CUDA_CACHE_CLONES static void
chroma_up_u8 (const guint8 * a, const guint8 * b, gint ps, gint quarters,
    gint cw, gboolean cosited, gint width, gint32 * s, gfloat * out)
{
  /* samples 1 .. end - 1: both neighbours inside, both values in the
   * picture */
  gint end = MIN (cw - 1, width / 2), i;

  /* I420's, NV12's, YUY2's and UYVY's */
  switch (ps) {
    case 1:
      chroma_down_u8 (a, b, 1, quarters, cw, s);
      break;
    case 2:
      chroma_down_u8 (a, b, 2, quarters, cw, s);
      break;
    case 4:
      chroma_down_u8 (a, b, 4, quarters, cw, s);
      break;
    default:
      chroma_down_u8 (a, b, ps, quarters, cw, s);
      break;
  }
  /* across, in sixteenths, as gst_cuda_cache_chroma_up () weighs them */
  chroma_up_u8_at (s, 0, cw, cosited, width, out);
  if (cosited) {
    for (i = 1; i < end; i++) {
      out[2 * i] = (4 * s[i]) * 0.0625f;
      out[2 * i + 1] = (2 * (s[i] + s[i + 1])) * 0.0625f;
    }
  } else {
    for (i = 1; i < end; i++) {
      out[2 * i] = (s[i - 1] + 3 * s[i]) * 0.0625f;
      out[2 * i + 1] = (3 * s[i] + s[i + 1]) * 0.0625f;
    }
  }
  for (i = MAX (end, 1); 2 * i < width; i++)
    chroma_up_u8_at (s, i, cw, cosited, width, out);
}

static inline void
u8_to_float (const guint8 * src, gint ps, gint n, gfloat mul, gfloat add,
    gfloat * dst)
{
  gint i;

  for (i = 0; i < n; i++)
    dst[i] = src[i * ps] * mul + add;
}

GST_CUDA_CACHE_CLONES static void
u8_to_float_any (const guint8 * src, gint ps, gint n, gfloat mul, gfloat add,
    gfloat * dst)
{
  /* luma of planar and 4:2:2 packed formats, a channel of RGB */
  switch (ps) {
    case 1:
      u8_to_float (src, 1, n, mul, add, dst);
      break;
    case 2:
      u8_to_float (src, 2, n, mul, add, dst);
      break;
    case 3:
      u8_to_float (src, 3, n, mul, add, dst);
      break;
    default:
      u8_to_float (src, ps, n, mul, add, dst);
      break;
  }
}

void
gst_cuda_cache_chroma_up_u8 (const guint8 * a, const guint8 * b, gint ps,
    gint quarters, gint cw, gboolean cosited, gint width, gint32 * s,
    gfloat * out)
{
  chroma_up_u8 (a, b, ps, quarters, cw, cosited, width, s, out);
}

void
gst_cuda_cache_u8_to_float (const guint8 * src, gint ps, gint n,
    gfloat mul, gfloat add, gfloat * dst)
{
  u8_to_float_any (src, ps, n, mul, add, dst);
}

#ifdef HAVE_AVX2_AT_RUN_TIME
/* gst_cuda_cache_yuv_to_rgbx ()'s pixels 8 at a time, the same operations
 * on each; returns the pixels done */
__attribute__((target ("avx2")))
     static gint
         yuv_to_rgbx_avx2 (const gfloat m[12], const gfloat * y,
    const gfloat * u, const gfloat * v, gint width, guint8 * dst)
{
  const __m256 half = _mm256_set1_ps (0.5f), zero = _mm256_setzero_ps ();
  const __m256 top = _mm256_set1_ps (255.0f);
  const __m256i opaque = _mm256_set1_epi32 ((gint) 0xff000000u);
  __m256 mv[12];
  gint x = 0, k;

  for (k = 0; k < 12; k++)
    mv[k] = _mm256_set1_ps (m[k]);
#define ROW(k) _mm256_cvttps_epi32 (_mm256_min_ps (_mm256_max_ps ( \
        _mm256_add_ps (_mm256_add_ps (_mm256_add_ps (_mm256_add_ps ( \
                        _mm256_mul_ps (mv[4 * k], yv), \
                        _mm256_mul_ps (mv[4 * k + 1], uv)), \
                    _mm256_mul_ps (mv[4 * k + 2], vv)), mv[4 * k + 3]), \
            half), zero), top))
  for (; x + 8 <= width; x += 8) {
    __m256 yv = _mm256_loadu_ps (y + x), uv = _mm256_loadu_ps (u + x);
    __m256 vv = _mm256_loadu_ps (v + x);
    __m256i word = _mm256_or_si256 (_mm256_or_si256 (ROW (0),
            _mm256_slli_epi32 (ROW (1), 8)),
        _mm256_or_si256 (_mm256_slli_epi32 (ROW (2), 16), opaque));

    _mm256_storeu_si256 ((__m256i *) (dst + 4 * x), word);
  }
#undef ROW
  return x;
}
#endif

void
gst_cuda_cache_yuv_to_rgbx (const gfloat m[12], const gfloat * y,
    const gfloat * u, const gfloat * v, gint width, guint8 * dst)
{
  gint x = 0;

#ifdef __SSE2__
  const __m128 half = _mm_set1_ps (0.5f), zero = _mm_setzero_ps ();
  const __m128 top = _mm_set1_ps (255.0f);
  const __m128i opaque = _mm_set1_epi32 ((gint) 0xff000000u);
  __m128 mv[12];
  gint k;

#ifdef HAVE_AVX2_AT_RUN_TIME
  if (__builtin_cpu_supports ("avx2"))
    x = yuv_to_rgbx_avx2 (m, y, u, v, width, dst);
#endif
  for (k = 0; k < 12; k++)
    mv[k] = _mm_set1_ps (m[k]);
#define ROW(k) _mm_cvttps_epi32 (_mm_min_ps (_mm_max_ps (_mm_add_ps ( \
        _mm_add_ps (_mm_add_ps (_mm_add_ps (_mm_mul_ps (mv[4 * k], yv), \
                    _mm_mul_ps (mv[4 * k + 1], uv)), \
                _mm_mul_ps (mv[4 * k + 2], vv)), mv[4 * k + 3]), half), \
            zero), top))
  for (; x + 4 <= width; x += 4) {
    __m128 yv = _mm_loadu_ps (y + x), uv = _mm_loadu_ps (u + x);
    __m128 vv = _mm_loadu_ps (v + x);
    __m128i word = _mm_or_si128 (_mm_or_si128 (ROW (0),
            _mm_slli_epi32 (ROW (1), 8)), _mm_or_si128 (_mm_slli_epi32 (ROW
                (2), 16), opaque));

    _mm_storeu_si128 ((__m128i *) (dst + 4 * x), word);
  }
#undef ROW
#endif
  for (; x < width; x++) {
    dst[4 * x] = to_u8 (m[0] * y[x] + m[1] * u[x] + m[2] * v[x] + m[3]);
    dst[4 * x + 1] = to_u8 (m[4] * y[x] + m[5] * u[x] + m[6] * v[x] + m[7]);
    dst[4 * x + 2] = to_u8 (m[8] * y[x] + m[9] * u[x] + m[10] * v[x] + m[11]);
    dst[4 * x + 3] = 255;
  }
}

/* Chroma row @r of 4:2:0 input, U to @u and V to @v (floats) */
static void
chroma_samples (const Run * run, gint r, gfloat * u, gfloat * v)
{
  const ConvertParams *p = &run->l->p;
  const guint8 *row = run->in[1] + (gsize) r * run->in_stride[1];
  gint cw = (p->in_width + 1) >> 1, i;

  if (p->in_format == CONVERT_FORMAT_NV12) {
    for (i = 0; i < cw; i++) {
      u[i] = row[2 * i];
      v[i] = row[2 * i + 1];
    }
  } else {
    const guint8 *row_v = run->in[2] + (gsize) r * run->in_stride[2];

    for (i = 0; i < cw; i++) {
      u[i] = row[i];
      v[i] = row_v[i];
    }
  }
}

/* 4:2:0 row @r converted to 8-bit RGBx before scaling, as the tiled
 * kernel's convert-first step: every pixel's chroma from the two chroma
 * rows and columns around it, then the matrix, rounded and clamped. The
 * chroma's blends are exact (quarters of bytes): the kernels' order of
 * them gives the same values. @f: 4 * in_width + cw * 4 floats. */
static void
convert_row (const Run * run, gint r, gfloat * f, guint8 * dst)
{
  const ConvertParams *p = &run->l->p;
  gboolean h_cosited = (p->chroma_site & CONVERT_CHROMA_H_COSITED) != 0;
  gboolean v_cosited = (p->chroma_site & CONVERT_CHROMA_V_COSITED) != 0;
  gint w = p->in_width, cw = (w + 1) >> 1, ch = (p->in_height + 1) >> 1;
  gint cy = gst_cuda_cache_chroma_index (r, v_cosited), x;
  const guint8 *luma = run->in[0] + (gsize) r * run->in_stride[0];
  gfloat *y = f, *u = y + w, *v = u + w, *ua = v + w, *va = ua + cw;
  gfloat *ub = va + cw, *vb = ub + cw;

  chroma_samples (run, CLAMP (cy, 0, ch - 1), ua, va);
  chroma_samples (run, CLAMP (cy + 1, 0, ch - 1), ub, vb);
  gst_cuda_cache_chroma_up (ua, ub, gst_cuda_cache_chroma_frac (r, v_cosited,
          FALSE), cw, h_cosited, w, u);
  gst_cuda_cache_chroma_up (va, vb, gst_cuda_cache_chroma_frac (r, v_cosited,
          FALSE), cw, h_cosited, w, v);
  for (x = 0; x < w; x++)
    y[x] = luma[x];
  gst_cuda_cache_yuv_to_rgbx (p->yuv_to_rgb, y, u, v, w, dst);
}

/* Rows filtered across, the last @n of them, by row index modulo @n */
typedef struct
{
  gfloat *data;
  gint n;
  gint width;                   /* values a row */
  gint lo, hi;                  /* rows [lo, hi) are held */
} Ring;

/* The slice's scratch */
typedef struct
{
  Ring ring, chroma;
  const gfloat *rows[GST_CUDA_CACHE_PLAN_MAX_TAPS];
  const gfloat *crows[GST_CUDA_CACHE_PLAN_MAX_TAPS];
  guint8 *src;                  /* an input row, padded (and its V) */
  guint8 *src_v;
  gfloat *conv;                 /* convert_row ()'s floats */
  gfloat *cf;                   /* a chroma row's U and V, as floats */
  gfloat *y;                    /* 4:2:0 input: Y, then U and V, down */
  gfloat *uv;
  gfloat *source;               /* the row source's */
} Scratch;

static void
ring_init (Ring * ring, gint n, gint width)
{
  ring->data = g_new (gfloat, (gsize) n * width);
  ring->n = n;
  ring->width = width;
  ring->lo = ring->hi = 0;
}

/* Input row @r (luma, or RGB) across into @dst */
static void
across_row (const Run * run, Scratch * s, gint r, gfloat * dst)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  const guint8 *row = run->in[0] + (gsize) r * run->in_stride[0];
  gint dw = p->dest_width;

  if (run->source) {
    run->source (run->source_data, r, s->src, s->source);
    across_rgb (&l->x, s->src, 4, 0, 1, 2, dw, dst);
  } else if (l->yuv_h) {
    memcpy (s->src, row, p->in_width);
    across_bytes (&l->x, s->src, dw, dst);
  } else if (l->yuv) {
    convert_row (run, r, s->conv, s->src);
    across_rgb (&l->x, s->src, 4, 0, 1, 2, dw, dst);
  } else if (p->in_pixel_bytes == 3) {
    memcpy (s->src, row, (gsize) 3 * p->in_width);
    across_rgb (&l->x, s->src, 3, p->in_r, p->in_g, p->in_b, dw, dst);
  } else {
    across_rgb (&l->x, row, 4, p->in_r, p->in_g, p->in_b, dw, dst);
  }
}

/* Chroma row @r across into @dst: U, then V, dest_width values each */
static void
across_chroma_row (const Run * run, Scratch * s, gint r, gfloat * dst)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  const guint8 *u = run->in[1] + (gsize) r * run->in_stride[1];
  gint cw = (p->in_width + 1) / 2, dw = p->dest_width, i;

  /* luma copied across: the chroma's taps are its upsampling's, the same
   * exact values */
  if (l->x.copy) {
    gboolean cosited = (p->chroma_site & CONVERT_CHROMA_H_COSITED) != 0;

    chroma_samples (run, r, s->cf, s->cf + cw);
    gst_cuda_cache_chroma_up (s->cf, s->cf, 0.0f, cw, cosited, dw, dst);
    gst_cuda_cache_chroma_up (s->cf + cw, s->cf + cw, 0.0f, cw, cosited, dw,
        dst + dw);
    return;
  }
  if (p->in_format == CONVERT_FORMAT_NV12) {
    for (i = 0; i < cw; i++) {
      s->src[i] = u[2 * i];
      s->src_v[i] = u[2 * i + 1];
    }
  } else {
    memcpy (s->src, u, cw);
    memcpy (s->src_v, run->in[2] + (gsize) r * run->in_stride[2], cw);
  }
  across_bytes (&l->xc, s->src, dw, dst);
  across_bytes (&l->xc, s->src_v, dw, dst + dw);
}

/* Makes rows [@s, @s + n) held, computing those missing; pointers to
 * each in @rows. */
static void
ring_hold (Ring * ring, const Run * run, Scratch * sc, gint s,
    gboolean chroma, const gfloat ** rows)
{
  gint r, from = s >= ring->lo && s <= ring->hi ? ring->hi : s;

  for (r = from; r < s + ring->n; r++) {
    gfloat *dst = ring->data + (gsize) (r % ring->n) * ring->width;

    if (chroma)
      across_chroma_row (run, sc, r, dst);
    else
      across_row (run, sc, r, dst);
  }
  ring->lo = s;
  ring->hi = s + ring->n;
  for (r = 0; r < ring->n; r++)
    rows[r] = ring->data + (gsize) ((s + r) % ring->n) * ring->width;
}

/* The weighted sum down of @n rows (@off values into each), @width values
 * each, into @dst, each in the kernels' order */
static void
sum_down (const gfloat * w, const gfloat ** rows, gint off, gint n,
    gint width, gfloat * restrict dst)
{
  gboolean first = TRUE;
  gint m, i;

  for (m = 0; m < n; m++) {
    const gfloat *restrict h = rows[m] + off;
    gfloat wm = w[m];

    /* a weight of 0 adds 0 (the rows are finite): skipped; the first
     * product is 0 plus itself */
    if (wm == 0.0f)
      continue;
    if (first) {
      for (i = 0; i < width; i++)
        dst[i] = wm * h[i];
      first = FALSE;
    } else {
      for (i = 0; i < width; i++)
        dst[i] += wm * h[i];
    }
  }
  if (first) {
    for (i = 0; i < width; i++)
      dst[i] = 0.0f;
  }
}

/* Output row @oy as unrounded RGB planes (out_width values each, R, G, B)
 * into @rgb */
static void
make_row (const Run * run, Scratch * s, gint oy, gfloat * rgb)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  gint ow = p->out_width, dw = p->dest_width, x, c, j;
  gboolean bar = oy < p->dest_y || oy >= p->dest_y + p->dest_height;

  for (c = 0; c < 3; c++) {
    gfloat *plane = rgb + c * ow;

    for (x = 0; x < ow; x++) {
      if (!bar && x == p->dest_x)
        x += dw;
      if (x < ow)
        plane[x] = p->fill[c];
    }
  }
  if (bar)
    return;

  j = oy - p->dest_y;
  ring_hold (&s->ring, run, s, l->y_start[j], FALSE, s->rows);
  if (!l->yuv_h) {
    for (c = 0; c < 3; c++)
      sum_down (l->y_w + j * p->y_taps, s->rows, c * dw, p->y_taps, dw,
          rgb + c * ow + p->dest_x);
  } else {
    const gfloat *m = p->yuv_to_rgb;
    gfloat *restrict r = rgb + p->dest_x, *restrict g = r + ow;
    gfloat *restrict b = g + ow;
    const gfloat *restrict yv = s->y, *restrict u = s->uv;
    const gfloat *restrict v = s->uv + dw;
    /* the matrix in locals: the stores cannot change it */
    gfloat m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5];
    gfloat m6 = m[6], m7 = m[7], m8 = m[8], m9 = m[9], m10 = m[10];
    gfloat m11 = m[11];

    ring_hold (&s->chroma, run, s, l->y_cstart[j], TRUE, s->crows);
    sum_down (l->y_w + j * p->y_taps, s->rows, 0, p->y_taps, dw, s->y);
    sum_down (l->y_cw + j * p->y_ctaps, s->crows, 0, p->y_ctaps, 2 * dw, s->uv);
    for (x = 0; x < dw; x++) {
      r[x] = m0 * yv[x] + m1 * u[x] + m2 * v[x] + m3;
      g[x] = m4 * yv[x] + m5 * u[x] + m6 * v[x] + m7;
      b[x] = m8 * yv[x] + m9 * u[x] + m10 * v[x] + m11;
    }
  }
}

/* Row @oy of packed RGB output from its unrounded RGB planes */
static void
store_packed (const Run * run, gint oy, const gfloat * rgb)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  gint ow = p->out_width, bpp = p->out_pixel_bytes, x = 0;
  guint8 *d = run->out[0] + (gsize) oy * run->out_stride[0];
  const gfloat *r = rgb, *g = rgb + ow, *b = rgb + 2 * ow;

#ifdef __SSE2__
  if (bpp == 4) {
    const __m128 half = _mm_set1_ps (0.5f), zero = _mm_setzero_ps ();
    const __m128 top = _mm_set1_ps (255.0f);
    const __m128i alpha = _mm_set1_epi32 ((gint) (255u << (8 * l->out_alpha)));
    const __m128i rs = _mm_cvtsi32_si128 (8 * p->out_r);
    const __m128i gs = _mm_cvtsi32_si128 (8 * p->out_g);
    const __m128i bs = _mm_cvtsi32_si128 (8 * p->out_b);

#define U8(v) _mm_cvttps_epi32 (_mm_min_ps (_mm_max_ps (_mm_add_ps (v, half), \
        zero), top))
    for (; x + 4 <= ow; x += 4) {
      __m128i word = _mm_or_si128 (_mm_or_si128 (_mm_sll_epi32 (U8
                  (_mm_loadu_ps (r + x)), rs), _mm_sll_epi32 (U8 (_mm_loadu_ps
                      (g + x)), gs)), _mm_or_si128 (_mm_sll_epi32 (U8
                  (_mm_loadu_ps (b + x)), bs), alpha));

      _mm_storeu_si128 ((__m128i *) (d + 4 * x), word);
    }
#undef U8
  }
#endif
  for (; x < ow; x++) {
    guint8 *px = d + (gsize) x * bpp;

    px[p->out_r] = to_u8 (r[x]);
    px[p->out_g] = to_u8 (g[x]);
    px[p->out_b] = to_u8 (b[x]);
    if (bpp == 4)
      px[l->out_alpha] = 255;
  }
}

void
gst_cuda_cache_yuv420_block (const gfloat m[12], const gfloat rgb[4][3],
    const gboolean inside[4], gint n, guint8 y[4], guint8 * u, guint8 * v)
{
  gfloat mean[3] = { 0.0f, 0.0f, 0.0f }, pic[3] = { 0.0f, 0.0f, 0.0f };
  gint i, k, n_pic = 0;

  for (i = 0; i < n; i++) {
    const gfloat *c = rgb[i];

    y[i] = to_u8 (m[0] * c[0] + m[1] * c[1] + m[2] * c[2] + m[3]);
    for (k = 0; k < 3; k++) {
      mean[k] += c[k];
      if (inside[i])
        pic[k] += c[k];
    }
    n_pic += inside[i] != FALSE;
  }
  if (n_pic > 0 && n_pic < n) {
    memcpy (mean, pic, sizeof (mean));
    n = n_pic;
  }
  for (k = 0; k < 3; k++)
    mean[k] /= n;
  *u = to_u8 (m[4] * mean[0] + m[5] * mean[1] + m[6] * mean[2] + m[7]);
  *v = to_u8 (m[8] * mean[0] + m[9] * mean[1] + m[10] * mean[2] + m[11]);
}

/* Output rows @oy (even) and @oy + 1 (where there is one), unrounded RGB
 * planes at @rgb (3 * out_width values a row), as 4:2:0 */
static void
store_yuv420 (const Run * run, gint oy, const gfloat * rgb)
{
  const GstCudaCacheLinear *l = run->l;
  const ConvertParams *p = &l->p;
  gint ow = p->out_width, by = oy / 2, bx, dx, dy;
  guint8 *u_row = run->out[1] + (gsize) by * run->out_stride[1];
  guint8 *v_row = l->nv12_out ? u_row + 1 :
      run->out[2] + (gsize) by * run->out_stride[2];
  gint step = l->nv12_out ? 2 : 1;

  for (bx = 0; bx < (ow + 1) / 2; bx++) {
    gfloat c[4][3];
    gboolean inside[4];
    guint8 y[4];
    gint n = 0, i = 0;

    for (dy = 0; dy < 2 && oy + dy < p->out_height; dy++) {
      gint yy = oy + dy;
      gboolean row_in = yy >= p->dest_y && yy < p->dest_y + p->dest_height;
      const gfloat *row = rgb + (gsize) dy * 3 * ow;

      for (dx = 0; dx < 2 && 2 * bx + dx < ow; dx++, n++) {
        gint x = 2 * bx + dx;

        c[n][0] = row[x];
        c[n][1] = row[ow + x];
        c[n][2] = row[2 * ow + x];
        inside[n] = row_in && x >= p->dest_x && x < p->dest_x + p->dest_width;
      }
    }
    gst_cuda_cache_yuv420_block (p->rgb_to_yuv, c, inside, n, y,
        &u_row[bx * step], &v_row[bx * step]);
    for (dy = 0; dy < 2 && oy + dy < p->out_height; dy++) {
      guint8 *d = run->out[0] + (gsize) (oy + dy) * run->out_stride[0];

      for (dx = 0; dx < 2 && 2 * bx + dx < ow; dx++)
        d[2 * bx + dx] = y[i++];
    }
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
  gfloat *rgb;
  guint8 *rgb8 = NULL;
  gsize stride8 = GST_ROUND_UP_4 (row_values);
  Scratch s = { {0,}, };
  gint y, x;

  if (y0 >= y1)
    return;
  rgb = g_new (gfloat, 2 * row_values);
  ring_init (&s.ring, p->y_taps, (l->yuv_h ? 1 : 3) * p->dest_width);
  s.src = g_new0 (guint8, (gsize) 4 * p->in_width + ROW_PAD);
  if (l->yuv_h) {
    ring_init (&s.chroma, p->y_ctaps, 2 * p->dest_width);
    s.src_v = g_new0 (guint8, (gsize) p->in_width + ROW_PAD);
    s.cf = g_new (gfloat, (gsize) 2 * ((p->in_width + 1) / 2));
    s.y = g_new (gfloat, p->dest_width);
    s.uv = g_new (gfloat, 2 * p->dest_width);
  }
  if (l->yuv && !l->yuv_h)
    s.conv = g_new (gfloat, (gsize) 3 * p->in_width +
        4 * ((p->in_width + 1) / 2));
  if (l->out == OUT_RGB_ROWS)
    rgb8 = g_new (guint8, stride8 * (y1 - y0));
  if (run->source)
    s.source = g_new (gfloat,
        GST_CUDA_CACHE_LINEAR_SOURCE_SCRATCH (p->in_width));

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
        gint ow = p->out_width;

        for (x = 0; x < ow; x++) {
          d[3 * x] = to_u8 (row[x]);
          d[3 * x + 1] = to_u8 (row[ow + x]);
          d[3 * x + 2] = to_u8 (row[2 * ow + x]);
        }
        break;
      }
    }
  }
  if (rgb8)
    run->rows (run->data, rgb8, stride8, y0, y1);

  g_free (rgb8);
  g_free (s.source);
  g_free (s.conv);
  g_free (s.cf);
  g_free (s.src);
  g_free (s.src_v);
  g_free (s.uv);
  g_free (s.y);
  g_free (s.chroma.data);
  g_free (s.ring.data);
  g_free (rgb);
}

void
gst_cuda_cache_linear_run (const GstCudaCacheLinear * l,
    const guint8 * const in_data[3], const gint in_stride[3],
    GstCudaCacheLinearSource source, gpointer source_data,
    guint8 * const out_data[3], const gint out_stride[3],
    GstCudaCacheLinearRows rows, gpointer data, guint threads)
{
  Run run;
  gint64 work;
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
  run.source = source;
  run.source_data = source_data;
  g_return_if_fail (source == NULL || l->p.in_format == CONVERT_FORMAT_RGBx);
  /* waking a worker and waiting for it costs what some ten thousand taps
   * do: a small frame is made on the calling thread, without a wake-up */
  work = (gint64) l->p.out_width * l->p.out_height *
      (l->p.x_taps + l->p.y_taps);
  threads = MIN (threads, (guint) CLAMP (work / LINEAR_TAPS_PER_THREAD, 1,
          G_MAXINT));
  /* 4:2:0 output: a slice of whole 2x2 blocks */
  gst_cuda_cache_parallel_rows (linear_rows, &run, l->p.out_height,
      l->out == OUT_YUV420 ? 2 : 1, threads);
}
