/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:gstcudacachedlpackimport
 * @title: DLPack import
 * @short_description: tensors from PyTorch, CuPy and NumPy into pipelines
 *
 * gst_cuda_cache_dlpack_import() makes a #GstBuffer and its caps of a
 * DLPack `DLManagedTensor`, for appsrc:
 *
 * - a `uint8` tensor of shape (height, width, channels), channels 1, 3 or
 *   4, rows at any stride, becomes a `video/x-raw` frame: GRAY8, RGB or
 *   RGBA (its #GstVideoMeta gives the rows' stride);
 * - a tensor of 4 dimensions, `uint8`, `float16` or `float32`, packed,
 *   becomes an `other/tensors` buffer: NCHW where its second dimension is 1
 *   or 3, else NHWC where its last one is;
 * - anything else is refused with an error that says why (the data type,
 *   the shape, strides that skip elements, the device).
 *
 * System memory (`kDLCPU`, `kDLCUDAHost`) is wrapped without a copy: the
 * buffer's memory calls the tensor's `deleter` when it is freed, so the
 * producer's array stays alive as long as the buffer.
 *
 * CUDA memory (`kDLCUDA`) is wrapped without a copy, as a #GstCudaMemory
 * that nvcodec's elements take, where three things hold: GStreamer is
 * 1.24 or later (1.22's #GstCudaMemory cannot wrap memory allocated
 * elsewhere), the memory belongs to the import's context (the driver is
 * asked which context its allocation belongs to: memory of PyTorch, CuPy
 * and Numba belongs to the device's primary context,
 * gst_cuda_cache_device_get_primary_context ()), and the allocation holds
 * every row at the tensor's stride. Wrapped memory is not the cache's and
 * is not counted in it; the `deleter` runs at the memory's last unref.
 * Elsewhere the tensor is copied once, on the device, into a buffer of a
 * #GstCudaCachePool (a block of the device's #GstCudaCache, counted
 * there); the copy is finished, and the `deleter` called, before the call
 * returns. Either way the producer's work queued on the legacy default
 * stream is finished first: the buffer carries no stream.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlpack/dlpack.h>
#include <gst/video/video.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachedlpack.h"
#include "gstcudacachedevice.h"
#include "gstcudacachepool.h"
#include "gstcudacachetensor.h"
#include "gstcudacache-private.h"
#include "gstcudacache-compat-private.h"
#include "gstcudacacheconverter-private.h"

GST_CUDA_CACHE_DEBUG_CATEGORY ("cudacachedlpack",
    "CUDA cache: DLPack export and import");
#define GST_CAT_DEFAULT ensure_debug_category ()

#define import_fail(error, ...) gst_cuda_cache_converter_set_error (error, \
    GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, __VA_ARGS__)

static void
call_deleter (gpointer data)
{
  DLManagedTensor *managed = data;

  if (managed->deleter)
    managed->deleter (managed);
}

/* What the tensor describes: a frame (@vinfo, its rows @row_stride bytes
 * apart) or a tensor (@tinfo), and its bytes from the first element. */
typedef struct
{
  gboolean is_frame;
  GstVideoInfo vinfo;
  gsize row_stride;
  GstCudaCacheTensorInfo tinfo;
  gsize extent;
} ImportLayout;

static const gchar *
dtype_name (DLDataType t, gchar * buf, gsize len)
{
  static const gchar *codes[] = { "int", "uint", "float", "opaque",
    "bfloat", "complex", "bool"
  };

  g_snprintf (buf, len, "%s%u%s", t.code < G_N_ELEMENTS (codes) ?
      codes[t.code] : "code?", t.bits, t.lanes != 1 ? "x lanes" : "");
  return buf;
}

/* The element's stride of dimension @i: the tensor's, or a packed one's */
static int64_t
stride_of (const DLTensor * t, gint i)
{
  int64_t s = 1;
  gint k;

  if (t->strides)
    return t->strides[i];
  for (k = t->ndim - 1; k > i; k--)
    s *= t->shape[k];
  return s;
}

