/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Tensors of CUDA memory mapped on the CPU, as filesink, appsink and NumPy
 * read them: every size in bytes, dtype, layout and channel count, from
 * cudacacheconvert and cudacachebatch, read against the CPU path's tensor
 * and written back to the device. Included by elements/cudaconvert-gpu.c,
 * whose helpers (download_tensor (), SLACK, SLACK_F16) it uses. */

#ifndef __CUDACONVERT_GPU_TENSOR_MAPS_H__
#define __CUDACONVERT_GPU_TENSOR_MAPS_H__

#include <math.h>
#include <string.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cudacache/cudacache.h>
#include "cudacache-check-gpu.h"
#include "cudacache-definition.h"

/* A sample of appsink @name of @pipeline */
static GstSample *
pull_from (GstElement * pipeline, const gchar * name)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstSample *sample = NULL;

  g_signal_emit_by_name (sink, "pull-sample", &sample);
  gst_object_unref (sink);
  fail_unless (sample != NULL, "no sample from %s", name);
  return sample;
}

/* Tensors of CUDA memory read and written on the CPU, as filesink, appsink
 * and NumPy consumers read them: every size in bytes (odd, 2 or 0 past a
 * multiple of 4), each dtype, layout and channel count, single frames and
 * batches. Each maps for reading at exactly the tensor's bytes, equal to
 * the CPU path's tensor within rounding; a write through the CPU map
 * reaches the device. */
