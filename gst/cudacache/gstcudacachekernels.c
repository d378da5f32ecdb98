/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The loader of cudacacheconvert's CUDA kernels (kernels/convert.cu): nvcc
 * builds them into a fatbin embedded in the plugin; this loads it into a
 * #GstCudaContext and launches one conversion at a time through gst-cuda's
 * driver wrappers. The driver is never linked: gst-cuda loads it. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachekernels-private.h"
#include "kernels/convert-params.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_kernels_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

#ifdef HAVE_CUDA_KERNELS

/* kernels/embed.py writes them, from nvcc's fatbin */
G_GNUC_INTERNAL extern const unsigned char gst_cuda_cache_kernels_fatbin[];
G_GNUC_INTERNAL extern const gsize gst_cuda_cache_kernels_fatbin_len;

/* the generic kernels' blocks, as convert.cu has them */
#define GENERIC_THREADS 256

/* GstVideoResampler's limit on the taps of one output pixel, per axis */
#define MAX_TAPS 128

/* shared memory a block may use without asking the driver for more */
#define MAX_SHARED_BYTES (48 * 1024)

/* the tallest tile, in output rows; a shorter one where the taller would
 * make fewer blocks than this (two per SM of an H100) */
#define MAX_TILE_H 32
#define MIN_TILED_BLOCKS 264

G_STATIC_ASSERT (sizeof (ConvertParams) == CONVERT_PARAMS_SIZE);
G_STATIC_ASSERT (G_STRUCT_OFFSET (ConvertParams, in_format) ==
    CONVERT_PARAMS_IN_FORMAT_OFFSET);
G_STATIC_ASSERT (G_STRUCT_OFFSET (ConvertParams, x_fx) ==
    CONVERT_PARAMS_X_FX_OFFSET);

/* the kernels come in input kinds x output kinds, as convert.cu names
 * them */
enum
{
  IN_KIND_NV12,
  IN_KIND_I420,
  IN_KIND_RGB4,
  IN_KIND_RGB3,
  N_IN_KINDS
};

enum
{
  OUT_KIND_PACKED,
  OUT_KIND_YUV420,
  OUT_KIND_TENSOR,
  N_OUT_KINDS
};

static const gchar *in_kind_names[N_IN_KINDS] = { "nv12", "i420", "rgb4",
  "rgb3"
};

static const gchar *out_kind_names[N_OUT_KINDS] = { "packed", "yuv420",
  "tensor"
};

/* The plans' tap tables live in arenas of device memory, appended to and
 * never rewritten: a table a launched kernel may still read stays as it
 * is. A plan whose table is already in the current arena (the caps
 * switching back and forth) shares it. A full arena is retired and freed
 * once its last plan is: cuMemFree () waits for the device, so for every
 * kernel that read it; a caps change costs no allocation until the arena
 * fills. */
typedef struct
{
  CUdeviceptr base;
  gsize size;                   /* bytes */
  gsize used;
  guint plans;                  /* live plans whose table lies here */
  gboolean retired;
  GPtrArray *tables;            /* TapTable, in the arena while current */
} TapArena;

typedef struct
{
  guint32 *values;
  gsize n_values;
  gsize offset;                 /* bytes into the arena */
} TapTable;

/* at least this many bytes per arena */
#define TAP_ARENA_MIN_BYTES (1024 * 1024)

struct _GstCudaCacheKernels
{
  GstCudaContext *context;
  CUmodule module;
  CUfunction tile[N_IN_KINDS][N_OUT_KINDS];
  CUfunction generic[N_IN_KINDS][N_OUT_KINDS];
  /* NV12 and I420 to packed RGB and tensors only, else NULL; [0] with
   * windows of CONVERT_FIXED_TAPS taps, [1] of CONVERT_DIRECT_NARROW_TAPS */
  CUfunction direct[2][N_IN_KINDS][N_OUT_KINDS];
  CUfunction narrow;            /* 16-bit 4:2:0 to NV12 */
  TapArena *arena;              /* the current one */
  /* the last RECENT_PLANS plans made, newest first, each with a reference:
   * caps that switch back and forth find theirs made */
  GQueue recent;
};

#define RECENT_PLANS 8

struct _GstCudaCacheKernelPlan
{
  GstCudaCacheKernels *kernels;
  ConvertParams params;         /* all but the planes' pointers and strides */
  gint in_kind;
  CUfunction function;
  guint grid_w;
  guint grid_h;
  guint block_w;
  guint block_h;
  guint shared_bytes;
  /* the direct kernel, where it applies and the rows allow it (else the
   * tiled or generic one above) */
  CUfunction direct;
  guint direct_grid_w;
  guint direct_grid_h;
  TapArena *arena;              /* where params.taps points */
  /* what the plan was made from: ConvertParams before its taps, the
   * 2-tap step */
  ConvertParams key;
  gboolean key_lq;
  gint key_inc;
  gint ref_count;               /* its users and the kernels' recent plans */
};

struct _GstCudaCacheKernelDone
{
  GstCudaContext *context;
  CUdeviceptr counter;          /* the grid's finished blocks */
  guint32 *flag;                /* pinned host memory, the device's too */
  guint32 seq;                  /* the last launch's */
};

/* Waiting for a signal: this many reads of the host's word, then a yield of
 * the thread between reads; after DONE_WAIT_US, the stream's own
 * synchronisation. */
#define DONE_SPINS 200
#define DONE_WAIT_US 2000