static gboolean
import_layout (const DLTensor * t, ImportLayout * l, GError ** error)
{
  gchar name[32];
  gint i;

  for (i = 0; i < t->ndim; i++) {
    if (t->shape[i] <= 0 || t->shape[i] > G_MAXINT) {
      import_fail (error, "dimension %d of the tensor is %" G_GINT64_FORMAT
          ": every dimension must be 1 to %d", i, t->shape[i], G_MAXINT);
      return FALSE;
    }
  }

  if (t->ndim == 3 && t->dtype.code == kDLUInt && t->dtype.bits == 8 &&
      t->dtype.lanes == 1) {
    gint64 h = t->shape[0], w = t->shape[1], c = t->shape[2];
    GstVideoFormat format = c == 1 ? GST_VIDEO_FORMAT_GRAY8 : c == 3 ?
        GST_VIDEO_FORMAT_RGB : c == 4 ? GST_VIDEO_FORMAT_RGBA :
        GST_VIDEO_FORMAT_UNKNOWN;

    if (format == GST_VIDEO_FORMAT_UNKNOWN) {
      import_fail (error, "a uint8 (height, width, channels) tensor is a "
          "frame of 1, 3 or 4 channels (GRAY8, RGB, RGBA), not %"
          G_GINT64_FORMAT, c);
      return FALSE;
    }
    if ((c > 1 && stride_of (t, 2) != 1) || (w > 1 && stride_of (t, 1) != c)
        || stride_of (t, 0) < w * c) {
      import_fail (error, "the frame's pixels are not packed in its rows "
          "(strides %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
          G_GINT64_FORMAT " elements): video/x-raw rows hold their pixels "
          "side by side; pass a contiguous copy", stride_of (t, 0),
          stride_of (t, 1), stride_of (t, 2));
      return FALSE;
    }
    /* a GstVideoMeta's stride is a gint */
    if (stride_of (t, 0) > G_MAXINT) {
      import_fail (error, "the frame's rows are %" G_GINT64_FORMAT " bytes "
          "apart: a GstVideoMeta describes rows at most %d bytes apart",
          stride_of (t, 0), G_MAXINT);
      return FALSE;
    }
    /* 1.22 lays out rows of 2 GiB or more with a negative stride and
     * says nothing */
    if (!gst_video_info_set_format (&l->vinfo, format, (guint) w, (guint) h)
        || GST_VIDEO_INFO_PLANE_STRIDE (&l->vinfo, 0) <= 0) {
      import_fail (error, "GStreamer cannot lay out a %" G_GINT64_FORMAT "x%"
          G_GINT64_FORMAT " %s frame (4 GiB or more)", w, h,
          gst_video_format_to_string (format));
      return FALSE;
    }
    l->is_frame = TRUE;
    l->row_stride = (gsize) stride_of (t, 0);
    l->extent = l->row_stride * (gsize) (h - 1) + (gsize) (w * c);
    return TRUE;
  }

  if (t->ndim == 4) {
    GstCudaCacheTensorDType dtype;
    GstCudaCacheTensorLayout layout;
    const int64_t *s = t->shape;

    if (t->dtype.lanes == 1 && t->dtype.code == kDLUInt && t->dtype.bits == 8)
      dtype = GST_CUDA_CACHE_TENSOR_DTYPE_U8;
    else if (t->dtype.lanes == 1 && t->dtype.code == kDLFloat &&
        t->dtype.bits == 16)
      dtype = GST_CUDA_CACHE_TENSOR_DTYPE_F16;
    else if (t->dtype.lanes == 1 && t->dtype.code == kDLFloat &&
        t->dtype.bits == 32)
      dtype = GST_CUDA_CACHE_TENSOR_DTYPE_F32;
    else {
      import_fail (error, "other/tensors holds uint8, float16 or float32 "
          "elements, not %s", dtype_name (t->dtype, name, sizeof (name)));
      return FALSE;
    }
    if (s[1] == 1 || s[1] == 3)
      layout = GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW;
    else if (s[3] == 1 || s[3] == 3)
      layout = GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC;
    else {
      import_fail (error, "a tensor of shape (%" G_GINT64_FORMAT ", %"
          G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
          ") has 1 or 3 channels in neither its second (NCHW) nor its last "
          "(NHWC) dimension", s[0], s[1], s[2], s[3]);
      return FALSE;
    }
    for (i = 0; i < 4; i++) {
      int64_t packed = 1;
      gint k;

      for (k = 3; k > i; k--) {
        /* dimensions up to G_MAXINT each: three can overflow 64 bits */
        if (packed > G_MAXINT64 / s[k]) {
          import_fail (error, "the tensor is too large for other/tensors");
          return FALSE;
        }
        packed *= s[k];
      }
      if (s[i] > 1 && stride_of (t, i) != packed) {
        import_fail (error, "the tensor is not packed (dimension %d's "
            "stride is %" G_GINT64_FORMAT " elements, not %" G_GINT64_FORMAT
            "): other/tensors describes packed tensors; pass a contiguous "
            "copy", i, stride_of (t, i), packed);
        return FALSE;
      }
    }
    l->is_frame = FALSE;
    if (layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW ?
        !gst_cuda_cache_tensor_info_init (&l->tinfo, dtype, layout,
            (guint) s[0], (guint) s[1], (guint) s[2], (guint) s[3]) :
        !gst_cuda_cache_tensor_info_init (&l->tinfo, dtype, layout,
            (guint) s[0], (guint) s[3], (guint) s[1], (guint) s[2])) {
      import_fail (error, "the tensor is too large for other/tensors");
      return FALSE;
    }
    l->extent = l->tinfo.size;
    return TRUE;
  }

  import_fail (error, "a tensor of %d dimensions (%s) is neither a frame "
      "(uint8, height x width x channels) nor an other/tensors tensor (4 "
      "dimensions)", t->ndim, dtype_name (t->dtype, name, sizeof (name)));
  return FALSE;
}

