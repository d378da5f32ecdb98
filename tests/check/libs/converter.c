/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* GstCudaCacheConverter on system memory: what it refuses and why, config
 * that is parsed before it is committed, the letterbox rectangle, and the
 * CPU path checked at every pixel (edges, odd sizes, letterbox borders,
 * extreme factors both ways) against GstVideoResampler's LINEAR taps, the
 * definition of scaling (gstcudacachekernels-private.h). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <gst/video/video.h>
#include <gst/cudacache/cudacache.h>
#include "../cudacache-check.h"
#include "../cudacache-config.h"
#include "../cudacache-picture.h"
#include "../cudacache-definition.h"

#define TENSOR "other/tensors,format=static,num_tensors=1,"
#define RGBA_64x48 "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"

static GError *
converter_error (const gchar * in, const gchar * out, GstStructure * config)
{
  g_autoptr (GstCaps) in_caps = gst_caps_from_string (in);
  g_autoptr (GstCaps) out_caps = gst_caps_from_string (out);
  GstCudaCacheConverter *conv;
  GError *error = NULL;

  conv = gst_cuda_cache_converter_new (in_caps, out_caps, NULL, config, &error);
  fail_unless (conv == NULL, "%s -> %s was accepted", in, out);
  fail_unless (error != NULL);
  GST_INFO ("%s -> %s: %s", in, out, error->message);

  return error;
}

/* @in to @out with @config (taken) is refused with an error that says
 * @what, and not @not_what */
static void
assert_config_error_mentions (const gchar * in, const gchar * out,
    GstStructure * config, const gchar * what, const gchar * not_what)
{
  GError *error = converter_error (in, out, config);

  fail_unless (strstr (error->message, what) != NULL,
      "\"%s\" does not say \"%s\"", error->message, what);
  /* caps are printed as caps, never as a pointer (a size such as
   * 30000x30000 is not one) */
  fail_unless (!g_regex_match_simple ("0x[0-9a-f]{8}", error->message, 0, 0)
      &&
      strchr (error->message, '\a') == NULL,
      "\"%s\" prints a pointer", error->message);
  if (not_what)
    fail_unless (strstr (error->message, not_what) == NULL,
        "\"%s\" wrongly says \"%s\"", error->message, not_what);
  g_error_free (error);
}

static void
assert_error_mentions (const gchar * in, const gchar * out, const gchar * what,
    const gchar * not_what)
{
  assert_config_error_mentions (in, out, NULL, what, not_what);
}

GST_START_TEST (test_refusals_say_why)
{
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=float32,dimensions=64:48:4:1", "3 channels", NULL);
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=float32,dimensions=64:48:3:2", "batch 2", NULL);
  /* a shape of 3 channels and batch 1 that is too large is not a channel
   * or batch problem */
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=float32,dimensions=4294967295:4294967295:3:1",
      "too large", "channel");
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=float32,dimensions=4294967295:4294967295:3:1",
      "dimensions=(string)4294967295:4294967295:3:1", NULL);
  /* video caps GStreamer cannot lay out, and caps not fixed: the caps
   * named, as caps */
  assert_error_mentions (RGBA_64x48,
      "video/x-raw,format=RGBA,width=2000000,height=2000000",
      "too large to address", NULL);
  assert_error_mentions (RGBA_64x48,
      "video/x-raw,format=RGBA,width=2000000,height=2000000",
      "width=(int)2000000", NULL);
  assert_error_mentions ("video/x-raw,format=NV12,width=[1,64],height=48",
      RGBA_64x48, "input caps are not fixed", NULL);
  assert_error_mentions (RGBA_64x48, "EMPTY", "output caps are not fixed",
      NULL);
  assert_error_mentions ("ANY", RGBA_64x48, "input caps are not fixed", NULL);
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=float32,dimensions={ 64:48:3:1, 32:32:3:1 }", "fixed",
      NULL);
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=float32,layout=NCWH,dimensions=64:48:3:1",
      "layout must be NCHW or NHWC", "channel");
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=float64,dimensions=64:48:3:1", "types", "channel");
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=uint8,dimensions=64:x:3:1", "dimensions", "channel");
  /* five numbers are too many; fewer than four are padded with 1, as
   * NNStreamer reads them, and the message says so */
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=uint8,dimensions=64:48:3:1:1", "one to four numbers",
      "channel");
  /* unquoted, 64:48 is a flagset and 640 an int: the message says so and
   * what to write instead */
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=uint8,dimensions=64:48", "dimensions=(GstFlagSet)40:48 "
      "is not a string (GStreamer reads two numbers such as 64:48 as a "
      "flagset, one as an int): write it as a string of three or four "
      "numbers, e.g. dimensions=(string)640:640:3:1", NULL);
  assert_error_mentions (RGBA_64x48,
      TENSOR "types=uint8,dimensions=640", "dimensions=(gint)640 is not a "
      "string", NULL);
  assert_error_mentions ("video/x-raw,format=v210,width=64,height=48",
      RGBA_64x48, "v210", NULL);
  /* 4:2:2 packed is taken, not made */
  assert_error_mentions (RGBA_64x48,
      "video/x-raw,format=YUY2,width=64,height=48",
      "output format YUY2 is not one the converter makes", NULL);
  /* 16-bit 4:2:0 is taken, not made */
  assert_error_mentions (RGBA_64x48,
      "video/x-raw,format=P010_10LE,width=64,height=48",
      "output format P010_10LE is not one the converter makes", NULL);
}

GST_END_TEST;

/* Sizes of 0 or below, which GstVideoInfo takes from caps as given: a
 * clear refusal that names the size, never a crash (the CPU back end
 * read a NULL format info for a negative width) */
GST_START_TEST (test_sizes_below_one_refused)
{
  static const gchar *sizes[] = {
    "video/x-raw,format=NV12,width=-90,height=96",
    "video/x-raw,format=NV12,width=96,height=-90",
    "video/x-raw,format=RGBA,width=-64,height=-48",
    "video/x-raw,format=I420,width=0,height=48",
    "video/x-raw,format=RGBA,width=64,height=0",
    "video/x-raw,format=NV12,width=-2147483648,height=48",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    assert_error_mentions (sizes[i], RGBA_64x48, "input caps", NULL);
    assert_error_mentions (RGBA_64x48, sizes[i], "output caps", NULL);
  }
  assert_error_mentions ("video/x-raw,format=NV12,width=-90,height=96",
      RGBA_64x48, "-90x96", NULL);
}

GST_END_TEST;

/* A pixel aspect ratio of 0 or below has no picture shape: refused,
 * naming it, on either side */
GST_START_TEST (test_pixel_aspect_ratio_below_one_refused)
{
  static const gchar *pars[] = { "0/1", "-1/1", "1/-2" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pars); i++) {
    gchar *caps = g_strdup_printf ("video/x-raw,format=RGBA,width=64,"
        "height=48,pixel-aspect-ratio=%s", pars[i]);

    assert_error_mentions (caps, RGBA_64x48, "input caps give a "
        "pixel-aspect-ratio of", NULL);
    assert_error_mentions (RGBA_64x48, caps, "output caps give a "
        "pixel-aspect-ratio of", NULL);
    g_free (caps);
  }
  assert_error_mentions ("video/x-raw,format=RGBA,width=64,height=48,"
      "pixel-aspect-ratio=0/1", RGBA_64x48, "pixel-aspect-ratio of 0/1; it "
      "must be above 0", NULL);
}

GST_END_TEST;

static GstCudaCacheConverter *converter_new (const gchar * in,
    const gchar * out, GstStructure * config);

/* dimensions=W:H:3 is W:H:3:1: the outer dimensions left out are 1 */
static GstCudaCacheConverter *
converter_of (const gchar * in, const gchar * out)
{
  g_autoptr (GstCaps) in_caps = gst_caps_from_string (in);
  g_autoptr (GstCaps) out_caps = gst_caps_from_string (out);
  GError *error = NULL;
  GstCudaCacheConverter *conv =
      gst_cuda_cache_converter_new (in_caps, out_caps, NULL, NULL, &error);

  fail_unless (conv != NULL, "%s", error ? error->message : "");
  return conv;
}

/* The batch refused, saying @what; where @slot is not -1, as that slot's
 * failure (GST_CUDA_CACHE_BATCH_SLOT_ERROR, the slot its code) */
static void
assert_batch_error (GstCudaCacheConverter ** convs, GstBuffer ** ins,
    guint n, GstBuffer * out, const gchar * what, gint slot)
{
  GError *error = NULL;

  fail_if (gst_cuda_cache_converter_convert_batch (convs, ins, n, out, NULL,
          NULL, &error), "a batch that %s was converted", what);
  fail_unless (error != NULL && strstr (error->message, what) != NULL,
      "\"%s\" does not say \"%s\"", error ? error->message : "", what);
  if (slot >= 0) {
    fail_unless (error->domain == GST_CUDA_CACHE_BATCH_SLOT_ERROR,
        "\"%s\" is not a slot's error", error->message);
    fail_unless_equals_int (error->code, slot);
  } else {
    fail_if (error->domain == GST_CUDA_CACHE_BATCH_SLOT_ERROR);
  }
  g_error_free (error);
}

/* A batch of system memory: every slot its converter's conversion alone
 * of its frame, absent slots zero; and what a batch refuses, saying why */
GST_START_TEST (test_batch_of_system_memory)
{
  GstCudaCacheConverter *f32 = converter_of (RGBA_64x48,
      TENSOR "types=float32,dimensions=(string)20:10:3:1");
  GstCudaCacheConverter *f32_nv12 = converter_of ("video/x-raw,format=NV12,"
      "width=37,height=23,framerate=30/1",
      TENSOR "types=float32,dimensions=(string)20:10:3:1");
  GstCudaCacheConverter *u8 = converter_of (RGBA_64x48,
      TENSOR "types=uint8,dimensions=(string)20:10:3:1");
  GstCudaCacheConverter *video = converter_of (RGBA_64x48,
      "video/x-raw,format=RGB,width=20,height=10");
  GstVideoInfo rgba, nv12;
  GstBuffer *a = cudacache_make_picture (GST_VIDEO_FORMAT_RGBA, 64, 48, &rgba);
  GstBuffer *b = cudacache_make_picture (GST_VIDEO_FORMAT_NV12, 37, 23, &nv12);
  gsize slot = 20 * 10 * 3 * 4;
  GstBuffer *batch = gst_buffer_new_allocate (NULL, 3 * slot, NULL);
  GstBuffer *small = gst_buffer_new_allocate (NULL, 3 * slot - 1, NULL);
  GstBuffer *ins[3] = { a, NULL, b };
  GstCudaCacheConverter *convs[3] = { f32, NULL, f32_nv12 };
  GError *error = NULL;
  GstMapInfo map;
  guint i, launches = 7;

  gst_buffer_memset (batch, 0, 0xa5, 3 * slot);
  fail_unless (gst_cuda_cache_converter_convert_batch (convs, ins, 3, batch,
          NULL, &launches, &error), "%s", error ? error->message : "");
  fail_unless_equals_int (launches, 0);
  fail_unless (gst_buffer_map (batch, &map, GST_MAP_READ));
  for (i = 0; i < 3; i++) {
    const guint8 *got = map.data + i * slot;
    gsize k;

    if (!convs[i]) {
      for (k = 0; k < slot; k++)
        fail_unless (got[k] == 0, "absent slot not zero at byte %"
            G_GSIZE_FORMAT, k);
    } else {
      GstBuffer *alone = gst_buffer_new_allocate (NULL, slot, NULL);
      GstMapInfo amap;

      fail_unless (gst_cuda_cache_converter_convert_buffer (convs[i], ins[i],
              alone, NULL, &error), "%s", error ? error->message : "");
      fail_unless (gst_buffer_map (alone, &amap, GST_MAP_READ));
      fail_unless (memcmp (got, amap.data, slot) == 0,
          "slot %u differs from its conversion alone", i);
      gst_buffer_unmap (alone, &amap);
      gst_buffer_unref (alone);
    }
  }
  gst_buffer_unmap (batch, &map);
  /* the converters' slots are both wrapped and converted again: a
   * converter is not tied to one batch */
  fail_unless (gst_cuda_cache_converter_convert_batch (convs, ins, 3, batch,
          NULL, NULL, &error), "%s", error ? error->message : "");

  assert_batch_error (convs, ins, 3, small, "the batch holds", -1);
  convs[0] = u8;
  assert_batch_error (convs, ins, 3, batch, "another tensor", 2);
  convs[0] = video;
  assert_batch_error (convs, ins, 3, batch, "makes video", 0);
  convs[0] = convs[2] = NULL;
  assert_batch_error (convs, ins, 3, batch, "without a frame", -1);

  gst_buffer_unref (batch);
  gst_buffer_unref (small);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_object_unref (f32);
  gst_object_unref (f32_nv12);
  gst_object_unref (u8);
  gst_object_unref (video);
}

