/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * plugin-cudacache:
 *
 * Elements that share one caching buffer pool per CUDA device (or one of
 * system memory where there is no device), so that frames survive caps
 * changes without a device allocation; and the `cudacache` tracer, which
 * logs every cache's statistics at an interval.
 *
 * The plugin loads on machines without a GPU or CUDA driver: the driver is
 * only loaded at run time, when an element first needs a device.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstcudacachebatch.h"
#include "gstcudacacheconvert.h"
#include "gstcudacacheidentity.h"
#include "gstcudacachetracer.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (cudacacheidentity, plugin);
  ret |= GST_ELEMENT_REGISTER (cudacacheconvert, plugin);
  ret |= GST_ELEMENT_REGISTER (cudacachebatch, plugin);
  /* GST_TRACERS=cudacache: every cache's statistics at an interval */
  ret |= gst_tracer_register (plugin, "cudacache", GST_TYPE_CUDA_CACHE_TRACER);

  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudacache,
    "Caching CUDA buffer pool and elements that share it",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
