/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Batches on CUDA memory: cudacachebatch's slots, regions, refusals of
 * frames of other memory, layouts seen before allocating nothing, each
 * request answered at once and the element reused with another context
 * (cudacache-batch.h's checks), and the converter's batches
 * (gst_cuda_cache_converter_convert_batch (), _launch_batch ()) against
 * each slot converted alone, a reconfigured converter against a new one
 * among them. Included by elements/cudaconvert-gpu.c, whose helpers
 * (copy_rows (), upload (), upload_shifted (), download_tensor ()) it
 * uses. */

#ifndef __CUDACONVERT_GPU_BATCH_H__
#define __CUDACONVERT_GPU_BATCH_H__

#include <string.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cudacache/cudacache.h>
#include "cudacache-check-gpu.h"
#include "cudacache-config.h"
#include "cudacache-picture.h"
#include "cudacache-pipeline.h"
#include "cudacache-batch.h"

/* cudacachebatch on CUDA memory: every slot of each batch the frame
 * converted alone by cudacacheconvert, sources of odd sizes and four
 * formats; a pad's memory follows the batch's. */
GST_START_TEST (test_batch_slots_are_solo_conversions)
{
  gchar *error;

  fail_unless_equals_int (batch_check_slots (batch_sources, batch_frames, 4,
          "cudaupload !", "letterbox=true fill-value=114 "
          "scale=0.00392156862745098 mean=\"<0.485, 0.456, 0.406>\" "
          "std=\"<0.229, 0.224, 0.225>\"",
          FLOAT_NCHW ("(memory:CUDAMemory)", 4),
          FLOAT_NCHW ("(memory:CUDAMemory)", 1)), 4);
  fail_unless_equals_int (batch_check_slots (batch_sources, batch_frames, 4,
          "cudaupload !", "method=area",
          U8_NHWC ("(memory:CUDAMemory)", 4),
          U8_NHWC ("(memory:CUDAMemory)", 1)), 4);

  /* cudaupload before a pad of system-memory batches passes frames
   * through; CUDA frames forced there are refused */
  error = batch_run_error ("cudacachebatch name=b ! " U8_NHWC ("", 2)
      " ! fakesink videotestsrc num-buffers=2 ! b.sink_0 "
      "videotestsrc num-buffers=2 ! cudaupload ! b.sink_1");
  fail_unless (error == NULL, "%s", error);
  error = batch_run_error ("cudacachebatch name=b ! " U8_NHWC ("", 2)
      " ! fakesink videotestsrc num-buffers=2 ! b.sink_0 "
      "videotestsrc num-buffers=2 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! b.sink_1");
  fail_unless (error != NULL, "CUDA frames taken into system-memory batches");
  g_free (error);
}

GST_END_TEST;

/* A buffer of @caps from a pool of the cache, which the buffer outlives */
static GstBuffer *
acquire_of (const gchar * caps_str)
{
  GstBufferPool *pool = gst_cuda_cache_pool_new (context);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstCudaCacheTensorInfo tinfo;
  GstBuffer *buf = NULL;

  fail_unless (gst_cuda_cache_tensor_info_from_caps (&tinfo, caps));
  gst_buffer_pool_config_set_params (config, caps, tinfo.size, 0, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  gst_caps_unref (caps);
  return buf;
}

/* One slot of a batch: its frame in CUDA memory and its converter */
typedef struct
{
  GstVideoFormat format;
  gint width;
  gint height;
  const gchar *method;          /* NULL: linear */
  gint src[4];                  /* a source rectangle, or 0s */
  gboolean shifted;             /* rows at an odd address: no direct kernel */
} BatchSlot;

/* A frame of slot @i of batch @round: each slot's and each batch's its
 * own, so that a slot read from another, or from a batch before, shows */
static GstBuffer *
batch_slot_frame (const BatchSlot * sl, guint i, guint round)
{
  GstVideoInfo info;
  GstBuffer *sys, *dev;
  GstMapInfo map;
  gsize b;

  sys = cudacache_make_picture (sl->format, sl->width, sl->height, &info);
  fail_unless (gst_buffer_map (sys, &map, GST_MAP_WRITE));
  for (b = round; b < map.size; b += 7)
    map.data[b] ^= (guint8) (i * 29 + round * 71 + 1);
  gst_buffer_unmap (sys, &map);
  dev = upload_shifted (sys, &info, sl->shifted ? 1 : 0);
  gst_buffer_unref (sys);
  return dev;
}

/* The converter of slot @sl into one slot of @out */
static GstCudaCacheConverter *
batch_slot_converter (const BatchSlot * sl, GstCaps * out)
{
  GstStructure *config;
  GstVideoInfo info;
  GstCudaCacheConverter *conv;
  GError *error = NULL;
  GstCaps *in;

  gst_video_info_set_format (&info, sl->format, sl->width, sl->height);
  config = test_config_new (TRUE, 114,
      GST_CUDA_CACHE_CHANNEL_ORDER_RGB, 1.0 / 255.0, (const gdouble[3]) {
        0.485, 0.456, 0.406
      }, (const gdouble[3]) {
        0.229, 0.224, 0.225
      });
  if (sl->method)
    gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_METHOD,
        GST_TYPE_CUDA_CACHE_RESIZE_METHOD,
        g_enum_get_value_by_nick (g_type_class_ref
            (GST_TYPE_CUDA_CACHE_RESIZE_METHOD), sl->method)->value, NULL);
  if (sl->src[2] > 0)
    gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_SRC_X, G_TYPE_INT,
        sl->src[0], GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y, G_TYPE_INT,
        sl->src[1], GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH, G_TYPE_INT,
        sl->src[2], GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT, G_TYPE_INT,
        sl->src[3], NULL);
  in = gst_video_info_to_caps (&info);
  gst_caps_set_features_simple (in,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  conv = gst_cuda_cache_converter_new (in, out, context, config, &error);
  fail_unless (conv != NULL, "%s", error ? error->message : "");
  gst_caps_unref (in);
  return conv;
}

/* Converts @rounds batches of @n slots into tensors of @out_caps
 * (@slot_caps for one slot) with one converter per slot, and each slot's
 * frame alone; every slot equal to its single conversion, to the byte,
 * and absent slots (format UNKNOWN) zero. One batch is converted by
 * gst_cuda_cache_converter_convert_batch (); more are all launched on one
 * stream before the first is waited for, as cudacachebatch does (their
 * converters' frames, tables and signal shared). Returns the first
 * batch's launches. */
static guint
check_batch (const BatchSlot * slots, guint n, const gchar * slot_caps,
    const gchar * out_caps, gsize slot_size, guint rounds)
{
  GstCudaCacheConverter **convs = g_new0 (GstCudaCacheConverter *, n);
  GstBuffer **ins = g_new0 (GstBuffer *, n * rounds);
  GstBuffer **batches = g_new0 (GstBuffer *, rounds);
  GstCudaCacheBatchLaunch **launched = g_newa (GstCudaCacheBatchLaunch *,
      rounds);
  GstCaps *out = gst_caps_from_string (slot_caps);
  CUstream stream = NULL;
  GError *error = NULL;
  GstMapInfo map;
  guint i, r, launches = 0, first_launches = 0;
  gsize b;

  for (i = 0; i < n; i++) {
    if (slots[i].format != GST_VIDEO_FORMAT_UNKNOWN)
      convs[i] = batch_slot_converter (&slots[i], out);
  }
  for (r = 0; r < rounds; r++) {
    batches[r] = acquire_of (out_caps);
    /* not zero where a slot is absent: the batch must clear it */
    fail_unless (gst_buffer_map (batches[r], &map,
            GST_MAP_WRITE | GST_MAP_CUDA));
    {
      guint8 *ones = g_malloc (map.size);

      memset (ones, 0xa5, map.size);
      fail_unless (copy_rows ((guint8 *) ones, map.size,
              (CUdeviceptr) map.data, map.size, map.size, 1, TRUE));
      g_free (ones);
    }
    gst_buffer_unmap (batches[r], &map);
    for (i = 0; i < n; i++) {
      if (convs[i])
        ins[r * n + i] = batch_slot_frame (&slots[i], i, r);
    }
  }

  if (rounds == 1) {
    fail_unless (gst_cuda_cache_converter_convert_batch (convs, ins, n,
            batches[0], NULL, &first_launches, &error), "%s",
        error ? error->message : "");
  } else {
    fail_unless (gst_cuda_context_push (context));
    fail_unless (gst_cuda_result (CuStreamCreate (&stream,
                CU_STREAM_NON_BLOCKING)));
    gst_cuda_context_pop (NULL);
    for (r = 0; r < rounds; r++) {
      launched[r] = gst_cuda_cache_converter_launch_batch (convs,
          ins + r * n, n, batches[r], stream, &launches, &error);
      fail_unless (launched[r] != NULL, "%s", error ? error->message : "");
      if (r == 0)
        first_launches = launches;
    }
    for (r = 0; r < rounds; r++) {
      fail_unless (gst_cuda_cache_batch_launch_wait (launched[r], &error),
          "%s", error ? error->message : "");
      /* waiting again gives the same answer, at once */
      fail_unless (gst_cuda_cache_batch_launch_wait (launched[r], NULL));
      gst_cuda_cache_batch_launch_unref (launched[r]);
    }
  }

  for (r = 0; r < rounds; r++) {
    GstBuffer *host = download_tensor (batches[r]);

    fail_unless (gst_buffer_map (host, &map, GST_MAP_READ));
    for (i = 0; i < n; i++) {
      const guint8 *got = map.data + i * slot_size;
      GstBuffer *solo, *solo_host;
      GstMapInfo smap;

      if (!convs[i]) {
        for (b = 0; b < slot_size; b++)
          fail_unless (got[b] == 0, "absent slot %u of batch %u not cleared "
              "at byte %" G_GSIZE_FORMAT, i, r, b);
        continue;
      }
      solo = acquire_of (slot_caps);
      fail_unless (gst_cuda_cache_converter_convert_buffer (convs[i],
              ins[r * n + i], solo, NULL, &error), "%s",
          error ? error->message : "");
      solo_host = download_tensor (solo);
      fail_unless (gst_buffer_map (solo_host, &smap, GST_MAP_READ));
      fail_unless (smap.size >= slot_size);
      for (b = 0; b < slot_size; b++)
        fail_unless (got[b] == smap.data[b], "batch %u slot %u (%dx%d %s%s%s) "
            "differs from its conversion alone at byte %" G_GSIZE_FORMAT
            ": %u, not %u", r, i, slots[i].width, slots[i].height,
            gst_video_format_to_string (slots[i].format),
            slots[i].method ? ", " : "", slots[i].method ? slots[i].method : "",
            b, got[b], smap.data[b]);
      gst_buffer_unmap (solo_host, &smap);
      gst_buffer_unref (solo_host);
      gst_buffer_unref (solo);
    }
    gst_buffer_unmap (host, &map);
    gst_buffer_unref (host);
  }

  if (stream) {
    fail_unless (gst_cuda_context_push (context));
    gst_cuda_result (CuStreamDestroy (stream));
    gst_cuda_context_pop (NULL);
  }
  for (i = 0; i < n; i++)
    gst_clear_object (&convs[i]);
  for (i = 0; i < n * rounds; i++)
    gst_clear_buffer (&ins[i]);
  for (r = 0; r < rounds; r++)
    gst_buffer_unref (batches[r]);
  g_free (convs);
  g_free (ins);
  g_free (batches);
  gst_caps_unref (out);
  return first_launches;
}

#define F32_640(features, n) "other/tensors" features ",format=static," \
  "num_tensors=1,types=float32,layout=NCHW,dimensions=640:640:3:" #n
#define U8_77x45(features, n) "other/tensors" features ",format=static," \
  "num_tensors=1,types=uint8,layout=NHWC,dimensions=3:77:45:" #n
#define GRAY_F32_77x45(features, n) "other/tensors" features \
  ",format=static,num_tensors=1,types=float32,layout=NCHW," \
  "dimensions=77:45:1:" #n

/* The batch of gst_cuda_cache_converter_convert_batch (): each slot what
 * its converter makes of its frame alone, to the byte, in one launch where
 * the slots share a kernel and one per kernel where they do not. */
GST_START_TEST (test_batch_launches_per_kernel)
{
  static const BatchSlot same[] = {
    {GST_VIDEO_FORMAT_NV12, 1920, 1080}, {GST_VIDEO_FORMAT_NV12, 1920, 1080},
    {GST_VIDEO_FORMAT_NV12, 1920, 1080}, {GST_VIDEO_FORMAT_NV12, 1920, 1080},
    {GST_VIDEO_FORMAT_NV12, 1920, 1080}, {GST_VIDEO_FORMAT_NV12, 1920, 1080},
    {GST_VIDEO_FORMAT_NV12, 1920, 1080}, {GST_VIDEO_FORMAT_NV12, 1920, 1080},
  };
  /* every kind of slot: formats the kernels read, the stand-ins' (4:2:2,
   * 16-bit), a preset, a source rectangle, unaligned rows (the
   * tiled kernel instead of the direct one), odd sizes, sizes alike in
   * kernel but not in grid, absent slots */
  static const BatchSlot mixed[] = {
    {GST_VIDEO_FORMAT_NV12, 37, 23},
    {GST_VIDEO_FORMAT_UNKNOWN},
    {GST_VIDEO_FORMAT_I420, 128, 72},
    {GST_VIDEO_FORMAT_RGBA, 40, 40},
    {GST_VIDEO_FORMAT_RGB, 301, 199},
    {GST_VIDEO_FORMAT_YUY2, 64, 48},
    {GST_VIDEO_FORMAT_NV12, 1281, 723, NULL, {0,}, TRUE},
    {GST_VIDEO_FORMAT_NV12, 1280, 720},
    {GST_VIDEO_FORMAT_NV12, 641, 359},
    {GST_VIDEO_FORMAT_BGRx, 100, 60, "area"},
    {GST_VIDEO_FORMAT_P010_10LE, 64, 48},
    {GST_VIDEO_FORMAT_I420, 320, 240, NULL, {33, 17, 101, 75}},
    {GST_VIDEO_FORMAT_RGBA, 4000, 3, NULL},
    {GST_VIDEO_FORMAT_UNKNOWN},
  };
  /* the resampling presets: a kernel per group of kinds (nearest,
   * OpenCV's two taps, area, Pillow's: all 4 here, whatever the output's
   * size) whatever the input format and geometry (odd sizes, a source
   * rectangle, unaligned rows, a stand-in's frame, absent slots) */
  static const BatchSlot presets[] = {
    {GST_VIDEO_FORMAT_NV12, 1920, 1080, "bilinear"},
    {GST_VIDEO_FORMAT_I420, 321, 241, "area"},
    {GST_VIDEO_FORMAT_UNKNOWN},
    {GST_VIDEO_FORMAT_RGBA, 640, 480, "nearest"},
    {GST_VIDEO_FORMAT_RGB, 97, 55, "antialias"},
    {GST_VIDEO_FORMAT_BGRx, 154, 90, "area"},
    {GST_VIDEO_FORMAT_NV12, 1281, 723, "area", {0,}, TRUE},
    {GST_VIDEO_FORMAT_NV12, 640, 360, "bilinear", {33, 17, 301, 175}},
    {GST_VIDEO_FORMAT_YUY2, 64, 48, "antialias"},
    {GST_VIDEO_FORMAT_I420, 7, 5, "bilinear"},
  };
  /* the stand-ins and the presets, one frame per converter */
  static const BatchSlot stand_ins[] = {
    {GST_VIDEO_FORMAT_YUY2, 37, 23, "area"},
    {GST_VIDEO_FORMAT_YUY2, 37, 23, "nearest"},
    {GST_VIDEO_FORMAT_UYVY, 37, 23},
    {GST_VIDEO_FORMAT_P010_10LE, 38, 22, "bilinear"},
    {GST_VIDEO_FORMAT_I420, 37, 23, "area"},
  };
  guint launches;

  launches = check_batch (same, G_N_ELEMENTS (same),
      F32_640 ("(memory:CUDAMemory)", 1), F32_640 ("(memory:CUDAMemory)", 8),
      640 * 640 * 3 * 4, 1);
  fail_unless_equals_int (launches, 1);

  launches = check_batch (mixed, G_N_ELEMENTS (mixed),
      U8_77x45 ("(memory:CUDAMemory)", 1),
      U8_77x45 ("(memory:CUDAMemory)", 14), 77 * 45 * 3, 1);
  GST_INFO ("%u launches for the mixed batch", launches);
  /* fewer launches than frames: the slots of one kernel share theirs */
  fail_unless (launches >= 2 && launches < 12, "%u launches", launches);

  /* batches launched one after another before the first is waited for,
   * as cudacachebatch sends them: each slot still its frame's alone,
   * whatever the next batch writes into the converters' own frames */
  fail_unless (check_batch (mixed, G_N_ELEMENTS (mixed),
          U8_77x45 ("(memory:CUDAMemory)", 1),
          U8_77x45 ("(memory:CUDAMemory)", 14), 77 * 45 * 3, 3) >= 2);
  fail_unless (check_batch (stand_ins, G_N_ELEMENTS (stand_ins),
          U8_77x45 ("(memory:CUDAMemory)", 1),
          U8_77x45 ("(memory:CUDAMemory)", 5), 77 * 45 * 3, 4) >= 1);

  /* a batch of presets is a launch per group of kinds, into 3-channel
   * tensors and gray, once and launched again before the first is waited
   * for */
  fail_unless_equals_int (check_batch (presets, G_N_ELEMENTS (presets),
          U8_77x45 ("(memory:CUDAMemory)", 1),
          U8_77x45 ("(memory:CUDAMemory)", 10), 77 * 45 * 3, 1), 4);
  fail_unless_equals_int (check_batch (presets, G_N_ELEMENTS (presets),
          GRAY_F32_77x45 ("(memory:CUDAMemory)", 1),
          GRAY_F32_77x45 ("(memory:CUDAMemory)", 10), 77 * 45 * 4, 3), 4);
  fail_unless_equals_int (check_batch (presets, G_N_ELEMENTS (presets),
          F32_640 ("(memory:CUDAMemory)", 1),
          F32_640 ("(memory:CUDAMemory)", 10), 640 * 640 * 3 * 4, 1), 4);
}

GST_END_TEST;

/* A converter set up again for other caps converts as one made for them:
 * through a sequence of formats and sizes (the stand-ins', odd and 1x1
 * ones, with each resampling method), each frame converted by one
 * converter reconfigured along the sequence and by a new one, alone and
 * as the two slots of a batch, all equal to the byte. */
GST_START_TEST (test_reconfigured_converter_equals_a_new_one)
{
  static const BatchSlot steps[] = {
    {GST_VIDEO_FORMAT_NV12, 40, 40},
    {GST_VIDEO_FORMAT_UYVY, 1, 1},
    {GST_VIDEO_FORMAT_UYVY, 37, 23},
    {GST_VIDEO_FORMAT_YUY2, 37, 23},
    {GST_VIDEO_FORMAT_I420, 2, 2},
    {GST_VIDEO_FORMAT_YUY2, 1, 1},
    {GST_VIDEO_FORMAT_P010_10LE, 38, 22},
    {GST_VIDEO_FORMAT_UYVY, 1, 1},
    {GST_VIDEO_FORMAT_RGBA, 1, 1},
    {GST_VIDEO_FORMAT_YUY2, 37, 23},
  };
  static const gchar *const methods[] = { NULL, "area", "nearest",
    "bilinear"
  };
  const gchar *slot_caps = U8_77x45 ("(memory:CUDAMemory)", 1);
  const gchar *batch_caps = U8_77x45 ("(memory:CUDAMemory)", 2);
  gsize slot_size = 77 * 45 * 3;
  GstCaps *out = gst_caps_from_string (slot_caps);
  guint m, k;

  for (m = 0; m < G_N_ELEMENTS (methods); m++) {
    GstCudaCacheConverter *again = NULL;

    for (k = 0; k < G_N_ELEMENTS (steps); k++) {
      BatchSlot sl = steps[k];
      GstCudaCacheConverter *fresh, *convs[2];
      GstBuffer *frame, *a, *b, *batch, *ins[2], *ha, *hb, *hbatch;
      GstMapInfo ma, mb, mbatch;
      GError *error = NULL;
      gsize i;

      sl.method = methods[m];
      fresh = batch_slot_converter (&sl, out);
      if (!again) {
        again = batch_slot_converter (&sl, out);
      } else {
        GstCudaCacheConverter *model = batch_slot_converter (&sl, out);
        GstVideoInfo info;
        GstCaps *in;

        gst_video_info_set_format (&info, sl.format, sl.width, sl.height);
        in = gst_video_info_to_caps (&info);
        gst_caps_set_features_simple (in,
            gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
        fail_unless (gst_cuda_cache_converter_reconfigure (again, in, out,
                gst_cuda_cache_converter_get_config (model), &error), "%s",
            error ? error->message : "");
        gst_caps_unref (in);
        gst_object_unref (model);
      }
      frame = batch_slot_frame (&sl, k, m);
      a = acquire_of (slot_caps);
      b = acquire_of (slot_caps);
      batch = acquire_of (batch_caps);
      fail_unless (gst_cuda_cache_converter_convert_buffer (fresh, frame, a,
              NULL, &error), "%s", error ? error->message : "");
      fail_unless (gst_cuda_cache_converter_convert_buffer (again, frame, b,
              NULL, &error), "%s", error ? error->message : "");
      convs[0] = fresh;
      convs[1] = again;
      ins[0] = ins[1] = frame;
      fail_unless (gst_cuda_cache_converter_convert_batch (convs, ins, 2,
              batch, NULL, NULL, &error), "%s", error ? error->message : "");
      ha = download_tensor (a);
      hb = download_tensor (b);
      hbatch = download_tensor (batch);
      fail_unless (gst_buffer_map (ha, &ma, GST_MAP_READ));
      fail_unless (gst_buffer_map (hb, &mb, GST_MAP_READ));
      fail_unless (gst_buffer_map (hbatch, &mbatch, GST_MAP_READ));
      for (i = 0; i < slot_size; i++) {
        fail_unless (mb.data[i] == ma.data[i], "%s, step %u (%dx%d %s): "
            "reconfigured, byte %" G_GSIZE_FORMAT " is %u, new %u",
            methods[m] ? methods[m] : "linear", k, sl.width, sl.height,
            gst_video_format_to_string (sl.format), i, mb.data[i], ma.data[i]);
        fail_unless (mbatch.data[i] == ma.data[i] &&
            mbatch.data[slot_size + i] == ma.data[i], "%s, step %u (%dx%d "
            "%s): batched, byte %" G_GSIZE_FORMAT " is %u and %u, alone %u",
            methods[m] ? methods[m] : "linear", k, sl.width, sl.height,
            gst_video_format_to_string (sl.format), i, mbatch.data[i],
            mbatch.data[slot_size + i], ma.data[i]);
      }
      gst_buffer_unmap (ha, &ma);
      gst_buffer_unmap (hb, &mb);
      gst_buffer_unmap (hbatch, &mbatch);
      gst_buffer_unref (ha);
      gst_buffer_unref (hb);
      gst_buffer_unref (hbatch);
      gst_buffer_unref (a);
      gst_buffer_unref (b);
      gst_buffer_unref (batch);
      gst_buffer_unref (frame);
      gst_object_unref (fresh);
    }
    gst_object_unref (again);
  }
  gst_caps_unref (out);
}

GST_END_TEST;

/* Runs @desc to its end with the test's context given to the pipeline */
static void
run_in_context (const gchar * desc)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);

  fail_unless (pipeline != NULL, "%s: %s", desc, error ? error->message : "");
  cudacache_run_pipeline (pipeline, context);
  gst_object_unref (pipeline);
}

