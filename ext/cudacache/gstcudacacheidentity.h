/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_IDENTITY_H__
#define __GST_CUDA_CACHE_IDENTITY_H__

#include "gstcudacachebasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CACHE_IDENTITY (gst_cuda_cache_identity_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCacheIdentity, gst_cuda_cache_identity, GST,
    CUDA_CACHE_IDENTITY, GstCudaCacheBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (cudacacheidentity);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_IDENTITY_H__ */
