/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* GstTensorMeta (GStreamer 1.26's analytics library) on the elements'
 * tensors, read through GStreamer's API alone (gst_buffer_get_tensor_meta,
 * gst_tensor_meta_get): every field, the data the buffer's own memory, no
 * reference cycle; and tensors described by that meta alone exported
 * through DLPack. Built where the analytics library is found; built twice:
 * elements/tensormeta in system memory, elements/tensormeta-gpu (suite gpu)
 * in CUDA memory (TENSORMETA_CUDA). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <dlpack/dlpack.h>
#include <gst/app/gstappsink.h>
#include <gst/analytics/analytics.h>
#include <gst/cudacache/cudacache.h>

#ifdef TENSORMETA_CUDA
#include "../cudacache-check-gpu.h"
#define UPLOAD "cudaupload ! video/x-raw(memory:CUDAMemory) ! "
#define FEATURE "(memory:CUDAMemory)"
#else
#include "../cudacache-check.h"
#define UPLOAD ""
#define FEATURE ""
#endif

static const struct
{
  const gchar *type;
  GstTensorDataType data_type;
  gsize elem;
} types[] = {
  {"uint8", GST_TENSOR_DATA_TYPE_UINT8, 1},
  {"float16", GST_TENSOR_DATA_TYPE_FLOAT16, 2},
  {"float32", GST_TENSOR_DATA_TYPE_FLOAT32, 4},
};

static void
notify_gone (gpointer data, GstMiniObject * obj)
{
  (void) obj;
  *(gboolean *) data = TRUE;
}

/* @buf's GstTensorMeta: one tensor @id of @data_type and dims @dims
 * (outermost first), contiguous, row major, its data @buf's own memory
 * holding exactly the tensor's bytes, equal to @buf's */
static void
check_tensor_meta (GstBuffer * buf, const gchar * id,
    GstTensorDataType data_type, gsize elem, const gsize * dims,
    const gchar * what)
{
  GstTensorMeta *meta = gst_buffer_get_tensor_meta (buf);
  const GstTensor *t;
  gsize bytes = elem, i, n_dims;
  GstMapInfo a, b;

  fail_unless (meta != NULL, "%s: no GstTensorMeta", what);
  fail_unless_equals_int (meta->num_tensors, 1);
  t = gst_tensor_meta_get (meta, 0);
  fail_unless (t != NULL);
  fail_unless_equals_int (gst_tensor_meta_get_index_from_id (meta,
          g_quark_from_string (id)), 0);
  fail_unless_equals_string (g_quark_to_string (t->id), id);
  fail_unless_equals_int (t->layout, GST_TENSOR_LAYOUT_CONTIGUOUS);
  fail_unless_equals_int (t->data_type, data_type);
  fail_unless_equals_int (t->dims_order, GST_TENSOR_DIM_ORDER_ROW_MAJOR);
  fail_unless_equals_int (t->num_dims, 4);
  for (i = 0; i < 4; i++) {
    fail_unless_equals_int (t->dims[i], dims[i]);
    bytes *= dims[i];
  }
  fail_unless (gst_tensor_get_dims ((GstTensor *) t, &n_dims) == t->dims);
  fail_unless_equals_int (n_dims, 4);

  /* the data: the buffer's own memory, not a copy */
  fail_unless (t->data != NULL && t->data != buf, "%s", what);
  fail_unless_equals_int (gst_buffer_get_size (t->data), bytes);
  fail_unless_equals_int (gst_buffer_n_memory (t->data),
      gst_buffer_n_memory (buf));
  for (i = 0; i < gst_buffer_n_memory (buf); i++)
    fail_unless (gst_buffer_peek_memory (t->data, i) ==
        gst_buffer_peek_memory (buf, i), "%s: the meta's data is a copy", what);
  fail_unless (gst_buffer_map (t->data, &a, GST_MAP_READ));
  fail_unless (gst_buffer_map (buf, &b, GST_MAP_READ));
  fail_unless (memcmp (a.data, b.data, bytes) == 0);
  gst_buffer_unmap (buf, &b);
  gst_buffer_unmap (t->data, &a);
}

/* Runs @desc (its appsink "sink") and checks every buffer's meta; the
 * buffers and their tensors' data are freed with the pipeline (no cycle) */