/* Batch tensors, the slots' frames and the conversions' tables are blocks
 * of the device's cache: once a pad's sizes, the batch sizes and the
 * conversions have been seen, running them again in the context
 * allocates nothing, and nothing stays in use after the pipeline stops. Pads of three sizes, one
 * of them changing size twice, one ending early (its slot absent), into
 * batches of 3 and, in a second pipeline, of 4. */
GST_START_TEST (test_batch_seen_layouts_allocate_nothing)
{
  static const gchar *const descs[] = {
    "cudacachebatch name=b letterbox=true scale=0.00392156862745098 ! "
        F32_640 ("(memory:CUDAMemory)", 3) " ! fakesink "
        "videotestsrc num-buffers=6 ! video/x-raw,format=NV12,width=1920,"
        "height=1080 ! cudaupload ! b.sink_0 "
        "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=641,"
        "height=359 ! cudaupload ! b.sink_1 "
        "concat name=c ! cudaupload ! b.sink_2 "
        "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=1280,"
        "height=720 ! c. videotestsrc num-buffers=2 ! video/x-raw,"
        "format=NV12,width=320,height=240 ! c. videotestsrc num-buffers=2 ! "
        "video/x-raw,format=NV12,width=1280,height=720 ! c.",
    "cudacachebatch name=b batch-size=4 ! "
        U8_77x45 ("(memory:CUDAMemory)", 4) " ! fakesink "
        "videotestsrc num-buffers=4 ! video/x-raw,format=RGBA,width=99,"
        "height=51 ! cudaupload ! b.sink_0 "
        "videotestsrc num-buffers=4 ! video/x-raw,format=YUY2,width=64,"
        "height=48 ! cudaupload ! b.sink_1",
  };
  GstCudaCache *cache = gst_cuda_cache_device_get_cache (context);
  /* a context's idle blocks go with its last pool: this one stands for
   * the rest of an application that goes on using the context between
   * the pipelines */
  GstBufferPool *user = gst_cuda_cache_pool_new (context);
  GstCudaCacheStats seen, again;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (descs); i++)
    run_in_context (descs[i]);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &seen);
  fail_unless (seen.misses > 0);

  for (i = 0; i < G_N_ELEMENTS (descs); i++)
    run_in_context (descs[i]);
  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &again);
  /* no batch, slot or table allocated again; the frames in flight at
   * once depend on timing (a batch is sent once the next is launched,
   * keeping its frames until then), so a pool may take one frame more a
   * stream: at most one block per pad, none the size of a batch */
  fail_unless (again.misses - seen.misses <= 5, "%" G_GUINT64_FORMAT
      " blocks allocated again", again.misses - seen.misses);
  fail_unless (again.current_size - seen.current_size <
      (guint64) 640 * 640 * 3 * 4 * 3, "%" G_GUINT64_FORMAT " bytes more",
      again.current_size - seen.current_size);
  fail_unless (again.hits > seen.hits);
  fail_unless_equals_uint64 (again.used_bytes, 0);

  gst_object_unref (user);
  gst_object_unref (cache);
}

