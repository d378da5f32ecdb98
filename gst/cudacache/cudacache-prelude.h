/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_PRELUDE_H__
#define __GST_CUDA_CACHE_PRELUDE_H__

#include <gst/gst.h>

#ifndef GST_CUDA_CACHE_API
# ifdef BUILDING_GST_CUDA_CACHE
#  define GST_CUDA_CACHE_API GST_API_EXPORT
# else
#  define GST_CUDA_CACHE_API GST_API_IMPORT
# endif
#endif

#endif /* __GST_CUDA_CACHE_PRELUDE_H__ */