static guint
run_and_check (const gchar * desc, gboolean want_meta, const gchar * id,
    guint t, const gsize * dims)
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink;
  GstSample *sample;
  gboolean buf_gone = FALSE, data_gone = FALSE;
  GstBuffer *last = NULL;
  guint n = 0;

  fail_unless (pipeline != NULL, "%s", desc);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);

    if (want_meta)
      check_tensor_meta (buf, id, types[t].data_type, types[t].elem, dims,
          desc);
    else
      fail_unless (gst_buffer_get_tensor_meta (buf) == NULL, "%s", desc);
    if (++n == 2) {
      last = buf;
      gst_mini_object_weak_ref (GST_MINI_OBJECT (buf), notify_gone, &buf_gone);
      if (want_meta)
        gst_mini_object_weak_ref (GST_MINI_OBJECT (gst_tensor_meta_get
                (gst_buffer_get_tensor_meta (buf), 0)->data), notify_gone,
            &data_gone);
    }
    gst_sample_unref (sample);
  }
  fail_unless (n >= 2, "%s: %u buffers", desc, n);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  /* the pool went with the pipeline, and every buffer with it */
  fail_unless (last != NULL && buf_gone, "%s: a buffer outlived its pipeline "
      "(a reference cycle through its meta?)", desc);
  fail_unless (!want_meta || data_gone, "%s: the meta's data outlived its "
      "buffer", desc);
  return n;
}

/* cudacacheconvert: every type and layout, odd and even sizes, the meta
 * describing the tensor exactly */
GST_START_TEST (test_convert_tensor_meta)
{
  static const guint sizes[][2] = { {7, 5}, {64, 48}, {33, 1} };
  guint t, l, z;

  for (t = 0; t < G_N_ELEMENTS (types); t++) {
    for (l = 0; l < 2; l++) {
      for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
        guint w = sizes[z][0], h = sizes[z][1];
        gsize dims[4] = { 1, l ? h : 3, l ? w : h, l ? 3 : w };
        /* the caps' dimensions innermost first */
        gchar *caps_dims = l ? g_strdup_printf ("3:%u:%u:1", w, h) :
            g_strdup_printf ("%u:%u:3:1", w, h);
        gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 ! "
            "video/x-raw,format=RGBA,width=64,height=48 ! " UPLOAD
            "cudacacheconvert ! other/tensors" FEATURE ",format=static,"
            "num_tensors=1,types=%s,layout=%s,dimensions=%s ! "
            "appsink name=sink sync=false", types[t].type,
            l ? "NHWC" : "NCHW", caps_dims);

        fail_unless_equals_int (run_and_check (desc, TRUE, l ?
                GST_CUDA_CACHE_TENSOR_ID_NHWC : GST_CUDA_CACHE_TENSOR_ID_NCHW,
                t, dims), 3);
        g_free (desc);
        g_free (caps_dims);
      }
    }
  }
}

GST_END_TEST;

/* tensor-meta=false: none; a one-channel tensor: its channel dimension 1 */
GST_START_TEST (test_convert_tensor_meta_off)
{
  static const gsize gray[4] = { 1, 1, 9, 11 };

  run_and_check ("videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,"
      "width=16,height=16 ! " UPLOAD "cudacacheconvert tensor-meta=false ! "
      "other/tensors" FEATURE ",format=static,num_tensors=1,types=float32,"
      "dimensions=11:9:3:1 ! appsink name=sink sync=false", FALSE, NULL, 0,
      NULL);
  run_and_check ("videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,"
      "width=16,height=16 ! " UPLOAD "cudacacheconvert ! "
      "other/tensors" FEATURE ",format=static,num_tensors=1,types=uint8,"
      "dimensions=11:9:1:1 ! appsink name=sink sync=false", TRUE,
      GST_CUDA_CACHE_TENSOR_ID_NCHW, 0, gray);
}

GST_END_TEST;

/* cudacachebatch: the batch dimension first, one meta for the batch */
GST_START_TEST (test_batch_tensor_meta)
{
  static const gsize nchw[4] = { 3, 3, 24, 40 };
  static const gsize nhwc[4] = { 2, 24, 40, 3 };

  run_and_check ("cudacachebatch name=b batch-size=3 ! other/tensors" FEATURE
      ",format=static,num_tensors=1,types=float32,dimensions=40:24:3:3 ! "
      "appsink name=sink sync=false "
      "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48 ! "
      UPLOAD "b. videotestsrc num-buffers=3 pattern=ball ! "
      "video/x-raw,format=NV12,width=50,height=30 ! " UPLOAD "b.", TRUE,
      GST_CUDA_CACHE_TENSOR_ID_NCHW, 2, nchw);
  run_and_check ("cudacachebatch name=b ! other/tensors" FEATURE
      ",format=static,num_tensors=1,types=uint8,layout=NHWC,"
      "dimensions=3:40:24:2 ! appsink name=sink sync=false "
      "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48 ! "
      UPLOAD "b. videotestsrc num-buffers=3 ! video/x-raw,width=32,"
      "height=32 ! " UPLOAD "b.", TRUE, GST_CUDA_CACHE_TENSOR_ID_NHWC, 0, nhwc);
  run_and_check ("cudacachebatch name=b tensor-meta=false ! other/tensors"
      FEATURE ",format=static,num_tensors=1,types=uint8,layout=NHWC,"
      "dimensions=3:40:24:1 ! appsink name=sink sync=false "
      "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48 ! "
      UPLOAD "b.", FALSE, NULL, 0, NULL);
}