GST_END_TEST;

/* A launched batch keeps what it reads (its converters and frames) until
 * it is written, whoever drops them meanwhile; waiting again gives the same
 * answer; the last reference waits where nobody did; a refused launch
 * gives no launch */
GST_START_TEST (test_batch_launch_keeps_what_it_reads)
{
  GstCudaCacheConverter *conv = converter_of (RGBA_64x48,
      TENSOR "types=uint8,dimensions=(string)20:10:3:1");
  GstVideoInfo rgba;
  GstBuffer *frame = cudacache_make_picture (GST_VIDEO_FORMAT_RGBA, 64, 48,
      &rgba);
  gsize slot = 20 * 10 * 3;
  GstBuffer *batch = gst_buffer_new_allocate (NULL, 2 * slot, NULL);
  GstBuffer *alone = gst_buffer_new_allocate (NULL, slot, NULL);
  GstBuffer *ins[2] = { frame, NULL };
  GstCudaCacheConverter *convs[2] = { conv, NULL };
  GstCudaCacheBatchLaunch *launch, *again;
  GError *error = NULL;
  GstMapInfo map, amap;
  guint launches = 7;

  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, frame, alone,
          NULL, &error), "%s", error ? error->message : "");
  gst_buffer_memset (batch, 0, 0xa5, 2 * slot);
  launch = gst_cuda_cache_converter_launch_batch (convs, ins, 2, batch, NULL,
      &launches, &error);
  fail_unless (launch != NULL, "%s", error ? error->message : "");
  fail_unless_equals_int (launches, 0);
  /* the launch holds the converter and the frame */
  fail_unless_equals_int (GST_OBJECT_REFCOUNT_VALUE (conv), 2);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (frame), 2);
  again = gst_cuda_cache_batch_launch_ref (launch);
  gst_cuda_cache_batch_launch_unref (again);

  fail_unless (gst_cuda_cache_batch_launch_wait (launch, &error), "%s",
      error ? error->message : "");
  fail_unless (gst_cuda_cache_batch_launch_wait (launch, NULL));
  /* written: what it read is let go at once */
  fail_unless_equals_int (GST_OBJECT_REFCOUNT_VALUE (conv), 1);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (frame), 1);
  fail_unless (gst_buffer_map (batch, &map, GST_MAP_READ));
  fail_unless (gst_buffer_map (alone, &amap, GST_MAP_READ));
  fail_unless (memcmp (map.data, amap.data, slot) == 0);
  fail_unless (map.data[slot] == 0 && map.data[2 * slot - 1] == 0);
  gst_buffer_unmap (alone, &amap);
  gst_buffer_unmap (batch, &map);
  gst_cuda_cache_batch_launch_unref (launch);

  /* dropped without a wait: the last reference waits, then lets go */
  launch = gst_cuda_cache_converter_launch_batch (convs, ins, 2, batch, NULL,
      NULL, &error);
  fail_unless (launch != NULL, "%s", error ? error->message : "");
  gst_cuda_cache_batch_launch_unref (launch);
  fail_unless_equals_int (GST_OBJECT_REFCOUNT_VALUE (conv), 1);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (frame), 1);

  /* refused: no launch, the error says why, nothing held */
  convs[0] = NULL;
  fail_if (gst_cuda_cache_converter_launch_batch (convs, ins, 2, batch, NULL,
          NULL, &error));
  fail_unless (error != NULL && strstr (error->message, "without a frame"),
      "%s", error ? error->message : "");
  g_clear_error (&error);
  fail_unless_equals_int (GST_MINI_OBJECT_REFCOUNT_VALUE (frame), 1);

  gst_buffer_unref (alone);
  gst_buffer_unref (batch);
  gst_buffer_unref (frame);
  gst_object_unref (conv);
}

GST_END_TEST;

/* A frame's geometry is its own: asked before the frame is converted, or
 * after another frame with another crop was, it is what converting it
 * gives; asking changes nothing of the converter */
GST_START_TEST (test_geometry_is_the_frames_own)
{
  GstCudaCacheConverter *conv = converter_new ("video/x-raw,format=RGBA,"
      "width=64,height=48", TENSOR "types=uint8,dimensions=(string)32:32:3:1",
      gst_structure_new ("c", GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX,
          G_TYPE_BOOLEAN, TRUE, NULL));
  GstVideoInfo rgba;
  GstBuffer *frame = cudacache_make_picture (GST_VIDEO_FORMAT_RGBA, 64, 48,
      &rgba);
  GstBuffer *cropped = gst_buffer_copy (frame);
  GstBuffer *out = gst_buffer_new_allocate (NULL, 32 * 32 * 3, NULL);
  GstCudaCachePictureGeometry before, after, whole, again;
  GstVideoCropMeta *meta;
  GError *error = NULL;

  gst_buffer_add_video_meta (cropped, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_RGBA, 64, 48);
  meta = gst_buffer_add_video_crop_meta (cropped);
  meta->x = 3;
  meta->y = 5;
  meta->width = 40;
  meta->height = 11;

  fail_unless (gst_cuda_cache_converter_get_geometry (conv, NULL, &whole,
          NULL));
  fail_unless (gst_cuda_cache_converter_get_geometry (conv, cropped, &before,
          &error), "%s", error ? error->message : "");
  fail_unless_equals_int (before.source_width, 40);
  fail_unless_equals_int (before.source_height, 11);
  fail_unless_equals_int (before.picture.w, 32);
  fail_unless (before.picture.h < 32);
  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, cropped, out,
          NULL, &error), "%s", error ? error->message : "");
  fail_unless (gst_cuda_cache_converter_get_geometry (conv, cropped, &after,
          NULL));
  fail_unless (memcmp (&before, &after, sizeof (before)) == 0);
  /* the whole frame's, while the converter is set up for the crop */
  fail_unless (gst_cuda_cache_converter_get_geometry (conv, frame, &again,
          NULL));
  fail_unless (memcmp (&whole, &again, sizeof (whole)) == 0);
  fail_unless_equals_int (whole.source_width, 64);
  fail_unless_equals_int (whole.picture.h, 24);

  gst_buffer_unref (out);
  gst_buffer_unref (cropped);
  gst_buffer_unref (frame);
  gst_object_unref (conv);
}

GST_END_TEST;

GST_START_TEST (test_three_dimensions_mean_batch_one)
{
  GstCudaCacheConverter *conv = converter_new (RGBA_64x48,
      TENSOR "types=float32,dimensions=64:48:3", NULL);

  gst_object_unref (conv);
}

GST_END_TEST;

static GstCudaCacheConverter *
converter_new (const gchar * in, const gchar * out, GstStructure * config)
{
  g_autoptr (GstCaps) in_caps = gst_caps_from_string (in);
  g_autoptr (GstCaps) out_caps = gst_caps_from_string (out);
  GstCudaCacheConverter *conv;
  GError *error = NULL;

  conv = gst_cuda_cache_converter_new (in_caps, out_caps, NULL, config, &error);
  fail_unless (conv != NULL, "%s -> %s: %s", in, out,
      error ? error->message : "no error");

  return conv;
}

/* The presets' CPU path: @method's config */
static GstStructure *
method_config (GstCudaCacheResizeMethod method)
{
  return gst_structure_new ("c", GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
      GST_TYPE_CUDA_CACHE_RESIZE_METHOD, method, NULL);
}

/* The presets' RGB frame, which a tensor, GRAY8, NV12 and I420 are packed
 * from, is refused before anything is allocated where a plane of it is
 * 2 GiB or more (GstVideoConverter's limit, which once converted from
 * it). Packed RGB output, stored by the resampler, and LINEAR's own loops
 * address any frame GStreamer lays out. */
GST_START_TEST (test_cpu_path_refuses_frames_past_2_gib)
{
  GstCudaCacheConverter *conv;

  assert_config_error_mentions ("video/x-raw,format=NV12,width=1920,"
      "height=1080", "video/x-raw,format=GRAY8,width=30000,height=30000",
      method_config (GST_CUDA_CACHE_RESIZE_METHOD_BILINEAR),
      "the RGB frame the picture is resampled into of 30000x30000 RGB", NULL);
  assert_config_error_mentions ("video/x-raw,format=NV12,width=1920,"
      "height=1080", "video/x-raw,format=NV12,width=30000,height=30000",
      method_config (GST_CUDA_CACHE_RESIZE_METHOD_AREA), "2 GiB", NULL);
  /* the 8-bit RGB frame a preset's tensor is packed from: 27000 x 81000
   * bytes */
  assert_config_error_mentions ("video/x-raw,format=NV12,width=1920,"
      "height=1080", TENSOR "types=uint8,layout=NHWC,"
      "dimensions=3:27000:27000:1",
      method_config (GST_CUDA_CACHE_RESIZE_METHOD_BILINEAR),
      "the RGB frame the picture is resampled into", NULL);
  /* 4 GiB and more: GStreamer lays out no such frame at all */
  assert_config_error_mentions ("video/x-raw,format=NV12,width=1920,"
      "height=1080", TENSOR "types=float32,layout=NHWC,"
      "dimensions=3:60000:60000:1",
      method_config (GST_CUDA_CACHE_RESIZE_METHOD_NEAREST),
      "60000x60000 RGB frame the picture is resampled into", NULL);

  /* the presets' 30000x30000 RGBA and BGR taken (the output frame is only
   * described: the CPU path allocates nothing for it) */
  conv = converter_new ("video/x-raw,format=NV12,width=64,height=48",
      "video/x-raw,format=RGBA,width=30000,height=30000",
      method_config (GST_CUDA_CACHE_RESIZE_METHOD_BILINEAR));
  gst_object_unref (conv);
  conv = converter_new ("video/x-raw,format=NV12,width=64,height=48",
      "video/x-raw,format=BGR,width=30000,height=30000",
      method_config (GST_CUDA_CACHE_RESIZE_METHOD_AREA));
  gst_object_unref (conv);
  /* LINEAR: 30000x30000 RGBA and a 24000x24000 NV12 input taken */
  conv = converter_new ("video/x-raw,format=NV12,width=1920,height=1080",
      "video/x-raw,format=RGBA,width=30000,height=30000", NULL);
  gst_object_unref (conv);
  conv = converter_new ("video/x-raw,format=NV12,width=24000,height=24000",
      RGBA_64x48, NULL);
  gst_object_unref (conv);
}

GST_END_TEST;

/* Buffers too small for their caps are refused with an error that names
 * the buffer and both sizes; nothing is written past them. */
