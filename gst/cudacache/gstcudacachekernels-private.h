/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_KERNELS_PRIVATE_H__
#define __GST_CUDA_CACHE_KERNELS_PRIVATE_H__

#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>

G_BEGIN_DECLS

/* One conversion, as cudacacheconvert sets it up for both its CPU path and
 * the CUDA kernels (gst/cudacache/kernels/, one .cu per family of
 * kernels/kernel-list.h), which follow the same definition:
 *
 * 1. Geometry. The output is out_width x out_height. The input image is
 *    scaled into the rectangle (dest_x, dest_y, dest_width, dest_height);
 *    every output pixel outside it is the fill colour (fill[], RGB 0..255).
 * 2. Scaling is GstVideoResampler's LINEAR method, separably in x and y:
 *    for in_size -> out_size, s = in_size / out_size;
 *    n_taps = s > 1 ? ceil (2 * s) : 2, and at most in_size;
 *    fx = 2 / n_taps;
 *    for output index j: x = (j + 0.5) * s - (n_taps > 1 ? 0.5 : 0),
 *    clamped to [0, in_size - 1]; xi = floor (x - (n_taps - 1) / 2);
 *    tap l (0 <= l < n_taps) reads source pixel CLAMP (xi + l, 0,
 *    in_size - 1) with weight MAX (0, 1 - |x - (xi + l)| * fx); weights are
 *    normalised to sum 1.
 * 3. Every tap is converted to RGB (floats on the 0..255 scale) before it
 *    is weighted: packed RGB formats are read as they are; YUV formats
 *    (NV12, I420) take chroma interpolated as GstVideoConverter's LINEAR
 *    chroma resampler does for in_chroma_site (between the two nearest
 *    samples per axis; a vertically cosited site repeats rows) and go
 *    through yuv_to_rgb: rgb[c] = m[4c] * Y + m[4c+1] * U + m[4c+2] * V +
 *    m[4c+3], with Y, U, V the raw 8-bit values.
 * 4. Output, video: packed RGB formats store CLAMP (floor (v + 0.5), 0,
 *    255) per channel in the format's byte order (the x byte of RGBx/BGRx is 255);
 *    NV12 and I420 store, per pixel, Y = rgb_to_yuv row 0 applied to
 *    (R, G, B, 1), and per 2x2 block U and V = rows 1 and 2 applied to the
 *    mean of the block's four RGB values (clipped to the image at odd
 *    sizes), each rounded and clamped to 0..255.
 * 5. Output, tensor: channel k of the tensor is R, G, B for RGB order, or
 *    B, G, R when bgr is set; the stored value is q * mul[k] + add[k] (a
 *    float multiply, then a float add), with q = CLAMP (floor (v + 0.5), 0,
 *    255): the CPU path packs the tensor from an 8-bit RGB picture, so the kernels
 *    round to the same grid and clamp as GstVideoConverter does. Stored as
 *    uint8 (rounded half to even, clamped to 0..255), float16 (round to
 *    nearest even) or float32, at the tensor layout's offset (NCHW:
 *    k * H * W + y * W + x; NHWC: (y * W + x) * 3 + k).
 * 6. Gray output (GRAY8 video, or a tensor of 1 channel): rgb_to_yuv's
 *    row 0 (the output's luma: GRAY8's colorimetry, for a tensor GRAY8's
 *    default, full-range BT.601) applied to the pixel's RGB rounded and
 *    clamped to 8 bits as in 4. (the gray of the packed RGB output, as
 *    OpenCV's RGB2GRAY takes it); stored as 4. stores Y, or as 5. stores
 *    a channel, with mul[0] and add[0], at y * W + x. The kernels make
 *    the tensor; GRAY8 video is system memory's only (GStreamer 1.22's
 *    CUDA allocator does not lay it out).
 * 7. Input the kernels do not read themselves is converted as a stand-in
 *    frame: 16-bit 4:2:0 as the 8-bit NV12 frame it narrows to
 *    (gstcudacachestandin.c); 4:2:2 packed (YUY2, UYVY) as the RGBx frame
 *    of its pixels converted first, chroma upsampled across as for 4:2:0
 *    and yuv_to_rgb applied, rounded and clamped as in 4.; GRAY8 (system
 *    memory's only) likewise, its chroma 128: R = G = B = the gray,
 *    expanded from its range. The front end gives these as in_format NV12,
 *    RGBx and I420. */
