/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * GStreamer's own description of tensors, GstTensorMeta (the analytics
 * library, GStreamer 1.26 and later), both ways: put on the tensors the
 * library describes, so that elements written against GStreamer's API
 * alone read them, and read from tensors other elements make, so that they
 * can be exported (gstcudacachedlpack.c). Where the library was built
 * without the analytics library, neither way exists.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudacachetensor.h"
#include "gstcudacache-private.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>

static const struct
{
  GstCudaCacheTensorDType ours;
  GstTensorDataType theirs;
} data_types[] = {
  {GST_CUDA_CACHE_TENSOR_DTYPE_U8, GST_TENSOR_DATA_TYPE_UINT8},
  {GST_CUDA_CACHE_TENSOR_DTYPE_F16, GST_TENSOR_DATA_TYPE_FLOAT16},
  {GST_CUDA_CACHE_TENSOR_DTYPE_F32, GST_TENSOR_DATA_TYPE_FLOAT32},
};

/* The id of a tensor of @layout, its quark made once: the elements name
 * every tensor they push with it */
static GQuark
tensor_id (GstCudaCacheTensorLayout layout)
{
  static GQuark ids[2];
  static gsize made;

  if (g_once_init_enter (&made)) {
    ids[0] = g_quark_from_static_string (GST_CUDA_CACHE_TENSOR_ID_NCHW);
    ids[1] = g_quark_from_static_string (GST_CUDA_CACHE_TENSOR_ID_NHWC);
    g_once_init_leave (&made, 1);
  }

  return ids[layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC];
}
#endif

/**
 * gst_buffer_add_cuda_cache_analytics_tensor_meta:
 * @buffer: a writable buffer holding the tensor @info describes
 * @info: the tensor
 *
 * Puts on @buffer a `GstTensorMeta` (GStreamer 1.26's analytics library)
 * describing its tensor, in place of any it had, as the project's elements
 * do: an application pushing tensors of its own (appsrc) calls it so that
 * GStreamer's analytics consumers read them: one `GstTensor` with id
 * #GST_CUDA_CACHE_TENSOR_ID_NCHW or #GST_CUDA_CACHE_TENSOR_ID_NHWC after
 * @info's layout, its data type, its four dimensions outermost first (the
 * batch first) in row-major order, contiguous, and as data a buffer of
 * @buffer's own memories: shared, not copied, and no reference on @buffer
 * itself (a buffer back in its pool is reused as before: the pool removes
 * the meta, and with it the memories' second holder). Since the meta's data shares @buffer's memory, GStreamer copies
 * that memory before a writable map of it: the project's elements leave
 * the meta off where their `tensor-meta` property is %FALSE.
 *
 * Returns: %TRUE if the meta was added; %FALSE where the library was built
 *     without GStreamer's analytics library (before 1.26), or @buffer is
 *     smaller than the tensor
 *
 * Since: 0.1
 */
gboolean
gst_buffer_add_cuda_cache_analytics_tensor_meta (GstBuffer * buffer,
    const GstCudaCacheTensorInfo * info)
{
#ifdef HAVE_GST_ANALYTICS
  GstTensorMeta *meta;
  GstTensor **tensors;
  GstBuffer *data;
  gsize dims[GST_CUDA_CACHE_TENSOR_N_DIMS];
  guint i;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), FALSE);
  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (info->dtype <= GST_CUDA_CACHE_TENSOR_DTYPE_F32, FALSE);

  if (gst_buffer_get_size (buffer) < info->size)
    return FALSE;
  /* the tensor's bytes as a buffer of the same memories, each referenced
   * on its own: sharing them through gst_buffer_copy_region () would
   * reference a pooled @buffer itself, a cycle through its own meta */
  data = gst_buffer_new ();
  for (i = 0; i < gst_buffer_n_memory (buffer); i++)
    gst_buffer_append_memory (data,
        gst_memory_ref (gst_buffer_peek_memory (buffer, i)));
  if (gst_buffer_get_size (data) != info->size &&
      !gst_buffer_resize_range (data, 0, -1, 0, info->size)) {
    gst_buffer_unref (data);
    return FALSE;
  }

  while ((meta = gst_buffer_get_tensor_meta (buffer)))
    gst_buffer_remove_meta (buffer, (GstMeta *) meta);

  /* ours are outermost first, as a row-major GstTensor's */
  for (i = 0; i < GST_CUDA_CACHE_TENSOR_N_DIMS; i++)
    dims[i] = info->dims[i];
  tensors = g_new (GstTensor *, 1);
  tensors[0] = gst_tensor_new_simple (tensor_id (info->layout),
      data_types[info->dtype].theirs, data, GST_TENSOR_DIM_ORDER_ROW_MAJOR,
      GST_CUDA_CACHE_TENSOR_N_DIMS, dims);
  meta = gst_buffer_add_tensor_meta (buffer);
  gst_tensor_meta_set (meta, 1, tensors);

  return TRUE;