GST_START_TEST (test_tensors_of_any_size_map_on_cpu)
{
  static const struct
  {
    const gchar *element;
    const gchar *types, *layout, *dims;
  } classes[] = {
    {"cudacacheconvert", "uint8", "NHWC", "3:299:299:1"},
    {"cudacacheconvert", "uint8", "NHWC", "1:299:299:1"},
    {"cudacacheconvert", "uint8", "NHWC", "3:300:299:1"},
    {"cudacacheconvert", "uint8", "NCHW", "257:129:3:1"},
    {"cudacacheconvert", "uint8", "NCHW", "5:3:1:1"},
    {"cudacacheconvert", "float16", "NCHW", "299:299:3:1"},
    {"cudacacheconvert", "float16", "NHWC", "1:3:5:1"},
    {"cudacacheconvert", "float32", "NHWC", "3:517:311:1"},
    {"cudacacheconvert", "float32", "NCHW", "7:5:1:1"},
    {"cudacachebatch", "uint8", "NHWC", "3:299:299:2"},
    {"cudacachebatch", "float16", "NCHW", "37:23:1:2"},
    {"cudacachebatch", "float32", "NHWC", "1:37:23:3"},
  };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (classes); c++) {
    gboolean batch = g_str_equal (classes[c].element, "cudacachebatch");
    const gchar *src = "videotestsrc num-buffers=1 pattern=ball ! "
        "video/x-raw,format=NV12,width=640,height=480,framerate=30/1";
    gchar *tensor = g_strdup_printf ("format=static,num_tensors=1,types=%s,"
        "layout=%s,dimensions=%s", classes[c].types, classes[c].layout,
        classes[c].dims);
    /* the device's tensors are written in place below: without
     * GStreamer's tensor meta (1.26+), whose data would share their memory
     * and make a write map copy it (docs/elements.md) */
    gchar *desc = batch ?
        g_strdup_printf ("cudacachebatch name=g tensor-meta=false "
        "batch-size=%c ! "
        "other/tensors(memory:CUDAMemory),%s ! appsink name=gpu "
        "cudacachebatch name=c batch-size=%c ! other/tensors,%s ! "
        "appsink name=cpu %s ! tee name=t t. ! queue ! cudaupload ! g. "
        "t. ! queue ! c.", classes[c].dims[strlen (classes[c].dims) - 1],
        tensor, classes[c].dims[strlen (classes[c].dims) - 1], tensor, src) :
        g_strdup_printf ("%s ! tee name=t t. ! queue ! cudaupload ! "
        "cudacacheconvert tensor-meta=false ! "
        "other/tensors(memory:CUDAMemory),%s ! "
        "appsink name=gpu t. ! queue ! cudacacheconvert ! other/tensors,%s ! "
        "appsink name=cpu", src, tensor, tensor);
    GstElement *pipeline = gst_parse_launch (desc, NULL);
    GstCudaCacheTensorInfo info;
    GstSample *gpu, *cpu;
    GstBuffer *gbuf, *back;
    GstMemory *mem;
    GstMapInfo gmap, cmap, bmap;
    gdouble worst = 0, tolerance;
    gsize i, n;
    guint8 first, last;
    GstCaps *caps;

    fail_unless (pipeline != NULL, "%s", desc);
    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    gpu = pull_from (pipeline, "gpu");
    cpu = pull_from (pipeline, "cpu");
    caps = gst_sample_get_caps (cpu);
    fail_unless (gst_cuda_cache_tensor_info_from_caps (&info, caps));
    gbuf = gst_sample_get_buffer (gpu);
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (gbuf, 0)));
    fail_unless_equals_uint64 (gst_buffer_get_size (gbuf), info.size);

    /* read on the CPU, as filesink and NumPy do */
    fail_unless (gst_buffer_map (gbuf, &gmap, GST_MAP_READ), "%s: a CUDA "
        "tensor of %" G_GSIZE_FORMAT " bytes cannot be read on the CPU", desc,
        info.size);
    fail_unless (gst_buffer_map (gst_sample_get_buffer (cpu), &cmap,
            GST_MAP_READ));
    fail_unless_equals_uint64 (gmap.size, info.size);
    tolerance = info.dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F16 ? 1.0 +
        SLACK_F16 : 1.0 + SLACK;
    n = info.size / gst_cuda_cache_tensor_dtype_get_size (info.dtype);
    for (i = 0; i < n; i++) {
      gdouble a, b;

      if (info.dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F32) {
        a = ((const gfloat *) gmap.data)[i];
        b = ((const gfloat *) cmap.data)[i];
      } else if (info.dtype == GST_CUDA_CACHE_TENSOR_DTYPE_F16) {
        a = half_to_float (((const guint16 *) gmap.data)[i]);
        b = half_to_float (((const guint16 *) cmap.data)[i]);
      } else {
        a = gmap.data[i];
        b = cmap.data[i];
      }
      worst = MAX (worst, fabs (a - b));
    }
    gst_buffer_unmap (gst_sample_get_buffer (cpu), &cmap);
    gst_buffer_unmap (gbuf, &gmap);
    fail_unless (worst <= tolerance, "%s: %.3f levels from the CPU path's "
        "tensor", desc, worst);

    /* written on the CPU, as a system-memory element would: the device
     * sees the write */
    mem = gst_buffer_peek_memory (gbuf, 0);
    fail_unless (gst_memory_map (mem, &gmap, GST_MAP_READWRITE));
    first = gmap.data[0] ^ 0xa5;
    last = gmap.data[info.size - 1] ^ 0x5a;
    gmap.data[0] = first;
    gmap.data[info.size - 1] = last;
    gst_memory_unmap (mem, &gmap);
    back = download_tensor (gbuf);
    fail_unless (gst_buffer_map (back, &bmap, GST_MAP_READ));
    fail_unless (bmap.data[0] == first && bmap.data[info.size - 1] == last,
        "%s: a CPU write did not reach the device", desc);
    fail_unless (gst_buffer_map (gbuf, &gmap, GST_MAP_READ));
    fail_unless (memcmp (bmap.data, gmap.data, info.size) == 0, "%s: the "
        "device and the CPU map differ after a CPU write", desc);
    gst_buffer_unmap (gbuf, &gmap);
    gst_buffer_unmap (back, &bmap);
    gst_buffer_unref (back);

    g_print ("%s %s: %" G_GSIZE_FORMAT " bytes read and written on the CPU, "
        "worst %.3f levels from the CPU path\n", classes[c].element, tensor,
        info.size, worst);
    gst_sample_unref (gpu);
    gst_sample_unref (cpu);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    g_free (desc);
    g_free (tensor);
  }
}

GST_END_TEST;

#endif /* __CUDACONVERT_GPU_TENSOR_MAPS_H__ */
