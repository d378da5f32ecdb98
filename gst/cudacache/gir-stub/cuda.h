/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* What gst-cuda's public headers need of <cuda.h>, for g-ir-scanner only:
 * its C parser cannot read a CUDA 12/13 toolkit's cuda.h, and nothing of it
 * reaches the introspection data (gst-plugins-bad scans gst-cuda against
 * stubs the same way). Never compiled into anything. */

#ifndef __GST_CUDA_CACHE_GIR_STUB_CUDA_H__
#define __GST_CUDA_CACHE_GIR_STUB_CUDA_H__

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;

#endif /* __GST_CUDA_CACHE_GIR_STUB_CUDA_H__ */