#else
  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (info != NULL, FALSE);

  return FALSE;
#endif
}

/* The one tensor of a GstTensorMeta on @buffer as @info describes it, and
 * the buffer holding its data (a reference), where it is one the library
 * reads: one tensor, uint8, float16 or float32, contiguous, 1 to 4
 * dimensions (fewer padded with leading 1s), row or column major. The
 * layout is NHWC where the id says so (GST_CUDA_CACHE_TENSOR_ID_NHWC),
 * else NCHW; the dimensions are taken as they are either way. NULL
 * without @error set where @buffer has no GstTensorMeta (or the library
 * was built without the analytics library), with it where the meta's
 * tensor is not one the library reads. */
GstBuffer *
gst_cuda_cache_analytics_tensor (GstBuffer * buffer,
    GstCudaCacheTensorInfo * info, GError ** error)
{
#ifdef HAVE_GST_ANALYTICS
  GstTensorMeta *meta = gst_buffer_get_tensor_meta (buffer);
  const GstTensor *t;
  gsize n, i, pad;
  guint k;

  if (!meta)
    return NULL;
  if (meta->num_tensors != 1) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
        "the buffer's GstTensorMeta holds %" G_GSIZE_FORMAT " tensors; one "
        "is read", meta->num_tensors);
    return NULL;
  }
  t = gst_tensor_meta_get (meta, 0);
  if (!t) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
        "the buffer's GstTensorMeta holds no tensor");
    return NULL;
  }
  n = t->num_dims;
  for (k = 0; k < G_N_ELEMENTS (data_types); k++) {
    if (data_types[k].theirs == t->data_type)
      break;
  }
  if (k == G_N_ELEMENTS (data_types) || t->layout !=
      GST_TENSOR_LAYOUT_CONTIGUOUS || n < 1 ||
      n > GST_CUDA_CACHE_TENSOR_N_DIMS || !t->data) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
        "the buffer's GstTensorMeta describes a tensor the library does not "
        "read (data type %d, %" G_GSIZE_FORMAT " dimensions%s): it reads "
        "contiguous uint8, float16 or float32 tensors of 1 to 4 dimensions "
        "with data", (gint) t->data_type, n, t->data ? "" : ", no data");
    return NULL;
  }

  memset (info, 0, sizeof (*info));
  info->dtype = data_types[k].ours;
  info->layout = t->id == tensor_id (GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC) ?
      GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC : GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW;
  pad = GST_CUDA_CACHE_TENSOR_N_DIMS - n;
  for (i = 0; i < pad; i++)
    info->dims[i] = 1;
  for (i = 0; i < n; i++) {
    info->dims[pad + i] = t->dims_order == GST_TENSOR_DIM_ORDER_ROW_MAJOR ?
        t->dims[i] : t->dims[n - 1 - i];
  }
  if (!gst_cuda_cache_tensor_info_pack (info)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
        "the buffer's GstTensorMeta describes a tensor with a dimension of "
        "0 (dynamic) or too large to address");
    return NULL;
  }
  return gst_buffer_ref (t->data);
#else
  (void) buffer;
  (void) info;
  (void) error;
  return NULL;
#endif
}