GST_START_TEST (test_small_buffers_refused)
{
  static const struct
  {
    gsize in_size, out_size;
    const gchar *says;
  } cases[] = {
    {100, 32 * 32 * 4, "the input buffer (100 bytes) as a 64x48 NV12 frame "
          "of 4608 bytes"},
    {64 * 48 * 3 / 2, 100, "the output buffer (100 bytes) as a 32x32 RGBA "
          "frame of 4096 bytes"},
  };
  GstCudaCacheConverter *conv =
      converter_new ("video/x-raw,format=NV12,width=64,height=48",
      "video/x-raw,format=RGBA,width=32,height=32", NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstBuffer *in = gst_buffer_new_allocate (NULL, cases[i].in_size, NULL);
    GstBuffer *out = gst_buffer_new_allocate (NULL, cases[i].out_size, NULL);
    GError *error = NULL;

    gst_buffer_memset (in, 0, 128, cases[i].in_size);
    fail_if (gst_cuda_cache_converter_convert_buffer (conv, in, out, NULL,
            &error));
    fail_unless (error != NULL);
    fail_unless (strstr (error->message, cases[i].says) != NULL,
        "\"%s\" does not say \"%s\"", error->message, cases[i].says);
    g_error_free (error);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_object_unref (conv);
}

GST_END_TEST;

/* A video meta says where planes are, not that the buffer holds them: a
 * meta whose rows reach past the memory (a stride too large for the
 * buffer, or a negative one running before it) is refused with the plane
 * named, on either side, before anything is read or written */
GST_START_TEST (test_video_meta_past_the_buffer_refused)
{
  static const struct
  {
    gboolean output;
    gint stride;
    gsize offset;
    const gchar *says;
  } cases[] = {
    /* NV12 64x48 in 4608 bytes: a chroma plane of stride 128 ends past it */
    {FALSE, 128, 3072, "the input buffer's video meta puts plane 1 (24 rows "
          "of 64 bytes, stride 128)"},
    /* rows running upwards from the chroma plane's offset past the start */
    {FALSE, -64, 1000, "the input buffer's video meta puts plane 1 (24 rows "
          "of 64 bytes, stride -64) at offset 1000"},
    /* RGBA 32x32 output in 4096 bytes, rows of 256 */
    {TRUE, 256, 0, "the output buffer's video meta puts plane 0 (32 rows "
          "of 128 bytes, stride 256)"},
  };
  GstCudaCacheConverter *conv =
      converter_new ("video/x-raw,format=NV12,width=64,height=48",
      "video/x-raw,format=RGBA,width=32,height=32", NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstBuffer *in = gst_buffer_new_allocate (NULL, 64 * 48 * 3 / 2, NULL);
    GstBuffer *out = gst_buffer_new_allocate (NULL, 32 * 32 * 4, NULL);
    GError *error = NULL;

    gst_buffer_memset (in, 0, 128, 64 * 48 * 3 / 2);
    gst_buffer_memset (out, 0, 7, 32 * 32 * 4);
    if (cases[i].output) {
      gsize offset[GST_VIDEO_MAX_PLANES] = { cases[i].offset, };
      gint stride[GST_VIDEO_MAX_PLANES] = { cases[i].stride, };

      gst_buffer_add_video_meta_full (out, GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_FORMAT_RGBA, 32, 32, 1, offset, stride);
    } else {
      gsize offset[GST_VIDEO_MAX_PLANES] = { 0, cases[i].offset };
      gint stride[GST_VIDEO_MAX_PLANES] = { 64, cases[i].stride };

      gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_FORMAT_NV12, 64, 48, 2, offset, stride);
    }
    fail_if (gst_cuda_cache_converter_convert_buffer (conv, in, out, NULL,
            &error));
    fail_unless (error != NULL);
    fail_unless (strstr (error->message, cases[i].says) != NULL,
        "\"%s\" does not say \"%s\"", error->message, cases[i].says);
    g_error_free (error);
    /* nothing was written */
    fail_unless (gst_buffer_memcmp (out, 0, (guint8[]) {
            7}
            , 1) == 0);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_object_unref (conv);
}

GST_END_TEST;

/* GstCudaCacheConverter's config on system memory: a refused config
 * changes nothing, the config is one canonical record of every option
 * (as get_config () and check_config () give it), and a refused option is
 * named with the value given and what it takes. */

GST_START_TEST (test_rejected_config_changes_nothing)
{
  GstCudaCacheConverter *conv = converter_new (RGBA_64x48,
      TENSOR "types=float32,dimensions=32:32:3:1",
      gst_structure_from_string ("c, GstCudaCacheConverter.letterbox=true",
          NULL));
  GstStructure *before, *after;
  GstVideoRectangle rect;
  GError *error = NULL;

  before = gst_cuda_cache_converter_get_config (conv);
  fail_if (gst_cuda_cache_converter_reconfigure (conv, NULL, NULL,
          gst_structure_from_string ("c, GstCudaCacheConverter.letterbox="
              "false, GstCudaCacheConverter.std=<1.0, 0.0, 1.0>", NULL),
          &error));
  fail_unless (error != NULL && strstr (error->message, "from 1e-12"));
  g_clear_error (&error);
  after = gst_cuda_cache_converter_get_config (conv);
  fail_unless (gst_structure_is_equal (before, after));
  /* the letterbox, from the config that stayed */
  fail_unless (test_picture_rect (conv, &rect));
  fail_unless_equals_int (rect.h, 24);

  gst_structure_free (before);
  gst_structure_free (after);
  gst_object_unref (conv);
}

GST_END_TEST;

/* The config is one record of the options: what a converter is given,
 * written as gst-launch and Python write it (enum nicks as strings, ints
 * for doubles, one fill for three), comes back canonical and whole from
 * get_config, which gst_cuda_cache_converter_check_config () makes of it
 * too, and which makes the same converter again */
GST_START_TEST (test_config_is_one_record_of_every_option)
{
  static const gchar *const options[] = {
    GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
    GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
    GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE,
    GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER,
    GST_CUDA_CACHE_CONVERTER_OPT_SCALE, GST_CUDA_CACHE_CONVERTER_OPT_MEAN,
    GST_CUDA_CACHE_CONVERTER_OPT_STD, GST_CUDA_CACHE_CONVERTER_OPT_SRC_X,
    GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y, GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH,
    GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT
  };
  const gchar *given = "c, GstCudaCacheConverter.method=area, "
      "GstCudaCacheConverter.letterbox=true, "
      "GstCudaCacheConverter.letterbox-position=top-left, "
      "GstCudaCacheConverter.channel-order=bgr, "
      "GstCudaCacheConverter.fill-value=114, GstCudaCacheConverter.scale=0.5, "
      "GstCudaCacheConverter.mean=<1, 2, 3>, "
      "GstCudaCacheConverter.std=<0.25, 2, 3>, "
      "GstCudaCacheConverter.src-x=2, GstCudaCacheConverter.src-y=4, "
      "GstCudaCacheConverter.src-width=32, GstCudaCacheConverter.src-height=24";
  g_autoptr (GstCaps) in_caps = gst_caps_from_string (RGBA_64x48);
  g_autoptr (GstCaps) out_caps = gst_caps_from_string (RGBA_64x48);
  GstStructure *config, *checked, *again, *defaults, *kept;
  GstCudaCacheConverter *conv, *conv2;
  const GValue *fill, *mean;
  GError *error = NULL;
  gint method, position, order, v;
  guint i;

  conv = gst_cuda_cache_converter_new (in_caps, out_caps, NULL,
      gst_structure_from_string (given, NULL), &error);
  fail_unless (conv != NULL, "%s", error ? error->message : "");
  config = gst_cuda_cache_converter_get_config (conv);
  fail_unless_equals_int (gst_structure_n_fields (config),
      G_N_ELEMENTS (options));
  for (i = 0; i < G_N_ELEMENTS (options); i++)
    fail_unless (gst_structure_has_field (config, options[i]), "%s",
        options[i]);
  fail_unless (gst_structure_get_enum (config,
          GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
          GST_TYPE_CUDA_CACHE_RESIZE_METHOD, &method));
  fail_unless_equals_int (method, GST_CUDA_CACHE_RESIZE_METHOD_AREA);
  fail_unless (gst_structure_get_enum (config,
          GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
          GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION, &position));
  fail_unless_equals_int (position, GST_CUDA_CACHE_LETTERBOX_POSITION_TOP_LEFT);
  fail_unless (gst_structure_get_enum (config,
          GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER,
          GST_TYPE_CUDA_CACHE_CHANNEL_ORDER, &order));
  fail_unless_equals_int (order, GST_CUDA_CACHE_CHANNEL_ORDER_BGR);
  fill = gst_structure_get_value (config,
      GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE);
  fail_unless (GST_VALUE_HOLDS_ARRAY (fill) &&
      gst_value_array_get_size (fill) == 3);
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (g_value_get_uint (gst_value_array_get_value (fill,
                i)), 114);
  mean = gst_structure_get_value (config, GST_CUDA_CACHE_CONVERTER_OPT_MEAN);
  for (i = 0; i < 3; i++)
    fail_unless_equals_float (g_value_get_double (gst_value_array_get_value
            (mean, i)), i + 1.0);
  fail_unless (gst_structure_get_int (config,
          GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT, &v));
  fail_unless_equals_int (v, 24);
  fail_unless (gst_structure_get_int (config,
          GST_CUDA_CACHE_CONVERTER_OPT_SRC_X, &v));
  fail_unless_equals_int (v, 2);

  /* the library's one check makes the same of what was given */
  checked = gst_structure_from_string (given, NULL);
  fail_unless (gst_cuda_cache_converter_check_config (checked, &error), "%s",
      error ? error->message : "");
  fail_unless (gst_structure_is_equal (checked, config));
  /* and a converter made from get_config is the same converter */
  conv2 = gst_cuda_cache_converter_new (in_caps, out_caps, NULL,
      gst_structure_copy (config), &error);
  fail_unless (conv2 != NULL, "%s", error ? error->message : "");
  again = gst_cuda_cache_converter_get_config (conv2);
  fail_unless (gst_structure_is_equal (again, config));

  /* nothing given: every option at its default, as a new converter has */
  defaults = gst_structure_new_empty ("c");
  fail_unless (gst_cuda_cache_converter_check_config (defaults, NULL));
  fail_unless_equals_int (gst_structure_n_fields (defaults),
      G_N_ELEMENTS (options));
  fail_unless (gst_structure_get_enum (defaults,
          GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
          GST_TYPE_CUDA_CACHE_RESIZE_METHOD, &method));
  fail_unless_equals_int (method, GST_CUDA_CACHE_CONVERTER_DEFAULT_METHOD);

  /* a refused config is left as it was */
  kept = gst_structure_from_string ("c, GstCudaCacheConverter.method=area, "
      "GstCudaCacheConverter.scale=(string)x", NULL);
  fail_if (gst_cuda_cache_converter_check_config (kept, &error));
  fail_unless (error != NULL);
  g_clear_error (&error);
  fail_unless_equals_int (gst_structure_n_fields (kept), 2);
  fail_unless_equals_string (gst_structure_get_string (kept,
          GST_CUDA_CACHE_CONVERTER_OPT_METHOD), "area");

  gst_structure_free (kept);
  gst_structure_free (defaults);
  gst_structure_free (again);
  gst_structure_free (checked);
  gst_structure_free (config);
  gst_object_unref (conv2);
  gst_object_unref (conv);
}

GST_END_TEST;

/* A refused option is named, with the value given and what it takes */
GST_START_TEST (test_config_errors_say_option_value_and_range)
{
  static const struct
  {
    const gchar *config;
    const gchar *says;
  } cases[] = {
    {"c, GstCudaCacheConverter.fill-value=(uint)300",
        "GstCudaCacheConverter.fill-value=(guint)300 is not valid: it takes a "
          "whole number from 0 to 255, or a GstValueArray of three (red, "
          "green, blue)"},
    {"c, GstCudaCacheConverter.fill-value=(int)-1",
        "GstCudaCacheConverter.fill-value=(gint)-1 is not valid: it takes a "
          "whole number from 0 to 255"},
    {"c, GstCudaCacheConverter.fill-value=<(uint)1, (uint)2>",
        "GstCudaCacheConverter.fill-value=(GstValueArray)< (uint)1, "
          "(uint)2 > is not valid: it takes a whole number from 0 to 255, or "
          "a GstValueArray of three"},
    {"c, GstCudaCacheConverter.fill-value=<(uint)1, (uint)2, (uint)256>",
        "is not valid: it takes a whole number from 0 to 255, or a "
          "GstValueArray of three"},
    {"c, GstCudaCacheConverter.fill-value=<1.5, 2.0, 3.0>",
        "is not valid: it takes a whole number from 0 to 255, or a "
          "GstValueArray of three"},
    {"c, GstCudaCacheConverter.fill-value=(string)114",
        "is not valid: it takes a whole number from 0 to 255"},
    /* an enum takes its nick as a string, and says which where not */
    {"c, GstCudaCacheConverter.letterbox-position=(string)middle",
        "GstCudaCacheConverter.letterbox-position=(gchararray)middle is "
          "not valid: it takes a GstCudaCacheLetterboxPosition (center or "
          "top-left), or its name as a string"},
    {"c, GstCudaCacheConverter.method=(string)bicubic",
        "GstCudaCacheConverter.method=(gchararray)bicubic is not valid: it "
          "takes a GstCudaCacheResizeMethod (linear, nearest, bilinear, area "
          "or antialias), or its name as a string"},
    {"c, GstCudaCacheConverter.channel-order=(int)1",
        "GstCudaCacheConverter.channel-order=(gint)1 is not valid: it "
          "takes a GstCudaCacheChannelOrder (rgb or bgr), or its name as a "
          "string"},
    /* a name without its prefix, or misspelt, is no option */
    {"c, method=(string)area",
        "method is no option of the converter's config; the options are "
          "GstCudaCacheConverter.letterbox, GstCudaCacheConverter.method, "},
    {"c, GstCudaCacheConverter.letterbx=(boolean)true",
        "GstCudaCacheConverter.letterbx is no option"},
    {"c, GstCudaCacheConverter.letterbox=(string)yes",
        "GstCudaCacheConverter.letterbox=(gchararray)yes is not valid: it "
          "takes a gboolean (true or false)"},
    {"c, GstCudaCacheConverter.scale=(int)2",
        "GstCudaCacheConverter.scale=(gint)2 is not valid: it takes a "
          "gdouble from -3.40282e+38 to 3.40282e+38"},
    {"c, GstCudaCacheConverter.scale=1e39",
        "is not valid: it takes a gdouble from -3.40282e+38 to 3.40282e+38"},
    {"c, GstCudaCacheConverter.mean=<1.0, 2.0>",
        "GstCudaCacheConverter.mean=(GstValueArray)< (double)1, (double)2 > "
          "is not valid: it takes a GstValueArray of three numbers from "
          "-3.40282e+38 to 3.40282e+38, one per channel"},
    {"c, GstCudaCacheConverter.mean=<1.0, 2.0, (string)x>",
        "is not valid: it takes a GstValueArray of three numbers"},
    {"c, GstCudaCacheConverter.std=<1.0, 0.0, 1.0>",
        "GstCudaCacheConverter.std=(GstValueArray)< (double)1, (double)0, "
          "(double)1 > is not valid: it takes a GstValueArray of three "
          "numbers from 1e-12 to 3.40282e+38"},
    {"c, GstCudaCacheConverter.src-x=-2",
        "GstCudaCacheConverter.src-x=(gint)-2 is not valid: it takes a gint, "
          "0 or more"},
  };
  g_autoptr (GstCaps) in_caps = gst_caps_from_string (RGBA_64x48);
  g_autoptr (GstCaps) out_caps = gst_caps_from_string (RGBA_64x48);
  GstCudaCacheConverter *conv = converter_new (RGBA_64x48, RGBA_64x48, NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstStructure *config = gst_structure_from_string (cases[i].config, NULL);
    GError *error = NULL;

    fail_unless (config != NULL, "%s", cases[i].config);
    fail_if (gst_cuda_cache_converter_new (in_caps, out_caps, NULL,
            gst_structure_copy (config), &error));
    fail_unless (error != NULL && strstr (error->message, cases[i].says),
        "\"%s\" does not say \"%s\"", error ? error->message : "",
        cases[i].says);
    g_clear_error (&error);
    /* reconfiguring says the same */
    fail_if (gst_cuda_cache_converter_reconfigure (conv, NULL, NULL, config,
            &error));
    fail_unless (error != NULL && strstr (error->message, cases[i].says),
        "\"%s\" does not say \"%s\"", error ? error->message : "",
        cases[i].says);
    g_clear_error (&error);
  }
  gst_object_unref (conv);
}

GST_END_TEST;

/* The 3-value NHWC tensor of @types that the CPU path makes from a 2x1
 * RGBA frame of pixels (200, 100, 0) and (255, 65, 1), with @scale and
 * @mean; @values gets its 6 values' bytes. */
static void
pack_two_pixels (const gchar * types, gsize value_size, gdouble scale,
    const gdouble mean[3], guint8 * values)
{
  static const gdouble std[3] = { 1.0, 1.0, 1.0 };
  static const guint8 pixels[8] = { 200, 100, 0, 255, 255, 65, 1, 255 };
  gchar *out = g_strdup_printf (TENSOR "types=%s,layout=NHWC,"
      "dimensions=3:2:1:1", types);
  GstCudaCacheConverter *conv =
      converter_new ("video/x-raw,format=RGBA,width=2,height=1", out,
      test_config_new (FALSE, 0,
          GST_CUDA_CACHE_CHANNEL_ORDER_RGB, scale, mean, std));
  GstBuffer *in = gst_buffer_new_memdup (pixels, sizeof (pixels));
  GstBuffer *outbuf = gst_buffer_new_allocate (NULL, 6 * value_size, NULL);
  GError *error = NULL;

  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, in, outbuf,
          NULL, &error), "%s", error ? error->message : "");
  gst_buffer_extract (outbuf, 0, values, 6 * value_size);
  gst_buffer_unref (outbuf);
  gst_buffer_unref (in);
  gst_object_unref (conv);
  g_free (out);
}

