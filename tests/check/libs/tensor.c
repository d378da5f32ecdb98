/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* GstCudaCacheTensorInfo: shapes, caps in NNStreamer's convention, the meta. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../cudacache-check.h"
#include <gst/cudacache/cudacache.h>
#include <gst/video/video.h>
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstharness.h>
#include "../cudacache-dlpack.h"

static gboolean
info_from_string (GstCudaCacheTensorInfo * info, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  gboolean ret;

  fail_unless (caps != NULL, "unparsable caps %s", caps_str);
  ret = gst_cuda_cache_tensor_info_from_caps (info, caps);
  gst_caps_unref (caps);

  return ret;
}

GST_START_TEST (test_info_init_packs)
{
  GstCudaCacheTensorInfo info;

  fail_unless (gst_cuda_cache_tensor_info_init (&info,
          GST_CUDA_CACHE_TENSOR_DTYPE_F32, GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW, 1,
          3, 480, 640));
  fail_unless_equals_uint64 (info.dims[0], 1);
  fail_unless_equals_uint64 (info.dims[1], 3);
  fail_unless_equals_uint64 (info.dims[2], 480);
  fail_unless_equals_uint64 (info.dims[3], 640);
  fail_unless_equals_uint64 (info.strides[3], 4);
  fail_unless_equals_uint64 (info.strides[2], 640 * 4);
  fail_unless_equals_uint64 (info.strides[1], 480 * 640 * 4);
  fail_unless_equals_uint64 (info.strides[0], 3 * 480 * 640 * 4);
  fail_unless_equals_uint64 (info.size, 3 * 480 * 640 * 4);

  fail_unless (gst_cuda_cache_tensor_info_init (&info,
          GST_CUDA_CACHE_TENSOR_DTYPE_F16, GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC, 2,
          3, 480, 640));
  fail_unless_equals_uint64 (info.dims[1], 480);
  fail_unless_equals_uint64 (info.dims[2], 640);
  fail_unless_equals_uint64 (info.dims[3], 3);
  fail_unless_equals_uint64 (info.strides[3], 2);
  fail_unless_equals_uint64 (info.strides[2], 3 * 2);
  fail_unless_equals_uint64 (info.strides[1], 640 * 3 * 2);
  fail_unless_equals_uint64 (info.size, 2 * 480 * 640 * 3 * 2);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_batch (&info), 2);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_channels (&info), 3);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_height (&info), 480);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_width (&info), 640);

  /* a zero dimension is no tensor */
  fail_if (gst_cuda_cache_tensor_info_init (&info,
          GST_CUDA_CACHE_TENSOR_DTYPE_U8, GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW, 1,
          0, 4, 4));
}

GST_END_TEST;

GST_START_TEST (test_caps_round_trip)
{
  GstCudaCacheTensorInfo info, back;
  GstCaps *caps;
  gchar *str;

  fail_unless (gst_cuda_cache_tensor_info_init (&info,
          GST_CUDA_CACHE_TENSOR_DTYPE_U8, GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC, 1,
          3, 224, 320));
  caps = gst_cuda_cache_tensor_info_to_caps (&info);
  str = gst_caps_to_string (caps);
  /* NNStreamer lists the innermost dimension first */
  fail_unless (strstr (str, "dimensions=(string)3:320:224:1") != NULL, "%s",
      str);
  fail_unless (strstr (str, "types=(string)uint8") != NULL, "%s", str);
  fail_unless (strstr (str, "format=(string)static") != NULL, "%s", str);
  fail_unless (strstr (str, "num_tensors=(int)1") != NULL, "%s", str);
  g_free (str);

  fail_unless (gst_cuda_cache_tensor_info_from_caps (&back, caps));
  fail_unless (gst_cuda_cache_tensor_info_is_equal (&info, &back));
  fail_unless_equals_uint64 (back.size, info.size);
  gst_caps_unref (caps);

  str = gst_cuda_cache_tensor_info_to_string (&info);
  fail_unless_equals_string (str, "uint8 NHWC 1x224x320x3");
  g_free (str);
}

GST_END_TEST;

GST_START_TEST (test_caps_defaults_and_padding)
{
  GstCudaCacheTensorInfo info;

  /* no layout field means NCHW; missing outer dimensions are 1 */
  fail_unless (info_from_string (&info, "other/tensors,format=static,"
          "num_tensors=1,dimensions=\"64:32:3\",types=float32"));
  fail_unless_equals_int (info.layout, GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_batch (&info), 1);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_channels (&info), 3);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_height (&info), 32);
  fail_unless_equals_int (gst_cuda_cache_tensor_info_get_width (&info), 64);
  fail_unless_equals_uint64 (info.size, 64 * 32 * 3 * 4);
}

GST_END_TEST;

