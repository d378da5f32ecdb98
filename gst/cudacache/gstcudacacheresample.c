/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The resampling presets (gstcudacacheresample-private.h): 8-bit RGB to
 * 8-bit RGB, separable, each method the arithmetic of the library it
 * stands for, so that a tensor equals the one the model's training code
 * made, to the value:
 *
 * - NEAREST, OpenCV's INTER_NEAREST: source index floor (j * (1 / (out /
 *   in))) in double, at most in - 1.
 * - BILINEAR, OpenCV's INTER_LINEAR on 8-bit input: half-pixel centres,
 *   the position in float, two taps of 11-bit weights (each rounded on its
 *   own); across, a source index below 0 or at the last pixel takes that
 *   pixel whole; down, the rows are clamped and keep their weights. The
 *   across sums are exact integers; down, each row's sum is shifted right
 *   by 4, multiplied by its weight keeping the high 16 bits, and the two
 *   added and rounded by 2 bits: OpenCV's vectorised VResizeLinear, which
 *   it takes on every machine with SIMD (equal to it on every value, where
 *   the exact rounding of the sum is 13% of values a level apart). Halving
 *   both sides exactly is OpenCV's INTER_AREA, as OpenCV switches it.
 * - AREA, OpenCV's INTER_AREA: shrinking on both axes, each output pixel
 *   the source area it covers, with float weights and float sums in
 *   OpenCV's order, rounded to even; integer factors on both axes sum
 *   integers (halving: (sum + 2) >> 2; others: the sum times 1 / area in
 *   float, rounded to even). Growing on an axis, the two taps of BILINEAR's
 *   arithmetic with OpenCV's area weights: the position floor (j * scale),
 *   the weight of the second (j + 1) - (i + 1) / scale, fractional part.
 * - ANTIALIAS, Pillow's Image.resize (BILINEAR): the triangle filter
 *   widened by the shrink factor (support max (in / out, 1)), centres
 *   (j + 0.5) * in / out, taps inside the source only, normalised, 22-bit
 *   fixed-point weights rounded half away from zero; across first into an
 *   8-bit picture, then down, each sum rounded by adding half and clipped.
 *
 * Each thread makes a slice of output rows, the source rows it reads (or
 * their stand-in's, made by a row source) and its rows across kept in
 * rings of its own, not frames of them: the sums are the same.
 *
 * OpenCV 4.6 and Pillow 9.4 (Debian 12) give every value of these, odd
 * sizes and extreme factors included (tests/python/test_resample.py).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
/* SSSE3's byte shuffle where the CPU has it, chosen at run time */
#define HAVE_SSSE3_AT_RUN_TIME 1
#include <immintrin.h>
#endif

#include "gstcudacachelinear-private.h"
#include "gstcudacacheresample-private.h"

/* OpenCV's INTER_RESIZE_COEF_BITS; Pillow's PRECISION_BITS */
#define CV_COEF_BITS 11
#define CV_COEF_ONE (1 << CV_COEF_BITS)
#define PIL_BITS 22

typedef enum
{
  KIND_COPY,                    /* the same size: every method copies */
  KIND_NEAREST,
  KIND_CV_TWO_TAPS,             /* BILINEAR, and AREA growing on an axis */
  KIND_AREA_HALF,               /* integer factors 2 and 2 */
  KIND_AREA_INTEGER,            /* other integer factors */
  KIND_AREA,                    /* shrinking, float weights */
  KIND_PIL,
} Kind;

/* One axis's taps: @n[j] taps of output index j from source index
 * @first[j], their weights at @iw + j * @stride (none for NEAREST). */
typedef struct
{
  gint stride;
  gint *first;
  gint *n;
  gint32 *iw;
  /* KIND_AREA: OpenCV's table, entries in its order */
  gint n_tab;
  gint *tab_first;              /* output index j's first entry, and n_tab */
  gint *tab_dst;
  gint *tab_src;
  gfloat *tab_alpha;
} Axis;

struct _GstCudaCacheResampler
{
  Kind kind;
  gint in_w, in_h, out_w, out_h;
  gint factor_x, factor_y;      /* the integer factors */
  Axis x, y;
};

/* Room for @out output indices of @stride weights each */
static void
axis_alloc (Axis * a, gint out, gint stride)
{
  a->stride = stride;
  a->first = g_new0 (gint, out);
  a->n = g_new0 (gint, out);
  a->iw = stride ? g_new0 (gint32, (gsize) out * stride) : NULL;
}

static void
axis_clear (Axis * a)
{
  g_free (a->first);
  g_free (a->n);
  g_free (a->iw);
  g_free (a->tab_first);
  g_free (a->tab_dst);
  g_free (a->tab_src);
  g_free (a->tab_alpha);
}

/* OpenCV's saturate_cast<short> (float): rounded to even */
static gint32
cv_round (gfloat v)
{
  return (gint32) rintf (v);
}

static void
nearest_axis (Axis * a, gint in, gint out)
{
  gdouble ifx = 1.0 / ((gdouble) out / in);
  gint j;

  axis_alloc (a, out, 0);
  for (j = 0; j < out; j++) {
    a->first[j] = MIN ((gint) floor (j * ifx), in - 1);
    a->n[j] = 1;
  }
}

/* OpenCV's two taps: BILINEAR's position, or with @area its INTER_AREA
 * weights for growing; @across clamps as OpenCV clamps across. */
static void
two_taps_axis (Axis * a, gint in, gint out, gboolean area, gboolean across)
{
  gdouble inv_scale = (gdouble) out / in, scale = 1.0 / inv_scale;
  gint j;

  axis_alloc (a, out, 2);
  for (j = 0; j < out; j++) {
    gfloat f;
    gint s;

    if (area) {
      s = (gint) floor (j * scale);
      f = (gfloat) ((j + 1) - (s + 1) * inv_scale);
      f = f <= 0 ? 0.0f : f - floorf (f);
    } else {
      f = (gfloat) ((j + 0.5) * scale - 0.5);
      s = (gint) floorf (f);
      f -= s;
    }
    if (across) {
      if (s < 0) {
        f = 0.0f;
        s = 0;
      }
      if (s >= in - 1) {
        f = 0.0f;
        s = in - 1;
      }
    }
    /* the taps at s and s + 1, clamped inside the source */
    a->first[j] = s;
    a->n[j] = 2;
    a->iw[2 * j] = cv_round ((1.0f - f) * CV_COEF_ONE);
    a->iw[2 * j + 1] = cv_round (f * CV_COEF_ONE);
  }
}

/* OpenCV's computeResizeAreaTab () */
static void
area_axis (Axis * a, gint in, gint out)
{
  gdouble scale = (gdouble) in / out;
  gint j, k = 0, max = out * ((gint) ceil (scale) + 2);

  a->tab_first = g_new0 (gint, out + 1);
  a->tab_dst = g_new0 (gint, max);
  a->tab_src = g_new0 (gint, max);
  a->tab_alpha = g_new0 (gfloat, max);
  for (j = 0; j < out; j++) {
    gdouble fsx1 = j * scale, fsx2 = fsx1 + scale;
    gdouble cell = MIN (scale, in - fsx1);
    gint sx1 = (gint) ceil (fsx1), sx2 = (gint) floor (fsx2), sx;

    sx2 = MIN (sx2, in - 1);
    sx1 = MIN (sx1, sx2);
    a->tab_first[j] = k;
    if (sx1 - fsx1 > 1e-3) {
      a->tab_dst[k] = j;
      a->tab_src[k] = sx1 - 1;
      a->tab_alpha[k++] = (gfloat) ((sx1 - fsx1) / cell);
    }
    for (sx = sx1; sx < sx2; sx++) {
      a->tab_dst[k] = j;
      a->tab_src[k] = sx;
      a->tab_alpha[k++] = (gfloat) (1.0 / cell);
    }
    if (fsx2 - sx2 > 1e-3) {
      a->tab_dst[k] = j;
      a->tab_src[k] = sx2;
      a->tab_alpha[k++] = (gfloat) (MIN (MIN (fsx2 - sx2, 1.0), cell) / cell);
    }
  }
  a->n_tab = a->tab_first[out] = k;
}

/* Drops output index @j's taps of weight 0 at either end (at 3x, one of
 * Pillow's 6 an axis): its sums are of integers, which they leave as they
 * are, and the fewer taps the less each sum reads */
static void
pil_trim (Axis * a, gint j)
{
  gint32 *w = a->iw + (gsize) j * a->stride;
  gint lead = 0;

  while (a->n[j] > 1 && w[a->n[j] - 1] == 0)
    a->n[j]--;
  while (a->n[j] - lead > 1 && w[lead] == 0)
    lead++;
  if (lead > 0) {
    memmove (w, w + lead, (a->n[j] - lead) * sizeof (*w));
    memset (w + a->n[j] - lead, 0, lead * sizeof (*w));
    a->first[j] += lead;
    a->n[j] -= lead;
  }
}

/* Pillow's precompute_coeffs () and normalize_coeffs_8bpc () for its
 * bilinear filter, less the taps of weight 0 at either end */
static void
pil_axis (Axis * a, gint in, gint out)
{
  gdouble scale = (gdouble) in / out, filterscale = MAX (scale, 1.0);
  gdouble support = filterscale, ss = 1.0 / filterscale;
  gint ksize = (gint) ceil (support) * 2 + 1, j, x;
  gdouble *k = g_new (gdouble, ksize);

  axis_alloc (a, out, ksize);
  for (j = 0; j < out; j++) {
    gdouble center = (j + 0.5) * scale, ww = 0.0;
    gint xmin = (gint) (center - support + 0.5), xmax;

    if (xmin < 0)
      xmin = 0;
    xmax = (gint) (center + support + 0.5);
    if (xmax > in)
      xmax = in;
    xmax -= xmin;
    for (x = 0; x < xmax; x++) {
      gdouble t = fabs ((x + xmin - center + 0.5) * ss);

      k[x] = t < 1.0 ? 1.0 - t : 0.0;
      ww += k[x];
    }
    for (x = 0; x < xmax; x++) {
      gdouble v = ww != 0.0 ? k[x] / ww : k[x];

      a->iw[(gsize) j * ksize + x] = (gint32) (v < 0 ?
          (-0.5 + v * (1 << PIL_BITS)) : (0.5 + v * (1 << PIL_BITS)));
    }
    a->first[j] = xmin;
    a->n[j] = xmax;
    pil_trim (a, j);
  }
  g_free (k);
}

/* Whether @in is @out times a whole number. */
static gint
integer_factor (gint in, gint out)
{
  return in % out == 0 ? in / out : 0;
}

GstCudaCacheResampler *
gst_cuda_cache_resampler_new (GstCudaCacheResizeMethod method, gint in_width,
    gint in_height, gint out_width, gint out_height)
{
  GstCudaCacheResampler *r;
  gint fx, fy;

  g_return_val_if_fail (method != GST_CUDA_CACHE_RESIZE_METHOD_LINEAR, NULL);
  if (in_width <= 0 || in_height <= 0 || out_width <= 0 || out_height <= 0)
    return NULL;

  r = g_new0 (GstCudaCacheResampler, 1);
  r->in_w = in_width;
  r->in_h = in_height;
  r->out_w = out_width;
  r->out_h = out_height;
  fx = integer_factor (in_width, out_width);
  fy = integer_factor (in_height, out_height);

  if (in_width == out_width && in_height == out_height) {
    r->kind = KIND_COPY;
    return r;
  }
  switch (method) {
    case GST_CUDA_CACHE_RESIZE_METHOD_NEAREST:
      r->kind = KIND_NEAREST;
      nearest_axis (&r->x, in_width, out_width);
      nearest_axis (&r->y, in_height, out_height);
      break;
    case GST_CUDA_CACHE_RESIZE_METHOD_BILINEAR:
      if (fx == 2 && fy == 2) {
        r->kind = KIND_AREA_HALF;
      } else {
        r->kind = KIND_CV_TWO_TAPS;
        two_taps_axis (&r->x, in_width, out_width, FALSE, TRUE);
        two_taps_axis (&r->y, in_height, out_height, FALSE, FALSE);
      }
      break;
    case GST_CUDA_CACHE_RESIZE_METHOD_AREA:
      if (fx == 2 && fy == 2) {
        r->kind = KIND_AREA_HALF;
      } else if (fx > 0 && fy > 0) {
        r->kind = KIND_AREA_INTEGER;
        r->factor_x = fx;
        r->factor_y = fy;
      } else if (in_width >= out_width && in_height >= out_height) {
        r->kind = KIND_AREA;
        area_axis (&r->x, in_width, out_width);
        area_axis (&r->y, in_height, out_height);
      } else {
        r->kind = KIND_CV_TWO_TAPS;
        two_taps_axis (&r->x, in_width, out_width, TRUE, TRUE);
        two_taps_axis (&r->y, in_height, out_height, TRUE, FALSE);
      }
      break;
    default:
      r->kind = KIND_PIL;
      pil_axis (&r->x, in_width, out_width);
      pil_axis (&r->y, in_height, out_height);
      break;
  }

  return r;
}

void
gst_cuda_cache_resampler_free (GstCudaCacheResampler * r)
{
  if (!r)
    return;
  axis_clear (&r->x);
  axis_clear (&r->y);
  g_free (r);
}

/* One run's arguments, for a range of rows. */
typedef struct
{
  GstCudaCacheResampler *r;
  const guint8 *src;
  gsize src_stride;
  gint ps;
  gint rgb[3];
  /* pixels of 4 bytes, R, G and B first: a vector of a pixel's values is
   * stored whole, its 4th value overwritten by the next pixel's */
  gboolean in_order;
  /* where set, the source's rows made by it instead of read at src */
  GstCudaCacheLinearSource source;
  gpointer source_data;
  guint8 *dst;
  gsize dst_stride;
  /* the output's pixels, @dst_ps bytes (3 or 4) apart, red, green and
   * blue at @dst_rgb[0..2] of a pixel, a 4-byte pixel's other byte 255 */
  gint dst_ps;
  gint dst_rgb[3];
} Run;

/* A ring of @n rows of @bytes, row y in slot y % n */
typedef struct
{
  gint n;
  gsize bytes;
  guint8 *data;
  gint *made;                   /* the row in each slot, or -1 */
} Ring;

static void
ring_init (Ring * ring, gint n, gsize bytes)
{
  gint i;

  ring->n = n;
  ring->bytes = bytes;
  ring->data = g_malloc (bytes * n);
  ring->made = g_new (gint, n);
  for (i = 0; i < n; i++)
    ring->made[i] = -1;
}

/* Row @y's slot; @stale set where it held another row (it is now taken
 * as @y's, which the caller makes) */
static guint8 *
ring_slot (Ring * ring, gint y, gboolean * stale)
{
  gint slot = y % ring->n;

  *stale = ring->made[slot] != y;
  ring->made[slot] = y;
  return ring->data + ring->bytes * slot;
}

static void
ring_clear (Ring * ring)
{
  g_free (ring->data);
  g_free (ring->made);
}

/* A slice's source rows: read in place, or made by run->source into a
 * ring of @n rows, each made once while it stays */
typedef struct
{
  const Run *run;
  Ring ring;
  gfloat *scratch;
} SourceRows;

static void
source_rows_init (SourceRows * s, const Run * run, gint n)
{
  memset (s, 0, sizeof (*s));
  s->run = run;
  if (!run->source)
    return;
  /* RGBx; room past the last pixel for the loops' 4-byte loads */
  ring_init (&s->ring, n, (gsize) run->r->in_w * 4 + 16);
  s->scratch = g_new (gfloat,
      GST_CUDA_CACHE_LINEAR_SOURCE_SCRATCH (run->r->in_w));
}

/* Source row @y: in place, or made into its slot unless it is there */
static const guint8 *
source_rows_get (SourceRows * s, gint y)
{
  const Run *run = s->run;
  gboolean stale;
  guint8 *row;

  if (!run->source)
    return run->src + run->src_stride * (gsize) y;
  row = ring_slot (&s->ring, y, &stale);
  if (stale)
    run->source (run->source_data, y, row, s->scratch);
  return row;
}

static void
source_rows_clear (SourceRows * s)
{
  ring_clear (&s->ring);
  g_free (s->scratch);
}

/* One source row @row across into @out: out_w pixels' 3 values */
typedef void (*AcrossFunc) (const Run * run, const guint8 * row, gpointer out);

/* A slice's rows across, of values of @size bytes: each made by @func
 * from its source row into a ring of @n, once while it stays, where the
 * rows down read them (a frame of them written and read back cost more
 * than the sums) */
typedef struct
{
  SourceRows src;
  AcrossFunc func;
  Ring ring;
} AcrossRows;

static void
across_rows_init (AcrossRows * a, const Run * run, AcrossFunc func,
    gsize size, gint n)
{
  source_rows_init (&a->src, run, 1);
  a->func = func;
  ring_init (&a->ring, n, size * run->r->out_w * 3);
}

static gconstpointer
across_rows_get (AcrossRows * a, gint y)
{
  gboolean stale;
  guint8 *row = ring_slot (&a->ring, y, &stale);

  if (stale)
    a->func (a->src.run, source_rows_get (&a->src, y), row);
  return row;
}

static void
across_rows_clear (AcrossRows * a)
{
  source_rows_clear (&a->src);
  ring_clear (&a->ring);
}

/* A slice's output rows: made in place where the output is RGB, else
 * made as RGB into a row of its own and stored in the output's order
 * (no second pass over a frame) */
typedef struct
{
  const Run *run;
  guint8 *row;
  /* the store's byte shuffle: a 16-byte load of the row's RGB from pixel
   * x on to pixels x.. of the output (4 of 4 bytes, 5 of 3), the bytes
   * that are none of R, G and B zero in @shuffle and 255 in @opaque */
  guint8 shuffle[16];
  guint8 opaque[16];
  gint per_shuffle;
} OutRows;

static void
out_rows_init (OutRows * o, const Run * run)
{
  gboolean rgb = run->dst_ps == 3 && run->dst_rgb[0] == 0 &&
      run->dst_rgb[1] == 1 && run->dst_rgb[2] == 2;
  gint ps = run->dst_ps, i, k;

  o->run = run;
  /* room past the last pixel for the loops' 4-byte stores and the
   * shuffle's 16-byte loads */
  o->row = rgb ? NULL : g_malloc ((gsize) run->r->out_w * 3 + 16);
  o->per_shuffle = 16 / ps;
  memset (o->shuffle, 0x80, sizeof (o->shuffle));
  memset (o->opaque, 0, sizeof (o->opaque));
  for (i = 0; i < o->per_shuffle; i++) {
    if (ps == 4)
      o->opaque[4 * i + 6 - run->dst_rgb[0] - run->dst_rgb[1] -
          run->dst_rgb[2]] = 255;
    for (k = 0; k < 3; k++)
      o->shuffle[ps * i + run->dst_rgb[k]] = 3 * i + k;
  }
}

/* Where output row @y is made, as RGB */
static guint8 *
out_rows_get (OutRows * o, gint y)
{
  if (o->row)
    return o->row;
  return o->run->dst + (gsize) y *o->run->dst_stride;
}

#ifdef HAVE_SSSE3_AT_RUN_TIME
/* The pixels of out_rows_put () a shuffle at a time, no store past the
 * row's last pixel; returns the pixels done */
__attribute__((target ("ssse3")))
     static gint
         out_rows_shuffle (const OutRows * o, const guint8 * s, guint8 * d,
    gint n)
{
  const __m128i shuffle = _mm_loadu_si128 ((const __m128i *) o->shuffle);
  const __m128i opaque = _mm_loadu_si128 ((const __m128i *) o->opaque);
  gint ps = o->run->dst_ps, step = o->per_shuffle, x;

  /* a store writes 16 bytes: (step + 1) pixels of 3 bytes reach past
   * them, @step of 4 do not */
  for (x = 0; x + step + (ps == 3) <= n; x += step)
    _mm_storeu_si128 ((__m128i *) (d + (gsize) ps * x),
        _mm_or_si128 (_mm_shuffle_epi8 (_mm_loadu_si128 ((const __m128i *)
                    (s + 3 * x)), shuffle), opaque));
  return x;
}
#endif

/* Output row @y, made, stored in the output's order */
static void
out_rows_put (OutRows * o, gint y)
{
  const Run *run = o->run;
  const guint8 *s = o->row;
  guint8 *d = run->dst + (gsize) y * run->dst_stride;
  gint o0 = run->dst_rgb[0], o1 = run->dst_rgb[1], o2 = run->dst_rgb[2];
  /* the byte that is none of the three */
  gint o3 = 6 - o0 - o1 - o2, x = 0, ps = run->dst_ps;

  if (!s)
    return;
#ifdef HAVE_SSSE3_AT_RUN_TIME
  if (__builtin_cpu_supports ("ssse3")) {
    x = out_rows_shuffle (o, s, d, run->r->out_w);
    s += 3 * x;
    d += (gsize) ps *x;
  }
#endif
  for (; x < run->r->out_w; x++, s += 3, d += ps) {
    d[o0] = s[0];
    d[o1] = s[1];
    d[o2] = s[2];
    if (ps == 4)
      d[o3] = 255;
  }
}

static void
out_rows_clear (OutRows * o)
{
  g_free (o->row);
}

typedef void (*RowsFunc) (const Run * run, gint y0, gint y1);

/* The rows' loops are built for AVX2 and SSE4.1 too (GST_CUDA_CACHE_CLONES):
 * the baseline SSE2 has no 32-bit integer multiply, which the Pillow sums
 * and OpenCV's fixed-point taps are made of. */

/* GCC's vectors: a pixel's 4 bytes in the lanes of one, the same
 * operation on each lane */
#if defined(__GNUC__) && __GNUC__ >= 9 && !defined(__clang__) && \
    G_BYTE_ORDER == G_LITTLE_ENDIAN
#define HAVE_VECTORS 1
typedef gint32 Int4 __attribute__((vector_size (16)));
typedef gfloat Float4 __attribute__((vector_size (16)));
typedef guint8 Byte16 __attribute__((vector_size (16)));

static inline Int4
pixel4 (const guint8 * p)
{
  /* the bytes widened by one shuffle (pmovzxbd, pshufb) */
  const Byte16 zero = { 0 }, widen = { 0, 16, 16, 16, 1, 16, 16, 16, 2, 16,
    16, 16, 3, 16, 16, 16
  };
  guint32 v;
  Int4 word;

  memcpy (&v, p, 4);
  word = (Int4) {
  (gint32) v, 0, 0, 0};
  return (Int4) __builtin_shuffle ((Byte16) word, zero, widen);
}

static inline Float4
pixel4_float (const guint8 * p)
{
  return __builtin_convertvector (pixel4 (p), Float4);
}

/* @v's R, G and B (4-byte values: ints, or floats' bits) at @d: whole
 * where @whole (the row's pixels in order, one more after this one), else
 * lane by lane */
static inline void
store3 (gpointer d, Int4 v, const gint rgb[3], gboolean whole)
{
  gint32 lanes[3];

  if (whole) {
    memcpy (d, &v, sizeof (v));
  } else {
    lanes[0] = v[rgb[0]];
    lanes[1] = v[rgb[1]];
    lanes[2] = v[rgb[2]];
    memcpy (d, lanes, sizeof (lanes));
  }
}

/* the same of @v clamped to bytes, clip8 () of each value */
static inline void
store3_u8 (guint8 * d, Int4 v, const gint rgb[3], gboolean whole)
{
  const Int4 zero = { 0, 0, 0, 0 }, top = { 255, 255, 255, 255 };
  const Byte16 low = { 0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12 };
  Int4 below = v < zero, above;
  Byte16 bytes;

  v = v & ~below;
  above = v > top;
  v = (v & ~above) | (top & above);
  if (whole) {
    bytes = __builtin_shuffle ((Byte16) v, low);
    memcpy (d, &bytes, 4);
  } else {
    d[0] = (guint8) v[rgb[0]];
    d[1] = (guint8) v[rgb[1]];
    d[2] = (guint8) v[rgb[2]];
  }
}

#endif

static inline guint8
clip8 (gint64 v)
{
  return (guint8) CLAMP (v, 0, 255);
}

/* A source row @row as RGB at @d (out_w pixels: the width stays) */
GST_CUDA_CACHE_CLONES static void
rows_copy_row (const Run * run, const guint8 * row, guint8 * d)
{
  const GstCudaCacheResampler *r = run->r;
  gint o0 = run->rgb[0], o1 = run->rgb[1], o2 = run->rgb[2], ps = run->ps;
  gint x;

  if (ps == 3 && o0 == 0 && o1 == 1 && o2 == 2) {
    memcpy (d, row, (gsize) r->out_w * 3);
    return;
  }
  for (x = 0; x < r->out_w; x++, row += ps) {
    d[3 * x] = row[o0];
    d[3 * x + 1] = row[o1];
    d[3 * x + 2] = row[o2];
  }
}

static void
rows_copy (const Run * run, gint y0, gint y1)
{
  SourceRows src;
  OutRows out;
  gint y;

  source_rows_init (&src, run, 1);
  out_rows_init (&out, run);
  for (y = y0; y < y1; y++) {
    rows_copy_row (run, source_rows_get (&src, y), out_rows_get (&out, y));
    out_rows_put (&out, y);
  }
  source_rows_clear (&src);
  out_rows_clear (&out);
}

GST_CUDA_CACHE_CLONES static void
rows_nearest (const Run * run, gint y0, gint y1)
{
  const GstCudaCacheResampler *r = run->r;
  SourceRows src;
  OutRows out;
  gint x, y, c;

  source_rows_init (&src, run, 1);
  out_rows_init (&out, run);
  for (y = y0; y < y1; y++) {
    const guint8 *row = source_rows_get (&src, r->y.first[y]);
    guint8 *d = out_rows_get (&out, y);

    for (x = 0; x < r->out_w; x++) {
      const guint8 *s = row + (gsize) run->ps * r->x.first[x];

      for (c = 0; c < 3; c++)
        d[3 * x + c] = s[run->rgb[c]];
    }
    out_rows_put (&out, y);
  }
  source_rows_clear (&src);
  out_rows_clear (&out);
}

/* Across: a source row's exact integer sums */
GST_CUDA_CACHE_CLONES static void
cv_across_row (const Run * run, const guint8 * row, gpointer out)
{
  const GstCudaCacheResampler *r = run->r;
  const Axis *a = &r->x;
  gint32 *d = out;
  gint x, c;

  for (x = 0; x < r->out_w; x++) {
    const guint8 *s0 = row + (gsize) run->ps * a->first[x];
    const guint8 *s1 = row + (gsize) run->ps * MIN (a->first[x] + 1,
        r->in_w - 1);

#ifdef HAVE_VECTORS
    /* 4-byte pixels: the channels in the lanes of a vector */
    if (run->ps == 4) {
      Int4 sum = pixel4 (s0) * a->iw[2 * x] + pixel4 (s1) * a->iw[2 * x + 1];

      store3 (d + 3 * x, sum, run->rgb, run->in_order && x + 1 < r->out_w);
      continue;
    }
#endif
    for (c = 0; c < 3; c++)
      d[3 * x + c] = s0[run->rgb[c]] * a->iw[2 * x] +
          s1[run->rgb[c]] * a->iw[2 * x + 1];
  }
}

/* Down: output rows, OpenCV's vectorised arithmetic */
GST_CUDA_CACHE_CLONES static void
rows_cv_down (const Run * run, gint y0, gint y1)
{
  const GstCudaCacheResampler *r = run->r;
  const Axis *a = &r->y;
  AcrossRows rows;
  OutRows out;
  gint x, y, n = r->out_w * 3;

  /* the two rows across an output row reads */
  across_rows_init (&rows, run, cv_across_row, sizeof (gint32), 2);
  out_rows_init (&out, run);
  for (y = y0; y < y1; y++) {
    const gint32 *t0 = across_rows_get (&rows, CLAMP (a->first[y], 0,
            r->in_h - 1));
    const gint32 *t1 = across_rows_get (&rows, CLAMP (a->first[y] + 1, 0,
            r->in_h - 1));
    gint32 b0 = a->iw[2 * y], b1 = a->iw[2 * y + 1];
    guint8 *d = out_rows_get (&out, y);

    for (x = 0; x < n; x++) {
      /* v_pack (s >> 4) saturates to 16 bits; v_mul_hi keeps the high
       * half; v_rshr_pack_u<2> rounds and saturates */
      gint32 v0 = CLAMP (t0[x] >> 4, G_MININT16, G_MAXINT16);
      gint32 v1 = CLAMP (t1[x] >> 4, G_MININT16, G_MAXINT16);
      gint32 sum = ((v0 * b0) >> 16) + ((v1 * b1) >> 16);

      d[x] = clip8 ((sum + 2) >> 2);
    }
    out_rows_put (&out, y);
  }
  across_rows_clear (&rows);
  out_rows_clear (&out);
}

GST_CUDA_CACHE_CLONES static void
rows_area_half (const Run * run, gint y0, gint y1)
{
  const GstCudaCacheResampler *r = run->r;
  gsize ps = run->ps;
  SourceRows src;
  OutRows out;
  gint x, y, c;

  source_rows_init (&src, run, 2);
  out_rows_init (&out, run);
  for (y = y0; y < y1; y++) {
    const guint8 *top = source_rows_get (&src, 2 * y);
    const guint8 *bottom = source_rows_get (&src, 2 * y + 1);
    guint8 *d = out_rows_get (&out, y);

    for (x = 0; x < r->out_w; x++) {
      const guint8 *a = top + ps * 2 * x, *b = a + ps;
      const guint8 *e = bottom + ps * 2 * x, *f = e + ps;

      for (c = 0; c < 3; c++) {
        gint k = run->rgb[c];

        d[3 * x + c] = (guint8) ((a[k] + b[k] + e[k] + f[k] + 2) >> 2);
      }
    }
    out_rows_put (&out, y);
  }
  source_rows_clear (&src);
  out_rows_clear (&out);
}

GST_CUDA_CACHE_CLONES static void
rows_area_integer (const Run * run, gint y0, gint y1)
{
  const GstCudaCacheResampler *r = run->r;
  gfloat scale = 1.0f / (r->factor_x * r->factor_y);
  const guint8 **rows = g_new (const guint8 *, r->factor_y);
  gsize ps = run->ps;
  SourceRows src;
  OutRows out;
  gint x, y, c, i, j;

  source_rows_init (&src, run, r->factor_y);
  out_rows_init (&out, run);
  for (y = y0; y < y1; y++) {
    guint8 *d = out_rows_get (&out, y);

    for (j = 0; j < r->factor_y; j++)
      rows[j] = source_rows_get (&src, y * r->factor_y + j);
    for (x = 0; x < r->out_w; x++) {
      for (c = 0; c < 3; c++) {
        gint sum = 0;

        for (j = 0; j < r->factor_y; j++)
          for (i = 0; i < r->factor_x; i++)
            sum += rows[j][ps * (x * r->factor_x + i) + run->rgb[c]];
        d[3 * x + c] = clip8 (cv_round ((gfloat) sum * scale));
      }
    }
    out_rows_put (&out, y);
  }
  source_rows_clear (&src);
  out_rows_clear (&out);
  g_free (rows);
}

/* OpenCV's ResizeArea_Invoker, across: each source row's sums in the
 * table's order, in floats (the same values it works out for each output
 * row the source row falls in) */
GST_CUDA_CACHE_CLONES static void
area_across_row (const Run * run, const guint8 * row, gpointer out)
{
  const GstCudaCacheResampler *r = run->r;
  const Axis *ax = &r->x;
  gfloat *b = out;
  gint x, k;

  gint o0 = run->rgb[0], o1 = run->rgb[1], o2 = run->rgb[2], ps = run->ps;

  /* each output pixel's entries, each channel's product, then its sum,
   * each rounded (no fused multiply-add), in the table's order */
  for (x = 0; x < r->out_w; x++) {
#ifdef HAVE_VECTORS
    /* 4-byte pixels: the channels in the lanes of a vector */
    if (ps == 4) {
      Float4 acc = { 0.0f, 0.0f, 0.0f, 0.0f };

      for (k = ax->tab_first[x]; k < ax->tab_first[x + 1]; k++)
        acc = acc + pixel4_float (row + 4 * ax->tab_src[k]) * ax->tab_alpha[k];
      store3 (b + 3 * x, (Int4) acc, run->rgb, run->in_order
          && x + 1 < r->out_w);
      continue;
    }
#endif
    {
      gfloat s0 = 0.0f, s1 = 0.0f, s2 = 0.0f;

      for (k = ax->tab_first[x]; k < ax->tab_first[x + 1]; k++) {
        const guint8 *s = row + (gsize) ps * ax->tab_src[k];
        gfloat alpha = ax->tab_alpha[k];

        s0 = s0 + s[o0] * alpha;
        s1 = s1 + s[o1] * alpha;
        s2 = s2 + s[o2] * alpha;
      }
      b[3 * x] = s0;
      b[3 * x + 1] = s1;
      b[3 * x + 2] = s2;
    }
  }
}

/* and down: each output row from the table's rows of it, in its order */
GST_CUDA_CACHE_CLONES static void
rows_area_down (const Run * run, gint y0, gint y1)
{
  const GstCudaCacheResampler *r = run->r;
  const Axis *ay = &r->y;
  gsize n = (gsize) r->out_w * 3, i;
  gfloat *sum = g_new (gfloat, n);
  AcrossRows rows;
  OutRows out;
  gint t, most = 1;

  /* an output row's source rows are consecutive: a ring of the most any
   * of the slice's reads */
  for (t = y0; t < y1; t++)
    most = MAX (most, ay->tab_first[t + 1] - ay->tab_first[t]);
  across_rows_init (&rows, run, area_across_row, sizeof (gfloat), most);
  out_rows_init (&out, run);
  for (t = 0; t < ay->n_tab && ay->tab_dst[t] < y0; t++);
  while (t < ay->n_tab && ay->tab_dst[t] < y1) {
    gint dy = ay->tab_dst[t];
    guint8 *d = out_rows_get (&out, dy);
    gboolean first = TRUE;

    for (; t < ay->n_tab && ay->tab_dst[t] == dy; t++) {
      const gfloat *buf = across_rows_get (&rows, ay->tab_src[t]);
      gfloat beta = ay->tab_alpha[t];

      /* loops without a branch, which the compiler vectorises: the same
       * operations on each value */
      if (first) {
        for (i = 0; i < n; i++)
          sum[i] = buf[i] * beta;
      } else {
        for (i = 0; i < n; i++)
          sum[i] = sum[i] + buf[i] * beta;
      }
      first = FALSE;
    }
    for (i = 0; i < n; i++)
      d[i] = clip8 (cv_round (sum[i]));
    out_rows_put (&out, dy);
  }
  across_rows_clear (&rows);
  out_rows_clear (&out);
  g_free (sum);
}

/* Pillow: across, a source row into 8-bit RGB; its int sums */
GST_CUDA_CACHE_CLONES static void
pil_across_row (const Run * run, const guint8 * row, gpointer out)
{
  const GstCudaCacheResampler *r = run->r;
  const Axis *a = &r->x;
  guint8 *d = out;
  gint x, k;

  gint o0 = run->rgb[0], o1 = run->rgb[1], o2 = run->rgb[2], ps = run->ps;

  for (x = 0; x < r->out_w; x++) {
    const gint32 *w = a->iw + (gsize) x * a->stride;
    const guint8 *s = row + (gsize) ps * a->first[x];
    gint32 s0 = 1 << (PIL_BITS - 1), s1 = s0, s2 = s0;
    gint n = a->n[x];

#ifdef HAVE_VECTORS
    /* 4-byte pixels: the channels in the lanes of a vector */
    if (ps == 4) {
      Int4 acc = { s0, s0, s0, s0 };

      for (k = 0; k < n; k++, s += 4)
        acc = acc + pixel4 (s) * w[k];
      store3_u8 (d + 3 * x, acc >> PIL_BITS, run->rgb, run->in_order
          && x + 1 < r->out_w);
      continue;
    }
#endif
    for (k = 0; k < n; k++, s += ps) {
      s0 += s[o0] * w[k];
      s1 += s[o1] * w[k];
      s2 += s[o2] * w[k];
    }
    d[3 * x] = clip8 (s0 >> PIL_BITS);
    d[3 * x + 1] = clip8 (s1 >> PIL_BITS);
    d[3 * x + 2] = clip8 (s2 >> PIL_BITS);
  }
}

/* Pillow: down, from the rows across (or the source's RGB, where the
 * width stays), a row of sums at a time */
GST_CUDA_CACHE_CLONES static void
rows_pil_down (const Run * run, gint y0, gint y1)
{
  const GstCudaCacheResampler *r = run->r;
  const Axis *a = &r->y;
  gboolean across = r->in_w != r->out_w;
  gsize n = (gsize) r->out_w * 3, i;
  gint32 *ss = g_new (gint32, n);
  guint8 *row = across ? NULL : g_new (guint8, n);
  SourceRows src;
  AcrossRows rows;
  OutRows out;
  gint y, k;

  /* the rows across, or where the width stays the source's rows, in a
   * ring of an output row's taps */
  source_rows_init (&src, run, across ? 1 : a->stride);
  if (across)
    across_rows_init (&rows, run, pil_across_row, 1, a->stride);
  out_rows_init (&out, run);
  for (y = y0; y < y1; y++) {
    guint8 *d = out_rows_get (&out, y);
    const gint32 *w = a->iw + (gsize) y * a->stride;

    for (i = 0; i < n; i++)
      ss[i] = 1 << (PIL_BITS - 1);
    for (k = 0; k < a->n[y]; k++) {
      gint sy = a->first[y] + k;
      const guint8 *v;

      if (across) {
        v = across_rows_get (&rows, sy);
      } else {
        rows_copy_row (run, source_rows_get (&src, sy), row);
        v = row;
      }
      for (i = 0; i < n; i++)
        ss[i] += v[i] * w[k];
    }
    for (i = 0; i < n; i++)
      d[i] = clip8 (ss[i] >> PIL_BITS);
    out_rows_put (&out, y);
  }
  source_rows_clear (&src);
  out_rows_clear (&out);
  if (across)
    across_rows_clear (&rows);
  g_free (ss);
  g_free (row);
}

/* Pillow: where the height stays, across straight to @dst */
static void
rows_pil_copy (const Run * run, gint y0, gint y1)
{
  SourceRows src;
  OutRows out;
  gint y;

  source_rows_init (&src, run, 1);
  out_rows_init (&out, run);
  for (y = y0; y < y1; y++) {
    pil_across_row (run, source_rows_get (&src, y), out_rows_get (&out, y));
    out_rows_put (&out, y);
  }
  source_rows_clear (&src);
  out_rows_clear (&out);
}

typedef struct
{
  const Run *run;
  RowsFunc func;
} RunRows;

static void
run_rows (gpointer data, gint y0, gint y1)
{
  const RunRows *rr = data;

  rr->func (rr->run, y0, y1);
}

/* @func over rows 0..@rows, split over up to @threads threads */
static void
parallel_rows (const Run * run, RowsFunc func, gint rows, guint threads)
{
  RunRows rr = { run, func };

  gst_cuda_cache_parallel_rows (run_rows, &rr, rows, 1, threads);
}

void
gst_cuda_cache_resampler_run (GstCudaCacheResampler * r, const guint8 * src,
    gsize src_stride, gint src_pstride, const gint rgb[3],
    GstCudaCacheLinearSource source, gpointer source_data, guint8 * dst,
    gsize dst_stride, gint dst_pstride, const gint dst_rgb[3], guint threads)
{
  static const gint rgbx[3] = { 0, 1, 2 };
  Run run;

  run.r = r;
  run.src = src;
  run.src_stride = src_stride;
  run.ps = source ? 4 : src_pstride;
  memcpy (run.rgb, source ? rgbx : rgb, sizeof (run.rgb));
  run.in_order = run.ps == 4 && run.rgb[0] == 0 && run.rgb[1] == 1 &&
      run.rgb[2] == 2;
  run.source = source;
  run.source_data = source_data;
  run.dst = dst;
  run.dst_stride = dst_stride;
  run.dst_ps = dst_pstride;
  memcpy (run.dst_rgb, dst_rgb, sizeof (run.dst_rgb));

  g_return_if_fail (r != NULL);

  switch (r->kind) {
    case KIND_COPY:
      parallel_rows (&run, rows_copy, r->out_h, threads);
      break;
    case KIND_NEAREST:
      parallel_rows (&run, rows_nearest, r->out_h, threads);
      break;
    case KIND_CV_TWO_TAPS:
      parallel_rows (&run, rows_cv_down, r->out_h, threads);
      break;
    case KIND_AREA_HALF:
      parallel_rows (&run, rows_area_half, r->out_h, threads);
      break;
    case KIND_AREA_INTEGER:
      parallel_rows (&run, rows_area_integer, r->out_h, threads);
      break;
    case KIND_AREA:
      parallel_rows (&run, rows_area_down, r->out_h, threads);
      break;
    case KIND_PIL:
      if (r->in_h != r->out_h)
        parallel_rows (&run, rows_pil_down, r->out_h, threads);
      else
        parallel_rows (&run, rows_pil_copy, r->out_h, threads);
      break;
  }
}

G_STATIC_ASSERT (sizeof (gfloat) == sizeof (gint32));

/* Appends @n values of @src to @table; returns their offset, or -1 where
 * there are none. */
static gint
table_append (GArray * table, gconstpointer src, gint n)
{
  gint at = (gint) table->len;

  if (!src || n <= 0)
    return -1;
  g_array_append_vals (table, src, n);
  return at;
}

/* One axis of @n output indices into @table: its taps, or its area
 * table with each output index's first entry; with @records (OpenCV's two
 * taps), each index's first tap and two weights again as a record of 4
 * values at a multiple of 4 (convert-params.h's REC). */
static void
axis_kernel_table (const Axis * a, gint n, gboolean records, GArray * table,
    gint * first, gint * count, gint * w, gint * stride, gint * area,
    gint * area_src, gint * area_alpha, gint * rec)
{
  gint j;

  *first = table_append (table, a->first, n);
  *count = table_append (table, a->n, n);
  *w = table_append (table, a->iw, n * a->stride);
  *stride = a->stride;
  *area = *area_src = *area_alpha = -1;
  if (a->n_tab > 0) {
    *area = table_append (table, a->tab_first, n + 1);
    *area_src = table_append (table, a->tab_src, a->n_tab);
    *area_alpha = table_append (table, a->tab_alpha, a->n_tab);
  }
  *rec = -1;
  if (records && a->stride == 2 && n > 0) {
    static const gint32 zero = 0;

    while (table->len % 4)
      g_array_append_val (table, zero);
    *rec = (gint) table->len;
    for (j = 0; j < n; j++) {
      gint32 v[4] = { a->first[j], a->iw[2 * j], a->iw[2 * j + 1], 0 };

      g_array_append_vals (table, v, 4);
    }
  }
}

void
gst_cuda_cache_resampler_kernel_table (const GstCudaCacheResampler * r,
    PresetParams * p, GArray * table)
{
  static const gint kinds[] = {
    [KIND_COPY] = PRESET_COPY,
    [KIND_NEAREST] = PRESET_NEAREST,
    [KIND_CV_TWO_TAPS] = PRESET_CV_TWO_TAPS,
    [KIND_AREA_HALF] = PRESET_AREA_HALF,
    [KIND_AREA_INTEGER] = PRESET_AREA_INTEGER,
    [KIND_AREA] = PRESET_AREA,
    [KIND_PIL] = PRESET_PIL,
  };

  g_return_if_fail (r != NULL && p != NULL && table != NULL);
  g_return_if_fail (g_array_get_element_size (table) == 4);

  p->kind = kinds[r->kind];
  p->in_width = r->in_w;
  p->in_height = r->in_h;
  p->out_width = r->out_w;
  p->out_height = r->out_h;
  p->factor_x = r->factor_x;
  p->factor_y = r->factor_y;
  axis_kernel_table (&r->x, r->out_w, r->kind == KIND_CV_TWO_TAPS, table,
      &p->x_first, &p->x_n, &p->x_w, &p->x_stride, &p->x_area,
      &p->x_area_src, &p->x_area_alpha, &p->x_rec);
  axis_kernel_table (&r->y, r->out_h, r->kind == KIND_CV_TWO_TAPS, table,
      &p->y_first, &p->y_n, &p->y_w, &p->y_stride, &p->y_area,
      &p->y_area_src, &p->y_area_alpha, &p->y_rec);
}