/* What docs/elements.md says of values beyond a tensor type's range:
 * uint8 is clamped to 0..255 after normalisation, float16 beyond 65504 is
 * infinity */
GST_START_TEST (test_tensor_values_beyond_their_type)
{
  static const gdouble no_mean[3] = { 0.0, 0.0, 0.0 };
  static const gdouble blue_mean[3] = { 0.0, 0.0, 10.0 };
  guint8 u8[6];
  guint16 f16[6];

  /* scale 2: 400 and 510 clamp to 255, 200 and 130 fit; blue 0 - 10 and
   * 2 - 10 clamp to 0 */
  pack_two_pixels ("uint8", 1, 2.0, blue_mean, u8);
  fail_unless_equals_int (u8[0], 255);
  fail_unless_equals_int (u8[1], 200);
  fail_unless_equals_int (u8[2], 0);
  fail_unless_equals_int (u8[3], 255);
  fail_unless_equals_int (u8[4], 130);
  fail_unless_equals_int (u8[5], 0);

  /* scale 1000: 200000, 100000 and 255000 are beyond float16's 65504, so
   * +inf (0x7c00); 65000 and 1000 are finite, 0 is 0 */
  pack_two_pixels ("float16", 2, 1000.0, no_mean, (guint8 *) f16);
  fail_unless_equals_int (f16[0], 0x7c00);
  fail_unless_equals_int (f16[1], 0x7c00);
  fail_unless_equals_int (f16[2], 0);
  fail_unless_equals_int (f16[3], 0x7c00);
  fail_unless (f16[4] > 0x7b00 && f16[4] < 0x7c00, "65000 is 0x%04x", f16[4]);
  fail_unless_equals_int (f16[5], 0x63d0);
}

GST_END_TEST;

/* GstMemory objects made while @counting: the CPU path's frames */
static gint memories_made;
static gboolean counting;

static void
memory_made (GObject * tracer, GstClockTime ts, GstMiniObject * obj)
{
  if (obj->type == GST_TYPE_MEMORY && g_atomic_int_get (&counting))
    g_atomic_int_inc (&memories_made);
}

static void
count_memories_start (void)
{
  static GstTracer *tracer;

  if (!tracer) {
    /* any GstTracer subclass registers hooks */
    GType type = g_type_register_static_simple (GST_TYPE_TRACER,
        "ConverterTestTracer", sizeof (GstTracerClass), NULL,
        sizeof (GstTracer), NULL, 0);

    tracer = g_object_new (type, NULL);
    gst_tracing_register_hook (tracer, "mini-object-created",
        G_CALLBACK (memory_made));
  }
  g_atomic_int_set (&memories_made, 0);
  g_atomic_int_set (&counting, TRUE);
}

static gint
count_memories_stop (void)
{
  g_atomic_int_set (&counting, FALSE);
  return g_atomic_int_get (&memories_made);
}

/* A frame of @in_caps, every byte of it a pattern, converted by @conv
 * into a new buffer of @out_size bytes */
static GstBuffer *
convert_pattern (GstCudaCacheConverter * conv, GstCaps * in_caps,
    gsize out_size)
{
  GstVideoInfo info;
  GstBuffer *inbuf, *outbuf;
  GstMapInfo map;
  GError *error = NULL;
  gsize i;

  fail_unless (gst_video_info_from_caps (&info, in_caps));
  inbuf = gst_buffer_new_allocate (NULL, info.size, NULL);
  outbuf = gst_buffer_new_allocate (NULL, out_size, NULL);
  fail_unless (gst_buffer_map (inbuf, &map, GST_MAP_WRITE));
  for (i = 0; i < map.size; i++)
    map.data[i] = (i * 7 + (i / 97) * 3) & 0xff;
  gst_buffer_unmap (inbuf, &map);

  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, inbuf, outbuf,
          NULL, &error), "%s", error ? error->message : "");
  gst_buffer_unref (inbuf);
  return outbuf;
}

/* @conv converts as a converter made afresh for @in, @out and @config */
static void
check_as_new (GstCudaCacheConverter * conv, GstCaps * in, GstCaps * out,
    const gchar * config, gsize out_size)
{
  GstCudaCacheConverter *fresh = gst_cuda_cache_converter_new (in, out, NULL,
      gst_structure_from_string (config, NULL), NULL);
  GstBuffer *a, *b;
  GstMapInfo map;

  fail_unless (fresh != NULL);
  a = convert_pattern (conv, in, out_size);
  b = convert_pattern (fresh, in, out_size);
  fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
  fail_unless (gst_buffer_memcmp (a, 0, map.data, out_size) == 0,
      "a reconfigured converter converts differently");
  gst_buffer_unmap (b, &map);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_object_unref (fresh);
}

/* New caps and options at once: both apply, and a refused pair changes
 * nothing. The CPU path keeps what still fits: 16-bit 4:2:0 input is
 * narrowed to an NV12 frame, made once per input (new options or a new
 * output keep it) and converting as a converter made afresh. */
GST_START_TEST (test_reconfigure_caps_and_config)
{
  GstCudaCacheConverter *conv = converter_new (RGBA_64x48,
      TENSOR "types=float32,dimensions=32:32:3:1",
      gst_structure_from_string ("c, GstCudaCacheConverter.letterbox=true",
          NULL));
  g_autoptr (GstCaps) p010 = gst_caps_from_string ("video/x-raw,"
      "format=P010_10LE,width=160,height=90,framerate=30/1");
  g_autoptr (GstCaps) p010b = gst_caps_from_string ("video/x-raw,"
      "format=P010_10LE,width=120,height=90,framerate=30/1");
  g_autoptr (GstCaps) rgba = gst_caps_from_string ("video/x-raw,"
      "format=RGBA,width=64,height=64,framerate=30/1");
  g_autoptr (GstCaps) rgba2 = gst_caps_from_string ("video/x-raw,"
      "format=RGBA,width=48,height=48,framerate=30/1");
  g_autoptr (GstCaps) gray = gst_caps_from_string ("video/x-raw,"
      "format=GRAY16_LE,width=160,height=90,framerate=30/1");
  GstStructure *before, *after;
  GstVideoRectangle rect;
  GError *error = NULL;
  gboolean letterbox;
  gint made;

  /* 64x48 letterboxed into 32x32: 32x24 */
  fail_unless (test_picture_rect (conv, &rect));
  fail_unless_equals_int (rect.h, 24);

  /* P010 160x90 to RGBA 64x64, no letterbox: the whole output, and the
   * NV12 frame it is narrowed to made */
  count_memories_start ();
  fail_unless (gst_cuda_cache_converter_reconfigure (conv, p010, rgba,
          gst_structure_from_string ("c, GstCudaCacheConverter.letterbox="
              "false", NULL), &error), "%s", error ? error->message : "");
  made = count_memories_stop ();
  fail_unless_equals_int (made, 1);
  fail_unless (test_picture_rect (conv, &rect));
  fail_unless (rect.x == 0 && rect.y == 0 && rect.w == 64 && rect.h == 64);
  after = gst_cuda_cache_converter_get_config (conv);
  fail_unless (gst_structure_get_boolean (after,
          GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, &letterbox));
  fail_if (letterbox);
  gst_structure_free (after);
  check_as_new (conv, p010, rgba, "c, GstCudaCacheConverter.letterbox=false",
      64 * 64 * 4);

  /* another output, other options, the same input: the frame is kept */
  count_memories_start ();
  fail_unless (gst_cuda_cache_converter_reconfigure (conv, p010, rgba2,
          gst_structure_from_string ("c, GstCudaCacheConverter.letterbox="
              "true", NULL), NULL));
  made = count_memories_stop ();
  fail_unless_equals_int (made, 0);
  check_as_new (conv, p010, rgba2, "c, GstCudaCacheConverter.letterbox=true",
      48 * 48 * 4);

  /* another input: another frame */
  count_memories_start ();
  fail_unless (gst_cuda_cache_converter_reconfigure (conv, p010b, rgba2, NULL,
          NULL));
  made = count_memories_stop ();
  fail_unless_equals_int (made, 1);
  check_as_new (conv, p010b, rgba2, "c, GstCudaCacheConverter.letterbox=true",
      48 * 48 * 4);
  fail_unless (gst_cuda_cache_converter_reconfigure (conv, p010, rgba2, NULL,
          NULL));

  /* refused options, or refused caps: nothing changes */
  before = gst_cuda_cache_converter_get_config (conv);
  fail_if (gst_cuda_cache_converter_reconfigure (conv, p010, rgba,
          gst_structure_from_string ("c, GstCudaCacheConverter.letterbox="
              "false, GstCudaCacheConverter.std=<1.0, 0.0, 1.0>", NULL),
          &error));
  fail_unless (error != NULL && strstr (error->message, "from 1e-12"));
  g_clear_error (&error);
  fail_if (gst_cuda_cache_converter_reconfigure (conv, gray, rgba,
          gst_structure_from_string ("c, GstCudaCacheConverter.letterbox="
              "false", NULL), &error));
  fail_unless (error != NULL);
  g_clear_error (&error);
  after = gst_cuda_cache_converter_get_config (conv);
  fail_unless (gst_structure_is_equal (before, after));
  /* still 160x90 letterboxed into 48x48 */
  fail_unless (test_picture_rect (conv, &rect));
  fail_unless (rect.w == 48 && rect.h == 27, "%dx%d", rect.w, rect.h);

  /* no config: the options stay */
  fail_unless (gst_cuda_cache_converter_reconfigure (conv, p010, rgba, NULL,
          NULL));
  fail_unless (test_picture_rect (conv, &rect));
  fail_unless (rect.w == 64 && rect.h == 36, "%dx%d", rect.w, rect.h);

  gst_structure_free (before);
  gst_structure_free (after);
  gst_object_unref (conv);
}