GST_START_TEST (test_caps_refused)
{
  static const gchar *bad[] = {
    "video/x-raw,format=RGBA,width=4,height=4",
    "other/tensors,format=flexible,num_tensors=1,dimensions=4:4:3:1,"
        "types=uint8",
    "other/tensors,format=static,num_tensors=2,dimensions=4:4:3:1,"
        "types=uint8",
    "other/tensors,format=static,num_tensors=1,dimensions=4:4:3:1,"
        "types=int64",
    "other/tensors,format=static,num_tensors=1,dimensions=4:4:3:1",
    "other/tensors,format=static,num_tensors=1,types=uint8",
    "other/tensors,format=static,num_tensors=1,dimensions=4:x:3:1,"
        "types=uint8",
    "other/tensors,format=static,num_tensors=1,dimensions=4:0:3:1,"
        "types=uint8",
    "other/tensors,format=static,num_tensors=1,dimensions=4:4:3:1:1,"
        "types=uint8",
    "other/tensors,format=static,num_tensors=1,dimensions=4:4:3:1,"
        "types=uint8,layout=CHWN",
  };
  GstCudaCacheTensorInfo info;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++)
    fail_if (info_from_string (&info, bad[i]), "accepted %s", bad[i]);
}

GST_END_TEST;

GST_START_TEST (test_strings)
{
  GEnumClass *dtypes = g_type_class_ref (GST_TYPE_CUDA_CACHE_TENSOR_DTYPE);
  GEnumClass *layouts = g_type_class_ref (GST_TYPE_CUDA_CACHE_TENSOR_LAYOUT);
  GstCudaCacheTensorInfo info;
  gchar *caps;

  /* the enums' nicks are the names caps give */
  fail_unless_equals_int (g_enum_get_value_by_nick (dtypes, "float16")->value,
      GST_CUDA_CACHE_TENSOR_DTYPE_F16);
  fail_unless_equals_int (gst_cuda_cache_tensor_dtype_get_size
      (GST_CUDA_CACHE_TENSOR_DTYPE_F16), 2);
  fail_unless_equals_string (g_enum_get_value (dtypes,
          GST_CUDA_CACHE_TENSOR_DTYPE_F32)->value_nick, "float32");
  fail_unless (g_enum_get_value_by_nick (dtypes, "float64") == NULL);
  fail_unless_equals_string (g_enum_get_value (layouts,
          GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC)->value_nick, "nhwc");

  /* caps read a layout in any case and write it in capitals */
  fail_unless (info_from_string (&info, "other/tensors,format=static,"
          "num_tensors=1,types=float16,layout=nhwc,dimensions=3:4:5:1"));
  fail_unless_equals_int (info.dtype, GST_CUDA_CACHE_TENSOR_DTYPE_F16);
  fail_unless_equals_int (info.layout, GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC);
  caps = gst_cuda_cache_tensor_info_to_string (&info);
  fail_unless (strstr (caps, "NHWC") != NULL, "%s", caps);
  g_free (caps);
  fail_if (info_from_string (&info, "other/tensors,format=static,"
          "num_tensors=1,types=float64,layout=NHWC,dimensions=3:4:5:1"));
  fail_if (info_from_string (&info, "other/tensors,format=static,"
          "num_tensors=1,types=float16,layout=HWC,dimensions=3:4:5:1"));
  g_type_class_unref (dtypes);
  g_type_class_unref (layouts);
}

GST_END_TEST;

GST_START_TEST (test_meta_follows_full_copies_only)
{
  GstCudaCacheTensorInfo info;
  GstCudaCacheTensorMeta *meta;
  GstBuffer *buf, *copy, *region;

  fail_unless (gst_cuda_cache_tensor_info_init (&info,
          GST_CUDA_CACHE_TENSOR_DTYPE_U8, GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW, 1,
          3, 2, 2));
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_buffer_get_cuda_cache_tensor_meta (buf) == NULL);
  fail_unless (gst_buffer_add_cuda_cache_tensor_meta (buf, &info) != NULL);

  copy = gst_buffer_copy (buf);
  meta = gst_buffer_get_cuda_cache_tensor_meta (copy);
  fail_unless (meta != NULL);
  fail_unless (gst_cuda_cache_tensor_info_is_equal (&meta->info, &info));

  region = gst_buffer_copy_region (buf, GST_BUFFER_COPY_ALL, 0, 4);
  fail_unless (gst_buffer_get_cuda_cache_tensor_meta (region) == NULL);

  gst_buffer_unref (region);
  gst_buffer_unref (copy);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* A transform that writes a new buffer of the same size and knows nothing
 * of the project's metas: a tensor retyped, a frame converted */
typedef GstBaseTransform TestRetype;
typedef GstBaseTransformClass TestRetypeClass;

static GType test_retype_get_type (void);
G_DEFINE_TYPE (TestRetype, test_retype, GST_TYPE_BASE_TRANSFORM);

