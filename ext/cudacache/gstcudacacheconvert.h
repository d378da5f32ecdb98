/* SPDX-License-Identifier: LGPL-2.1-or-later */

#ifndef __GST_CUDA_CACHE_CONVERT_H__
#define __GST_CUDA_CACHE_CONVERT_H__

#include "gstcudacachebasetransform.h"

G_BEGIN_DECLS

/**
 * GstCudaCacheChannelOrder:
 * @GST_CUDA_CACHE_CHANNEL_ORDER_RGB: tensor channels are red, green, blue
 * @GST_CUDA_CACHE_CHANNEL_ORDER_BGR: tensor channels are blue, green, red
 *
 * The order of a tensor's colour channels.
 */
typedef enum
{
  GST_CUDA_CACHE_CHANNEL_ORDER_RGB,
  GST_CUDA_CACHE_CHANNEL_ORDER_BGR,
} GstCudaCacheChannelOrder;

#define GST_TYPE_CUDA_CACHE_CHANNEL_ORDER (gst_cuda_cache_channel_order_get_type ())
GType gst_cuda_cache_channel_order_get_type (void);

#define GST_TYPE_CUDA_CACHE_CONVERT (gst_cuda_cache_convert_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCacheConvert, gst_cuda_cache_convert, GST,
    CUDA_CACHE_CONVERT, GstCudaCacheBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (cudacacheconvert);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_CONVERT_H__ */
