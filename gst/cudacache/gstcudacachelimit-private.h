/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_LIMIT_PRIVATE_H__
#define __GST_CUDA_CACHE_LIMIT_PRIVATE_H__

#include <gst/cudacache/gstcudacache.h>

G_BEGIN_DECLS

/* A new cache's limit: half of @device_memory, or GST_CUDA_CACHE_LIMIT_ENV
 * where it parses (a warning on @cache's behalf where it does not). */
G_GNUC_INTERNAL
guint64 gst_cuda_cache_limit_default (GstCudaCache * cache,
    guint64 device_memory);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_LIMIT_PRIVATE_H__ */