static GstFlowReturn
test_retype_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  (void) trans;
  (void) inbuf;
  gst_buffer_memset (outbuf, 0, 0, gst_buffer_get_size (outbuf));
  return GST_FLOW_OK;
}

/* any caps to any: what the harness sets on each side */
static GstCaps *
test_retype_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  (void) trans;
  (void) direction;
  (void) caps;
  return filter ? gst_caps_ref (filter) : gst_caps_new_any ();
}

static void
test_retype_class_init (TestRetypeClass * klass)
{
  static GstStaticPadTemplate sink = GST_STATIC_PAD_TEMPLATE ("sink",
      GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
  static GstStaticPadTemplate src = GST_STATIC_PAD_TEMPLATE ("src",
      GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &sink);
  gst_element_class_add_static_pad_template (element_class, &src);
  gst_element_class_set_static_metadata (element_class, "retype",
      "Filter/Converter", "writes a new buffer", "the tests");
  klass->transform_caps = test_retype_transform_caps;
  klass->transform = test_retype_transform;
}

static void
test_retype_init (TestRetype * self)
{
  (void) self;
}

/* @buf (transfer full), with a tensor meta, through the element @factory
 * from @in_caps to @out_caps: what comes out */
static GstBuffer *
through_transform (const gchar * factory, GstBuffer * buf,
    const gchar * in_caps, const gchar * out_caps)
{
  GstHarness *h = gst_harness_new (factory);
  GstBuffer *out;

  gst_harness_set_caps_str (h, in_caps, out_caps);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  gst_harness_teardown (h);

  return out;
}

/* The meta describes the memory's layout and type, as GstVideoMeta does,
 * and is tagged so: an element that makes a new buffer without knowing
 * the meta drops it (a uint8 tensor retyped to float32 carries no uint8
 * meta); a copy of the metadata without the memory drops it too */
GST_START_TEST (test_meta_dropped_by_converting_transforms)
{
  GstCudaCacheTensorInfo info;
  GstBuffer *buf, *out;

  fail_unless (gst_meta_api_type_has_tag (GST_CUDA_CACHE_TENSOR_META_API_TYPE,
          g_quark_from_static_string (GST_META_TAG_MEMORY_STR)));
  fail_unless (gst_meta_api_type_has_tag (GST_CUDA_CACHE_TENSOR_META_API_TYPE,
          g_quark_from_static_string (GST_CUDA_CACHE_META_TAG_TENSOR_STR)));
  fail_unless (gst_element_register (NULL, "testretype", GST_RANK_NONE,
          test_retype_get_type ()));

  fail_unless (gst_cuda_cache_tensor_info_init (&info,
          GST_CUDA_CACHE_TENSOR_DTYPE_U8, GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW, 1,
          3, 2, 4));
  buf = gst_buffer_new_allocate (NULL, info.size * 4, NULL);
  fail_unless (gst_buffer_add_cuda_cache_tensor_meta (buf, &info) != NULL);
  out = through_transform ("testretype", gst_buffer_ref (buf),
      "other/tensors,format=static,num_tensors=1,types=uint8,"
      "dimensions=(string)4:2:3:1",
      "other/tensors,format=static,num_tensors=1,types=float32,"
      "dimensions=(string)4:2:3:1");
  fail_unless (gst_buffer_get_cuda_cache_tensor_meta (out) == NULL,
      "the retyped tensor kept its uint8 meta");
  gst_buffer_unref (out);

  out = gst_buffer_new ();
  fail_unless (gst_buffer_copy_into (out, buf, GST_BUFFER_COPY_METADATA, 0,
          -1));
  fail_unless (gst_buffer_get_cuda_cache_tensor_meta (out) == NULL);
  gst_buffer_unref (out);

  /* a batch's slots and their pictures' geometry: dropped there too */
  buf = gst_buffer_make_writable (buf);
  fail_unless (gst_buffer_add_cuda_cache_batch_meta (buf, 4) != NULL);
  out = through_transform ("testretype", gst_buffer_ref (buf),
      "other/tensors,format=static,num_tensors=1,types=uint8,"
      "dimensions=(string)4:2:3:4",
      "other/tensors,format=static,num_tensors=1,types=uint8,"
      "dimensions=(string)2:4:3:4");
  fail_unless (gst_buffer_get_cuda_cache_batch_meta (out) == NULL,
      "the reshaped batch kept its slots' geometry");
  gst_buffer_unref (out);

  /* a video converter (which drops GstVideoMeta for its colorspace tag) */
  if (gst_registry_check_feature_version (gst_registry_get (), "videoconvert",
          1, 22, 0)) {
    out = through_transform ("videoconvert", gst_buffer_ref (buf),
        "video/x-raw,format=RGBA,width=4,height=2,framerate=30/1",
        "video/x-raw,format=BGRA,width=4,height=2,framerate=30/1");
    fail_unless (gst_buffer_get_cuda_cache_tensor_meta (out) == NULL,
        "videoconvert kept a tensor meta");
    gst_buffer_unref (out);
  } else {
    GST_INFO ("no videoconvert: its case left out");
  }
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* Caps are authoritative: a meta that is not the tensor the caps describe
 * (left by an element that changed the buffer) is refused with a message
 * that names both, not exported as the meta's type */
GST_START_TEST (test_dlpack_refuses_meta_the_caps_contradict)
{
  static const struct
  {
    const gchar *caps, *says;
  } cases[] = {
    {"other/tensors,format=static,num_tensors=1,types=float32,"
          "dimensions=(string)4:2:3:1", "its caps describe (float32 NCHW "
          "1x3x2x4"},
    {"other/tensors,format=static,num_tensors=1,types=uint8,"
          "dimensions=(string)4:2:1:1", "(uint8 NCHW 1x1x2x4"},
    {"other/tensors,format=static,num_tensors=1,types=int32,"
          "dimensions=(string)4:2:3:1", "no tensor the library describes"},
    {"video/x-raw,format=RGBA,width=4,height=2,framerate=30/1",
        "no tensor the library describes"},
  };
  GstCudaCacheTensorInfo info;
  GstBuffer *buf;
  DLManagedTensor *t;
  GError *error = NULL;
  guint i;

  fail_unless (gst_cuda_cache_tensor_info_init (&info,
          GST_CUDA_CACHE_TENSOR_DTYPE_U8, GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW, 1,
          3, 2, 4));
  buf = gst_buffer_new_allocate (NULL, info.size * 4, NULL);
  gst_buffer_add_cuda_cache_tensor_meta (buf, &info);

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GstCaps) caps = gst_caps_from_string (cases[i].caps);

    t = gst_cuda_cache_dlpack_export (buf, caps, GST_CUDA_CACHE_DLPACK_WHOLE,
        GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error);
    fail_unless (t == NULL, "%s exported", cases[i].caps);
    fail_unless (error && strstr (error->message, "the buffer's tensor meta "
            "(uint8 NCHW 1x3x2x4) is not what its caps describe") &&
        strstr (error->message, cases[i].says), "\"%s\" does not say \"%s\"",
        error ? error->message : "", cases[i].says);
    g_clear_error (&error);
  }

  /* the caps it is, or none: exported as the meta says */
  for (i = 0; i < 2; i++) {
    g_autoptr (GstCaps) caps = i ? NULL :
        gst_cuda_cache_tensor_info_to_caps (&info);

    t = gst_cuda_cache_dlpack_export (buf, caps, GST_CUDA_CACHE_DLPACK_WHOLE,
        GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error);
    fail_unless (t != NULL, "%s", error ? error->message : "");
    fail_unless_equals_int (t->dl_tensor.dtype.code, kDLUInt);
    fail_unless_equals_int (t->dl_tensor.dtype.bits, 8);
    fail_unless_equals_int (t->dl_tensor.shape[1], 3);
    gst_cuda_cache_dlpack_release (t);
  }
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* A tensor meta's info is public: one whose fields are not a packed tensor
 * of the library's (a type or layout past its enums, strides or a size
 * that are not its dims') is refused with the fields named, with or
 * without caps, before any of it is used */
GST_START_TEST (test_dlpack_refuses_meta_written_by_hand)
{
  GstCudaCacheTensorInfo info, broken[4];
  GstBuffer *buf;
  GError *error = NULL;
  guint i, with_caps;

  fail_unless (gst_cuda_cache_tensor_info_init (&info,
          GST_CUDA_CACHE_TENSOR_DTYPE_U8, GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW, 1,
          3, 2, 4));
  for (i = 0; i < G_N_ELEMENTS (broken); i++)
    broken[i] = info;
  broken[0].dtype = (GstCudaCacheTensorDType) 64;
  broken[1].layout = (GstCudaCacheTensorLayout) 7;
  broken[2].strides[0] = 4096;  /* rows far past the buffer */
  broken[3].size = info.size * 1000;

  for (i = 0; i < G_N_ELEMENTS (broken); i++) {
    for (with_caps = 0; with_caps < 2; with_caps++) {
      g_autoptr (GstCaps) caps = with_caps ?
          gst_cuda_cache_tensor_info_to_caps (&info) : NULL;
      DLManagedTensor *t;

      buf = gst_buffer_new_allocate (NULL, info.size, NULL);
      gst_buffer_add_cuda_cache_tensor_meta (buf, &broken[i]);
      t = gst_cuda_cache_dlpack_export (buf, caps, GST_CUDA_CACHE_DLPACK_WHOLE,
          GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error);
      fail_unless (t == NULL, "broken meta %u exported", i);
      fail_unless (error && strstr (error->message, "the buffer's tensor meta "
              "describes no packed tensor"), "%u: %s", i,
          error ? error->message : "no error");
      g_clear_error (&error);
      gst_buffer_unref (buf);
    }
  }
}

GST_END_TEST;

/* A 4-dimension tensor whose shape's product overflows 64 bits (each
 * dimension at most G_MAXINT, as the import takes them), or whose bytes
 * are above G_MAXSSIZE (no GstMemory holds them, no int64 stride reaches
 * them): refused as too large, the packed strides never computed past the
 * overflow (UBSan's signed overflow) */
GST_START_TEST (test_dlpack_import_overflowing_shape_refused)
{
  static const int64_t shapes[][4] = {
    {G_MAXINT, G_MAXINT, G_MAXINT, 3},
    /* 1.47e19 bytes: within a guint64, past a gint64 */
    {16973824, 33554440, 8576, 3},
  };
  static const int64_t strides[] = { 1, 1, 1, 1 };
  guint8 value = 0;
  GError *error = NULL;
  gint deleted = 0;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (shapes); i++) {
    fail_if (gst_cuda_cache_dlpack_import (test_tensor_new (&value, kDLUInt,
                8, 4, shapes[i], i ? NULL : strides, &deleted), NULL, NULL,
            &error));
    fail_unless (error != NULL && strstr (error->message, "too large"),
        "%s", error ? error->message : "");
    fail_unless_equals_int (deleted, 2 * i + 1);
    g_clear_error (&error);
    fail_if (gst_cuda_cache_dlpack_import (test_tensor_new (&value, kDLUInt,
                8, 4, shapes[i], NULL, &deleted), NULL, NULL, &error));
    fail_unless (error != NULL && strstr (error->message, "too large"),
        "%s", error ? error->message : "");
    fail_unless_equals_int (deleted, 2 * i + 2);
    g_clear_error (&error);
  }
}

