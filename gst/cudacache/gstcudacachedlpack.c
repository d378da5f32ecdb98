/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:gstcudacachedlpack
 * @title: DLPack export
 * @short_description: hands tensors and video frames to PyTorch, CuPy and
 *     NumPy without a copy
 *
 * gst_cuda_cache_dlpack_export() describes the memory of a buffer as a
 * [DLPack](https://dmlc.github.io/dlpack/latest/) `DLManagedTensor`: a
 * tensor buffer (a #GstCudaCacheTensorMeta, `other/tensors` caps, or
 * GStreamer's own `GstTensorMeta` on 1.26 and later) as the tensor it
 * holds, a `video/x-raw` frame as height x width x channels (HWC) where
 * its layout allows, whole or one plane at a time. CUDA memory
 * is exported as `kDLCUDA` on the memory's device, system memory as `kDLCPU`.
 *
 * The tensor keeps a reference on the buffer, and the buffer mapped, until
 * its consumer calls its `deleter`: a buffer from a pool over a
 * #GstCudaCache goes back to its pool, and its memory to the cache, only
 * once the consumer is done with it.
 *
 * |[<!-- language="C" -->
 * #include <dlpack/dlpack.h>
 *
 * GError *error = NULL;
 * DLManagedTensor *t = gst_cuda_cache_dlpack_export (buffer, caps,
 *     GST_CUDA_CACHE_DLPACK_WHOLE, GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error);
 *
 * if (!t)
 *   ... error->message says why ...
 * gst_buffer_unref (buffer);      // t holds its own reference
 * ... hand t to a consumer, which calls t->deleter (t) when done ...
 * ]|
 *
 * `data` points at the first element and `byte_offset` is 0: some consumers
 * ignore `byte_offset`. Work still pending on the memory's own stream
 * (GStreamer 1.24 and later: memory flagged
 * %GST_CUDA_MEMORY_TRANSFER_NEED_SYNC) is waited for before the tensor is
 * made, so a consumer's stream needs no synchronisation, unless
 * %GST_CUDA_CACHE_DLPACK_FLAG_NO_WAIT leaves that wait to the consumer's
 * stream (gst_cuda_cache_dlpack_stream_wait()).
 * The memory is mapped for reading: treat the tensor as read-only.
 *
 * From Python, the `gstcudacache` module (see docs/python.md) wraps the
 * result in an object with `__dlpack__` and `__dlpack_device__`.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlpack/dlpack.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>

#include "gstcudacachedlpack.h"
#include "gstcudacache-compat-private.h"
#include "gstcudacache-private.h"
#include "gstcudacacheconverter-private.h"
#include "gstcudacachetensor.h"

GST_CUDA_CACHE_DEBUG_CATEGORY ("cudacachedlpack",
    "CUDA cache: DLPack export and import");
#define GST_CAT_DEFAULT ensure_debug_category ()

#define MAX_DIMS GST_CUDA_CACHE_TENSOR_N_DIMS

/* What a DLManagedTensor's manager_ctx points at: the tensor itself comes
 * first, so one allocation serves both. */
typedef struct
{
  DLManagedTensor managed;

  GstBuffer *buffer;
  gboolean is_frame;
  GstMapInfo map;               /* tensors */
  GstVideoFrame frame;          /* video frames */

  int64_t shape[MAX_DIMS];
  int64_t strides[MAX_DIMS];
} GstCudaCacheDLPack;

static void
dlpack_deleter (DLManagedTensor * managed)
{
  GstCudaCacheDLPack *self = managed->manager_ctx;

  GST_LOG ("consumer released the tensor of buffer %p", self->buffer);

  if (self->is_frame)
    gst_video_frame_unmap (&self->frame);
  else
    gst_buffer_unmap (self->buffer, &self->map);
  gst_buffer_unref (self->buffer);
  g_free (self);
}

/* Why an export failed, in @error: GStreamer's printf, which knows
 * GST_PTR_FORMAT */
#define dlpack_fail(error, ...) gst_cuda_cache_converter_set_error (error, \
    GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, __VA_ARGS__)

static gboolean
buffer_device (GstBuffer * buffer, DLDevice * device, GError ** error)
{
  GstMemory *mem = gst_buffer_peek_memory (buffer, 0);
  guint n = gst_buffer_n_memory (buffer);
  guint i, device_id = 0;
  gboolean cuda = gst_is_cuda_memory (mem);

  /* a buffer is exported whole: all its memories must live in one place */
  for (i = 1; i < n; i++) {
    if (gst_is_cuda_memory (gst_buffer_peek_memory (buffer, i)) != cuda) {
      dlpack_fail (error, "the buffer mixes CUDA and system memory: a "
          "tensor lives in one place");
      return FALSE;
    }
  }

  if (cuda) {
    g_object_get (GST_CUDA_MEMORY_CAST (mem)->context, "cuda-device-id",
        &device_id, NULL);
    device->device_type = kDLCUDA;
    device->device_id = device_id;
  } else {
    device->device_type = kDLCPU;
    device->device_id = 0;
  }

  return TRUE;
}

static gboolean
export_tensor (GstCudaCacheDLPack * self, const GstCudaCacheTensorInfo * info,
    GstMapFlags flags, GError ** error)
{
  DLTensor *t = &self->managed.dl_tensor;
  guint elem = gst_cuda_cache_tensor_dtype_get_size (info->dtype);
  guint i;

  /* a CUDA buffer of several memories cannot be merged by a map */
  if ((flags & GST_MAP_CUDA) && gst_buffer_n_memory (self->buffer) != 1) {
    dlpack_fail (error, "the CUDA tensor buffer has %u memories; a CUDA "
        "tensor is exported from one", gst_buffer_n_memory (self->buffer));
    return FALSE;
  }
  if (!gst_buffer_map (self->buffer, &self->map, flags)) {
    dlpack_fail (error, "the tensor buffer could not be mapped for reading");
    return FALSE;
  }
  if (self->map.size < info->size) {
    dlpack_fail (error, "the buffer holds %" G_GSIZE_FORMAT " bytes; its "
        "tensor (%s) needs %" G_GSIZE_FORMAT, self->map.size,
        gst_cuda_cache_tensor_layout_to_string (info->layout), info->size);
    gst_buffer_unmap (self->buffer, &self->map);
    return FALSE;
  }

  switch (info->dtype) {
    case GST_CUDA_CACHE_TENSOR_DTYPE_U8:
      t->dtype.code = kDLUInt;
      break;
    case GST_CUDA_CACHE_TENSOR_DTYPE_F16:
    case GST_CUDA_CACHE_TENSOR_DTYPE_F32:
      t->dtype.code = kDLFloat;
      break;
  }
  t->dtype.bits = elem * 8;
  t->dtype.lanes = 1;

  for (i = 0; i < MAX_DIMS; i++) {
    self->shape[i] = info->dims[i];
    self->strides[i] = info->strides[i] / elem;
  }
  t->ndim = MAX_DIMS;
  t->data = self->map.data;

  return TRUE;
}

/* The components of @plane as one height x width x channels block: they
 * must share subsampling, pixel stride and shift, and be whole bytes or
 * 16-bit words in host order; 10 and 12-bit samples in 16-bit words
 * (P010_10LE, I420_10LE, ...) are the words as stored. That leaves out
 * v210, RGB16, 10-bit samples packed three to 32 bits, ... */
static gboolean
plane_layout (const GstVideoInfo * info, guint plane, guint * bytes,
    guint * comp)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  guint c, depth = 0, shift = 0, found = 0, w_sub = 0, h_sub = 0;
  gint pstride = 0;

  if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo) ||
      GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo))
    return FALSE;

  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) != plane)
      continue;
    if (found == 0) {
      depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);
      shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c);
      pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
      w_sub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
      h_sub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
      *comp = c;
    }
    if (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) != depth ||
        GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c) != pstride ||
        GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c) != w_sub ||
        GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c) != h_sub ||
        GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c) != shift)
      return FALSE;
    found++;
  }

  if (found == 0 || pstride <= 0)
    return FALSE;
  if (depth == 8 && shift == 0)
    *bytes = 1;
  else if (depth > 8 && depth + shift <= 16)
    *bytes = 2;
  else
    return FALSE;
  if (pstride % *bytes != 0)
    return FALSE;
  if (*bytes == 2 && (GST_VIDEO_FORMAT_INFO_IS_LE (finfo) ?
          G_BYTE_ORDER != G_LITTLE_ENDIAN : G_BYTE_ORDER != G_BIG_ENDIAN))
    return FALSE;

  return TRUE;
}

