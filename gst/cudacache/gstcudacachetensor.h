/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_TENSOR_H__
#define __GST_CUDA_CACHE_TENSOR_H__

#include <gst/cudacache/cudacache-prelude.h>

G_BEGIN_DECLS

/**
 * GST_CUDA_CACHE_TENSOR_CAPS_NAME:
 *
 * The caps name of tensors, as NNStreamer defines it: `other/tensors` with
 * `format=static`, `num_tensors=1`, `dimensions` (innermost first, colon
 * separated) and `types`. This project adds an optional `layout` field
 * (`NCHW`, the default, or `NHWC`) that names the dimensions.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_TENSOR_CAPS_NAME "other/tensors"

/**
 * GST_CUDA_CACHE_TENSOR_N_DIMS:
 *
 * The rank of every tensor: batch, channels, height and width, in the order
 * the tensor's layout gives them.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_TENSOR_N_DIMS 4

/**
 * GST_CUDA_CACHE_TENSOR_ID_NCHW:
 *
 * The id (a #GQuark's string) of an NCHW tensor in the `GstTensorMeta`
 * (GStreamer 1.26's analytics library) the project puts on its tensors:
 * `GstTensor` has no field for the dimensions' names, so the id gives them.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_TENSOR_ID_NCHW "gst-cuda-cache-nchw"

/**
 * GST_CUDA_CACHE_TENSOR_ID_NHWC:
 *
 * The id of an NHWC tensor in its `GstTensorMeta`, as
 * #GST_CUDA_CACHE_TENSOR_ID_NCHW.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_TENSOR_ID_NHWC "gst-cuda-cache-nhwc"

/**
 * GstCudaCacheTensorDType:
 * @GST_CUDA_CACHE_TENSOR_DTYPE_U8: unsigned 8-bit integers (`uint8`)
 * @GST_CUDA_CACHE_TENSOR_DTYPE_F16: IEEE half floats (`float16`)
 * @GST_CUDA_CACHE_TENSOR_DTYPE_F32: IEEE single floats (`float32`)
 *
 * The type of a tensor's elements.
 *
 * Since: 0.1
 */
typedef enum /*< underscore_name=gst_cuda_cache_tensor_dtype >*/
{
  GST_CUDA_CACHE_TENSOR_DTYPE_U8,       /*< nick=uint8 >*/
  GST_CUDA_CACHE_TENSOR_DTYPE_F16,      /*< nick=float16 >*/
  GST_CUDA_CACHE_TENSOR_DTYPE_F32,      /*< nick=float32 >*/
} GstCudaCacheTensorDType;

/**
 * GstCudaCacheTensorLayout:
 * @GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW: planar: batch, channels, height, width
 * @GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC: interleaved: batch, height, width, channels
 *
 * The order of a tensor's dimensions in memory, outermost first.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW,
  GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC,
} GstCudaCacheTensorLayout;

#include <gst/cudacache/cudacache-enumtypes.h>

/**
 * GstCudaCacheTensorInfo:
 * @dtype: the elements' type
 * @layout: the order of @dims
 * @dims: the dimensions, outermost first, in @layout's order
 * @strides: bytes between consecutive elements of each dimension
 * @size: bytes of the whole, packed tensor
 *
 * The shape of one packed tensor: no padding between rows or planes, so
 * `strides[3]` is the element size and `size` is `dims[0] * strides[0]`.
 *
 * Since: 0.1
 */
typedef struct
{
  GstCudaCacheTensorDType dtype;
  GstCudaCacheTensorLayout layout;
  gsize dims[GST_CUDA_CACHE_TENSOR_N_DIMS];
  gsize strides[GST_CUDA_CACHE_TENSOR_N_DIMS];
  gsize size;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstCudaCacheTensorInfo;

GST_CUDA_CACHE_API
guint gst_cuda_cache_tensor_dtype_get_size (GstCudaCacheTensorDType dtype);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_tensor_info_init (GstCudaCacheTensorInfo * info,
    GstCudaCacheTensorDType dtype, GstCudaCacheTensorLayout layout, guint batch,
    guint channels, guint height, guint width);

GST_CUDA_CACHE_API
guint gst_cuda_cache_tensor_info_get_batch (const GstCudaCacheTensorInfo * info);

GST_CUDA_CACHE_API
guint gst_cuda_cache_tensor_info_get_channels (const GstCudaCacheTensorInfo * info);

GST_CUDA_CACHE_API
guint gst_cuda_cache_tensor_info_get_height (const GstCudaCacheTensorInfo * info);

GST_CUDA_CACHE_API
guint gst_cuda_cache_tensor_info_get_width (const GstCudaCacheTensorInfo * info);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_tensor_info_is_equal (const GstCudaCacheTensorInfo * info,
    const GstCudaCacheTensorInfo * other);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_tensor_info_from_caps (GstCudaCacheTensorInfo * info,
    const GstCaps * caps);

GST_CUDA_CACHE_API
GstCaps *gst_cuda_cache_tensor_info_to_caps (const GstCudaCacheTensorInfo * info);

GST_CUDA_CACHE_API
gchar *gst_cuda_cache_tensor_info_to_string (const GstCudaCacheTensorInfo * info);

/**
 * GST_CUDA_CACHE_META_TAG_TENSOR_STR:
 *
 * The tag of metas that describe the tensor a buffer holds: its type,
 * layout or shape. A transform that makes another tensor drops them.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_META_TAG_TENSOR_STR "tensor"

/**
 * GstCudaCacheTensorMeta:
 * @meta: the parent #GstMeta
 * @info: the tensor's shape, strides, type and layout
 *
 * Describes the packed tensor a buffer holds. Its memory (system or CUDA)
 * starts at the tensor's first element; with CUDA memory the device pointer
 * comes from a `GST_MAP_CUDA` map.
 *
 * As #GstVideoMeta, it describes the memory's layout, and its API is tagged
 * so: `memory`, `colorspace` (the elements' type and channel order),
 * `size` (the shape) and #GST_CUDA_CACHE_META_TAG_TENSOR_STR. A transform
 * that writes new memory (any #GstBaseTransform that is not passthrough
 * and does not handle the meta itself, `videoconvert`, a copy of a
 * buffer's metadata without its memory) drops it: the output's caps say
 * what it holds. A whole copy of the buffer keeps it, a region of it does
 * not.
 *
 * Since: 0.1
 */
typedef struct
{
  GstMeta meta;

  GstCudaCacheTensorInfo info;
} GstCudaCacheTensorMeta;

GST_CUDA_CACHE_API
GType gst_cuda_cache_tensor_meta_api_get_type (void);
#define GST_CUDA_CACHE_TENSOR_META_API_TYPE (gst_cuda_cache_tensor_meta_api_get_type ())

GST_CUDA_CACHE_API
const GstMetaInfo *gst_cuda_cache_tensor_meta_get_info (void);
#define GST_CUDA_CACHE_TENSOR_META_INFO (gst_cuda_cache_tensor_meta_get_info ())

GST_CUDA_CACHE_API
GstCudaCacheTensorMeta *gst_buffer_add_cuda_cache_tensor_meta (GstBuffer * buffer,
    const GstCudaCacheTensorInfo * info);

GST_CUDA_CACHE_API
GstCudaCacheTensorMeta *gst_buffer_get_cuda_cache_tensor_meta (GstBuffer * buffer);

GST_CUDA_CACHE_API
gboolean gst_buffer_add_cuda_cache_analytics_tensor_meta (GstBuffer * buffer,
    const GstCudaCacheTensorInfo * info);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_TENSOR_H__ */