GST_END_TEST;

/* System memory comes in without a copy and stays the producer's until
 * the buffer is freed; what cannot be described is refused, the deleter
 * called all the same. */
GST_START_TEST (test_dlpack_import_system_memory)
{
  static const int64_t frame_shape[] = { 4, 5, 3 };
  static const int64_t frame_strides[] = { 16, 3, 1 };
  static const int64_t tensor_shape[] = { 1, 3, 4, 5 };
  static const int64_t wide[] = { 1, 5, 4, 4 };
  guint8 pixels[4 * 16];
  gfloat values[60];
  GstCudaCacheTensorMeta *meta;
  GstVideoMeta *vmeta;
  GstStructure *s;
  GError *error = NULL;
  GstCaps *caps = NULL;
  GstBuffer *buf;
  GstMapInfo map;
  gint deleted = 0;

  /* a frame whose rows are 16 bytes apart */
  buf = gst_cuda_cache_dlpack_import (test_tensor_new (pixels, kDLUInt, 8, 3,
          frame_shape, frame_strides, &deleted), NULL, &caps, &error);
  fail_unless (buf != NULL, "%s", error ? error->message : "");
  s = gst_caps_get_structure (caps, 0);
  fail_unless_equals_string (gst_structure_get_string (s, "format"), "RGB");
  vmeta = gst_buffer_get_video_meta (buf);
  fail_unless (vmeta != NULL);
  fail_unless_equals_int (vmeta->stride[0], 16);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (map.data == pixels);
  gst_buffer_unmap (buf, &map);
  fail_unless_equals_int (deleted, 0);
  gst_buffer_unref (buf);
  fail_unless_equals_int (deleted, 1);
  gst_clear_caps (&caps);

  /* a packed NCHW tensor */
  buf = gst_cuda_cache_dlpack_import (test_tensor_new (values, kDLFloat, 32,
          4, tensor_shape, NULL, &deleted), NULL, &caps, NULL);
  fail_unless (buf != NULL);
  meta = gst_buffer_get_cuda_cache_tensor_meta (buf);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->info.layout, GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW);
  fail_unless_equals_int (meta->info.size, sizeof (values));
  fail_unless_equals_string (gst_structure_get_string (gst_caps_get_structure
          (caps, 0), "dimensions"), "5:4:3:1");
  gst_buffer_unref (buf);
  gst_clear_caps (&caps);
  fail_unless_equals_int (deleted, 2);

  /* refused, saying why; the deleter called */
  buf = gst_cuda_cache_dlpack_import (test_tensor_new (values, kDLFloat, 32,
          4, wide, NULL, &deleted), NULL, &caps, &error);
  fail_unless (buf == NULL && caps == NULL);
  fail_unless (error && strstr (error->message, "1 or 3 channels"), "%s",
      error ? error->message : "no error");
  g_clear_error (&error);
  buf = gst_cuda_cache_dlpack_import (test_tensor_new (values, kDLFloat, 64,
          4, tensor_shape, NULL, &deleted), NULL, NULL, &error);
  fail_unless (buf == NULL);
  fail_unless (error && strstr (error->message, "not float64"), "%s",
      error ? error->message : "no error");
  g_clear_error (&error);
  fail_unless_equals_int (deleted, 4);
}