GST_END_TEST;

/* cudacachebatch mode=rois on CUDA memory: every slot the region of the
 * frame the kernels convert alone (the region as the source rectangle),
 * regions clipped, skipped and spread over two batches as on the CPU */
GST_START_TEST (test_batch_rois_are_solo_conversions)
{
  static const BatchRegion regions[] = {
    {"face", 1, 50, 40, 30, 30}, {"face", 2, 1, 1, 1, 1},
    {"face", 3, 70, 10, 5, 5}, {"face", 4, 0, 0, 61, 47},
    {"face", 5, 20, 13, 9, 30},
  };
  static const BatchRegion kept[] = {
    {"face", 1}, {"face", 2}, {"face", 4}, {"face", 5},
  };
  static const GstVideoRectangle boxes[] = {
    {50, 40, 11, 7}, {1, 1, 1, 1}, {0, 0, 61, 47}, {20, 13, 9, 30},
  };
  const gchar *sys_caps = "video/x-raw,format=I420,width=61,height=47";
  const gchar *dev_caps = "video/x-raw(memory:CUDAMemory),format=I420,"
      "width=61,height=47,framerate=30/1";
  GstElement *batch = gst_element_factory_make ("cudacachebatch", NULL);
  GstCaps *caps = gst_caps_from_string (sys_caps);
  GstBuffer *sys, *dev, *out;
  GstVideoInfo info;
  GstHarness *h;
  guint i;

  gst_util_set_object_arg (G_OBJECT (batch), "mode", "rois");
  g_object_set (batch, "batch-size", 3, "letterbox", TRUE, "fill-value", 114,
      NULL);
  h = gst_harness_new_with_element (batch, "sink_0", "src");
  gst_object_unref (batch);
  gst_harness_set_live (h, FALSE);
  gst_harness_set_src_caps_str (h, dev_caps);
  gst_harness_set_sink_caps_str (h, U8_NHWC ("(memory:CUDAMemory)", 3));

  fail_unless (gst_video_info_from_caps (&info, caps));
  sys = batch_region_frame (sys_caps, 0, regions, G_N_ELEMENTS (regions));
  dev = upload (sys, &info);
  GST_BUFFER_PTS (dev) = GST_BUFFER_PTS (sys);
  GST_BUFFER_DURATION (dev) = GST_BUFFER_DURATION (sys);
  for (i = 0; i < G_N_ELEMENTS (regions); i++)
    gst_buffer_add_video_region_of_interest_meta (dev, regions[i].type,
        regions[i].x, regions[i].y, regions[i].w,
        regions[i].h)->id = regions[i].id;
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (dev)),
      GST_FLOW_OK);

  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
  batch_check_regions (out, dev, dev_caps, U8_NHWC ("(memory:CUDAMemory)",
          1), context, 3, kept, boxes, 3);
  gst_buffer_unref (out);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  batch_check_regions (out, dev, dev_caps, U8_NHWC ("(memory:CUDAMemory)",
          1), context, 3, kept + 3, boxes + 3, 1);
  gst_buffer_unref (out);

  gst_buffer_unref (dev);
  gst_buffer_unref (sys);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Frames of pad 1 (sink_4) from its third on from @bad (NULL: system
 * memory), the others' from @good, a pool of the pipeline's context */
