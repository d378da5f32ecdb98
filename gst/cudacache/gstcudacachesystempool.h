/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_SYSTEM_POOL_H__
#define __GST_CUDA_CACHE_SYSTEM_POOL_H__

#include <gst/cudacache/cudacache-prelude.h>
#include <gst/cudacache/gstcudacache.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CACHE_SYSTEM_POOL (gst_cuda_cache_system_pool_get_type ())
GST_CUDA_CACHE_API
G_DECLARE_FINAL_TYPE (GstCudaCacheSystemPool, gst_cuda_cache_system_pool,
    GST, CUDA_CACHE_SYSTEM_POOL, GstVideoBufferPool)

GST_CUDA_CACHE_API
GstBufferPool *gst_cuda_cache_system_pool_new (GstCudaCache * cache);

GST_CUDA_CACHE_API
GstCudaCache *gst_cuda_cache_system_pool_get_cache (GstCudaCacheSystemPool *
    pool);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_SYSTEM_POOL_H__ */