GST_END_TEST;

/* System memory has no stream: nothing is queued on it, the export
 * without a wait is the export, and a consumer's stream waits for
 * nothing. */
GST_START_TEST (test_dlpack_streams_system_memory)
{
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=RGBA,width=4,"
      "height=2,framerate=30/1");
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 4 * 2 * 4, NULL);
  DLManagedTensor *a, *b;
  GError *error = NULL;

  fail_unless_equals_uint64 (gst_cuda_cache_dlpack_get_stream (buf), 0);
  fail_unless (gst_cuda_cache_dlpack_stream_wait (buf, 1, &error));
  fail_unless (error == NULL);
  a = gst_cuda_cache_dlpack_export (buf, caps, GST_CUDA_CACHE_DLPACK_WHOLE,
      GST_CUDA_CACHE_DLPACK_FLAG_NO_WAIT, &error);
  b = gst_cuda_cache_dlpack_export (buf, caps, GST_CUDA_CACHE_DLPACK_WHOLE,
      GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error);
  fail_unless (a != NULL && b != NULL, "%s", error ? error->message : "");
  fail_unless (a->dl_tensor.data == b->dl_tensor.data);
  fail_unless_equals_int (a->dl_tensor.device.device_type, kDLCPU);
  fail_unless_equals_int (a->dl_tensor.ndim, b->dl_tensor.ndim);
  gst_cuda_cache_dlpack_release (a);
  gst_cuda_cache_dlpack_release (b);
  gst_buffer_unref (buf);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* 10 and 12-bit samples in 16-bit words (P010_10LE, a 10-bit decoder's
 * frames) export plane by plane as the uint16 words they are stored in */