/* A video meta says where a plane is, not that the buffer holds it: the
 * @extent bytes exported from plane @p must lie inside what @frame mapped
 * for it (the memory holding the plane with a meta, the whole buffer
 * without one). */
static gboolean
frame_plane_fits (const GstVideoFrame * frame, guint p, gsize extent,
    GError ** error)
{
  const GstMapInfo *map = &frame->map[frame->meta ? p : 0];
  const guint8 *data = frame->data[p];

  if (data >= map->data && data <= map->data + map->size &&
      extent <= map->size - (gsize) (data - map->data))
    return TRUE;

  dlpack_fail (error, "plane %u needs %" G_GSIZE_FORMAT " bytes from offset %"
      G_GSIZE_FORMAT "; its memory holds %" G_GSIZE_FORMAT " (a buffer "
      "shorter than its caps, or a video meta that does not fit it)", p,
      extent, (gsize) (data - map->data), map->size);
  return FALSE;
}

/* gst_video_frame_map () takes a video meta that disagrees with the caps
 * for a programming error (a critical); here it is the buffer's fault */
static gboolean
video_meta_fits (GstBuffer * buffer, const GstVideoInfo * info, GError ** error)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);

  if (!meta || (meta->format == GST_VIDEO_INFO_FORMAT (info) &&
          meta->width >= (guint) GST_VIDEO_INFO_WIDTH (info) &&
          meta->height >= (guint) GST_VIDEO_INFO_HEIGHT (info) &&
          meta->n_planes == GST_VIDEO_INFO_N_PLANES (info)))
    return TRUE;

  dlpack_fail (error, "the buffer's video meta (%ux%u %s, %u planes) does "
      "not hold the %dx%d %s frame of its caps (%u planes): a video meta "
      "must be of the caps' format and at least their size", meta->width,
      meta->height, gst_video_format_to_string (meta->format),
      meta->n_planes, GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info),
      GST_VIDEO_INFO_N_PLANES (info));
  return FALSE;
}