static GstCaps *
layout_caps (const ImportLayout * l)
{
  if (l->is_frame) {
    GstCaps *caps = gst_video_info_to_caps (&l->vinfo);

    gst_caps_set_simple (caps, "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
    return caps;
  }
  return gst_cuda_cache_tensor_info_to_caps (&l->tinfo);
}

/* The meta that gives @buf's layout: a frame's rows at the tensor's
 * stride, or the tensor's info */
static void
add_layout_meta (GstBuffer * buf, const ImportLayout * l)
{
  if (l->is_frame) {
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
    gint stride[GST_VIDEO_MAX_PLANES] = { (gint) l->row_stride, };

    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&l->vinfo), GST_VIDEO_INFO_WIDTH (&l->vinfo),
        GST_VIDEO_INFO_HEIGHT (&l->vinfo), 1, offset, stride);
  } else {
    gst_buffer_add_cuda_cache_tensor_meta (buf, &l->tinfo);
  }
}

/* System memory, wrapped: the memory's last unref calls the deleter */
static GstBuffer *
import_system (DLManagedTensor * managed, const ImportLayout * l)
{
  DLTensor *t = &managed->dl_tensor;
  guint8 *data = (guint8 *) t->data + t->byte_offset;
  GstBuffer *buf = gst_buffer_new ();

  gst_buffer_append_memory (buf,
      gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY, data, l->extent, 0,
          l->extent, managed, call_deleter));
  add_layout_meta (buf, l);

  return buf;
}

#if GST_CUDA_CACHE_HAVE_STREAM
/* CUDA memory of @context's, wrapped as a #GstCudaMemory: the memory's
 * last unref calls the deleter. NULL where GstCudaMemory cannot describe
 * it: the caller copies instead. */