typedef struct
{
  /* input: one of NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR: the
   * frame the kernels read (7. above) */
  GstVideoFormat in_format;
  gint in_width;                /* the source rectangle's size */
  gint in_height;
  /* the source rectangle's top left in the input frame (a crop): the back
   * ends offset the planes there; even where the input's chroma is
   * subsampled on that axis */
  gint src_x;
  gint src_y;
  guintptr in_data[3];          /* device pointers, per plane */
  gint in_stride[3];
  gfloat yuv_to_rgb[12];
  GstVideoChromaSite in_chroma_site;

  /* geometry; resampled by @method (the conversion kernels: LINEAR; the
   * others by the presets' kernels below) */
  GstCudaCacheResizeMethod method;
  gint out_width;
  gint out_height;
  gint dest_x;
  gint dest_y;
  gint dest_width;
  gint dest_height;
  gfloat fill[3];

  /* output video (out_format != GST_VIDEO_FORMAT_UNKNOWN): one of the
   * input formats, or GRAY8 */
  GstVideoFormat out_format;
  guintptr out_data[3];
  gint out_stride[3];
  gfloat rgb_to_yuv[12];

  /* output tensor (out_format == GST_VIDEO_FORMAT_UNKNOWN): packed,
   * @channels (3, or 1 for gray), batch 1, at out_data[0] */
  guint channels;
  GstCudaCacheTensorDType dtype;
  GstCudaCacheTensorLayout layout;
  gboolean bgr;
  gfloat mul[3];
  gfloat add[3];
} GstCudaCacheConvertParams;

/* A kernel launched again and again through a CUDA graph of one node,
 * for one thread at a time (a converter's); gstcudacachedevice.c, which
 * holds the driver's graph functions */
typedef struct _GstCudaCacheDeviceGraph GstCudaCacheDeviceGraph;

/* Launches @func on @stream through *@graph (made at the first call, in
 * the context the caller pushed): the graph is made again where @func
 * differs from its node's, and its node's parameters are set anew
 * otherwise. Where the driver has no graphs (before CUDA 12) or refused
 * (logged, once: the graph then stays unused) nothing is launched and
 * FALSE returned: the caller launches @func itself. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_device_graph_launch (GstCudaCacheDeviceGraph ** graph,
    CUfunction func, guint grid_w, guint grid_h, guint block_w,
    guint block_h, guint shared_bytes, void **args, CUstream stream);

/* With the graph's context pushed; NULL is allowed */
G_GNUC_INTERNAL
void gst_cuda_cache_device_graph_free (GstCudaCacheDeviceGraph * graph);

typedef struct _GstCudaCacheKernels GstCudaCacheKernels;

/* Whether the plugin was built with its kernels (nvcc found). */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_kernels_built (void);

/* Loads the kernels' module into @context. NULL, with the reason logged,
 * where they were not built or the device cannot run them. */
G_GNUC_INTERNAL
GstCudaCacheKernels *gst_cuda_cache_kernels_new (GstCudaContext * context);

/* Returns: (transfer none): the context the kernels were loaded into */
G_GNUC_INTERNAL
GstCudaContext *gst_cuda_cache_kernels_get_context (GstCudaCacheKernels *
    kernels);

G_GNUC_INTERNAL
void gst_cuda_cache_kernels_free (GstCudaCacheKernels * kernels);

/* For the kernels' host files: the function of kernel @kernel (a
 * GstCudaCacheKernelId, gstcudacacheplan-private.h) */