static gboolean
export_frame (GstCudaCacheDLPack * self, const GstVideoInfo * info,
    gint plane, GstMapFlags flags, GError ** error)
{
  DLTensor *t = &self->managed.dl_tensor;
  guint bytes = 1, comp = 0, p = plane < 0 ? 0 : plane;
  gint stride;
  GstVideoInfo pitched;

  if (plane < 0 && GST_VIDEO_INFO_N_PLANES (info) != 1) {
    dlpack_fail (error, "%s has %u planes: export them one at a time (plane "
        "0 to %u)", GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_N_PLANES (info),
        GST_VIDEO_INFO_N_PLANES (info) - 1);
    return FALSE;
  }
  if (p >= GST_VIDEO_INFO_N_PLANES (info)) {
    dlpack_fail (error, "%s has no plane %d (it has %u)",
        GST_VIDEO_INFO_NAME (info), plane, GST_VIDEO_INFO_N_PLANES (info));
    return FALSE;
  }
  if (!plane_layout (info, p, &bytes, &comp)) {
    dlpack_fail (error, "plane %u of %s is no height x width x channels "
        "block of bytes or 16-bit words (its components differ in "
        "subsampling, stride, depth or shift, or are packed below a byte "
        "or across words)", p, GST_VIDEO_INFO_NAME (info));
    return FALSE;
  }
  /* CUDA memory is pitched: without a video meta, the memory's own info
   * has the layout the caps cannot tell */
  if ((flags & GST_MAP_CUDA) && !gst_buffer_get_video_meta (self->buffer) &&
      gst_buffer_n_memory (self->buffer) == 1) {
    GstCudaMemory *mem =
        GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (self->buffer, 0));

    if (GST_VIDEO_INFO_FORMAT (&mem->info) == GST_VIDEO_INFO_FORMAT (info) &&
        GST_VIDEO_INFO_WIDTH (&mem->info) == GST_VIDEO_INFO_WIDTH (info) &&
        GST_VIDEO_INFO_HEIGHT (&mem->info) == GST_VIDEO_INFO_HEIGHT (info)) {
      guint i;

      pitched = *info;
      for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
        pitched.offset[i] = mem->info.offset[i];
        pitched.stride[i] = mem->info.stride[i];
      }
      pitched.size = mem->info.size;
      info = &pitched;
    }
  }

  if (!video_meta_fits (self->buffer, info, error))
    return FALSE;
  /* the tensor's own reference is the frame's */
  if (!gst_video_frame_map (&self->frame, info, self->buffer,
          flags | GST_VIDEO_FRAME_MAP_FLAG_NO_REF)) {
    dlpack_fail (error, "the buffer could not be mapped as a %dx%d %s frame "
        "(shorter than its caps, or a video meta that does not fit it)",
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_NAME (info));
    return FALSE;
  }
  self->is_frame = TRUE;

  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&self->frame, p);
  if (stride <= 0 || stride % bytes != 0) {
    dlpack_fail (error, "plane %u's stride of %d bytes is no whole number "
        "of elements", p, stride);
    gst_video_frame_unmap (&self->frame);
    self->is_frame = FALSE;
    return FALSE;
  }

  self->shape[0] = GST_VIDEO_FRAME_COMP_HEIGHT (&self->frame, comp);
  self->shape[1] = GST_VIDEO_FRAME_COMP_WIDTH (&self->frame, comp);
  self->shape[2] = GST_VIDEO_FRAME_COMP_PSTRIDE (&self->frame, comp) / bytes;
  if (!frame_plane_fits (&self->frame, p, (self->shape[0] - 1) * stride +
          self->shape[1] * self->shape[2] * bytes, error)) {
    gst_video_frame_unmap (&self->frame);
    self->is_frame = FALSE;
    return FALSE;
  }
  self->strides[0] = stride / bytes;
  self->strides[1] = self->shape[2];
  self->strides[2] = 1;

  t->ndim = 3;
  t->dtype.code = kDLUInt;
  t->dtype.bits = bytes * 8;
  t->dtype.lanes = 1;
  t->data = GST_VIDEO_FRAME_PLANE_DATA (&self->frame, p);

  return TRUE;
}