/* Synchronises @stream of @context. */
static gboolean
sync_stream (GstCudaContext * context, CUstream stream)
{
  gboolean ok;

  if (!gst_cuda_context_push (context)) {
    GST_ERROR_OBJECT (context, "could not push the CUDA context");
    return FALSE;
  }
  ok = gst_cuda_result (CuStreamSynchronize (stream));
  gst_cuda_context_pop (NULL);

  return ok;
}

/* Copies @bytes from pageable @src to @dst, with a context pushed, and
 * returns once they landed: from pageable memory the copy itself returns
 * once its source is staged, its DMA still queued on the legacy default
 * stream, which the kernels' non-blocking streams do not wait for. */
static gboolean
copy_to_device (CUdeviceptr dst, const void *src, gsize bytes)
{
  CUDA_MEMCPY2D copy = { 0, };

  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = src;
  copy.srcPitch = bytes;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = dst;
  copy.dstPitch = bytes;
  copy.WidthInBytes = bytes;
  copy.Height = 1;

  return gst_cuda_result (CuMemcpy2D (&copy)) &&
      gst_cuda_result (CuStreamSynchronize (NULL));
}

#endif /* HAVE_CUDA_KERNELS */

static void
gst_cuda_cache_kernels_init_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_kernels_debug, "cudacachekernels",
        0, "cudacacheconvert's CUDA kernels");
    g_once_init_leave (&once, 1);
  }
}

#ifdef HAVE_CUDA_KERNELS

static gint
convert_format (GstVideoFormat format)
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

/* n_taps and fx of one axis, as gst_video_resampler_init () works them out
 * for the LINEAR method: fx from the count before it is clamped to the
 * input size. */
static void
axis_taps (gint in_size, gint out_size, gint32 * n_taps, gfloat * fx)
{
  gdouble scale = in_size / (gdouble) out_size;
  gdouble filter_fx = scale > 1.0 ? 1.0 / scale : 1.0;
  gint n = CLAMP ((gint) ceil (2.0 / filter_fx), 1, MAX_TAPS);

  *fx = 2.0 / n;
  *n_taps = MIN (n, in_size);
}

/* Byte offsets of R, G, B in a packed RGB pixel, and its size. */
static void
packed_layout (gint format, gint * r, gint * g, gint * b, gint * bytes)
{
  gboolean bgr = format == CONVERT_FORMAT_BGRA ||
      format == CONVERT_FORMAT_BGRx || format == CONVERT_FORMAT_BGR;

  *r = bgr ? 2 : 0;
  *g = 1;
  *b = bgr ? 0 : 2;
  *bytes = format == CONVERT_FORMAT_RGB || format == CONVERT_FORMAT_BGR ? 3 : 4;
}

/* convert.cu's chroma_index (): the chroma row or column below luma
 * index @i */
static gint
chroma_index (gint i, gboolean cosited)
{
  if (cosited)
    return i / 2;
  return i >= 1 ? (i - 1) / 2 : -1;
}

/* The chroma samples that one output index's @n_taps luma taps read,
 * with the linear upsampling, along an axis of @in_size luma samples: at
 * most n_taps / 2 + 3, and at most the chroma samples there are. */
static gint
chroma_taps (gint n_taps, gint in_size)
{
  return MIN (n_taps / 2 + 3, (in_size + 1) / 2);
}

static gboolean
is_yuv_format (gint format)
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

