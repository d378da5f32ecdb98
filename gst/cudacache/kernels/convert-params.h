/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The one parameter of cudacacheconvert's kernels, passed by value, shared
 * by the kernels (the families' .cu files, built by nvcc) and the host
 * (gstcudacacheplan.c and gstcudacachekernels.c, built by the C compiler):
 * plain fixed-size C types, the 8-byte fields first, so that both lay it
 * out alike. */

#ifndef __GST_CUDA_CACHE_CONVERT_PARAMS_H__
#define __GST_CUDA_CACHE_CONVERT_PARAMS_H__

enum
{
  CONVERT_FORMAT_NV12 = 0,
  CONVERT_FORMAT_I420 = 1,
  CONVERT_FORMAT_RGBA = 2,
  CONVERT_FORMAT_BGRA = 3,
  CONVERT_FORMAT_RGBx = 4,
  CONVERT_FORMAT_BGRx = 5,
  CONVERT_FORMAT_RGB = 6,
  CONVERT_FORMAT_BGR = 7,
  /* output only: a packed 3-channel tensor at out_data[0] */
  CONVERT_FORMAT_TENSOR = 8,
  /* output only: a 1-channel tensor of gray (the luma of rgb_to_yuv's
   * first row) at out_data[0]. GRAY8 video has no kernels: GStreamer
   * 1.22's CUDA allocator does not lay it out. */
  CONVERT_FORMAT_GRAY_TENSOR = 9,
};

enum
{
  CONVERT_DTYPE_U8 = 0,
  CONVERT_DTYPE_F16 = 1,
  CONVERT_DTYPE_F32 = 2,
};

enum
{
  CONVERT_LAYOUT_NCHW = 0,
  CONVERT_LAYOUT_NHWC = 1,
};

/* where a 4:2:0 input's chroma samples sit, against the luma grid */
enum
{
  CONVERT_CHROMA_H_COSITED = 1 << 0,
  CONVERT_CHROMA_V_COSITED = 1 << 1,
};

/* The generic kernels' threads a block */
#define CONVERT_GENERIC_THREADS 256

/* The tiled kernels: a block of CONVERT_TILE_THREADS_Y rows of
 * CONVERT_TILE_W threads makes CONVERT_TILE_W x tile_h output pixels. */
#define CONVERT_TILE_W 32
#define CONVERT_TILE_THREADS_Y 8

/* The taps of both axes, worked out once per plan on the host (FP64 where
 * GstVideoResampler uses it) into one table of 4-byte values in device
 * memory; ConvertParams.tab[] holds each array's offset in it, in values.
 * Per output index j of the picture (0 <= j < dest_width or dest_height):
 *
 * - START: the first input index of the folded taps (int), shifted inside
 *   the input as GstVideoResampler does; the taps clamped at the edges
 *   have their weights added to the edge pixel's.
 * - W: x_taps (y_taps) folded weights, normalised (float), at j * n + l.
 * - CSTART, CW: for 4:2:0 input, the chroma samples those taps read with
 *   the chroma upsampling's weights folded in: x_ctaps (y_ctaps) of them,
 *   all inside the chroma plane.
 * - TAP: the unfolded taps' first index (int, before clamping), position
 *   (float) and the reciprocal of their weights' sum (float), at 3 * j.
 * - Q, CQ (x only, where x_fixed): W and CW in 1/32768 as 16-bit pairs,
 *   CONVERT_FIXED_TAPS / 2 words per j, zero past the last tap; they sum
 *   to exactly 32768. 16-byte aligned.
 *
 * And per block of the tiled kernels (16-byte aligned, 4 ints each):
 * - TILE_X, per block column: the first and last luma column (pixel) its
 *   taps read, the first and last chroma sample (4:2:0 input).
 * - TILE_Y, per block row: the first input row (luma row) its taps read,
 *   how many, the first chroma row, how many.
 *
 * And for the direct kernels (4:2:0 input, 16-byte aligned):
 * - X_DIRECT, per picture column, 12 words: the first luma pixel and the
 *   first chroma sample of a window of the kernel's taps
 *   (CONVERT_FIXED_TAPS or CONVERT_DIRECT_NARROW_TAPS) of each that
 *   lies inside its row (START and CSTART moved left at the right edge),
 *   2 words unused, then Q and CQ moved along with them (4 words each).
 * - Y_GROUP, per group of CONVERT_DIRECT_ROWS picture rows, direct_group
 *   words: the first luma row the group's taps read, how many
 *   (direct_rows at most), the first chroma row, how many
 *   (direct_chroma_rows at most); then per luma row read, its weight in
 *   each of the group's rows (CONVERT_DIRECT_ROWS floats, 0 where that row
 *   does not read it; W / CONVERT_FIXED_ONE, as the fixed-point sums come
 *   unscaled), direct_rows of them; then the chroma rows' alike,
 *   direct_chroma_rows of them. */
enum
{
  TAB_X_START,
  TAB_X_W,
  TAB_X_CSTART,
  TAB_X_CW,
  TAB_X_TAP,
  TAB_X_Q,
  TAB_X_CQ,
  TAB_Y_START,
  TAB_Y_W,
  TAB_Y_CSTART,
  TAB_Y_CW,
  TAB_Y_TAP,
  TAB_TILE_X,
  TAB_TILE_Y,
  TAB_X_DIRECT,
  TAB_Y_GROUP,
  TAB_N
};

/* The direct kernels: a thread makes CONVERT_DIRECT_ROWS output pixels of
 * one column, a block CONVERT_TILE_W columns of CONVERT_DIRECT_WARPS such
 * groups of rows. Four rows a thread rather than two: each input row a
 * group reads is filtered across once for more output rows (1080p to
 * 640x640: 20% fewer instructions a frame, 15% more frames a second from
 * a busy GPU), at 80 registers a thread instead of 64. */
#define CONVERT_DIRECT_ROWS 4
#define CONVERT_DIRECT_WARPS 4

/* the fixed-point horizontal pass: at most this many taps of luma and of
 * chroma per output column */
#define CONVERT_FIXED_TAPS 8
#define CONVERT_FIXED_ONE 32768

/* The direct kernels come in two widths of window: CONVERT_FIXED_TAPS,
 * and this many where a column has at most as many taps of luma and of
 * chroma (shrinking across by 3x or less: 1080p to 640 wide has 6 of
 * each). Their X_DIRECT records are alike, the weights past the window
 * 0. The narrow window reads a word less of chroma and sums a pair of
 * taps less of each plane per input row. */
#define CONVERT_DIRECT_NARROW_TAPS 6

/* The narrowing of 16-bit 4:2:0 input (gst_cuda_cache_narrow_16): threads
 * a block, and samples of a row a thread */
#define CONVERT_NARROW_THREADS 256
#define CONVERT_NARROW_SAMPLES 8

/* The conversion of 4:2:2 packed input to RGBx (gst_cuda_cache_unpack_422):
 * threads a block, a pixel each */
#define CONVERT_UNPACK_THREADS 256

/* the byte offsets of Y0, U, Y1 and V in a 4:2:2 packed pair of pixels,
 * one byte each from the lowest (the unpacking's @order): YUY2 is
 * Y0 U Y1 V, UYVY U Y0 V Y1 */
#define CONVERT_ORDER_YUY2 0x03020100
#define CONVERT_ORDER_UYVY 0x02030001

/* A colour matrix by value: the 4:2:2 unpacking's (yuv_to_rgb's layout) */
typedef struct
{
  float m[12];
} ConvertMatrix;

/* The kernels' only parameter, passed by value. Fixed-size fields, the
 * 8-byte ones first, so that gcc and nvcc lay it out the same way. */
typedef struct
{
  unsigned long long in_data[3];        /* device pointers, per plane */
  unsigned long long out_data[3];
  unsigned long long taps;      /* device pointer to the taps' table */
  /* the completion signal, or 0s: a counter of finished blocks in device
   * memory (0 between launches) and a word of pinned host memory that the
   * grid's last block sets to done_seq once every block's writes are
   * visible, so that the host waits for this grid without a driver call */
  unsigned long long done_counter;
  unsigned long long done_flag;

  int in_format;                /* CONVERT_FORMAT_*, not TENSOR */
  int in_width;
  int in_height;
  int in_stride[3];             /* bytes */
  /* byte offsets of R, G, B in a packed RGB input pixel */
  int in_r;
  int in_g;
  int in_b;
  int in_pixel_bytes;           /* packed RGB input: 3 or 4 */
  int in_aligned;               /* every plane's rows start 16-byte aligned */

  int out_format;               /* CONVERT_FORMAT_* */
  int out_width;
  int out_height;
  int out_stride[3];            /* bytes, video only */
  /* byte offsets of R, G, B in a packed RGB output pixel */
  int out_r;
  int out_g;
  int out_b;
  int out_pixel_bytes;          /* packed RGB output: 3 or 4 */
  /* packed RGB output: the __byte_perm () selector that takes R, G, B, 255
   * (bytes 0 to 3) to the format's byte order */
  int out_perm;
  int out_aligned;              /* packed 4-byte output: rows 4-byte aligned */

  int dest_x;
  int dest_y;
  int dest_width;
  int dest_height;

  /* scaling, per axis, as the host works it out from the sizes:
   * n_taps (clamped to the input size) and the filter's fx; the taps
   * themselves are in the table at taps, each array at tab[TAB_*] */
  int x_taps;
  int y_taps;
  /* 4:2:0 input: the chroma samples (CW) per output index, else 0 */
  int x_ctaps;
  int y_ctaps;
  int tab[TAB_N];
  /* 4:2:0 input filtered as Y, U, V with at most CONVERT_FIXED_TAPS taps
   * per column: the horizontal pass takes the fixed-point weights Q, CQ */
  int x_fixed;
  /* at most 8 taps per output row, of luma and of chroma: the tiled
   * kernels keep 8 (zero-padded) weights per row and 8 zeroed rows after
   * the filtered ones, and sum 8 taps unrolled */
  int y_padded;

  /* the tiled kernels: output rows per block, the most input rows (luma
   * rows for YUV) and chroma rows one block reads, and the bytes of one
   * such row it keeps in shared memory (per chroma plane for I420) */
  int tile_h;
  int tile_rows;
  int tile_chroma_rows;
  int tile_pitch;
  int tile_chroma_pitch;
  /* log2 of the 16-byte words of a staged row (luma, chroma) that a
   * block's threads are laid over: a power of two, at least the words of
   * tile_pitch (tile_chroma_pitch), at most the block's threads */
  int stage_shift;
  int stage_chroma_shift;

  /* the direct kernels: the group (of CONVERT_DIRECT_ROWS rows, counted
   * from the picture's first row) of the grid's first block row, 0 or
   * less; words of a Y_GROUP record; the most luma and chroma rows a group
   * reads */
  int direct_k0;
  int direct_group;
  int direct_rows;
  int direct_chroma_rows;

  int dtype;                    /* CONVERT_DTYPE_* */
  int layout;                   /* CONVERT_LAYOUT_* */
  int bgr;                      /* 0 or 1 */
  int chroma_site;              /* CONVERT_CHROMA_* of the input */
  /* YUV input to RGB: convert each input pixel to 8-bit RGB (clamped)
   * before scaling, as GstVideoConverter does when the picture grows */
  int convert_first;
  unsigned int done_seq;

  float x_fx;
  float y_fx;
  float yuv_to_rgb[12];
  float rgb_to_yuv[12];
  float fill[3];
  float mul[3];
  float add[3];
} ConvertParams;

/* A batch (cudacachebatch): one launch converts many frames, a slot each,
 * from a table of slots in device memory. The grid's z index is the slot;
 * its x and y cover the largest slot's grid, and a block past its own
 * slot's grid does no work. Every slot is what its own launch of the same
 * kernel would make: the kernels read its params from the table. */
typedef struct
{
  ConvertParams params;
  unsigned int grid_w;          /* the slot's own grid */
  unsigned int grid_h;
  unsigned int pad[2];
} ConvertBatchSlot;

/* The batch kernels' only parameter, by value: the table and the
 * completion signal (as in ConvertParams) */
typedef struct
{
  unsigned long long slots;     /* device pointer to ConvertBatchSlot[] */
  unsigned long long done_counter;
  unsigned long long done_flag;
  unsigned int done_seq;
  unsigned int pad;
} ConvertBatch;

#define CONVERT_BATCH_SLOT_SIZE 496
#define CONVERT_BATCH_SIZE 32

/* checked by both compilers */
#define CONVERT_PARAMS_SIZE 480
#define CONVERT_PARAMS_IN_FORMAT_OFFSET 72
#define CONVERT_PARAMS_X_FX_OFFSET 336

/* The resampling presets' kernels (resample.cu, gstcudacachepreset.c):
 * the source's 8-bit RGB resampled by a method other than LINEAR, each
 * picture pixel stored in the output as the conversion kernels store an
 * 8-bit RGB pixel, in the same launch (gstcudacacheresample.c defines each
 * kind's arithmetic; the kernels repeat it to the bit). */
enum
{
  PRESET_COPY = 0,              /* the same size */
  PRESET_NEAREST = 1,
  PRESET_CV_TWO_TAPS = 2,
  PRESET_AREA_HALF = 3,
  PRESET_AREA_INTEGER = 4,
  PRESET_AREA = 5,
  PRESET_PIL = 6,
};

/* The presets' kernels, a group of kinds each (kernel-list.h) */
enum
{
  PRESET_GROUP_NEAR = 1,        /* PRESET_COPY, PRESET_NEAREST */
  PRESET_GROUP_TWO_TAPS = 2,    /* PRESET_CV_TWO_TAPS */
  PRESET_GROUP_AREA = 3,        /* PRESET_AREA_HALF, _INTEGER, PRESET_AREA */
  PRESET_GROUP_PIL = 4,         /* PRESET_PIL */
};

/* PRESET_GROUP_PIL's tile (resample.cu): the source columns of a block's
 * rows and the source rows of a block */
#define PRESET_PIL_TILE_W 512
#define PRESET_PIL_TILE_ROWS 128

/* threads of a block of the presets' kernels: a pixel of the output each,
 * or for 4:2:0 output a 2x2 block of pixels each, in each of
 * PRESET_ROWS rows of blocks (the grid's rows are the output's over
 * PRESET_ROWS): what a thread reads for its column it reads once */
#define PRESET_BLOCK_W 32
#define PRESET_BLOCK_H 8
#define PRESET_ROWS 2

/* The presets' resampling, by value; the 8-byte fields first. Its out_*
 * are the picture's size (the output's is ConvertParams'). Its table (at
 * tab, 4-byte values: ints, or floats' bits) holds per axis (x, y), at
 * the offsets below (in values; -1 where the kind has none):
 * - FIRST, N: per output index, the first source index of its taps and
 *   how many;
 * - W: the taps' integer weights, STRIDE a output index;
 * - AREA: per output index j, the first entry of OpenCV's area table that
 *   is j's (out + 1 of them, the last the count), then the entries'
 *   source indices at AREA_SRC and weights (floats) at AREA_ALPHA;
 * - REC: OpenCV's two taps only, per output index a record of 4 values,
 *   its FIRST and its two W and a 0, at a multiple of 4 values (16 bytes):
 *   one load where the others take three. */
typedef struct
{
  unsigned long long in_data[3];        /* device pointers, per plane */
  unsigned long long tab;

  int in_format;                /* CONVERT_FORMAT_NV12, I420 or packed RGB */
  int in_stride[3];
  int in_r;                     /* packed RGB: byte offsets, pixel bytes */
  int in_g;
  int in_b;
  int in_pixel_bytes;
  int in_width;
  int in_height;
  int out_width;                /* the picture's */
  int out_height;
  int kind;                     /* PRESET_* */
  int factor_x;                 /* PRESET_AREA_INTEGER */
  int factor_y;
  int chroma_site;              /* CONVERT_CHROMA_* of 4:2:0 input */
  int x_first;
  int x_n;
  int x_w;
  int x_stride;
  int x_area;
  int x_area_src;
  int x_area_alpha;
  int y_first;
  int y_n;
  int y_w;
  int y_stride;
  int y_area;
  int y_area_src;
  int y_area_alpha;
  int x_rec;
  int y_rec;
  float yuv_to_rgb[12];
} PresetParams;

/* The presets' kernels' only parameter, by value: the conversion's
 * ConvertParams (its output, picture rectangle, fill, normalisation and
 * completion signal: those of converting the picture at 1:1; its input
 * fields unused) and the resampling's PresetParams. */
typedef struct
{
  ConvertParams c;
  PresetParams p;
} PresetConvert;

/* A slot of a batch of the presets' kernels (their _batch twins read
 * ConvertBatch.slots as a table of these): a ConvertBatchSlot as the
 * other kernels' batches have, and the slot's resampling. */
typedef struct
{
  ConvertBatchSlot slot;
  PresetParams preset;
} PresetBatchSlot;

#define PRESET_PARAMS_SIZE 208
#define PRESET_CONVERT_SIZE 688
#define PRESET_BATCH_SLOT_SIZE 704

#endif /* __GST_CUDA_CACHE_CONVERT_PARAMS_H__ */