/* Caps are authoritative: a #GstCudaCacheTensorMeta that is not the
 * tensor @caps describe was left by an element that changed the buffer
 * without knowing the meta, and is refused rather than exported. */
static gboolean
meta_agrees_with_caps (const GstCudaCacheTensorMeta * meta,
    const GstCaps * caps, GError ** error)
{
  GstCudaCacheTensorInfo from_caps;
  gboolean described;
  gchar *meta_str, *caps_str;

  described = gst_caps_is_fixed (caps) &&
      gst_cuda_cache_tensor_info_from_caps (&from_caps, caps);
  if (described && gst_cuda_cache_tensor_info_is_equal (&from_caps,
          &meta->info))
    return TRUE;

  meta_str = gst_cuda_cache_tensor_info_to_string (&meta->info);
  caps_str = described ? gst_cuda_cache_tensor_info_to_string (&from_caps) :
      g_strdup ("no tensor the library describes");
  dlpack_fail (error, "the buffer's tensor meta (%s) is not what its caps "
      "describe (%s: %" GST_PTR_FORMAT "): an element changed the buffer "
      "and kept a stale meta; the caps are authoritative", meta_str,
      caps_str, caps);
  g_free (caps_str);
  g_free (meta_str);

  return FALSE;
}

static gpointer
dlpack_export (GstBuffer * buffer, const GstCaps * caps, gint plane,
    gboolean wait, GError ** error)
{
  GstCudaCacheDLPack *self;
  GstCudaCacheTensorMeta *meta;
  GstCudaCacheTensorInfo tensor;
  GstBuffer *data = NULL;
  GstVideoInfo vinfo;
  GstMapFlags flags = GST_MAP_READ;
  DLDevice device;
  gboolean is_tensor = FALSE, is_video = FALSE, tensor_caps;
  gboolean ok;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (caps == NULL || GST_IS_CAPS (caps), NULL);
  g_return_val_if_fail (plane >= GST_CUDA_CACHE_DLPACK_WHOLE, NULL);

  tensor_caps = caps && gst_caps_is_fixed (caps) &&
      gst_structure_has_name (gst_caps_get_structure (caps, 0),
      GST_CUDA_CACHE_TENSOR_CAPS_NAME);
  meta = gst_buffer_get_cuda_cache_tensor_meta (buffer);
  if (meta && !gst_cuda_cache_tensor_info_is_packed (&meta->info)) {
    dlpack_fail (error, "the buffer's tensor meta describes no packed "
        "tensor (type %u, layout %u, dimensions %" G_GSIZE_FORMAT "x%"
        G_GSIZE_FORMAT "x%" G_GSIZE_FORMAT "x%" G_GSIZE_FORMAT ", %"
        G_GSIZE_FORMAT " bytes): its fields were written by hand, not by "
        "gst_cuda_cache_tensor_info_init ()", (guint) meta->info.dtype,
        (guint) meta->info.layout, meta->info.dims[0], meta->info.dims[1],
        meta->info.dims[2], meta->info.dims[3], meta->info.size);
    return NULL;
  }
  if (meta && caps && !meta_agrees_with_caps (meta, caps, error))
    return NULL;
  if (meta) {
    tensor = meta->info;
    is_tensor = TRUE;
  } else if (tensor_caps) {
    is_tensor = gst_cuda_cache_tensor_info_from_caps (&tensor, caps);
  } else if (caps && gst_caps_is_fixed (caps)) {
    is_video = gst_video_info_from_caps (&vinfo, caps);
  }
  /* a tensor of another element, described by GStreamer's GstTensorMeta
   * alone: its data is exported, which may be another buffer than @buffer */
  if (!is_tensor && !is_video) {
    GError *meta_error = NULL;

    data = gst_cuda_cache_analytics_tensor (buffer, &tensor, &meta_error);
    if (meta_error) {
      dlpack_fail (error, "%s", meta_error->message);
      g_error_free (meta_error);
      return NULL;
    }
    if (data) {
      buffer = data;
      is_tensor = TRUE;
    }
  }
  if (!is_tensor && tensor_caps) {
    dlpack_fail (error, "the buffer has no tensor meta, and its caps are "
        "no tensor the library describes (format static, num_tensors 1, "
        "types uint8, float16 or float32, 1 to 4 dimensions): %"
        GST_PTR_FORMAT, caps);
    return NULL;
  }
  if (!is_tensor && !is_video) {
    if (caps)
      dlpack_fail (error, "the buffer has no tensor meta (the library's or "
          "GStreamer's), and its caps describe no tensor or video frame: %"
          GST_PTR_FORMAT, caps);
    else
      dlpack_fail (error, "the buffer has no tensor meta (the library's or "
          "GStreamer's), and no caps were given: a video frame is exported "
          "with its caps");
    return NULL;
  }
  if (gst_buffer_n_memory (buffer) == 0) {
    dlpack_fail (error, "the buffer has no memory");
    gst_clear_buffer (&data);
    return NULL;
  }
  if (is_tensor && plane > 0) {
    dlpack_fail (error, "a tensor has no plane %d: export it whole", plane);
    gst_clear_buffer (&data);
    return NULL;
  }

  if (!buffer_device (buffer, &device, error)) {
    gst_clear_buffer (&data);
    return NULL;
  }
  if (device.device_type == kDLCUDA) {
    guint i;

    flags |= GST_MAP_CUDA;
    /* a consumer's stream knows nothing of the writer's: waited for here,
     * or by the consumer's stream (gst_cuda_cache_dlpack_stream_wait ()) */
    for (i = 0; wait && i < gst_buffer_n_memory (buffer); i++)
      gst_cuda_cache_compat_memory_sync (gst_buffer_peek_memory (buffer, i));
  }

  self = g_new0 (GstCudaCacheDLPack, 1);
  self->buffer = data ? data : gst_buffer_ref (buffer);

  if (is_tensor)
    ok = export_tensor (self, &tensor, flags, error);
  else
    ok = export_frame (self, &vinfo, plane, flags, error);

  if (!ok) {
    gst_buffer_unref (self->buffer);
    g_free (self);
    return NULL;
  }

  self->managed.dl_tensor.device = device;
  self->managed.dl_tensor.shape = self->shape;
  self->managed.dl_tensor.strides = self->strides;
  self->managed.dl_tensor.byte_offset = 0;
  self->managed.manager_ctx = self;
  self->managed.deleter = dlpack_deleter;

  GST_LOG ("exported buffer %p: %d dimensions, %u-bit elements, device %d:%d",
      buffer, self->managed.dl_tensor.ndim, self->managed.dl_tensor.dtype.bits,
      device.device_type, device.device_id);

  return &self->managed;
}