/* convert.cu's chroma_frac () */
static gfloat
chroma_frac (gint i, gboolean cosited, gboolean interpolate)
{
  if (cosited)
    return interpolate && (i & 1) ? 0.5f : 0.0f;
  return (i & 1) ? 0.25f : 0.75f;
}

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
    gint pos = j * a->inc;

    *first = pos >> 16;
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
  cs = CLAMP (chroma_index (s, a->cosited), 0, csize - nc);

  for (l = 0; l < a->n_taps; l++)
    w[l] = 0.0f;
  for (l = 0; a->chroma && l < nc; l++)
    cw[l] = 0.0f;

  for (l = 0; l < a->n_taps; l++) {
    gfloat weight = tap_weight (x, first + l, a->fx) * norm;
    gint i = CLAMP (first + l, 0, a->in_size - 1);

    w[i - s] += weight;
    if (a->chroma) {
      gint c = chroma_index (i, a->cosited);
      gfloat f = chroma_frac (i, a->cosited, a->interpolate);
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
static GArray *
build_table (ConvertParams * p, gboolean lq, gint inc)
{
  GArray *table = g_array_new (FALSE, TRUE, sizeof (guint32));
  gboolean yuv = is_yuv_format (p->in_format);
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
  if (is_yuv_format (p->in_format)) {
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
    if (is_yuv_format (p->in_format))
      v[3] = v[3] - v[2] + 1;
  }
}

/* The input rows (luma rows for YUV) and chroma rows one tile of a block
 * row reads, at most, as convert.cu's convert_tile () finds them. */
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
    if (is_yuv_format (p->in_format))
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
  gboolean yuv = is_yuv_format (p->in_format);
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
 * of @pitch bytes, at most the block's threads, that convert.cu's
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
static guint64
tile_shared_bytes (const ConvertParams * p)
{
  gboolean yuv = is_yuv_format (p->in_format);
  gboolean yuv_out = is_yuv_format (p->out_format);
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
      return IN_KIND_NV12;
    case CONVERT_FORMAT_I420:
      return IN_KIND_I420;
    case CONVERT_FORMAT_RGB:
    case CONVERT_FORMAT_BGR:
      return IN_KIND_RGB3;
    default:
      return IN_KIND_RGB4;
  }
}

static gint
out_kind (gint format)
{
  switch (format) {
    case CONVERT_FORMAT_NV12:
    case CONVERT_FORMAT_I420:
      return OUT_KIND_YUV420;
    case CONVERT_FORMAT_TENSOR:
      return OUT_KIND_TENSOR;
    default:
      return OUT_KIND_PACKED;
  }
}

/* The scaling of @p's axes, from its formats and sizes: taps and fx per
 * axis, whether 4:2:0 input is converted before it is scaled, and in *lq
 * and *inc whether and with which step x takes GstVideoScaler's 2-tap
 * fixed-point path. */
static void
plan_axes (ConvertParams * p, gboolean * lq, gint * inc)
{
  gint out = out_kind (p->out_format);
  gint cpu_out;

  axis_taps (p->in_width, p->dest_width, &p->x_taps, &p->x_fx);
  axis_taps (p->in_height, p->dest_height, &p->y_taps, &p->y_fx);
  /* GStreamer converts 4:2:0 input to RGB before scaling when the picture
   * grows, after it when it shrinks */
  if (in_kind (p->in_format) <= IN_KIND_I420 && (out == OUT_KIND_PACKED ||
          out == OUT_KIND_TENSOR) &&
      (gint64) p->dest_width * p->dest_height >
      (gint64) p->in_width * p->in_height)
    p->convert_first = 1;
  /* GstVideoScaler's horizontal 2-tap path (an upscale of 8-bit pixels:
   * corners aligned, a fixed-point step): used on 8-bit lines of 1 or 4
   * components, so not where GstVideoConverter scales RGB or BGR in place
   * (same format in and out; tensors are made from RGB) */
  cpu_out = out == OUT_KIND_TENSOR ? CONVERT_FORMAT_RGB : p->out_format;
  *lq = FALSE;
  *inc = 0;
  if (p->x_taps == 2 && p->in_width != p->dest_width &&
      !(p->in_format == cpu_out && (cpu_out == CONVERT_FORMAT_RGB ||
              cpu_out == CONVERT_FORMAT_BGR))) {
    *lq = TRUE;
    *inc = p->dest_width == 1 ? 0 :
        ((p->in_width - 1) << 16) / (p->dest_width - 1) - 1;
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
static guint
plan_tiles (ConvertParams * p, GArray * table)
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
    bytes = tile_shared_bytes (p);
    if (bytes <= MAX_SHARED_BYTES) {
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
static gint
direct_taps (const ConvertParams * p)
{
  return p->x_taps <= CONVERT_DIRECT_NARROW_TAPS &&
      p->x_ctaps <= CONVERT_DIRECT_NARROW_TAPS ?
      CONVERT_DIRECT_NARROW_TAPS : CONVERT_FIXED_TAPS;
}

/* The direct kernel's tables (convert-params.h's X_DIRECT, Y_GROUP),
 * appended to @table, and its fields of @p, where it applies: 4:2:0 input
 * to packed RGB or a tensor, the fixed-point horizontal pass (at most
 * CONVERT_FIXED_TAPS taps per column, so no conversion before scaling),
 * at most 8 taps per row, chroma at least a window (@n, direct_taps ())
 * wide. */
static gboolean
plan_direct (ConvertParams * p, GArray * table, gint n)
{
  const gint G = CONVERT_DIRECT_ROWS;
  gint csize = (p->in_width + 1) / 2;
  gint n_groups = (p->dest_height + G - 1) / G;
  gint rows = 0, crows = 0, j, k, l;
  gint32 v[4];
  guint at;

  if (in_kind (p->in_format) > IN_KIND_I420 ||
      out_kind (p->out_format) == OUT_KIND_YUV420 || !p->x_fixed ||
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

static void
tap_table_free (TapTable * t)
{
  g_free (t->values);
  g_free (t);
}

/* Frees @arena's device memory (waiting for the device: every kernel that
 * may read it). The context is pushed. */
static void
tap_arena_free (TapArena * arena)
{
  if (arena->base)
    gst_cuda_result (CuMemFree (arena->base));
  g_ptr_array_unref (arena->tables);
  g_free (arena);
}

/* Puts @table in the current arena, or finds it there, and points *taps
 * at it; a full arena is retired (freed with its last plan) for a new
 * one. */
static gboolean
place_table (GstCudaCacheKernels * kernels, GArray * table,
    TapArena ** arena, unsigned long long *taps)
{
  gsize bytes = table->len * sizeof (guint32);
  TapArena *a = kernels->arena;
  TapTable *t = NULL;
  gboolean ok = TRUE;
  guint i;

  for (i = 0; a && i < a->tables->len; i++) {
    TapTable *e = g_ptr_array_index (a->tables, i);

    if (e->n_values == table->len &&
        memcmp (e->values, table->data, bytes) == 0) {
      t = e;
      break;
    }
  }

  if (!t) {
    if (!gst_cuda_context_push (kernels->context)) {
      GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context");
      return FALSE;
    }
    if (a && a->used + bytes > a->size) {
      /* retired: freed with its last plan */
      a->retired = TRUE;
      if (a->plans == 0)
        tap_arena_free (a);
      a = kernels->arena = NULL;
    }
    if (!a) {
      a = g_new0 (TapArena, 1);
      a->size = MAX (TAP_ARENA_MIN_BYTES, GST_ROUND_UP_N (2 * bytes, 4096));
      a->tables = g_ptr_array_new_with_free_func ((GDestroyNotify)
          tap_table_free);
      ok = gst_cuda_result (CuMemAlloc (&a->base, a->size));
      if (!ok) {
        GST_ERROR_OBJECT (kernels->context, "could not allocate %"
            G_GSIZE_FORMAT " bytes of device memory for the taps' tables",
            a->size);
        a->base = 0;
        tap_arena_free (a);
        a = NULL;
      }
      kernels->arena = a;
    }
    if (ok) {
      t = g_new0 (TapTable, 1);
      t->values = g_memdup2 (table->data, bytes);
      t->n_values = table->len;
      t->offset = a->used;
      /* into bytes no kernel reads yet */
      ok = copy_to_device (a->base + t->offset, t->values, bytes);
      if (ok) {
        a->used += GST_ROUND_UP_16 (bytes);
        g_ptr_array_add (a->tables, t);
      } else {
        GST_ERROR_OBJECT (kernels->context, "could not copy the taps' "
            "table to the device");
        tap_table_free (t);
      }
    }
    gst_cuda_context_pop (NULL);
    if (!ok)
      return FALSE;
  }

  a->plans++;
  *arena = a;
  *taps = a->base + t->offset;

  return TRUE;
}

#endif /* HAVE_CUDA_KERNELS */

gboolean
gst_cuda_cache_kernels_built (void)
{
#ifdef HAVE_CUDA_KERNELS
  return TRUE;
#else
  return FALSE;
#endif
}

GstCudaCacheKernels *
gst_cuda_cache_kernels_new (GstCudaContext * context)
{
#ifdef HAVE_CUDA_KERNELS
  GstCudaCacheKernels *self;
  CUfunction tile[N_IN_KINDS][N_OUT_KINDS];
  CUfunction generic[N_IN_KINDS][N_OUT_KINDS];
  CUfunction direct[2][N_IN_KINDS][N_OUT_KINDS] = { {{NULL,},}, };
  CUfunction narrow = NULL;
  CUmodule module = NULL;
  gboolean ok;
  guint i, o, w;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  gst_cuda_cache_kernels_init_debug ();

  if (!gst_cuda_context_push (context)) {
    GST_ERROR_OBJECT (context, "could not push the CUDA context");
    return NULL;
  }

  ok = gst_cuda_result (CuModuleLoadData (&module,
          gst_cuda_cache_kernels_fatbin));
  for (i = 0; ok && i < N_IN_KINDS; i++) {
    for (o = 0; ok && o < N_OUT_KINDS; o++) {
      gchar *tile_name = g_strdup_printf ("gst_cuda_cache_convert_tile_%s_%s",
          in_kind_names[i], out_kind_names[o]);
      gchar *generic_name =
          g_strdup_printf ("gst_cuda_cache_convert_generic_%s_%s",
          in_kind_names[i], out_kind_names[o]);

      ok = gst_cuda_result (CuModuleGetFunction (&tile[i][o], module,
              tile_name)) &&
          gst_cuda_result (CuModuleGetFunction (&generic[i][o], module,
              generic_name));
      if (!ok)
        GST_ERROR ("the module lacks %s or %s", tile_name, generic_name);
      g_free (generic_name);
      g_free (tile_name);
      for (w = 0; ok && w < 2 && i <= IN_KIND_I420 && o != OUT_KIND_YUV420; w++) {
        gchar *name = g_strdup_printf ("gst_cuda_cache_convert_direct%d_%s_%s",
            w ? CONVERT_DIRECT_NARROW_TAPS : CONVERT_FIXED_TAPS,
            in_kind_names[i], out_kind_names[o]);

        ok = gst_cuda_result (CuModuleGetFunction (&direct[w][i][o], module,
                name));
        if (!ok)
          GST_ERROR ("the module lacks %s", name);
        g_free (name);
      }
    }
  }
  if (ok) {
    ok = gst_cuda_result (CuModuleGetFunction (&narrow, module,
            "gst_cuda_cache_narrow_16"));
    if (!ok)
      GST_ERROR ("the module lacks gst_cuda_cache_narrow_16");
  }
  if (!ok && module)
    CuModuleUnload (module);

  gst_cuda_context_pop (NULL);

  if (!ok) {
    GST_ERROR_OBJECT (context, "could not load the kernels (a fatbin of %"
        G_GSIZE_FORMAT " bytes) on this device",
        gst_cuda_cache_kernels_fatbin_len);
    return NULL;
  }

  self = g_new0 (GstCudaCacheKernels, 1);
  self->context = gst_object_ref (context);
  self->module = module;
  memcpy (self->tile, tile, sizeof (tile));
  memcpy (self->generic, generic, sizeof (generic));
  memcpy (self->direct, direct, sizeof (direct));
  self->narrow = narrow;

  GST_DEBUG_OBJECT (context, "loaded the kernels (a fatbin of %"
      G_GSIZE_FORMAT " bytes)", gst_cuda_cache_kernels_fatbin_len);

  return self;
#else
  gst_cuda_cache_kernels_init_debug ();
  GST_INFO ("the plugin was built without its CUDA kernels (no nvcc)");

  return NULL;
#endif
}

GstCudaContext *
gst_cuda_cache_kernels_get_context (GstCudaCacheKernels * kernels)
{
#ifdef HAVE_CUDA_KERNELS
  g_return_val_if_fail (kernels != NULL, NULL);

  return kernels->context;
#else
  return NULL;
#endif
}

void
gst_cuda_cache_kernels_free (GstCudaCacheKernels * kernels)
{
#ifdef HAVE_CUDA_KERNELS
  if (!kernels)
    return;

  /* the recent plans' references; the callers' plans are freed before
   * the kernels: the current arena then has none left */
  g_queue_clear_full (&kernels->recent, (GDestroyNotify)
      gst_cuda_cache_kernel_plan_free);
  if (gst_cuda_context_push (kernels->context)) {
    if (kernels->arena)
      tap_arena_free (kernels->arena);
    gst_cuda_result (CuModuleUnload (kernels->module));
    gst_cuda_context_pop (NULL);
  } else {
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context: "
        "leaking the kernels' module and tables");
  }
  gst_object_unref (kernels->context);
  g_free (kernels);
#endif
}

GstCudaCacheKernelPlan *
gst_cuda_cache_kernel_plan_new (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params)
{
#ifdef HAVE_CUDA_KERNELS
  GstCudaCacheKernelPlan *plan;
  ConvertParams p = { 0, };
  gint out, inc, taps;
  gboolean lq;
  ConvertParams key;
  GArray *table;
  GList *l;
  guint i;

  g_return_val_if_fail (kernels != NULL, NULL);
  g_return_val_if_fail (params != NULL, NULL);

  p.in_format = convert_format (params->in_format);
  if (params->out_format == GST_VIDEO_FORMAT_UNKNOWN)
    p.out_format = CONVERT_FORMAT_TENSOR;
  else
    p.out_format = convert_format (params->out_format);
  if (p.in_format < 0 || p.out_format < 0) {
    GST_ERROR ("cannot convert %s to %s",
        gst_video_format_to_string (params->in_format),
        params->out_format == GST_VIDEO_FORMAT_UNKNOWN ? "a tensor" :
        gst_video_format_to_string (params->out_format));
    return NULL;
  }
  if (params->in_width <= 0 || params->in_height <= 0 ||
      params->out_width <= 0 || params->out_height <= 0 ||
      params->dest_width <= 0 || params->dest_height <= 0 ||
      params->dest_x < 0 || params->dest_y < 0 ||
      params->dest_x + params->dest_width > params->out_width ||
      params->dest_y + params->dest_height > params->out_height) {
    GST_ERROR ("invalid conversion: %dx%d to %dx%d, picture at %d,%d %dx%d",
        params->in_width, params->in_height, params->out_width,
        params->out_height, params->dest_x, params->dest_y,
        params->dest_width, params->dest_height);
    return NULL;
  }

  for (i = 0; i < 3; i++) {
    p.fill[i] = params->fill[i];
    p.mul[i] = params->mul[i];
    p.add[i] = params->add[i];
  }
  for (i = 0; i < 12; i++) {
    p.yuv_to_rgb[i] = params->yuv_to_rgb[i];
    p.rgb_to_yuv[i] = params->rgb_to_yuv[i];
  }
  if (in_kind (p.in_format) == IN_KIND_RGB3 ||
      in_kind (p.in_format) == IN_KIND_RGB4)
    packed_layout (p.in_format, &p.in_r, &p.in_g, &p.in_b, &p.in_pixel_bytes);
  out = out_kind (p.out_format);
  if (out == OUT_KIND_PACKED) {
    gint sel[4];

    packed_layout (p.out_format, &p.out_r, &p.out_g, &p.out_b,
        &p.out_pixel_bytes);
    sel[p.out_r] = 0;
    sel[p.out_g] = 1;
    sel[p.out_b] = 2;
    sel[p.out_pixel_bytes == 4 ? 6 - p.out_r - p.out_g - p.out_b : 3] = 3;
    p.out_perm = sel[0] | (sel[1] << 4) | (sel[2] << 8) | (sel[3] << 12);
  }
  p.in_width = params->in_width;
  p.in_height = params->in_height;
  p.out_width = params->out_width;
  p.out_height = params->out_height;
  p.dest_x = params->dest_x;
  p.dest_y = params->dest_y;
  p.dest_width = params->dest_width;
  p.dest_height = params->dest_height;
  plan_axes (&p, &lq, &inc);
  p.dtype = params->dtype == GST_CUDA_CACHE_TENSOR_DTYPE_U8 ? CONVERT_DTYPE_U8 :
      params->dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F16 ? CONVERT_DTYPE_F16 :
      CONVERT_DTYPE_F32;
  p.layout = params->layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC ?
      CONVERT_LAYOUT_NHWC : CONVERT_LAYOUT_NCHW;
  p.bgr = params->bgr ? 1 : 0;
  p.chroma_site =
      (params->in_chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED ?
      CONVERT_CHROMA_H_COSITED : 0) |
      (params->in_chroma_site & GST_VIDEO_CHROMA_SITE_V_COSITED ?
      CONVERT_CHROMA_V_COSITED : 0);

  /* a plan made from the same parameters, kept */
  for (l = kernels->recent.head; l; l = l->next) {
    GstCudaCacheKernelPlan *recent = l->data;

    if (recent->key_lq == lq && recent->key_inc == inc &&
        memcmp (&recent->key, &p, sizeof (p)) == 0) {
      g_queue_unlink (&kernels->recent, l);
      g_queue_push_head_link (&kernels->recent, l);
      recent->ref_count++;
      return recent;
    }
  }
  key = p;

  table = build_table (&p, lq, inc);

  plan = g_new0 (GstCudaCacheKernelPlan, 1);
  plan->kernels = kernels;
  plan->key = key;
  plan->key_lq = lq;
  plan->key_inc = inc;
  plan->ref_count = 1;
  plan->in_kind = in_kind (p.in_format);

  plan->shared_bytes = plan_tiles (&p, table);
  if (plan->shared_bytes) {
    plan->function = kernels->tile[plan->in_kind][out];
    plan->block_w = CONVERT_TILE_W;
    plan->block_h = CONVERT_TILE_THREADS_Y;
    plan->grid_w = (p.out_width + CONVERT_TILE_W - 1) / CONVERT_TILE_W;
    plan->grid_h = (p.out_height + p.tile_h - 1) / p.tile_h;
  } else {
    plan->function = kernels->generic[plan->in_kind][out];
    plan->block_w = GENERIC_THREADS;
    plan->block_h = 1;
    /* a block per output pixel, or per 2x2 block of a 4:2:0 output */
    if (out == OUT_KIND_YUV420) {
      plan->grid_w = (p.out_width + 1) / 2;
      plan->grid_h = (p.out_height + 1) / 2;
    } else {
      plan->grid_w = p.out_width;
      plan->grid_h = p.out_height;
    }
  }
  taps = direct_taps (&p);
  if (plan_direct (&p, table, taps)) {
    /* the groups from the one holding output row 0 to the last's */
    gint G = CONVERT_DIRECT_ROWS;
    gint groups = -p.direct_k0 + (p.out_height - p.dest_y + G - 1) / G;

    plan->direct = kernels->direct[taps == CONVERT_DIRECT_NARROW_TAPS]
        [plan->in_kind][out];
    plan->direct_grid_w = (p.out_width + CONVERT_TILE_W - 1) / CONVERT_TILE_W;
    plan->direct_grid_h = (groups + CONVERT_DIRECT_WARPS - 1) /
        CONVERT_DIRECT_WARPS;
  }
  if (!place_table (kernels, table, &plan->arena, &p.taps)) {
    g_array_unref (table);
    g_free (plan);
    return NULL;
  }
  g_array_unref (table);
  plan->params = p;

  GST_DEBUG ("%dx%d %s to %dx%d %s, picture at %d,%d %dx%d, %dx%d taps: "
      "%s kernel, %ux%u blocks of %ux%u, tile of %d rows reading up to %d "
      "rows of %d bytes (%d of chroma, of %d), %u bytes of shared memory; "
      "direct kernel: %s (windows of %d taps, groups of %d rows reading up "
      "to %d rows, %d of chroma)",
      p.in_width, p.in_height, gst_video_format_to_string (params->in_format),
      p.out_width, p.out_height, p.out_format == CONVERT_FORMAT_TENSOR ?
      "tensor" : gst_video_format_to_string (params->out_format), p.dest_x,
      p.dest_y, p.dest_width, p.dest_height, p.x_taps, p.y_taps,
      p.tile_h ? "tiled" : "generic", plan->grid_w, plan->grid_h,
      plan->block_w, plan->block_h, p.tile_h, p.tile_rows, p.tile_pitch,
      p.tile_chroma_rows, p.tile_chroma_pitch, plan->shared_bytes,
      plan->direct ? "yes, where rows are 4-byte aligned" : "no",
      taps, CONVERT_DIRECT_ROWS, p.direct_rows, p.direct_chroma_rows);

  /* kept among the recent ones: the oldest goes */
  plan->ref_count++;
  g_queue_push_head (&kernels->recent, plan);
  if (kernels->recent.length > RECENT_PLANS)
    gst_cuda_cache_kernel_plan_free (g_queue_pop_tail (&kernels->recent));

  return plan;
#else
  g_return_val_if_reached (NULL);
#endif
}

GstCudaCacheKernelDone *
gst_cuda_cache_kernel_done_new (GstCudaCacheKernels * kernels)
{
#ifdef HAVE_CUDA_KERNELS
  GstCudaCacheKernelDone *done;
  CUdevice device;
  guint device_id = 0;
  gint unified = 0, map = 0;
  guint32 zero = 0;
  gboolean ok;

  g_return_val_if_fail (kernels != NULL, NULL);

  g_object_get (kernels->context, "cuda-device-id", &device_id, NULL);
  if (!gst_cuda_context_push (kernels->context)) {
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context");
    return NULL;
  }

  done = g_new0 (GstCudaCacheKernelDone, 1);
  ok = gst_cuda_result (CuDeviceGet (&device, device_id)) &&
      gst_cuda_result (CuDeviceGetAttribute (&unified,
          CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, device)) &&
      gst_cuda_result (CuDeviceGetAttribute (&map,
          CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, device));
  /* with unified addressing, pinned host memory is the device's at the
   * same address */
  if (ok && (!unified || !map)) {
    GST_INFO_OBJECT (kernels->context, "the device cannot write host memory "
        "at its own address: conversions are waited for by their stream");
    ok = FALSE;
  } else if (ok) {
    ok = gst_cuda_result (CuMemAllocHost ((void **) &done->flag,
            sizeof (guint32))) &&
        gst_cuda_result (CuMemAlloc (&done->counter, sizeof (guint32)));
    if (ok) {
      *done->flag = 0;
      ok = copy_to_device (done->counter, &zero, sizeof (guint32));
    }
    if (!ok)
      GST_WARNING_OBJECT (kernels->context, "could not allocate a completion "
          "signal: conversions are waited for by their stream");
  }

  if (!ok) {
    if (done->counter)
      gst_cuda_result (CuMemFree (done->counter));
    if (done->flag)
      gst_cuda_result (CuMemFreeHost (done->flag));
    g_clear_pointer (&done, g_free);
  } else {
    done->context = gst_object_ref (kernels->context);
  }
  gst_cuda_context_pop (NULL);

  return done;
#else
  g_return_val_if_reached (NULL);
#endif
}

gboolean
gst_cuda_cache_kernels_wait (GstCudaCacheKernels * kernels, CUstream stream,
    GstCudaCacheKernelDone * done)
{
#ifdef HAVE_CUDA_KERNELS
  gint64 deadline = 0;
  guint spins = 0;

  g_return_val_if_fail (kernels != NULL, FALSE);

  if (!done)
    return sync_stream (kernels->context, stream);

  /* an atomic read: whatever follows is ordered after it */
  while ((guint32) g_atomic_int_get ((gint *) done->flag) != done->seq) {
    if (++spins < DONE_SPINS)
      continue;
    if (deadline == 0) {
      deadline = g_get_monotonic_time () + DONE_WAIT_US;
    } else if (g_get_monotonic_time () >= deadline) {
      GST_LOG_OBJECT (kernels->context, "no signal after %d us: waiting for "
          "the stream", DONE_WAIT_US);
      return sync_stream (kernels->context, stream);
    }
    g_thread_yield ();
  }

  return TRUE;
#else
  g_return_val_if_reached (FALSE);
#endif
}

void
gst_cuda_cache_kernel_done_free (GstCudaCacheKernelDone * done)
{
#ifdef HAVE_CUDA_KERNELS
  if (!done)
    return;

  if (gst_cuda_context_push (done->context)) {
    gst_cuda_result (CuMemFree (done->counter));
    gst_cuda_result (CuMemFreeHost (done->flag));
    gst_cuda_context_pop (NULL);
  } else {
    GST_ERROR_OBJECT (done->context, "could not push the CUDA context: "
        "leaking a completion signal");
  }
  gst_object_unref (done->context);
  g_free (done);
#endif
}

gboolean
gst_cuda_cache_kernel_plan_launch (GstCudaCacheKernelPlan * plan,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], CUstream stream,
    GstCudaCacheKernelDone * done)
{
#ifdef HAVE_CUDA_KERNELS
  ConvertParams p;
  void *args[] = { &p };
  gboolean ok, words = TRUE, direct;
  guint i;

  g_return_val_if_fail (plan != NULL, FALSE);
  g_return_val_if_fail (in_data != NULL && in_data[0] != 0, FALSE);
  g_return_val_if_fail (out_data != NULL && out_data[0] != 0, FALSE);

  p = plan->params;
  for (i = 0; i < 3; i++) {
    p.in_data[i] = in_data[i];
    p.in_stride[i] = in_stride[i];
    p.out_data[i] = out_data[i];
    p.out_stride[i] = out_stride[i];
  }
  /* 16-byte loads and whole-pixel stores where the rows allow them */
  p.in_aligned = TRUE;
  for (i = 0; i < (plan->in_kind == IN_KIND_I420 ? 3 :
          plan->in_kind == IN_KIND_NV12 ? 2 : 1); i++) {
    if (in_data[i] % 16 != 0 || in_stride[i] % 16 != 0)
      p.in_aligned = FALSE;
    if (in_data[i] % 4 != 0 || in_stride[i] % 4 != 0)
      words = FALSE;
  }
  if (p.out_pixel_bytes == 4)
    p.out_aligned = out_data[0] % 4 == 0 && out_stride[0] % 4 == 0;
  if (done) {
    p.done_counter = done->counter;
    p.done_flag = (guintptr) done->flag;
    p.done_seq = ++done->seq;
  }

  if (!gst_cuda_context_push (plan->kernels->context)) {
    GST_ERROR_OBJECT (plan->kernels->context,
        "could not push the CUDA context");
    return FALSE;
  }

  /* the direct kernel reads whole words of the input's rows */
  direct = plan->direct && words;
  GST_LOG ("launching the %s kernel%s", direct ? "direct" :
      plan->params.tile_h ? "tiled" : "generic", plan->direct && !words ?
      " (input rows not 4-byte aligned)" : "");
  if (direct) {
    ok = gst_cuda_result (CuLaunchKernel (plan->direct, plan->direct_grid_w,
            plan->direct_grid_h, 1, CONVERT_TILE_W, CONVERT_DIRECT_WARPS, 1,
            0, stream, args, NULL));
  } else {
    ok = gst_cuda_result (CuLaunchKernel (plan->function, plan->grid_w,
            plan->grid_h, 1, plan->block_w, plan->block_h, 1,
            plan->shared_bytes, stream, args, NULL));
  }

  gst_cuda_context_pop (NULL);

  return ok;
#else
  g_return_val_if_reached (FALSE);
#endif
}

void
gst_cuda_cache_kernel_plan_free (GstCudaCacheKernelPlan * plan)
{
#ifdef HAVE_CUDA_KERNELS
  TapArena *arena;

  if (!plan)
    return;
  if (--plan->ref_count > 0)
    return;

  arena = plan->arena;
  arena->plans--;
  if (arena->retired && arena->plans == 0) {
    if (gst_cuda_context_push (plan->kernels->context)) {
      tap_arena_free (arena);
      gst_cuda_context_pop (NULL);
    } else {
      GST_ERROR_OBJECT (plan->kernels->context, "could not push the CUDA "
          "context: leaking %" G_GSIZE_FORMAT " bytes of taps' tables",
          arena->size);
    }
  }
#endif
  g_free (plan);
}

/* ---- 16-bit 4:2:0 input ------------------------------------------------ */

#ifdef HAVE_CUDA_KERNELS

struct _GstCudaCacheNarrowed
{
  GstCudaCacheKernels *kernels;
  CUdeviceptr data;             /* luma rows, then chroma rows, at pitch */
  gsize pitch;
  gsize bytes;
};
#endif

GstCudaCacheNarrowed *
gst_cuda_cache_narrowed_new (GstCudaCacheKernels * kernels)
{
#ifdef HAVE_CUDA_KERNELS
  GstCudaCacheNarrowed *n;

  g_return_val_if_fail (kernels != NULL, NULL);

  n = g_new0 (GstCudaCacheNarrowed, 1);
  n->kernels = kernels;

  return n;
#else
  g_return_val_if_reached (NULL);
#endif
}

gboolean
gst_cuda_cache_narrowed_reserve (GstCudaCacheNarrowed * n, gint width,
    gint height)
{
#ifdef HAVE_CUDA_KERNELS
  GstCudaContext *context;
  gsize row_bytes, rows, pitch = 0;
  CUdeviceptr data = 0;
  gboolean ok;

  g_return_val_if_fail (n != NULL, FALSE);
  g_return_val_if_fail (width > 0 && height > 0, FALSE);

  row_bytes = 2 * (((gsize) width + 1) / 2);
  rows = (gsize) height + ((gsize) height + 1) / 2;
  if (n->data && row_bytes <= n->pitch && rows * n->pitch <= n->bytes)
    return TRUE;

  context = n->kernels->context;
  if (!gst_cuda_context_push (context)) {
    GST_ERROR_OBJECT (context, "could not push the CUDA context");
    return FALSE;
  }
  /* the old frame's last reader is done before it goes */
  if (n->data) {
    gst_cuda_result (CuMemFree (n->data));
    n->data = 0;
    n->pitch = n->bytes = 0;
  }
  ok = gst_cuda_result (CuMemAllocPitch (&data, &pitch, row_bytes, rows, 16));
  gst_cuda_context_pop (NULL);
  if (!ok) {
    GST_WARNING_OBJECT (context, "could not allocate %" G_GSIZE_FORMAT
        " rows of %" G_GSIZE_FORMAT " bytes", rows, row_bytes);
    return FALSE;
  }
  n->data = data;
  n->pitch = pitch;
  n->bytes = pitch * rows;

  return TRUE;
#else
  g_return_val_if_reached (FALSE);
#endif
}

gboolean
gst_cuda_cache_narrowed_launch (GstCudaCacheNarrowed * n,
    const guintptr src[2], const gint src_stride[2], gint width, gint height,
    gint depth, CUstream stream, guintptr data[3], gint stride[3])
{
#ifdef HAVE_CUDA_KERNELS
  GstCudaContext *context;
  CUdeviceptr dst_y, dst_uv;
  gint src_y_stride = src_stride[0], src_uv_stride = src_stride[1];
  gint pitch, chroma_w = 2 * ((width + 1) / 2);
  void *args[] = { (void *) &src[0], &src_y_stride, (void *) &src[1],
    &src_uv_stride, &dst_y, &pitch, &dst_uv, &pitch, &width, &height, &depth
  };
  gboolean ok;

  g_return_val_if_fail (n != NULL, FALSE);
  g_return_val_if_fail (depth > 8 && depth <= 16, FALSE);

  if (!gst_cuda_cache_narrowed_reserve (n, width, height))
    return FALSE;
  if (n->pitch > G_MAXINT) {
    GST_ERROR ("a pitch of %" G_GSIZE_FORMAT " bytes", n->pitch);
    return FALSE;
  }
  pitch = (gint) n->pitch;
  dst_y = n->data;
  dst_uv = n->data + (CUdeviceptr) height *n->pitch;

  context = n->kernels->context;
  if (!gst_cuda_context_push (context)) {
    GST_ERROR_OBJECT (context, "could not push the CUDA context");
    return FALSE;
  }
  /* block rows loop over the frame's rows past a grid's 65535 */
  ok = gst_cuda_result (CuLaunchKernel (n->kernels->narrow,
          (chroma_w + CONVERT_NARROW_THREADS * CONVERT_NARROW_SAMPLES - 1) /
          (CONVERT_NARROW_THREADS * CONVERT_NARROW_SAMPLES),
          MIN (height + (height + 1) / 2, 65535), 1, CONVERT_NARROW_THREADS, 1,
          1, 0, stream, args, NULL));
  gst_cuda_context_pop (NULL);
  if (!ok)
    return FALSE;

  data[0] = (guintptr) dst_y;
  data[1] = (guintptr) dst_uv;
  data[2] = 0;
  stride[0] = stride[1] = pitch;
  stride[2] = 0;

  return TRUE;
#else
  g_return_val_if_reached (FALSE);
#endif
}

void
gst_cuda_cache_narrowed_free (GstCudaCacheNarrowed * n)
{
#ifdef HAVE_CUDA_KERNELS
  if (!n)
    return;

  if (n->data) {
    /* cuMemFree waits for the device: no conversion still reads it */
    if (gst_cuda_context_push (n->kernels->context)) {
      gst_cuda_result (CuMemFree (n->data));
      gst_cuda_context_pop (NULL);
    } else {
      GST_ERROR_OBJECT (n->kernels->context, "could not push the CUDA "
          "context: leaking %" G_GSIZE_FORMAT " bytes", n->bytes);
    }
  }
  g_free (n);
#endif
}
