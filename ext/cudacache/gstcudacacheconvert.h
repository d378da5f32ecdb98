/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_CONVERT_H__
#define __GST_CUDA_CACHE_CONVERT_H__

#include "gstcudacachebasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CACHE_CONVERT (gst_cuda_cache_convert_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCacheConvert, gst_cuda_cache_convert, GST,
    CUDA_CACHE_CONVERT, GstCudaCacheBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (cudacacheconvert);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_CONVERT_H__ */