GST_START_TEST (test_dlpack_16bit_words_of_10bit_samples)
{
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=P010_10LE,"
      "width=4,height=2,framerate=30/1");
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 4 * 2 * 2 + 4 * 2, NULL);
  DLManagedTensor *t;
  GError *error = NULL;
  guint p;

  for (p = 0; p < 2; p++) {
    t = gst_cuda_cache_dlpack_export (buf, caps, p,
        GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error);
    fail_unless (t != NULL, "plane %u: %s", p, error ? error->message : "");
    fail_unless_equals_int (t->dl_tensor.dtype.code, kDLUInt);
    fail_unless_equals_int (t->dl_tensor.dtype.bits, 16);
    fail_unless_equals_int (t->dl_tensor.ndim, 3);
    /* Y: 2 rows of 4 samples; UV: 1 row of 2 pairs */
    fail_unless_equals_int (t->dl_tensor.shape[0], p == 0 ? 2 : 1);
    fail_unless_equals_int (t->dl_tensor.shape[1], p == 0 ? 4 : 2);
    fail_unless_equals_int (t->dl_tensor.shape[2], p == 0 ? 1 : 2);
    fail_unless_equals_int (t->dl_tensor.strides[0], 4);
    gst_cuda_cache_dlpack_release (t);
  }
  gst_buffer_unref (buf);
  gst_caps_unref (caps);
}

GST_END_TEST;

/* A picture meta's fields are public, so a producer may write what the
 * API refuses: a copy or a scale of such a buffer leaves the meta out,
 * without a critical; a scale whose picture no longer fits a gint is left
 * out too (its copy is kept); a valid one is scaled as the frame is */