static GstBuffer *
import_cuda_wrapped (DLManagedTensor * managed, const ImportLayout * l,
    GstCudaContext * context)
{
  DLTensor *t = &managed->dl_tensor;
  CUdeviceptr ptr = (CUdeviceptr) ((guint8 *) t->data + t->byte_offset);
  GstVideoInfo info;
  GstBuffer *buf;
  gboolean ready = FALSE;

  if (l->is_frame) {
    /* GstCudaMemory's rows all span the stride, the last one too */
    info = l->vinfo;
    info.stride[0] = l->row_stride;
    info.size = l->row_stride * GST_VIDEO_INFO_HEIGHT (&info);
  } else {
    /* one row of bytes, exactly the tensor's */
    if (l->tinfo.size > G_MAXINT || !gst_video_info_set_format (&info,
            GST_VIDEO_FORMAT_GRAY8, (guint) l->tinfo.size, 1))
      return NULL;
    info.stride[0] = l->tinfo.size;
    info.size = l->tinfo.size;
  }
  if (info.size == 0 || !gst_cuda_cache_device_owns_range (context, ptr,
          info.size))
    return NULL;

  /* what the producer queued on the legacy stream (Python hands it there:
   * __dlpack__ (stream=1)) is done before the memory carries no stream */
  if (gst_cuda_context_push (context)) {
    ready = gst_cuda_result (CuStreamSynchronize (NULL));
    gst_cuda_context_pop (NULL);
  }
  if (!ready)
    return NULL;

  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, gst_cuda_allocator_alloc_wrapped (NULL,
          context, NULL, &info, ptr, managed, call_deleter));
  add_layout_meta (buf, l);
  GST_DEBUG ("wrapped %p of %" GST_PTR_FORMAT " without a copy",
      (gpointer) ptr, context);

  return buf;
}
#endif

/* CUDA memory, copied on the device into a buffer of a pool over the
 * device's cache; the deleter is the caller's to call */
static GstBuffer *
import_cuda (DLManagedTensor * managed, const ImportLayout * l,
    GstCudaContext * context, GstCaps * caps, GError ** error)
{
  DLTensor *t = &managed->dl_tensor;
  CUdeviceptr src = (CUdeviceptr) ((guint8 *) t->data + t->byte_offset);
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstBuffer *buf = NULL;
  CUDA_MEMCPY2D copy = { 0, };
  GstVideoFrame frame;
  GstMapInfo map;
  gboolean ok;

  gst_buffer_pool_config_set_params (config, caps, l->is_frame ?
      GST_VIDEO_INFO_SIZE (&l->vinfo) : l->tinfo.size, 1, 0);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE) ||
      gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK) {
    gst_cuda_cache_converter_set_error (error, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_NO_SPACE_LEFT, "no CUDA memory of the device's "
        "cache for the %" GST_PTR_FORMAT " the tensor is copied into", caps);
    goto done;
  }

  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = src;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  if (l->is_frame) {
    if (!gst_video_frame_map (&frame, &l->vinfo, buf,
            GST_MAP_WRITE | GST_MAP_CUDA)) {
      gst_clear_buffer (&buf);
      goto map_failed;
    }
    copy.srcPitch = l->row_stride;
    copy.dstDevice = (CUdeviceptr) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
    copy.dstPitch = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    copy.WidthInBytes = GST_VIDEO_FRAME_COMP_WIDTH (&frame, 0) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0);
    copy.Height = GST_VIDEO_FRAME_HEIGHT (&frame);
  } else {
    if (!gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_CUDA)) {
      gst_clear_buffer (&buf);
      goto map_failed;
    }
    copy.srcPitch = copy.dstPitch = copy.WidthInBytes = l->tinfo.size;
    copy.dstDevice = (CUdeviceptr) map.data;
    copy.Height = 1;
  }

  /* on the legacy stream, which the producer's stream was handed to
   * (Python: __dlpack__ (stream=1)), then waited for: the deleter may
   * free the source once this returns */
  ok = gst_cuda_context_push (context);
  if (ok) {
    ok = gst_cuda_result (CuMemcpy2D (&copy)) &&
        gst_cuda_result (CuStreamSynchronize (NULL));
    gst_cuda_context_pop (NULL);
  }
  if (l->is_frame)
    gst_video_frame_unmap (&frame);
  else
    gst_buffer_unmap (buf, &map);
  if (!ok) {
    gst_clear_buffer (&buf);
    gst_cuda_cache_converter_set_error (error, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_FAILED, "the copy of the CUDA tensor at %p into "
        "the device's cache failed (is it memory of context %"
        GST_PTR_FORMAT "'s device?)", t->data, context);
    goto done;
  }
  if (!l->is_frame)
    gst_buffer_add_cuda_cache_tensor_meta (buf, &l->tinfo);

done:
  /* the buffer holds the pool until it returns, then the pool's blocks go
   * back to the cache */
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  return buf;

