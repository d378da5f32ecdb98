/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The one header applications include: <gst/cudacache/cudacache.h>.
 * gst-cuda is unstable API in GStreamer 1.22: define GST_USE_UNSTABLE_API. */

#ifndef __GST_CUDA_CACHE_ALL_H__
#define __GST_CUDA_CACHE_ALL_H__

#include <gst/cudacache/cudacache-prelude.h>
#include <gst/cudacache/gstcudacache.h>
#include <gst/cudacache/gstcudacachetensor.h>
#include <gst/cudacache/gstcudacachesystempool.h>
#include <gst/cudacache/gstcudacachedevice.h>
#include <gst/cudacache/gstcudacachepool.h>
#include <gst/cudacache/gstcudacacheconverter.h>
#include <gst/cudacache/gstcudacachepicturemeta.h>
#include <gst/cudacache/gstcudacachebatchmeta.h>
#include <gst/cudacache/gstcudacachedlpack.h>

#endif /* __GST_CUDA_CACHE_ALL_H__ */
