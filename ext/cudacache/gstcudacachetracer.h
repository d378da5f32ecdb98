/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_TRACER_H__
#define __GST_CUDA_CACHE_TRACER_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CACHE_TRACER (gst_cuda_cache_tracer_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCacheTracer, gst_cuda_cache_tracer, GST,
    CUDA_CACHE_TRACER, GstTracer)

G_END_DECLS

#endif /* __GST_CUDA_CACHE_TRACER_H__ */