GST_END_TEST;

GST_START_TEST (test_letterbox_rect_both_directions)
{
  GstStructure *letterbox = gst_structure_from_string ("c, "
      "GstCudaCacheConverter.letterbox=true", NULL);
  GstCudaCacheConverter *conv;
  GstVideoRectangle rect;

  /* wide into square: bars above and below */
  conv = converter_new ("video/x-raw,format=NV12,width=1920,height=1080",
      TENSOR "types=float32,dimensions=640:640:3:1",
      gst_structure_copy (letterbox));
  test_picture_rect (conv, &rect);
  fail_unless_equals_int (rect.x, 0);
  fail_unless_equals_int (rect.w, 640);
  fail_unless_equals_int (rect.h, 360);
  fail_unless_equals_int (rect.y, 140);
  gst_object_unref (conv);

  /* tall into wide: bars left and right */
  conv = converter_new ("video/x-raw,format=RGBA,width=30,height=100",
      "video/x-raw,format=RGBA,width=200,height=50", letterbox);
  test_picture_rect (conv, &rect);
  fail_unless_equals_int (rect.y, 0);
  fail_unless_equals_int (rect.h, 50);
  fail_unless_equals_int (rect.w, 15);
  fail_unless_equals_int (rect.x, 92);
  gst_object_unref (conv);
}

GST_END_TEST;

/* The converter's CPU path held to the definition (cudacache-definition.h,
 * gstcudacachekernels-private.h): LINEAR at every pixel against
 * GstVideoResampler's taps, the definition the GPU suite holds the
 * kernels to against the CPU path, the presets' 4:2:0 output, the webcam
 * and gray formats, 16-bit input, and 4:2:0 input's chroma rows whatever
 * its planes' layout. */

/* The definition's LINEAR taps for output index @j, in doubles, as
 * GstVideoResampler computes them. */
static void
reference_taps (gint in_size, gint out_size, gint j, gint * first,
    gint * n_taps, gdouble * weights)
{
  gdouble scale = in_size / (gdouble) out_size;
  gdouble fx = scale > 1.0 ? 1.0 / scale : 1.0;
  gint n = CLAMP ((gint) ceil (2.0 / fx), 1, 128);
  gdouble x, sum = 0;
  gint l;

  fx = 2.0 / n;
  n = MIN (n, in_size);
  x = (0.5 + j) / out_size * in_size - (n > 1 ? 0.5 : 0.0);
  x = CLAMP (x, 0, in_size - 1);
  *first = (gint) floor (x) - (n - 1) / 2;
  *n_taps = n;
  for (l = 0; l < n; l++) {
    gdouble a = fabs (x - (*first + l)) * fx;

    weights[l] = a < 1.0 ? 1.0 - a : 0.0;
    sum += weights[l];
  }
  for (l = 0; l < n; l++)
    weights[l] /= sum;
}

/* Source pixel (x, y) of the test picture, channel c: gradients and a
 * checkerboard, so that both smooth areas and sharp edges are compared. */
static guint8
picture_at (gint x, gint y, gint c, gint w, gint h)
{
  switch (c) {
    case 0:
      return 255 * x / MAX (w - 1, 1);
    case 1:
      return 255 * y / MAX (h - 1, 1);
    default:
      return ((x / 3 + y / 2) & 1) ? 230 : 20;
  }
}

/* Every pixel of the CPU path's output against the definition, for RGB,
 * worked out here on its own: GstVideoResampler's LINEAR taps on both
 * axes, in double (lines of three bytes in and out are scaled in place;
 * other lines take a two-tap path when upscaling, which
 * compare_with_definition () covers), and one rounding. */
static void
check_cpu_against_definition (gint in_w, gint in_h, gint out_w, gint out_h,
    gboolean letterbox, guint fill, gdouble max_mean)
{
  gchar *in = g_strdup_printf ("video/x-raw,format=RGB,width=%d,height=%d",
      in_w, in_h);
  gchar *out = g_strdup_printf ("video/x-raw,format=RGB,width=%d,height=%d",
      out_w, out_h);
  GstStructure *config = gst_structure_new ("c",
      GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, G_TYPE_BOOLEAN, letterbox,
      GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE, G_TYPE_UINT, fill, NULL);
  GstCudaCacheConverter *conv = converter_new (in, out, config);
  GstVideoInfo in_info, out_info;
  GstVideoFrame in_frame, out_frame;
  GstBuffer *inbuf, *outbuf;
  GstVideoRectangle rect;
  gdouble *wx, *wy, worst = 0, total = 0;
  guint64 n_inside = 0;
  gint x, y, c, l, m;
  GError *error = NULL;

  gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_RGB, in_w, in_h);
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGB, out_w, out_h);
  inbuf = gst_buffer_new_allocate (NULL, in_info.size, NULL);
  outbuf = gst_buffer_new_allocate (NULL, out_info.size, NULL);
  fail_unless (gst_video_frame_map (&in_frame, &in_info, inbuf, GST_MAP_WRITE));
  for (y = 0; y < in_h; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&in_frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, 0);

    for (x = 0; x < in_w; x++) {
      for (c = 0; c < 3; c++)
        row[3 * x + c] = picture_at (x, y, c, in_w, in_h);
    }
  }
  gst_video_frame_unmap (&in_frame);

  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, inbuf, outbuf,
          NULL, &error), "%s", error ? error->message : "");
  test_picture_rect (conv, &rect);

  wx = g_new0 (gdouble, 128);
  wy = g_new0 (gdouble, 128);
  fail_unless (gst_video_frame_map (&out_frame, &out_info, outbuf,
          GST_MAP_READ));
  for (y = 0; y < out_h; y++) {
    const guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&out_frame,
        0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, 0);
    gint fy = 0, ny = 0;

    if (y >= rect.y && y < rect.y + rect.h)
      reference_taps (in_h, rect.h, y - rect.y, &fy, &ny, wy);

    for (x = 0; x < out_w; x++) {
      gboolean inside = y >= rect.y && y < rect.y + rect.h &&
          x >= rect.x && x < rect.x + rect.w;
      gint fx = 0, nx = 0;

      if (inside)
        reference_taps (in_w, rect.w, x - rect.x, &fx, &nx, wx);
      for (c = 0; c < 3; c++) {
        gdouble want = fill, diff;

        if (inside) {
          want = 0;
          for (l = 0; l < ny; l++) {
            gint sy = CLAMP (fy + l, 0, in_h - 1);

            for (m = 0; m < nx; m++) {
              gint sx = CLAMP (fx + m, 0, in_w - 1);

              want += wy[l] * wx[m] * picture_at (sx, sy, c, in_w, in_h);
            }
          }
        }
        diff = fabs (row[3 * x + c] - want);
        worst = MAX (worst, diff);
        /* borders are exact; the picture within its one rounding */
        if (inside) {
          total += diff;
          n_inside++;
        }
        fail_unless (diff <= (inside ? 0.52 : 0.0),
            "%dx%d -> %dx%d%s: pixel (%d, %d) channel %d is %d, the "
            "definition says %.2f", in_w, in_h, out_w, out_h,
            letterbox ? " letterboxed" : "", x, y, c, row[3 * x + c], want);
      }
    }
  }
  GST_INFO ("%dx%d -> %dx%d%s: worst %.3f levels, mean %.3f", in_w, in_h,
      out_w, out_h, letterbox ? " letterboxed" : "", worst,
      total / MAX (n_inside, 1));
  /* rounding to 8 bits: a quarter of a level on average, where values
   * fall evenly between levels */
  fail_unless (total / MAX (n_inside, 1) <= max_mean, "mean difference %.3f",
      total / MAX (n_inside, 1));
  gst_video_frame_unmap (&out_frame);

  g_free (wx);
  g_free (wy);
  gst_buffer_unref (inbuf);
  gst_buffer_unref (outbuf);
  gst_object_unref (conv);
  g_free (in);
  g_free (out);
}

GST_START_TEST (test_cpu_path_every_pixel)
{
  /* same size, odd sizes both ways, extreme factors both ways */
  check_cpu_against_definition (33, 17, 33, 17, FALSE, 0, 0.3);
  check_cpu_against_definition (64, 48, 31, 23, FALSE, 0, 0.3);
  check_cpu_against_definition (31, 23, 64, 48, FALSE, 0, 0.3);
  check_cpu_against_definition (7, 5, 129, 97, FALSE, 0, 0.3);
  check_cpu_against_definition (385, 217, 3, 3, FALSE, 0, 0.3);
  check_cpu_against_definition (1, 1, 9, 7, FALSE, 0, 0.3);
  check_cpu_against_definition (200, 3, 17, 1, FALSE, 0, 0.3);
  /* letterbox: bars above and below, bars left and right */
  check_cpu_against_definition (192, 108, 64, 64, TRUE, 114, 0.3);
  check_cpu_against_definition (45, 101, 66, 33, TRUE, 7, 0.3);
}

GST_END_TEST;

/* The definition the GPU suite holds the kernels to (cudacache-definition.h)
 * against the CPU path, on conversions where GstVideoConverter is near
 * it: so that a definition gone grossly wrong (a channel, a sign, the
 * letterbox, the matrix) shows in CI, where the GPU suite cannot run; a
 * quarter-pixel error of chroma siting hides in the 4:2:0 bound, and only
 * the GPU suite's 0.6 levels catch it. Measured with GStreamer 1.22
 * (2026-11-25): RGB-family input within 1.6 levels (GstVideoConverter's
 * 8-bit passes), 4:2:0 input within 7.1 (its 8-bit YUV to RGB as well). */