G_GNUC_INTERNAL
CUfunction gst_cuda_cache_kernels_get_function (GstCudaCacheKernels *
    kernels, gint kernel);

/* For the kernels' host files, with the kernels' context pushed: notes a
 * launch on @stream (an event recorded after it), so that a block
 * retired later waits for it. Called after every launch that reads a
 * block of the kernels' own (tables). */
G_GNUC_INTERNAL
void gst_cuda_cache_kernels_mark_launch (GstCudaCacheKernels * kernels,
    CUstream stream);

/* For the kernels' host files: takes @block, which launches so far may
 * still read, and gives it back to the cache once they have passed
 * (events recorded on their streams, queried at later calls; never a wait
 * for the context, whose other streams may belong to someone else). */
G_GNUC_INTERNAL
void gst_cuda_cache_kernels_retire (GstCudaCacheKernels * kernels,
    GstMemory * block);

/* The presets' recent ones, kept as the plans are (gstcudacachepreset.c);
 * freed with the kernels. */
G_GNUC_INTERNAL
GQueue *gst_cuda_cache_kernels_get_recent_presets (GstCudaCacheKernels *
    kernels);

/* For the kernels' host files: a block of device memory of @rows rows of
 * at least @row_bytes bytes from the device's cache, in the group of the
 * kernels' context, its address in *data and its rows' pitch in *pitch.
 * Dropping its last reference gives it back to the cache, where the next
 * user may write it: only once no kernel uses it. NULL, logged, where the
 * device has no memory left. */
G_GNUC_INTERNAL
GstMemory *gst_cuda_cache_kernels_acquire (GstCudaCacheKernels * kernels,
    gsize row_bytes, gsize rows, CUdeviceptr * data, gsize * pitch);

/* One conversion's launch, prepared once per pair of caps (and again when a
 * property changes): the kernel chosen, its grid and every per-caps
 * parameter (taps, matrices, normalisation). Per frame only the planes'
 * pointers and strides change. @params' in_data/out_data/strides are
 * ignored here. NULL, with the reason logged, for a conversion the kernels
 * do not do. A plan's taps are worked out here, once
 * (gstcudacacheplan-private.h), into a table in device memory that
 * @kernels keeps in arenas, blocks of the device's #GstCudaCache (one
 * block for many plans; a plan of the same taps as an earlier one shares
 * its table). @kernels keeps its last few plans: caps that switch back and
 * forth get theirs again, made once. plan_free (and kernels_free) wait for
 * the context's work only when they return an arena to the cache. A plan
 * borrows @kernels: free it before them. */
typedef struct _GstCudaCacheKernelPlan GstCudaCacheKernelPlan;

G_GNUC_INTERNAL
GstCudaCacheKernelPlan *gst_cuda_cache_kernel_plan_new (GstCudaCacheKernels *
    kernels, const GstCudaCacheConvertParams * params);

/* A completion signal for the conversions launched on one stream, one at a
 * time: the grid's last block writes the launch's sequence number into a
 * word of pinned host memory once every block's writes are visible, and
 * the host reads it there. Waiting for a frame then takes no call into the
 * CUDA driver, whose stream synchronisation is serialised across the
 * process's threads: pipelines that each wait for their own frames scale
 * with their number. NULL, with the reason logged, where the device cannot
 * write host memory or the driver refused the memory: wait for the stream
 * instead. */
typedef struct _GstCudaCacheKernelDone GstCudaCacheKernelDone;

G_GNUC_INTERNAL
GstCudaCacheKernelDone *gst_cuda_cache_kernel_done_new (GstCudaCacheKernels *
    kernels);

/* Waits until the last conversion launched on @stream is written: until
 * the signal of @done (where not NULL, the conversions launched with it)
 * arrives, or else by synchronising @stream, as also where the signal has
 * not arrived after a while (a long conversion, or a failed one: that
 * error is then returned). */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_kernels_wait (GstCudaCacheKernels * kernels,
    CUstream stream, GstCudaCacheKernelDone * done);