GST_END_TEST;

#ifndef TENSORMETA_CUDA
/* A buffer whose GstTensorMeta of @num_dims @dims in @order is its only
 * description, its data a buffer of its own of @bytes */
static GstBuffer *
foreign_tensor (GstTensorDataType type, GstTensorDimOrder order,
    gsize num_dims, gsize * dims, gsize bytes, GstBuffer ** data)
{
  GstBuffer *buf = gst_buffer_new ();
  GstTensor **tensors = g_new (GstTensor *, 1);

  *data = gst_buffer_new_allocate (NULL, bytes, NULL);
  tensors[0] = gst_tensor_new_simple (g_quark_from_static_string
      ("some-model-out"), type, gst_buffer_ref (*data), order, num_dims, dims);
  gst_tensor_meta_set (gst_buffer_add_tensor_meta (buf), 1, tensors);
  return buf;
}

/* The DLPack export of a tensor that GStreamer's meta alone describes:
 * its own data buffer, its shape as the meta gives it */
GST_START_TEST (test_dlpack_reads_foreign_tensor_meta)
{
  gsize dims[3] = { 2, 3, 5 };
  GstBuffer *data, *buf;
  DLManagedTensor *t;
  GError *error = NULL;
  GstMapInfo map;

  buf = foreign_tensor (GST_TENSOR_DATA_TYPE_FLOAT32,
      GST_TENSOR_DIM_ORDER_ROW_MAJOR, 3, dims, 2 * 3 * 5 * 4, &data);
  t = gst_cuda_cache_dlpack_export (buf, NULL, GST_CUDA_CACHE_DLPACK_WHOLE,
      GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error);
  fail_unless (t != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (t->dl_tensor.ndim, 4);
  fail_unless_equals_int (t->dl_tensor.shape[0], 1);
  fail_unless_equals_int (t->dl_tensor.shape[1], 2);
  fail_unless_equals_int (t->dl_tensor.shape[2], 3);
  fail_unless_equals_int (t->dl_tensor.shape[3], 5);
  fail_unless_equals_int (t->dl_tensor.strides[3], 1);
  fail_unless_equals_int (t->dl_tensor.strides[2], 5);
  fail_unless_equals_int (t->dl_tensor.strides[1], 15);
  fail_unless_equals_int (t->dl_tensor.dtype.code, kDLFloat);
  fail_unless_equals_int (t->dl_tensor.dtype.bits, 32);
  fail_unless_equals_int (t->dl_tensor.device.device_type, kDLCPU);
  fail_unless (gst_buffer_map (data, &map, GST_MAP_READ));
  fail_unless (t->dl_tensor.data == (void *) map.data,
      "the export is not the meta's data");
  gst_buffer_unmap (data, &map);
  gst_buffer_unref (buf);
  t->deleter (t);
  gst_buffer_unref (data);

  /* column major: the dimensions reversed; float16 and uint8 */
  buf = foreign_tensor (GST_TENSOR_DATA_TYPE_FLOAT16,
      GST_TENSOR_DIM_ORDER_COL_MAJOR, 3, dims, 2 * 3 * 5 * 2, &data);
  t = gst_cuda_cache_dlpack_export (buf, NULL, GST_CUDA_CACHE_DLPACK_WHOLE,
      GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error);
  fail_unless (t != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (t->dl_tensor.shape[1], 5);
  fail_unless_equals_int (t->dl_tensor.shape[3], 2);
  fail_unless_equals_int (t->dl_tensor.dtype.bits, 16);
  t->deleter (t);
  gst_buffer_unref (buf);
  gst_buffer_unref (data);

  /* refused, saying why: a type the library does not read, a dynamic
   * dimension, a plane, two tensors */
  buf = foreign_tensor (GST_TENSOR_DATA_TYPE_INT8,
      GST_TENSOR_DIM_ORDER_ROW_MAJOR, 3, dims, 30, &data);
  fail_if (gst_cuda_cache_dlpack_export (buf, NULL,
          GST_CUDA_CACHE_DLPACK_WHOLE, GST_CUDA_CACHE_DLPACK_FLAG_NONE,
          &error));
  fail_unless (error && strstr (error->message, "does not read"));
  g_clear_error (&error);
  gst_buffer_unref (buf);
  gst_buffer_unref (data);

  /* a dynamic dimension (0: GStreamer leaves the size unchecked) */
  {
    gsize dynamic[3] = { 2, 0, 5 };

    buf = foreign_tensor (GST_TENSOR_DATA_TYPE_UINT8,
        GST_TENSOR_DIM_ORDER_ROW_MAJOR, 3, dynamic, 29, &data);
    fail_if (gst_cuda_cache_dlpack_export (buf, NULL,
            GST_CUDA_CACHE_DLPACK_WHOLE, GST_CUDA_CACHE_DLPACK_FLAG_NONE,
            &error));
    fail_unless (error && strstr (error->message, "dimension of 0"), "%s",
        error ? error->message : "");
    g_clear_error (&error);
    gst_buffer_unref (buf);
    gst_buffer_unref (data);
  }

  buf = foreign_tensor (GST_TENSOR_DATA_TYPE_UINT8,
      GST_TENSOR_DIM_ORDER_ROW_MAJOR, 3, dims, 30, &data);
  fail_if (gst_cuda_cache_dlpack_export (buf, NULL, 1,
          GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error));
  fail_unless (error && strstr (error->message, "no plane"));
  g_clear_error (&error);
  gst_buffer_unref (buf);
  gst_buffer_unref (data);

  {
    GstTensor **two = g_new (GstTensor *, 2);

    buf = gst_buffer_new ();
    two[0] = gst_tensor_new_simple (0, GST_TENSOR_DATA_TYPE_UINT8,
        gst_buffer_new_allocate (NULL, 30, NULL),
        GST_TENSOR_DIM_ORDER_ROW_MAJOR, 3, dims);
    two[1] = gst_tensor_new_simple (0, GST_TENSOR_DATA_TYPE_UINT8,
        gst_buffer_new_allocate (NULL, 30, NULL),
        GST_TENSOR_DIM_ORDER_ROW_MAJOR, 3, dims);
    gst_tensor_meta_set (gst_buffer_add_tensor_meta (buf), 2, two);
    fail_if (gst_cuda_cache_dlpack_export (buf, NULL,
            GST_CUDA_CACHE_DLPACK_WHOLE, GST_CUDA_CACHE_DLPACK_FLAG_NONE,
            &error));
    fail_unless (error && strstr (error->message, "2 tensors"));
    g_clear_error (&error);
    gst_buffer_unref (buf);
  }
}

GST_END_TEST;

/* The library's own adder on a buffer of ours, read back by the export:
 * the round trip keeps layout (through the id) and shape */
GST_START_TEST (test_add_meta_round_trip)
{
  GstCudaCacheTensorInfo info;
  GstBuffer *buf;
  DLManagedTensor *t;
  GError *error = NULL;
  guint l;

  for (l = 0; l < 2; l++) {
    fail_unless (gst_cuda_cache_tensor_info_init (&info,
            GST_CUDA_CACHE_TENSOR_DTYPE_F32, l, 2, 3, 5, 7));
    buf = gst_buffer_new_allocate (NULL, info.size, NULL);
    fail_unless (gst_buffer_add_cuda_cache_analytics_tensor_meta (buf, &info));
    /* again: replaced, not added */
    fail_unless (gst_buffer_add_cuda_cache_analytics_tensor_meta (buf, &info));
    fail_unless_equals_int (gst_buffer_get_n_meta (buf,
            GST_TENSOR_META_API_TYPE), 1);
    /* its memory shared with the meta's data: a write map would copy it */
    fail_if (gst_memory_is_writable (gst_buffer_peek_memory (buf, 0)));
    t = gst_cuda_cache_dlpack_export (buf, NULL, GST_CUDA_CACHE_DLPACK_WHOLE,
        GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error);
    fail_unless (t != NULL, "%s", error ? error->message : "");
    fail_unless_equals_int (t->dl_tensor.shape[0], 2);
    fail_unless_equals_int (t->dl_tensor.shape[3], l ? 3 : 7);
    t->deleter (t);
    gst_buffer_unref (buf);
  }
  /* a buffer smaller than the tensor: no meta */
  buf = gst_buffer_new_allocate (NULL, info.size - 1, NULL);
  fail_if (gst_buffer_add_cuda_cache_analytics_tensor_meta (buf, &info));
  fail_unless (gst_buffer_get_tensor_meta (buf) == NULL);
  gst_buffer_unref (buf);
}

GST_END_TEST;
#endif

static Suite *
tensormeta_suite (void)
{
  Suite *s = suite_create ("tensormeta");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
#ifdef TENSORMETA_CUDA
  tcase_add_checked_fixture (tc, cudacache_gpu_setup, cudacache_gpu_teardown);
#else
  tcase_add_test (tc, test_dlpack_reads_foreign_tensor_meta);
  tcase_add_test (tc, test_add_meta_round_trip);
#endif
  tcase_add_test (tc, test_convert_tensor_meta);
  tcase_add_test (tc, test_convert_tensor_meta_off);
  tcase_add_test (tc, test_batch_tensor_meta);
  return s;
}

#ifdef TENSORMETA_CUDA
CUDACACHE_CHECK_GPU_MAIN (tensormeta);
#else
GST_CHECK_MAIN (tensormeta);
#endif