/**
 * gst_cuda_cache_dlpack_export:
 * @buffer: a tensor or video buffer, in CUDA or system memory
 * @caps: (nullable): @buffer's caps: `video/x-raw` for a frame, or
 *     `other/tensors` for a tensor buffer without a #GstCudaCacheTensorMeta
 * @plane: #GST_CUDA_CACHE_DLPACK_WHOLE for a whole tensor or single-plane
 *     frame (RGBA, RGB, GRAY8, ...), or the index of one plane of a frame
 *     (0 for NV12's luma, 1 for its interleaved chroma)
 * @flags: whether the host waits for work still queued on the memory's
 *     stream (#GstCudaCacheDLPackFlags)
 * @error: (nullable): where to say why @buffer cannot be exported
 *
 * Describes @buffer's memory as a DLPack tensor without copying it. A
 * buffer with a #GstCudaCacheTensorMeta is exported as its four-dimensional
 * tensor (in its layout's order, e.g. NCHW); given @caps, the meta must be
 * the tensor they describe: caps are authoritative, and a meta they
 * contradict (a stale one, left by an element that retyped or reshaped the
 * buffer without knowing it) is refused with @error set. A buffer with neither that
 * meta nor caps describing it, but with a `GstTensorMeta` of one tensor
 * (GStreamer 1.26's analytics library, where the library was built with
 * it), is exported as that tensor, its data being the tensor's own buffer:
 * uint8, float16 or float32, contiguous, 1 to 4 dimensions (fewer given
 * leading 1s), row or column major (column major's dimensions reversed).
 * A video frame is exported as a
 * three-dimensional height x width x channels tensor of its plane, where
 * channels are the bytes (or 16-bit words) of one pixel: 4 for RGBA and
 * RGBx, 3 for RGB, 1 for GRAY8 and I420's planes, 2 for NV12's chroma;
 * 10 and 12-bit samples in 16-bit words (P010_10LE) are the uint16 words
 * as stored. Formats whose components are packed below a byte, tiled or of
 * different pixel strides in one plane (YUY2, v210, ...), and frames whose
 * #GstVideoMeta is of another format or smaller than @caps, are refused,
 * saying why in
 * @error (which plane, which caps, how many bytes the buffer holds and its
 * tensor needs), or on the cudacachedlpack debug category without @error.
 *
 * The tensor holds a reference on @buffer and keeps it mapped until its
 * `deleter` runs; release one that was never handed to a consumer with
 * gst_cuda_cache_dlpack_release().
 *
 * Returns: (transfer full) (nullable): a `DLManagedTensor *` (declared in
 *     `<dlpack/dlpack.h>`), or %NULL if @buffer's layout cannot be
 *     described or it cannot be mapped
 *
 * Since: 0.1
 */