static GstBuffer *
cpu_path_convert (GstBuffer * in, const GstVideoInfo * info, const Output * o,
    const Geometry * g)
{
  static const gdouble none[3] = { 0.0, 0.0, 0.0 }, ones[3] = { 1, 1, 1 };
  gchar *in_str = input_caps (info, g, FALSE);
  gchar *out_str = output_caps (o, g->out_w, g->out_h, FALSE);
  GstStructure *config = test_config_new (g->letterbox,
      114, o->order && g_str_equal (o->order, "bgr") ?
      GST_CUDA_CACHE_CHANNEL_ORDER_BGR : GST_CUDA_CACHE_CHANNEL_ORDER_RGB,
      o->normalise ? 1.0 / 255.0 : 1.0, o->normalise ? imagenet_mean : none,
      o->normalise ? imagenet_std : ones);
  GstCudaCacheConverter *conv = converter_new (in_str, out_str, config);
  GError *error = NULL;
  GstBuffer *out;
  gsize size;

  if (o->format) {
    g_autoptr (GstCaps) out_caps = gst_caps_from_string (out_str);
    GstVideoInfo out_info;

    fail_unless (gst_video_info_from_caps (&out_info, out_caps));
    size = GST_VIDEO_INFO_SIZE (&out_info);
  } else {
    size = (gsize) g->out_w * g->out_h * output_channels (o) *
        (o->dtype[0] == 'u' ? 1 : o->dtype[5] == '1' ? 2 : 4);
  }
  out = gst_buffer_new_allocate (NULL, size, NULL);
  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, in, out, NULL,
          &error), "%s", error ? error->message : "");
  gst_object_unref (conv);
  g_free (out_str);
  g_free (in_str);

  return out;
}

/* What the CPU path's checks against the definition found */
typedef struct
{
  guint checked;
  gdouble worst[2];             /* raw, on the gradients and on noise */
  gdouble worst_end;            /* where the definition rounds only at the end */
} DefinitionChecks;

/* Every input of @ins to every output of @outs that @take takes (NULL:
 * all) at every geometry of @geos, on the gradients and on noise drawn
 * from @seed, converted by the CPU path and held to the definition within
 * definition_tolerance (), every value. */
static DefinitionChecks
check_cpu_path_is_the_definition (const GstVideoFormat * ins, guint n_ins,
    const Output * outs, guint n_outs, const Geometry * geos, guint n_geos,
    guint32 seed, gboolean (*take) (GstVideoFormat in, const Output * o))
{
  DefinitionChecks c = { 0, };
  GRand *rand = g_rand_new_with_seed (seed);
  guint g, i, j, noise;

  for (noise = 0; noise < 2; noise++) {
    for (g = 0; g < n_geos; g++) {
      for (i = 0; i < n_ins; i++) {
        GstVideoInfo info;
        GstBuffer *sys;

        sys = cudacache_make_picture (ins[i], geos[g].in_w, geos[g].in_h,
            &info);
        if (noise)
          cudacache_fill_noise (sys, rand);
        for (j = 0; j < n_outs; j++) {
          GstBuffer *out;
          Difference d;

          if (take && !take (ins[i], &outs[j]))
            continue;
          out = cpu_path_convert (sys, &info, &outs[j], &geos[g]);
          d = compare_with_definition (sys, &info, out, &outs[j], &geos[g]);
          fail_unless (d.levels <= definition_tolerance (&d, &info,
                  &outs[j]), "%s %dx%d %s -> %dx%d %s%s: the CPU path is "
              "%.3f levels off the definition at %s", noise ? "noise" :
              "gradients", geos[g].in_w, geos[g].in_h,
              GST_VIDEO_INFO_NAME (&info), geos[g].out_w, geos[g].out_h,
              outs[j].format ? outs[j].format : outs[j].dtype,
              outs[j].gray ? " gray" : "", d.levels, d.where);
          c.worst[noise] = MAX (c.worst[noise], d.levels);
          if (!d.rounds_first)
            c.worst_end = MAX (c.worst_end, d.levels);
          c.checked++;
          gst_buffer_unref (out);
        }
        gst_buffer_unref (sys);
      }
    }
  }
  g_rand_free (rand);

  return c;
}

GST_START_TEST (test_cpu_path_is_the_definition)
{
  static const Output outs[] = {
    {"RGBA",}, {"BGR",}, {"NV12",}, {"I420",},
    {NULL, "float32", "NCHW", "rgb", TRUE},
    {NULL, "float16", "NCHW", "bgr", TRUE},
    {NULL, "uint8", "NHWC", "rgb", FALSE},
  };
  static const Geometry geos[] = {
    /* the same size, even and odd: sharp chroma edges are not smoothed */
    {64, 48, 64, 48, FALSE},
    {33, 17, 33, 17, FALSE},
    {64, 48, 31, 23, FALSE},
    /* grown: GstVideoScaler's 2-tap path; 4:2:0 converted first */
    {31, 23, 64, 48, FALSE},
    {7, 5, 129, 97, FALSE},
    /* widened only, narrowed only */
    {40, 30, 81, 30, FALSE},
    {81, 31, 40, 31, FALSE},
    /* many taps */
    {385, 217, 3, 3, FALSE},
    {192, 108, 64, 64, TRUE},
    {45, 101, 66, 33, TRUE},
    {321, 241, 199, 147, FALSE, FALSE, FALSE, "bt709"},
    {640, 480, 300, 200, FALSE, FALSE, FALSE, "1:3:5:1"},
  };
  static const GstVideoFormat ins[] = { GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420
  };
  DefinitionChecks c = check_cpu_path_is_the_definition (ins,
      G_N_ELEMENTS (ins), outs, G_N_ELEMENTS (outs), geos,
      G_N_ELEMENTS (geos), 27, NULL);

  GST_INFO ("%u conversions, the CPU path at most %.3f levels off the "
      "definition where it rounds only at the end, %.3f and %.3f on the "
      "gradients and noise", c.checked, c.worst_end, c.worst[0], c.worst[1]);
  fail_unless_equals_int (c.checked, 2 * G_N_ELEMENTS (geos) *
      G_N_ELEMENTS (ins) * G_N_ELEMENTS (outs));
}

GST_END_TEST;

/* A resampling preset's NV12 and I420 output is the definition's 4:2:0
 * (4. in gstcudacachekernels-private.h, as the kernels store it) of the
 * RGB picture the preset makes: Y of each pixel, U and V of each 2x2
 * block's mean, a block that straddles the letterbox's edge taking its
 * picture pixels only; within rounding (the CPU path's floats against
 * doubles), on noise too, where every pixel is a sharp edge. */
static GstBuffer *
preset_convert (GstBuffer * in, const gchar * in_caps, const gchar * format,
    const Geometry * g, GstCudaCacheResizeMethod method, GstVideoInfo * out,
    GstVideoRectangle * rect)
{
  static const gdouble none[3] = { 0.0, 0.0, 0.0 }, ones[3] = { 1, 1, 1 };
  GstStructure *config = test_config_new (g->letterbox,
      114, GST_CUDA_CACHE_CHANNEL_ORDER_RGB, 1.0, none, ones);
  gchar *out_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
      "height=%d", format, g->out_w, g->out_h);
  g_autoptr (GstCaps) caps = gst_caps_from_string (out_caps);
  GstCudaCacheConverter *conv;
  GError *error = NULL;
  GstBuffer *buf;

  gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
      GST_TYPE_CUDA_CACHE_RESIZE_METHOD, method, NULL);
  conv = converter_new (in_caps, out_caps, config);
  fail_unless (gst_video_info_from_caps (out, caps));
  test_picture_rect (conv, rect);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (out), NULL);
  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, in, buf, NULL,
          &error), "%s", error ? error->message : "");
  gst_object_unref (conv);
  g_free (out_caps);

  return buf;
}

GST_START_TEST (test_presets_yuv420_output_is_the_definition)
{
  static const Geometry geos[] = {
    {97, 55, 160, 162, TRUE},   /* bars above and below, odd rows */
    {55, 97, 163, 121, TRUE},   /* bars left and right, odd columns */
    {321, 241, 199, 147, FALSE},
  };
  static const gchar *formats[] = { "NV12", "I420" };
  GRand *rand = g_rand_new_with_seed (27);
  GstCudaCacheResizeMethod method;
  guint g, f, noise, checked = 0;
  gdouble worst = 0;

  for (method = GST_CUDA_CACHE_RESIZE_METHOD_NEAREST;
      method <= GST_CUDA_CACHE_RESIZE_METHOD_ANTIALIAS; method++) {
    for (g = 0; g < G_N_ELEMENTS (geos); g++) {
      for (noise = 0; noise < 2; noise++) {
        GstVideoInfo info, rgb_info;
        GstBuffer *in = cudacache_make_picture (GST_VIDEO_FORMAT_RGBA,
            geos[g].in_w, geos[g].in_h, &info);
        gchar *in_caps = input_caps (&info, &geos[g], FALSE);
        GstVideoRectangle rect;
        GstVideoFrame rgb;
        GstBuffer *rgb_buf;

        if (noise)
          cudacache_fill_noise (in, rand);
        for (f = 0; f < G_N_ELEMENTS (formats); f++) {
          GstVideoInfo out_info;
          GstVideoFrame out;
          GstBuffer *out_buf = preset_convert (in, in_caps, formats[f],
              &geos[g], method, &out_info, &rect);
          /* the picture alone, at the size the 4:2:0 output's picture
           * has (on its chroma grid), by the same preset */
          Geometry pg = { geos[g].in_w, geos[g].in_h, rect.w, rect.h, FALSE };
          GstVideoRectangle whole;
          gdouble from_rgb[3][4];
          gint x, y, k, dx, dy;

          rgb_buf = preset_convert (in, in_caps, "RGB", &pg, method,
              &rgb_info, &whole);
          fail_unless (gst_video_frame_map (&rgb, &rgb_info, rgb_buf,
                  GST_MAP_READ));
          definition_matrix (&out_info, NULL, from_rgb);
          fail_unless (gst_video_frame_map (&out, &out_info, out_buf,
                  GST_MAP_READ));
          for (y = 0; y < geos[g].out_h; y++) {
            for (x = 0; x < geos[g].out_w; x++) {
              for (k = 0; k < 3; k++) {
                gdouble c[3] = { 0, }, pic[3] = { 0, }, want, diff;
                gint n = 0, n_pic = 0, l;

                if (k > 0 && ((x & 1) || (y & 1)))
                  continue;
                for (dy = 0; dy < (k ? 2 : 1) && y + dy < geos[g].out_h; dy++) {
                  for (dx = 0; dx < (k ? 2 : 1) && x + dx < geos[g].out_w; dx++) {
                    gint px = x + dx - rect.x, py = y + dy - rect.y;
                    gboolean inside = px >= 0 && px < rect.w && py >= 0 &&
                        py < rect.h;
                    const guint8 *p = inside ? (const guint8 *)
                        GST_VIDEO_FRAME_PLANE_DATA (&rgb, 0) +
                        py * GST_VIDEO_FRAME_PLANE_STRIDE (&rgb, 0) + 3 * px :
                        NULL;

                    for (l = 0; l < 3; l++) {
                      c[l] += inside ? p[l] : 114;
                      pic[l] += inside ? p[l] : 0;
                    }
                    n++;
                    n_pic += inside;
                  }
                }
                for (l = 0; l < 3; l++)
                  c[l] = n_pic > 0 && n_pic < n ? pic[l] / n_pic : c[l] / n;
                want = definition_yuv (from_rgb, c, k);
                diff = fabs (want - ((const guint8 *)
                        GST_VIDEO_FRAME_COMP_DATA (&out, k))[(k ? y / 2 : y) *
                        GST_VIDEO_FRAME_COMP_STRIDE (&out, k) +
                        (k ? x / 2 : x) * GST_VIDEO_FRAME_COMP_PSTRIDE (&out,
                            k)]);
                fail_unless (diff <= 0.5 + 1e-3, "method %d %dx%d%s -> "
                    "%dx%d %s: %.3f levels off the definition at x=%d y=%d "
                    "c=%d", method, geos[g].in_w, geos[g].in_h,
                    noise ? " noise" : "", geos[g].out_w, geos[g].out_h,
                    formats[f], diff, x, y, k);
                worst = MAX (worst, diff);
                checked++;
              }
            }
          }
          gst_video_frame_unmap (&out);
          gst_buffer_unref (out_buf);
          gst_video_frame_unmap (&rgb);
          gst_buffer_unref (rgb_buf);
        }
        gst_buffer_unref (in);
        g_free (in_caps);
      }
    }
  }
  g_rand_free (rand);
  GST_INFO ("%u values, worst %.3f levels", checked, worst);
  fail_unless (checked > 100000);
}

GST_END_TEST;

