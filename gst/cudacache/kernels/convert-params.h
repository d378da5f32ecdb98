/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* The one parameter of cudacacheconvert's kernels, passed by value, shared
 * by the kernels (convert.cu, built by nvcc) and their loader
 * (gstcudacachekernels.c, built by the C compiler): plain fixed-size C
 * types, the 8-byte fields first, so that both lay it out alike. */

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

/* The tiled kernels: a block of CONVERT_TILE_THREADS_Y rows of
 * CONVERT_TILE_W threads makes CONVERT_TILE_W x tile_h output pixels. */
#define CONVERT_TILE_W 32
#define CONVERT_TILE_THREADS_Y 4

/* The kernels' only parameter, passed by value. Fixed-size fields, the
 * 8-byte ones first, so that gcc and nvcc lay it out the same way. */
typedef struct
{
  unsigned long long in_data[3];        /* device pointers, per plane */
  unsigned long long out_data[3];

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
  int out_aligned;              /* packed 4-byte output: rows 4-byte aligned */

  int dest_x;
  int dest_y;
  int dest_width;
  int dest_height;

  /* scaling, per axis, as the host works it out from the sizes:
   * n_taps (clamped to the input size) and the filter's fx */
  int x_taps;
  int y_taps;
  /* x_lq: GstVideoScaler scales horizontally with its 2-tap fixed-point
   * path (8-bit pixels, 2 taps, sizes differ): the source position of
   * output x is x * x_inc in 1/65536 of an input pixel (corners aligned),
   * weights in 1/256 */
  int x_lq;
  int x_inc;

  /* the tiled kernels: output rows per block, the most input rows (luma
   * rows for YUV) and chroma rows one block reads, and the bytes of one
   * such row it keeps in shared memory (per chroma plane for I420) */
  int tile_h;
  int tile_rows;
  int tile_chroma_rows;
  int tile_pitch;
  int tile_chroma_pitch;

  int dtype;                    /* CONVERT_DTYPE_* */
  int layout;                   /* CONVERT_LAYOUT_* */
  int bgr;                      /* 0 or 1 */
  int chroma_site;              /* CONVERT_CHROMA_* of the input */
  /* YUV input to RGB: convert each input pixel to 8-bit RGB (clamped)
   * before scaling, as GstVideoConverter does when the picture grows */
  int convert_first;
  int reserved;

  float x_fx;
  float y_fx;
  float yuv_to_rgb[12];
  float rgb_to_yuv[12];
  float fill[3];
  float mul[3];
  float add[3];
} ConvertParams;

/* checked by both compilers */
#define CONVERT_PARAMS_SIZE 352
#define CONVERT_PARAMS_IN_FORMAT_OFFSET 48
#define CONVERT_PARAMS_X_FX_OFFSET 212

#endif /* __GST_CUDA_CACHE_CONVERT_PARAMS_H__ */