/* The same for a launch of @done before its last (whose signal number,
 * gst_cuda_cache_kernel_done_get_seq () just after it was launched, is
 * @seq): later launches of @done may be in flight. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_kernels_wait_for (GstCudaCacheKernels * kernels,
    CUstream stream, GstCudaCacheKernelDone * done, guint32 seq);

/* The signal number of @done's last launch */
G_GNUC_INTERNAL
guint32 gst_cuda_cache_kernel_done_get_seq (GstCudaCacheKernelDone * done);

/* Call only with no conversion of @done's in flight. */
G_GNUC_INTERNAL
void gst_cuda_cache_kernel_done_free (GstCudaCacheKernelDone * done);

/* Launches the planned conversion of one frame on @stream and returns
 * without waiting: the caller waits (gst_cuda_cache_kernels_wait (), with
 * the same @done, which may be NULL; all of @done's conversions are
 * launched on @stream) before the output is read. Launched through
 * *@graph (gst_cuda_cache_device_graph_launch ()) where @graph is not
 * NULL. Pushes the kernels' context itself. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_kernel_plan_launch (GstCudaCacheKernelPlan * plan,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], CUstream stream,
    GstCudaCacheKernelDone * done, GstCudaCacheDeviceGraph ** graph);

G_GNUC_INTERNAL
void gst_cuda_cache_kernel_plan_free (GstCudaCacheKernelPlan * plan);

/* Batches (cudacachebatch): many planned conversions to tensors, each
 * into its slot of one batch tensor, in one launch per kernel the slots
 * need (one where every slot takes the same kernel: frames of a format
 * scaled alike, or slots of resampling presets, whatever their input and
 * method). Each slot is what plan_launch (preset_launch) makes of it
 * alone: the
 * batch twin of its kernel (ConvertBatch, kernels/convert-params.h) reads
 * the slot's parameters from a table in device memory. The table is a
 * block of the device's cache, kept for the next batch. Launch every
 * batch of one GstCudaCacheKernelBatch on one stream, or wait for the
 * last before the next. */
typedef struct
{
  GstCudaCacheKernelPlan *plan;         /* of a tensor */
  /* or, where not NULL, a resampling preset's conversion (below), the
   * plan unused */
  struct _GstCudaCachePreset *preset;
  guintptr in_data[3];
  gint in_stride[3];
  guintptr out_data;                    /* the slot's tensor */
} GstCudaCacheKernelBatchSlot;

typedef struct _GstCudaCacheKernelBatch GstCudaCacheKernelBatch;

G_GNUC_INTERNAL
GstCudaCacheKernelBatch *gst_cuda_cache_kernel_batch_new (GstCudaCacheKernels *
    kernels);

/* Launches the conversion of @n slots (plans of @batch's kernels'
 * context) on @stream and returns without waiting, as plan_launch does;
 * @done signals once every slot is written. *@n_launches: the launches
 * it took. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_kernel_batch_launch (GstCudaCacheKernelBatch * batch,
    const GstCudaCacheKernelBatchSlot * slots, guint n, CUstream stream,
    GstCudaCacheKernelDone * done, guint * n_launches);

/* Waits for the context first where a batch table goes back to the
 * cache. */
G_GNUC_INTERNAL
void gst_cuda_cache_kernel_batch_free (GstCudaCacheKernelBatch * batch);

/* The stand-in frame of input the kernels do not read themselves (7.
 * above). 16-bit 4:2:0 (P010_10LE, P016_LE: NV12's planes, each sample's
 * bits at the top of 16) narrows to 8-bit NV12: each sample's bits
 * repeated down to 16, as GStreamer unpacks them, then scaled by
 * 255 / 65535 and rounded (a frame widened from 8 bits gives its samples
 * back). 4:2:2 packed (YUY2, UYVY) becomes RGBx.
 * Input has one where the params' in_format is not its own format. The
 * frame is kept in a block of the device's #GstCudaCache that grows with
 * the frames and goes back to the cache with it: free it, and let it
 * grow, only once no conversion reads it. It borrows @kernels: free it
 * before them. */