/* The webcam formats to every output; the others to gray */
static gboolean
webcam_case (GstVideoFormat in, const Output * o)
{
  return definition_has_stand_in (in) || output_is_gray (o);
}

/* What webcams give (YUY2, UYVY, GRAY8) and gray output (GRAY8, a
 * 1-channel tensor): the CPU path against the definition
 * (definition_stand_in (), and gray the luma of the RGB), every pixel, on
 * the gradients and on noise (every pixel a sharp edge, chroma and luma,
 * out of gamut too), at odd sizes, shrunk, grown, letterboxed both ways,
 * within definition_tolerance () (worst seen logged). */
GST_START_TEST (test_webcam_and_gray_formats_cpu_path)
{
  static const Output outs[] = {
    {"RGBA",}, {"BGR",}, {"GRAY8",}, {"I420",},
    {NULL, "float32", "NCHW", "rgb", TRUE},
    {NULL, "float32", "NCHW", "rgb", TRUE, TRUE},
    {NULL, "uint8", "NHWC", "rgb", FALSE, TRUE},
    {NULL, "float16", "NHWC", "bgr", FALSE, TRUE},
  };
  static const Geometry geos[] = {
    {64, 48, 64, 48, FALSE},
    {63, 47, 63, 47, FALSE},
    {64, 48, 31, 23, FALSE},
    {31, 23, 64, 48, FALSE},
    {192, 108, 64, 64, TRUE},
    {45, 101, 66, 33, TRUE},
  };
  static const GstVideoFormat ins[] = { GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBx,
    GST_VIDEO_FORMAT_NV12
  };
  DefinitionChecks c = check_cpu_path_is_the_definition (ins,
      G_N_ELEMENTS (ins), outs, G_N_ELEMENTS (outs), geos,
      G_N_ELEMENTS (geos), 30, webcam_case);

  GST_INFO ("webcam and gray formats: %u conversions, the CPU path at most "
      "%.3f levels off the definition (gradients), %.3f (noise)", c.checked,
      c.worst[0], c.worst[1]);
  fail_unless (c.checked >= 150, "only %u conversions checked", c.checked);
}

GST_END_TEST;

/* 4:2:0 input's chroma rows against the definition: upsampled linearly
 * (chroma centred between its luma rows), then the LINEAR taps. A picture
 * of flat luma and V and of U that changes every chroma row, to RGB: blue
 * carries U, (U - 128) * 2.017 above its BT.601 level of flat luma. On
 * small pictures shrunk about 3x, GStreamer 1.22's GstVideoConverter alone
 * takes the wrong rows for the first output rows (20 to 80 levels of blue
 * off); the CPU path upsamples first and is within 4 levels (measured
 * 3.2: U rounded to 8 bits after upsampling and after scaling, times 2,
 * and the 8-bit matrix's own rounding). */
static void
check_cpu_chroma_rows (gint in_w, gint in_h, gint out_w, gint out_h)
{
  gchar *in = g_strdup_printf ("video/x-raw,format=NV12,width=%d,height=%d",
      in_w, in_h);
  gchar *out = g_strdup_printf ("video/x-raw,format=RGB,width=%d,height=%d",
      out_w, out_h);
  GstCudaCacheConverter *conv = converter_new (in, out, NULL);
  g_autoptr (GstCaps) in_caps = gst_caps_from_string (in);
  gint ch = (in_h + 1) / 2, x, y, i, l;
  GstVideoInfo in_info, out_info;
  GstVideoFrame frame;
  GstBuffer *inbuf, *outbuf;
  gdouble w[128];
  GError *error = NULL;

  fail_unless (gst_video_info_from_caps (&in_info, in_caps));
  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGB, out_w, out_h);
  inbuf = gst_buffer_new_allocate (NULL, in_info.size, NULL);
  outbuf = gst_buffer_new_allocate (NULL, out_info.size, NULL);
  fail_unless (gst_video_frame_map (&frame, &in_info, inbuf, GST_MAP_WRITE));
  for (y = 0; y < in_h; y++)
    memset ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), 128, in_w);
  for (y = 0; y < ch; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 1) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 1);

    for (x = 0; x < (in_w + 1) / 2; x++) {
      row[2 * x] = 108 + 10 * (y % 6);
      row[2 * x + 1] = 128;
    }
  }
  gst_video_frame_unmap (&frame);

  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, inbuf, outbuf,
          NULL, &error), "%s", error ? error->message : "");

  fail_unless (gst_video_frame_map (&frame, &out_info, outbuf, GST_MAP_READ));
  for (y = 0; y < out_h; y++) {
    const guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    gint first, n;
    gdouble u = 0, blue;

    reference_taps (in_h, out_h, y, &first, &n, w);
    for (l = 0; l < n; l++) {
      /* luma row i between chroma rows (i - 1) / 2 and the next */
      gint r = CLAMP (first + l, 0, in_h - 1), c = (r - 1) >> 1;
      gdouble f = (r & 1) ? 0.25 : 0.75;
      gdouble a = 108 + 10 * (CLAMP (c, 0, ch - 1) % 6);
      gdouble b = 108 + 10 * (CLAMP (c + 1, 0, ch - 1) % 6);

      u += w[l] * (a + f * (b - a));
    }
    blue = (128 - 16) * 255.0 / 219.0 + (u - 128) * 2 * (1 - 0.114) *
        255.0 / 224.0;
    for (i = 0; i < out_w; i++) {
      fail_unless (fabs (row[3 * i + 2] - blue) <= 4.0,
          "%dx%d -> %dx%d: pixel (%d, %d) has blue %d, the definition %.2f "
          "(U %.2f)", in_w, in_h, out_w, out_h, i, y, row[3 * i + 2], blue, u);
    }
  }
  gst_video_frame_unmap (&frame);

  gst_buffer_unref (inbuf);
  gst_buffer_unref (outbuf);
  gst_object_unref (conv);
  g_free (in);
  g_free (out);
}

/* 16-bit 4:2:0 input (P010_10LE, P016_LE) on the CPU path:
 * taken at every geometry and output, and within the 8 levels that
 * GstVideoConverter's 8-bit YUV to RGB is off the exact values of the same
 * picture in NV12 (it works 16-bit input in 16 bits: 6 levels apart seen,
 * 33x17 to RGBA). The CUDA path narrows it to that NV12 frame exactly, as
 * the GPU suite checks. */
GST_START_TEST (test_16bit_input_cpu_path)
{
  static const Output outs[] = {
    {"RGBA",}, {"I420",}, {NULL, "float32", "NCHW", "rgb", TRUE},
    {NULL, "uint8", "NHWC", "bgr", FALSE},
  };
  static const Geometry geos[] = {
    {33, 17, 33, 17, FALSE},
    {64, 48, 31, 23, FALSE},
    {31, 23, 64, 48, FALSE},
    {45, 101, 66, 33, TRUE},
    {640, 480, 300, 200, FALSE, FALSE, FALSE, "bt2020"},
  };
  static const GstVideoFormat wide[] = { GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_P016_LE
  };
  gdouble worst = 0;
  guint g, j, k;

  for (g = 0; g < G_N_ELEMENTS (geos); g++) {
    GstVideoInfo info;
    GstBuffer *nv12 = cudacache_make_picture (GST_VIDEO_FORMAT_NV12,
        geos[g].in_w, geos[g].in_h, &info);

    for (k = 0; k < G_N_ELEMENTS (wide); k++) {
      GstVideoInfo wide_info;
      GstBuffer *in = cudacache_widen_picture (nv12, &info, wide[k],
          &wide_info);

      for (j = 0; j < G_N_ELEMENTS (outs); j++) {
        GstBuffer *a = cpu_path_convert (nv12, &info, &outs[j], &geos[g]);
        GstBuffer *b = cpu_path_convert (in, &wide_info, &outs[j], &geos[g]);
        Difference d = compare_outputs (a, b, &outs[j], geos[g].out_w,
            geos[g].out_h, TRUE);

        fail_unless (d.levels <= 8.0, "%dx%d %s -> %dx%d %s: %.3f levels "
            "from NV12 at %s", geos[g].in_w, geos[g].in_h,
            GST_VIDEO_INFO_NAME (&wide_info), geos[g].out_w, geos[g].out_h,
            outs[j].format ? outs[j].format : outs[j].dtype, d.levels, d.where);
        worst = MAX (worst, d.levels);
        gst_buffer_unref (b);
        gst_buffer_unref (a);
      }
      gst_buffer_unref (in);
    }
    gst_buffer_unref (nv12);
  }
  GST_INFO ("16-bit input: worst %.3f levels from NV12", worst);
}

GST_END_TEST;

GST_START_TEST (test_cpu_path_420_chroma_rows)
{
  check_cpu_chroma_rows (15, 11, 6, 4);
  check_cpu_chroma_rows (30, 22, 12, 8);
  check_cpu_chroma_rows (16, 9, 7, 5);
  check_cpu_chroma_rows (321, 241, 199, 147);
  check_cpu_chroma_rows (64, 48, 64, 16);
}

GST_END_TEST;

/* @in_w x @in_h NV12 and I420 of one picture to RGBA: the same output
 * from both. */
static void
check_cpu_420_same_output (gint in_w, gint in_h, gint out_w, gint out_h)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420
  };
  GstVideoInfo out_info;
  GstBuffer *first = NULL;
  GstMapInfo map;
  guint i;

  gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_RGBA, out_w, out_h);
  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstVideoInfo in_info;
    GstBuffer *in = cudacache_make_picture (formats[i], in_w, in_h, &in_info);
    GstBuffer *out = gst_buffer_new_allocate (NULL, out_info.size, NULL);
    g_autoptr (GstCaps) in_caps = gst_video_info_to_caps (&in_info);
    g_autoptr (GstCaps) out_caps = gst_video_info_to_caps (&out_info);
    GstCudaCacheConverter *conv = gst_cuda_cache_converter_new (in_caps,
        out_caps, NULL, NULL, NULL);
    GError *error = NULL;

    fail_unless (conv != NULL);
    fail_unless (gst_cuda_cache_converter_convert_buffer (conv, in, out, NULL,
            &error), "%s", error ? error->message : "");

    if (first) {
      fail_unless (gst_buffer_map (first, &map, GST_MAP_READ));
      fail_unless (gst_buffer_memcmp (out, 0, map.data, map.size) == 0,
          "%dx%d to %dx%d: I420 converts otherwise than NV12", in_w, in_h,
          out_w, out_h);
      gst_buffer_unmap (first, &map);
      gst_buffer_unref (out);
    } else {
      first = out;
    }
    gst_object_unref (conv);
    gst_buffer_unref (in);
  }
  gst_buffer_unref (first);
}

/* 4:2:0 input converts alike whatever the layout of its planes, growing,
 * shrinking and both (GstVideoConverter, which the CPU path once used,
 * upsampled 3x3 I420 by a fast path 10 levels from NV12's, and differed
 * from itself with threads, 7x5 to 1283x721: 15 levels). */
GST_START_TEST (test_cpu_path_420_threads_and_layouts)
{
  check_cpu_420_same_output (7, 5, 1283, 721);
  check_cpu_420_same_output (3, 3, 1001, 999);
  check_cpu_420_same_output (97, 55, 160, 162);
  check_cpu_420_same_output (16, 9, 7, 5);
  check_cpu_420_same_output (15, 11, 6, 11);
  check_cpu_420_same_output (321, 241, 199, 147);
}

GST_END_TEST;

/* Converts @in (caps @in_caps) to @out_caps with @config. */
static GstBuffer *
convert_with (GstBuffer * in, const gchar * in_caps, const gchar * out_caps,
    GstStructure * config, GstVideoRectangle * source)
{
  GstCudaCacheConverter *conv = converter_new (in_caps, out_caps, config);
  g_autoptr (GstCaps) caps = gst_caps_from_string (out_caps);
  GstCudaCacheTensorInfo tensor;
  GstVideoInfo vinfo;
  gsize size = gst_cuda_cache_tensor_info_from_caps (&tensor, caps) ?
      tensor.size : (gst_video_info_from_caps (&vinfo, caps), vinfo.size);
  GstBuffer *out = gst_buffer_new_allocate (NULL, size, NULL);
  GstCudaCachePictureMeta *meta;
  GError *error = NULL;

  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, in, out, NULL,
          &error), "%s", error ? error->message : "");
  meta = test_add_picture_meta (conv, in, out);
  fail_unless (meta != NULL);
  if (source)
    *source = meta->geometry.source;
  gst_object_unref (conv);

  return out;
}