GST_START_TEST (test_picture_meta_transforms_refuse_what_the_api_refuses)
{
  const GstCudaCachePictureGeometry valid = { {0, 140, 640, 360},
  {0, 0, 1280, 720}, 1280, 720, 0.5, 0.5
  };
  GstCudaCachePictureGeometry broken[4];
  GstVideoInfo in_info, out_info, huge_info;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (broken); i++)
    broken[i] = valid;
  broken[0].source.w = 0;
  broken[1].source.x = 1000;    /* past the 1280-wide frame */
  broken[2].scale_x = g_strtod ("inf", NULL);
  broken[3].picture.x = G_MAXINT - 1000;        /* twice that is no gint */
  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_RGBA, 640, 640);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGBA, 320, 320);
  gst_video_info_set_format (&huge_info, GST_VIDEO_FORMAT_RGBA, 1280, 1280);

  for (i = 0; i < G_N_ELEMENTS (broken) + 1; i++) {
    GstBuffer *buf = gst_buffer_new (), *copy = gst_buffer_new (), *whole;
    GstCudaCachePictureMeta *meta =
        gst_buffer_add_cuda_cache_picture_meta (buf, &valid);
    GstVideoMetaTransform down = { &in_info, &out_info };
    GstVideoMetaTransform up = { &in_info, &huge_info };
    GstCudaCachePictureMeta *scaled;

    fail_unless (meta != NULL);
    if (i < G_N_ELEMENTS (broken))
      meta->geometry = broken[i];
    /* what the API refuses with a critical, a transform drops quietly */
    fail_unless (meta->meta.info->transform_func (copy, &meta->meta, buf,
            gst_video_meta_transform_scale_get_quark (), i == 3 ? &up : &down));
    whole = gst_buffer_copy (buf);
    /* a region whose end is no gint still maps boxes back, in doubles */
    if (i == 1) {
      gdouble x0, y0, x1, y1;

      meta->geometry.source.x = G_MAXINT - 10;
      gst_cuda_cache_picture_geometry_box_to_source (&meta->geometry, 0, 0,
          640, 640, &x0, &y0, &x1, &y1);
      fail_unless (x0 == G_MAXINT - 10 && x1 == (gdouble) G_MAXINT + 1270);
    }
    scaled = gst_buffer_get_cuda_cache_picture_meta (copy);
    if (i < G_N_ELEMENTS (broken)) {
      fail_unless (scaled == NULL, "broken geometry %u scaled", i);
      /* the last is one the API takes, its scale alone does not fit */
      fail_unless ((gst_buffer_get_cuda_cache_picture_meta (whole) != NULL) ==
          (i == 3), "broken geometry %u copied", i);
    } else {
      fail_unless (scaled != NULL);
      fail_unless_equals_int (scaled->geometry.picture.y, 70);
      fail_unless_equals_int (scaled->geometry.picture.h, 180);
      fail_unless (scaled->geometry.scale_x == 0.25);
      fail_unless (gst_buffer_get_cuda_cache_picture_meta (whole) != NULL);
    }
    gst_buffer_unref (whole);
    gst_buffer_unref (copy);
    gst_buffer_unref (buf);
  }
}

GST_END_TEST;

/* A batch's slots: absent until filled, the map back of each present one
 * the same as its frame's picture meta gives, the strings deep-copied
 * with the buffer and freed with it, a region of the batch not the batch */
