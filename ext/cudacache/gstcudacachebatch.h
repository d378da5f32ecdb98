/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_BATCH_H__
#define __GST_CUDA_CACHE_BATCH_H__

#include <gst/base/gstaggregator.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CACHE_BATCH_PAD (gst_cuda_cache_batch_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCacheBatchPad, gst_cuda_cache_batch_pad, GST,
    CUDA_CACHE_BATCH_PAD, GstAggregatorPad)

#define GST_TYPE_CUDA_CACHE_BATCH (gst_cuda_cache_batch_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCacheBatch, gst_cuda_cache_batch, GST,
    CUDA_CACHE_BATCH, GstAggregator)

GST_ELEMENT_REGISTER_DECLARE (cudacachebatch);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_BATCH_H__ */