map_failed:
  gst_cuda_cache_converter_set_error (error, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_FAILED, "could not map the CUDA buffer the tensor "
      "is copied into");
  goto done;
}

/**
 * gst_cuda_cache_dlpack_import:
 * @managed_tensor: a `DLManagedTensor *` (DLPack 0.x's
 *     struct, as `__dlpack__ ()` without max_version gives it), whose
 *     `deleter` this call takes charge of, success or not
 * @context: (nullable): the #GstCudaContext of CUDA tensors (%NULL: the
 *     default context of the tensor's device, which the project's
 *     elements share, gst_cuda_cache_device_get_default_context()). Give
 *     gst_cuda_cache_device_get_primary_context () for PyTorch's and
 *     CuPy's memory to be wrapped, and the pipeline the same context.
 * @caps: (out) (transfer full) (optional): where to put the buffer's caps
 * @error: (nullable): where to put why the tensor was refused
 *
 * Makes a buffer of a DLPack tensor (see the section's description): a
 * frame or an `other/tensors` tensor, system memory wrapped without a
 * copy, CUDA memory wrapped where it belongs to @context (GStreamer 1.24
 * and later), else copied once into the device's cache.
 *
 * Returns: (transfer full) (nullable): the buffer, or %NULL with @error set
 *
 * Since: 0.1
 */
GstBuffer *
gst_cuda_cache_dlpack_import (gpointer managed_tensor,
    GstCudaContext * context, GstCaps ** caps, GError ** error)
{
  DLManagedTensor *managed = managed_tensor;
  GstCudaContext *own = NULL;
  ImportLayout l = { 0, };
  GstBuffer *buf = NULL;
  GstCaps *out_caps = NULL;
  DLTensor *t;

  g_return_val_if_fail (managed_tensor != NULL, NULL);
  g_return_val_if_fail (context == NULL || GST_IS_CUDA_CONTEXT (context), NULL);

  t = &managed->dl_tensor;
  if (caps)
    *caps = NULL;
  if (!t->data && t->ndim > 0) {
    import_fail (error, "the tensor has no data");
    goto refused;
  }
  if (!import_layout (t, &l, error))
    goto refused;
  out_caps = layout_caps (&l);

  switch (t->device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
      buf = import_system (managed, &l);
      managed = NULL;           /* the buffer's memory calls the deleter */
      break;
    case kDLCUDA:{
      guint device_id = 0;

      if (!context)
        context = own =
            gst_cuda_cache_device_get_default_context (t->device.device_id);
      if (!context) {
        gst_cuda_cache_converter_set_error (error, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NOT_FOUND, "no CUDA context for device %d, "
            "whose memory the tensor is", t->device.device_id);
        goto refused;
      }
      g_object_get (context, "cuda-device-id", &device_id, NULL);
      if ((gint) device_id != t->device.device_id) {
        gst_cuda_cache_converter_set_error (error, GST_STREAM_ERROR,
            GST_STREAM_ERROR_WRONG_TYPE, "the tensor is memory of CUDA "
            "device %d, the context %" GST_PTR_FORMAT " is device %u's",
            t->device.device_id, context, device_id);
        goto refused;
      }
      gst_caps_set_features_simple (out_caps,
          gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
#if GST_CUDA_CACHE_HAVE_STREAM
      buf = import_cuda_wrapped (managed, &l, context);
      if (buf) {
        managed = NULL;         /* the memory calls the deleter */
        break;
      }
#endif
      buf = import_cuda (managed, &l, context, out_caps, error);
      if (!buf)
        goto refused;
      break;
    }
    default:
      import_fail (error, "the tensor lives on DLPack device type %d: "
          "system memory (kDLCPU, kDLCUDAHost) and CUDA memory (kDLCUDA) "
          "are imported", t->device.device_type);
      goto refused;
  }

  if (managed)
    call_deleter (managed);
  gst_clear_object (&own);
  if (caps)
    *caps = out_caps;
  else
    gst_caps_unref (out_caps);
  return buf;

refused:
  GST_DEBUG ("refused: %s", error && *error ? (*error)->message : "");
  call_deleter (managed);
  gst_clear_object (&own);
  gst_clear_caps (&out_caps);
  return NULL;
}