GST_START_TEST (test_batch_meta_slots)
{
  /* a 1280x720 frame letterboxed into 640x640: picture 640x360 at y 140 */
  const GstCudaCachePictureGeometry geometry = { {0, 140, 640, 360},
  {0, 0, 1280, 720}, 1280, 720, 0.5, 0.5
  };
  GstBuffer *frame = gst_buffer_new (), *batch = gst_buffer_new (), *copy;
  GstCudaCachePictureMeta *pmeta;
  GstCudaCacheBatchMeta *meta, *cmeta;
  const GstCudaCacheBatchSlot *slot;
  gdouble x0, y0, x1, y1, px0, py0, px1, py1;
  guint i;

  pmeta = gst_buffer_add_cuda_cache_picture_meta (frame, &geometry);
  fail_unless (pmeta != NULL);
  fail_unless (gst_buffer_add_cuda_cache_batch_meta (batch, 0) == NULL);
  meta = gst_buffer_add_cuda_cache_batch_meta (batch, 3);
  fail_unless (meta != NULL && meta->n_slots == 3);
  for (i = 0; i < 3; i++) {
    slot = gst_cuda_cache_batch_meta_get_slot (meta, i);
    fail_unless (!slot->present && slot->pad_name == NULL);
    fail_unless_equals_int (slot->roi_id, -1);
    fail_unless (!GST_CLOCK_TIME_IS_VALID (slot->pts));
  }
  fail_unless (gst_cuda_cache_batch_meta_get_slot (meta, 3) == NULL);

  fail_unless (gst_cuda_cache_batch_meta_set_slot (meta, 0, "sink_0",
          "stream-a", 40 * GST_MSECOND, 20 * GST_MSECOND, &pmeta->geometry,
          -1));
  fail_unless (gst_cuda_cache_batch_meta_set_slot (meta, 1, "sink_1",
          "stream-b", 0, GST_CLOCK_TIME_NONE, &pmeta->geometry, 7));
  fail_unless (gst_cuda_cache_batch_meta_set_slot (meta, 1, NULL, NULL, 0, 0,
          NULL, -1));
  fail_if (gst_cuda_cache_batch_meta_set_slot (meta, 3, "sink_3", NULL, 0, 0,
          &pmeta->geometry, -1));
  slot = gst_cuda_cache_batch_meta_get_slot (meta, 0);
  fail_unless (slot->present);
  fail_unless_equals_string (slot->pad_name, "sink_0");
  fail_unless_equals_string (slot->stream_id, "stream-a");
  fail_unless_equals_uint64 (slot->pts, 40 * GST_MSECOND);
  fail_unless_equals_uint64 (slot->duration, 20 * GST_MSECOND);
  fail_unless (!gst_cuda_cache_batch_meta_get_slot (meta, 1)->present);

  /* the slot's map is its frame's */
  fail_unless (gst_cuda_cache_picture_geometry_box_to_source (&slot->geometry,
          100, 100, 300, 240, &x0, &y0, &x1, &y1));
  fail_unless (gst_cuda_cache_picture_geometry_box_to_source (&pmeta->geometry,
          100, 100, 300, 240, &px0, &py0, &px1, &py1));
  fail_unless (x0 == px0 && y0 == py0 && x1 == px1 && y1 == py1);
  fail_unless (x0 == 200.0 && y0 == 0.0 && x1 == 600.0 && y1 == 200.0);
  /* on the bars, or an absent slot: nothing */
  fail_if (gst_cuda_cache_picture_geometry_box_to_source (&slot->geometry, 10,
          10, 50, 130, &x0, &y0, &x1, &y1));
  fail_if (gst_cuda_cache_picture_geometry_box_to_source
      (&gst_cuda_cache_batch_meta_get_slot (meta, 2)->geometry, 0, 0, 640, 640,
          &x0, &y0, &x1, &y1));
  fail_unless (x0 == 0.0 && y0 == 0.0 && x1 == 0.0 && y1 == 0.0);
  /* a NaN edge is no box: an empty one, no NaN out, in either call */
  {
    const gdouble nan = g_strtod ("nan", NULL);
    guint k;

    for (k = 0; k < 4; k++) {
      gdouble in[4] = { 100, 100, 300, 240 };

      in[k] = nan;
      fail_if (gst_cuda_cache_picture_geometry_box_to_source (&slot->geometry,
              in[0], in[1], in[2], in[3], &x0, &y0, &x1, &y1));
      fail_unless (x0 == x1 && y0 == y1 && !isnan (x0) && !isnan (y0));
      fail_if (gst_cuda_cache_picture_geometry_box_to_source (&pmeta->geometry,
              in[0], in[1], in[2], in[3], &px0, &py0, &px1, &py1));
      fail_unless (px0 == px1 && py0 == py1 && !isnan (px0) && !isnan (py0));
    }
  }

  copy = gst_buffer_copy (batch);
  cmeta = gst_buffer_get_cuda_cache_batch_meta (copy);
  fail_unless (cmeta != NULL && cmeta != meta && cmeta->n_slots == 3);
  fail_unless (cmeta->slots[0].pad_name != meta->slots[0].pad_name);
  fail_unless_equals_string (cmeta->slots[0].pad_name, "sink_0");
  fail_unless_equals_int (cmeta->slots[0].geometry.picture.y, 140);
  gst_buffer_unref (batch);
  fail_unless_equals_string (cmeta->slots[0].stream_id, "stream-a");
  gst_buffer_unref (copy);

  batch = gst_buffer_new_allocate (NULL, 64, NULL);
  gst_buffer_add_cuda_cache_batch_meta (batch, 2);
  copy = gst_buffer_copy_region (batch, GST_BUFFER_COPY_ALL, 0, 32);
  fail_unless (gst_buffer_get_cuda_cache_batch_meta (copy) == NULL);
  gst_buffer_unref (copy);
  gst_buffer_unref (batch);
  gst_buffer_unref (frame);
}

GST_END_TEST;

static Suite *
tensor_suite (void)
{
  Suite *s = suite_create ("tensor");
  TCase *tc = tcase_create ("general");

  cudacache_check_init ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_info_init_packs);
  tcase_add_test (tc, test_caps_round_trip);
  tcase_add_test (tc, test_caps_defaults_and_padding);
  tcase_add_test (tc, test_caps_refused);
  tcase_add_test (tc, test_strings);
  tcase_add_test (tc, test_meta_follows_full_copies_only);
  tcase_add_test (tc, test_dlpack_import_system_memory);
  tcase_add_test (tc, test_dlpack_import_overflowing_shape_refused);
  tcase_add_test (tc, test_batch_meta_slots);
  tcase_add_test (tc, test_picture_meta_transforms_refuse_what_the_api_refuses);
  tcase_add_test (tc, test_dlpack_streams_system_memory);
  tcase_add_test (tc, test_meta_dropped_by_converting_transforms);
  tcase_add_test (tc, test_dlpack_refuses_meta_the_caps_contradict);
  tcase_add_test (tc, test_dlpack_refuses_meta_written_by_hand);
  tcase_add_test (tc, test_dlpack_16bit_words_of_10bit_samples);

  return s;
}

GST_CHECK_MAIN (tensor);