gpointer
gst_cuda_cache_dlpack_export (GstBuffer * buffer, const GstCaps * caps,
    gint plane, GstCudaCacheDLPackFlags flags, GError ** error)
{
  GError *local = NULL;
  gpointer managed = dlpack_export (buffer, caps, plane,
      !(flags & GST_CUDA_CACHE_DLPACK_FLAG_NO_WAIT), &local);

  if (!managed && local) {
    /* without @error, the log is the caller's only channel */
    if (error)
      GST_DEBUG ("cannot export buffer %p: %s", buffer, local->message);
    else
      GST_WARNING ("cannot export buffer %p: %s", buffer, local->message);
    g_propagate_error (error, local);
  }

  return managed;
}

/**
 * gst_cuda_cache_dlpack_get_stream:
 * @buffer: a buffer
 *
 * The stream of @buffer's CUDA memory on which work writing it is still
 * queued: what `__cuda_array_interface__`'s `stream` names, on which a
 * consumer synchronises before it reads.
 *
 * Returns: the `CUstream`, as an integer, or 0 where nothing is queued
 *     (system memory, and every memory before GStreamer 1.24)
 *
 * Since: 0.1
 */
guint64
gst_cuda_cache_dlpack_get_stream (GstBuffer * buffer)
{
  guint i;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), 0);

  for (i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    CUstream stream;

    if (gst_is_cuda_memory (mem) &&
        gst_cuda_cache_compat_memory_pending (mem, &stream) && stream)
      return (guint64) (guintptr) stream;
  }
  return 0;
}