typedef struct
{
  GstBufferPool *good, *bad;
} BatchPools;

static GstBufferPool *
batch_frame_pool (GstCudaContext * ctx)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),"
      "format=RGBA,width=32,height=24");

  gst_buffer_pool_config_set_params (config, caps, BATCH_FRAME_SIZE, 0, 0);
  gst_caps_unref (caps);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

static GstBuffer *
make_batch_frame (GstAppSrc * src, guint pad, guint frame, gpointer user_data)
{
  BatchPools *pools = user_data;
  GstBufferPool *pool = pools->good;
  GstBuffer *buf = NULL;

  if (pad == 1 && frame >= 2) {
    if (!pools->bad)
      return gst_buffer_new_allocate (NULL, BATCH_FRAME_SIZE, NULL);
    pool = pools->bad;
  }
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  return buf;
}

/* A pad whose frames are not of the batch's memory is refused, the error
 * naming it: frames of system memory into CUDA batches (caps that say
 * CUDA memory, as a careless source might), and CUDA memory of another
 * context than the pipeline's. The other pads' batches before it went out
 * whole (batch_check_names_sink_4 () says what becomes of the rest). */
GST_START_TEST (test_batch_refuses_frames_of_other_memory)
{
  GstCudaContext *other = gst_cuda_context_new (0);
  GstContext *shared = gst_context_new_cuda_context (context);
  BatchPools pools = { batch_frame_pool (context), NULL };
  guint batches;
  gchar *error;

  error = batch_run_three_pads ("(memory:CUDAMemory)", shared,
      make_batch_frame, &pools, &batches);
  batch_check_names_sink_4 (error, batches, 2, "frames in system memory");
  g_free (error);

  fail_unless (other != NULL);
  pools.bad = batch_frame_pool (other);
  error = batch_run_three_pads ("(memory:CUDAMemory)", shared,
      make_batch_frame, &pools, &batches);
  batch_check_names_sink_4 (error, batches, 2, "another CUDA context");
  g_free (error);

  gst_buffer_pool_set_active (pools.bad, FALSE);
  gst_buffer_pool_set_active (pools.good, FALSE);
  gst_object_unref (pools.bad);
  gst_object_unref (pools.good);
  gst_context_unref (shared);
  gst_object_unref (other);
}