typedef struct _GstCudaCacheStandIn GstCudaCacheStandIn;

G_GNUC_INTERNAL
GstCudaCacheStandIn *gst_cuda_cache_stand_in_new (GstCudaCacheKernels *
    kernels);

/* Room for the stand-in of frames of @in, allocated now (FALSE, logged,
 * where the device has none) */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_stand_in_reserve (GstCudaCacheStandIn * stand_in,
    const GstVideoInfo * in);

/* Launches the making of the stand-in of the frame of @in whose planes
 * @data and @stride give, on @stream (4:2:2 through @yuv_to_rgb, its
 * chroma sited as @chroma_site says), and replaces @data and @stride
 * with the stand-in's planes, which the plan of in_format NV12, RGBx or
 * I420 converts. The caller waits for that conversion before the next
 * launch: the stand-in is one frame. Pushes the kernels' context itself. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_stand_in_launch (GstCudaCacheStandIn * stand_in,
    const GstVideoInfo * in, const gfloat yuv_to_rgb[12], guint chroma_site,
    CUstream stream, guintptr data[3], gint stride[3]);

G_GNUC_INTERNAL
void gst_cuda_cache_stand_in_free (GstCudaCacheStandIn * stand_in);

/* The resampling presets (gstcudacachepreset.c): for a method other than
 * LINEAR, the source (in_format after 7.: NV12, I420 or packed RGB, 4:2:0
 * read as its RGB stand-in) resampled by the method's arithmetic
 * (gstcudacacheresample.c, to the bit) into the picture's 8-bit RGB
 * pixels, each stored in the output as the plan of converting an 8-bit
 * RGBx frame of the picture's size at 1:1 would store it (the fill, the
 * tensor's or the video's values, as 1. to 6. say), in one launch of the
 * output kind's kernel. Its table is a block of the device's cache, made
 * here once per set of parameters: the kernels keep the recent presets,
 * and parameters seen before (caps switching back, a region of the same
 * size elsewhere in the frame) find theirs made, with no upload. The last
 * preset_free retires the table (gst_cuda_cache_kernels_retire ()): a
 * conversion nobody waited for may still read it. It borrows @kernels:
 * free it before them. NULL, logged, for a conversion the kernels do not
 * do or where the device has no memory for the table. */
typedef struct _GstCudaCachePreset GstCudaCachePreset;

G_GNUC_INTERNAL
GstCudaCachePreset *gst_cuda_cache_preset_new (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params);

/* Launches the conversion of the source whose planes @in_data and
 * @in_stride give (the source rectangle's top left) into the output's
 * planes on @stream, and returns without waiting, as plan_launch does
 * (@done and @graph may be NULL). Pushes the kernels' context itself. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_preset_launch (GstCudaCachePreset * preset,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], CUstream stream,
    GstCudaCacheKernelDone * done, GstCudaCacheDeviceGraph ** graph);

G_GNUC_INTERNAL
void gst_cuda_cache_preset_free (GstCudaCachePreset * preset);

/* For the kernels' host files: the completion signal's fields of the next
 * launch of @done (kernels/convert-params.h), or 0s where @done is
 * NULL */
G_GNUC_INTERNAL
void gst_cuda_cache_kernel_done_next (GstCudaCacheKernelDone * done,
    CUstream stream, unsigned long long *counter, unsigned long long *flag,
    unsigned int *seq);

/* For the kernels' host files: copies @bytes at @src to device memory
 * @dst of the kernels' context on a stream of the kernels' own, and waits
 * for that copy alone. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_kernels_upload (GstCudaCacheKernels * kernels,
    CUdeviceptr dst, gconstpointer src, gsize bytes);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_KERNELS_PRIVATE_H__ */