/**
 * gst_cuda_cache_dlpack_stream_wait:
 * @buffer: a buffer, exported with %GST_CUDA_CACHE_DLPACK_FLAG_NO_WAIT
 * @stream: the consumer's `CUstream`, as an integer: DLPack's values, 1
 *     (or 0) the legacy default stream, 2 the per-thread default stream, or
 *     a stream of the consumer's own
 * @error: (nullable): where to say why the wait could not be queued
 *
 * Makes @stream wait, on the GPU, for the work still queued on the stream
 * of @buffer's CUDA memory: an event recorded on that stream, which
 * @stream waits for; the host does not wait. Memory with nothing queued
 * (system memory, and every memory before GStreamer 1.24) needs nothing;
 * memory whose queued work is on no stream of its own is waited for on the
 * host.
 *
 * Returns: %TRUE, or %FALSE with @error set where the driver refused
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_dlpack_stream_wait (GstBuffer * buffer, guint64 stream,
    GError ** error)
{
  guint i;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);

  for (i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);
    CUstream producer;

    if (!gst_is_cuda_memory (mem) ||
        !gst_cuda_cache_compat_memory_pending (mem, &producer))
      continue;
    if (!producer) {
      gst_cuda_cache_compat_memory_sync (mem);
      continue;
    }
    if (!gst_cuda_cache_device_stream_wait (GST_CUDA_MEMORY_CAST
            (mem)->context, (CUstream) (guintptr) stream, producer)) {
      dlpack_fail (error, "the CUDA driver refused to make stream %#"
          G_GINT64_MODIFIER "x wait for the buffer's stream %p (see the "
          "cudacache debug category)", stream, producer);
      return FALSE;
    }
  }
  return TRUE;
}

/**
 * gst_cuda_cache_dlpack_release:
 * @managed_tensor: (nullable): a `DLManagedTensor *` from
 *     gst_cuda_cache_dlpack_export() that no consumer took
 *
 * Runs @managed_tensor's deleter: its buffer is unmapped and unreferenced.
 * A consumer that took the tensor calls the deleter itself; do not call this
 * then.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_dlpack_release (gpointer managed_tensor)
{
  DLManagedTensor *managed = managed_tensor;

  if (managed && managed->deleter)
    managed->deleter (managed);
}