GST_END_TEST;

/* cudacachebatch on CUDA memory in running time, and a request (a frame
 * per pad) answered with its own batch at once, not held back for the
 * next request (cudacache-batch.h) */
GST_START_TEST (test_batch_answers_each_request)
{
  GstVideoInfo info;
  GstBuffer *sys = cudacache_make_picture (GST_VIDEO_FORMAT_NV12, 64, 48,
      &info);
  GstBuffer *dev = upload (sys, &info);
  GstContext *ctx = gst_context_new_cuda_context (context);

  batch_check_time (dev, "video/x-raw(memory:CUDAMemory),format=NV12,"
      "width=64,height=48,framerate=30/1",
      U8_NHWC ("(memory:CUDAMemory)", 2), ctx);
  gst_context_unref (ctx);
  gst_buffer_unref (dev);
  gst_buffer_unref (sys);
}

GST_END_TEST;

/* cudacachebatch stopped lets go of its context and pools: the same
 * element runs again in another pipeline whose frames are of another
 * context, and gives the same batches */
GST_START_TEST (test_batch_reused_with_another_context)
{
  GstCudaContext *contexts[2] = { context,
    gst_cuda_cache_device_open_context (0)
  };
  GstElement *batch = gst_element_factory_make ("cudacachebatch", NULL);
  GBytes *first = NULL;
  guint run;

  fail_unless (contexts[1] != NULL && contexts[1] != contexts[0]);
  gst_object_ref_sink (batch);
  for (run = 0; run < 2; run++) {
    GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=3 "
        "pattern=ball ! video/x-raw,format=NV12,width=64,height=48,"
        "framerate=30/1 ! cudaupload name=up ! capsfilter name=in "
        "caps=video/x-raw(memory:CUDAMemory) capsfilter name=out caps="
        "\"" U8_NHWC ("(memory:CUDAMemory)", 1) "\" ! appsink name=sink "
        "sync=false", NULL);
    GstElement *in = gst_bin_get_by_name (GST_BIN (pipeline), "in");
    GstElement *out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    GstContext *ctx = gst_context_new_cuda_context (contexts[run]);
    GstSample *sample;
    GstMapInfo map;
    GBytes *last = NULL;

    gst_element_set_context (pipeline, ctx);
    gst_context_unref (ctx);
    gst_bin_add (GST_BIN (pipeline), gst_object_ref (batch));
    fail_unless (gst_element_link (in, batch) && gst_element_link (batch, out));
    fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    while (TRUE) {
      g_signal_emit_by_name (sink, "pull-sample", &sample);
      if (!sample)
        break;
      fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
              GST_MAP_READ));
      if (last)
        g_bytes_unref (last);
      last = g_bytes_new (map.data, map.size);
      gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
      gst_sample_unref (sample);
    }
    {
      GstMessage *msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline),
          GST_MESSAGE_ERROR);
      GError *err = NULL;

      if (msg)
        gst_message_parse_error (msg, &err, NULL);
      fail_unless (msg == NULL, "run %u: %s", run, err ? err->message : "");
    }
    fail_unless (last != NULL, "run %u: no batch", run);
    if (!first)
      first = g_bytes_ref (last);
    else
      fail_unless (g_bytes_equal (first, last), "the element reused with "
          "another context gives other batches");
    g_bytes_unref (last);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_element_unlink (in, batch);
    gst_element_unlink (batch, out);
    gst_bin_remove (GST_BIN (pipeline), batch);
    gst_object_unref (in);
    gst_object_unref (out);
    gst_object_unref (sink);
    gst_object_unref (pipeline);
  }
  g_bytes_unref (first);
  gst_object_unref (batch);
  gst_object_unref (contexts[1]);
}

GST_END_TEST;

#endif /* __CUDACONVERT_GPU_BATCH_H__ */