/* A crop, by a buffer's GstVideoCropMeta (as videocrop and decoders crop:
 * the caps the region's size, a video meta the whole frame's) or by the
 * config's source rectangle, converts exactly as the cropped region
 * copied into a frame of its own: odd and even regions, every input family, letterboxed and
 * stretched, frames and tensors, on noise (every pixel an edge). Where
 * chroma is subsampled the region grows to its grid, and the picture meta
 * says so. A region outside the frame is refused. */
GST_START_TEST (test_crops_convert_as_the_cropped_frame)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_YUY2
  };
  static const GstVideoRectangle crops[] = {
    {1, 3, 33, 17}, {6, 4, 40, 30}, {0, 0, 64, 48}, {63, 47, 1, 1},
  };
  static const gchar *outs[] = {
    "video/x-raw,format=RGBA,width=50,height=40",
    TENSOR "types=float32,dimensions=(string)31:23:3:1,layout=NCHW",
  };
  GRand *rand = g_rand_new_with_seed (27);
  guint f, c, o, way;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info;
    GstBuffer *frame = cudacache_make_picture (formats[f], 64, 48, &info);
    gchar *in_caps = g_strdup_printf ("video/x-raw,format=%s,width=64,"
        "height=48", gst_video_format_to_string (formats[f]));

    cudacache_fill_noise (frame, rand);

    for (c = 0; c < G_N_ELEMENTS (crops); c++) {
      const GstVideoRectangle *r = &crops[c];
      gboolean sub_x = GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, 1) > 0;
      gboolean sub_y = GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, 1) > 0;
      GstVideoRectangle want = {
        sub_x ? r->x & ~1 : r->x, sub_y ? r->y & ~1 : r->y, 0, 0
      };
      GstVideoInfo region_info;
      GstVideoRectangle want_source;
      GstBuffer *region;
      gchar *region_caps;

      want.w = (sub_x ? MIN ((r->x + r->w + 1) & ~1, 64) : r->x + r->w) -
          want.x;
      want.h = (sub_y ? MIN ((r->y + r->h + 1) & ~1, 48) : r->y + r->h) -
          want.y;
      region = cudacache_copy_region (frame, &info, &want, &region_info);
      region_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
          "height=%d", gst_video_format_to_string (formats[f]), want.w, want.h);

      for (o = 0; o < G_N_ELEMENTS (outs); o++) {
        for (way = 0; way < 2; way++) {
          GstStructure *config = gst_structure_new ("c",
              GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, G_TYPE_BOOLEAN, o == 0,
              NULL);
          GstBuffer *cropped = gst_buffer_copy (frame), *a, *b;
          gchar *shown_caps = NULL;
          GstVideoRectangle source;
          GstMapInfo ma, mb;

          if (way == 0) {
            /* as videocrop and decoders crop: the caps the region's size,
             * a video meta the whole frame's */
            GstVideoCropMeta *meta = gst_buffer_add_video_crop_meta (cropped);

            meta->x = r->x;
            meta->y = r->y;
            meta->width = r->w;
            meta->height = r->h;
            gst_buffer_add_video_meta_full (cropped, GST_VIDEO_FRAME_FLAG_NONE,
                formats[f], 64, 48, GST_VIDEO_INFO_N_PLANES (&info),
                info.offset, info.stride);
            shown_caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
                "height=%d", gst_video_format_to_string (formats[f]), r->w,
                r->h);
          } else {
            gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_X,
                G_TYPE_INT, r->x, GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y,
                G_TYPE_INT, r->y, GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH,
                G_TYPE_INT, r->w, GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT,
                G_TYPE_INT, r->h, NULL);
          }
          a = convert_with (cropped, way == 0 ? shown_caps : in_caps,
              outs[o], gst_structure_copy (config), &source);
          /* the meta's source: in the frame the crop shows, or in the
           * frame, grown to the chroma grid by the config's */
          if (way == 0) {
            want_source.x = want_source.y = 0;
            want_source.w = r->w;
            want_source.h = r->h;
          } else {
            want_source = want;
          }
          b = convert_with (region, region_caps, outs[o],
              gst_structure_new ("c", GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX,
                  G_TYPE_BOOLEAN, o == 0, NULL), NULL);
          fail_unless (source.x == want_source.x &&
              source.y == want_source.y && source.w == want_source.w &&
              source.h == want_source.h,
              "%s crop %d,%d %dx%d by %s: the meta's source %d,%d %dx%d, "
              "want %d,%d %dx%d", gst_video_format_to_string (formats[f]),
              r->x, r->y, r->w, r->h, way ? "the config" : "crop meta",
              source.x, source.y, source.w, source.h, want_source.x,
              want_source.y, want_source.w, want_source.h);
          fail_unless (gst_buffer_map (a, &ma, GST_MAP_READ));
          fail_unless (gst_buffer_map (b, &mb, GST_MAP_READ));
          fail_unless (ma.size == mb.size && memcmp (ma.data, mb.data,
                  ma.size) == 0, "%s crop %d,%d %dx%d to %s by %s: not the "
              "cropped frame's conversion",
              gst_video_format_to_string (formats[f]), r->x, r->y, r->w, r->h,
              outs[o], way ? "the config" : "crop meta");
          gst_buffer_unmap (a, &ma);
          gst_buffer_unmap (b, &mb);
          gst_buffer_unref (a);
          gst_buffer_unref (b);
          gst_buffer_unref (cropped);
          gst_structure_free (config);
          g_free (shown_caps);
        }
      }
      gst_buffer_unref (region);
      g_free (region_caps);
    }
    gst_buffer_unref (frame);
    g_free (in_caps);
  }
  g_rand_free (rand);

  /* outside the frame: refused, saying where */
  {
    g_autoptr (GstCaps) in = gst_caps_from_string (RGBA_64x48);
    g_autoptr (GstCaps) out = gst_caps_from_string (RGBA_64x48);
    GError *error = NULL;

    fail_if (gst_cuda_cache_converter_new (in, out, NULL,
            gst_structure_new ("c", GST_CUDA_CACHE_CONVERTER_OPT_SRC_X,
                G_TYPE_INT, 60, GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH,
                G_TYPE_INT, 10, NULL), &error));
    fail_unless (error && strstr (error->message, "10x48 at 60,0, does not "
            "lie inside the 64x48 input frame"), "%s",
        error ? error->message : "");
    g_clear_error (&error);

    /* a start past the frame, the size left open: the start is the
     * problem, not a size below 0 */
    fail_if (gst_cuda_cache_converter_new (in, out, NULL,
            gst_structure_new ("c", GST_CUDA_CACHE_CONVERTER_OPT_SRC_X,
                G_TYPE_INT, 100, NULL), &error));
    fail_unless (error && strstr (error->message, "starts at 100,0, outside "
            "the 64x48 input frame (src-x from 0 to 63, src-y from 0 to 47)"),
        "%s", error ? error->message : "");
    g_clear_error (&error);
    fail_if (gst_cuda_cache_converter_new (in, out, NULL,
            gst_structure_new ("c", GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y,
                G_TYPE_INT, 48, NULL), &error));
    fail_unless (error && strstr (error->message, "starts at 0,48, outside"),
        "%s", error ? error->message : "");
    g_clear_error (&error);
  }
}

GST_END_TEST;

/* Lists as bindings pass them: empty, or of different lengths, refused
 * with a GError that says so (no critical), for a batch and a launch */
GST_START_TEST (test_batch_lists_empty_or_of_different_lengths)
{
  GstCudaCacheConverter *conv = converter_of (RGBA_64x48,
      TENSOR "types=uint8,dimensions=(string)20:10:3:1");
  GstVideoInfo rgba;
  GstBuffer *frame = cudacache_make_picture (GST_VIDEO_FORMAT_RGBA, 64, 48,
      &rgba);
  GstBuffer *batch = gst_buffer_new_allocate (NULL, 2 * 20 * 10 * 3, NULL);
  GstCudaCacheConverter *convs[2] = { conv, conv };
  GstBuffer *ins[2] = { frame, frame };
  const struct
  {
    guint n_converters, n_inbufs;
    const gchar *says;
  } cases[] = {
    {0, 0, "a batch of no slots"},
    {1, 2, "converters (1) and frames (2) differ in length"},
    {2, 1, "converters (2) and frames (1) differ in length"},
    {0, 2, "converters (0) and frames (2) differ in length"},
  };
  GError *error = NULL;
  guint i, launches = 7;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstCudaCacheConverter **c = cases[i].n_converters ? convs : NULL;
    GstBuffer **b = cases[i].n_inbufs ? ins : NULL;
    GstCudaCacheBatchLaunch *launch;

    fail_if (gst_cuda_cache_converter_convert_batch_full (c,
            cases[i].n_converters, b, cases[i].n_inbufs, batch, NULL,
            &launches, &error));
    fail_unless (error && strstr (error->message, cases[i].says), "\"%s\" "
        "does not say \"%s\"", error ? error->message : "", cases[i].says);
    fail_if (error->domain == GST_CUDA_CACHE_BATCH_SLOT_ERROR);
    fail_unless_equals_int (launches, 0);
    g_clear_error (&error);

    launch = gst_cuda_cache_converter_launch_batch_full (c,
        cases[i].n_converters, b, cases[i].n_inbufs, batch, NULL, NULL, &error);
    fail_unless (launch == NULL);
    fail_unless (error && strstr (error->message, cases[i].says), "%s",
        error ? error->message : "");
    g_clear_error (&error);
  }
  /* the C call of no slots too */
  assert_batch_error (NULL, NULL, 0, batch, "a batch of no slots", -1);
  fail_unless (gst_cuda_cache_converter_launch_batch (NULL, NULL, 0, batch,
          NULL, NULL, &error) == NULL);
  fail_unless (error && strstr (error->message, "a batch of no slots"));
  g_clear_error (&error);

  /* lists of one length still convert */
  fail_unless (gst_cuda_cache_converter_convert_batch_full (convs, 2, ins, 2,
          batch, NULL, NULL, &error), "%s", error ? error->message : "");

  gst_buffer_unref (batch);
  gst_buffer_unref (frame);
  gst_object_unref (conv);
}

GST_END_TEST;

static Suite *
converter_suite (void)
{
  Suite *s = suite_create ("converter");
  TCase *tc = tcase_create ("general");

  tcase_add_test (tc, test_crops_convert_as_the_cropped_frame);

  cudacache_check_init ();
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_refusals_say_why);
  tcase_add_test (tc, test_sizes_below_one_refused);
  tcase_add_test (tc, test_pixel_aspect_ratio_below_one_refused);
  tcase_add_test (tc, test_batch_of_system_memory);
  tcase_add_test (tc, test_batch_launch_keeps_what_it_reads);
  tcase_add_test (tc, test_geometry_is_the_frames_own);
  tcase_add_test (tc, test_cpu_path_refuses_frames_past_2_gib);
  tcase_add_test (tc, test_rejected_config_changes_nothing);
  tcase_add_test (tc, test_config_errors_say_option_value_and_range);
  tcase_add_test (tc, test_config_is_one_record_of_every_option);
  tcase_add_test (tc, test_tensor_values_beyond_their_type);
  tcase_add_test (tc, test_small_buffers_refused);
  tcase_add_test (tc, test_three_dimensions_mean_batch_one);
  tcase_add_test (tc, test_reconfigure_caps_and_config);
  tcase_add_test (tc, test_letterbox_rect_both_directions);
  tcase_add_test (tc, test_cpu_path_every_pixel);
  tcase_add_test (tc, test_cpu_path_is_the_definition);
  tcase_add_test (tc, test_presets_yuv420_output_is_the_definition);
  tcase_add_test (tc, test_webcam_and_gray_formats_cpu_path);
  tcase_add_test (tc, test_16bit_input_cpu_path);
  tcase_add_test (tc, test_cpu_path_420_chroma_rows);
  tcase_add_test (tc, test_cpu_path_420_threads_and_layouts);
  tcase_add_test (tc, test_batch_lists_empty_or_of_different_lengths);
  tcase_add_test (tc, test_video_meta_past_the_buffer_refused);

  return s;
}

GST_CHECK_MAIN (converter);
