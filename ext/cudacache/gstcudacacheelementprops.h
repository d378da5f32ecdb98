/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_ELEMENT_PROPS_H__
#define __GST_CUDA_CACHE_ELEMENT_PROPS_H__

#include <gst/gst.h>
#include <gst/cudacache/cudacache.h>

G_BEGIN_DECLS

/* The properties every element of the plugin has, one definition each:
 * the device it picks, the limit of the cache its memory comes from, and
 * the statistics it posts; and for those that make tensors, whether they
 * describe them with GStreamer's GstTensorMeta. */

#define GST_CUDA_CACHE_STATS_MESSAGE_NAME "cudacache-stats"

GParamSpec *gst_cuda_cache_param_spec_device_id (void);

GParamSpec *gst_cuda_cache_param_spec_cache_limit (void);

GParamSpec *gst_cuda_cache_param_spec_stats_interval (void);

GParamSpec *gst_cuda_cache_param_spec_alloc_method (void);

GParamSpec *gst_cuda_cache_param_spec_memory_pool (void);

GParamSpec *gst_cuda_cache_param_spec_tensor_meta (void);

void gst_cuda_cache_post_stats (GstElement * element, GstCudaCache * cache,
    gboolean cuda_memory);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_ELEMENT_PROPS_H__ */
