/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* cudacachebatch against cudacacheconvert: each slot of a batch is the
 * frame converted alone, byte for byte. Shared by the CPU suite and the
 * GPU one (@upload: "" for system memory, "cudaupload !" for CUDA). */

#ifndef __CUDACACHE_BATCH_H__
#define __CUDACACHE_BATCH_H__

#include <string.h>
#include <gst/app/gstappsink.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsrc.h>
#include <gst/cudacache/cudacache.h>
#include "cudacache-check.h"
#include "cudacache-config.h"

/* batch tensors of 40x40 float32 NCHW and 33x21 uint8 NHWC, of @n slots,
 * in memory of caps features @features ("" or "(memory:CUDAMemory)") */
#define FLOAT_NCHW(features, n) "other/tensors" features ",format=static,num_tensors=1," \
  "types=float32,layout=NCHW,dimensions=40:40:3:" #n
#define U8_NHWC(features, n) "other/tensors" features ",format=static,num_tensors=1," \
  "types=uint8,layout=NHWC,dimensions=3:33:21:" #n

/* sources: sizes and formats of each kind the converter reads, one pad each */
static const gchar *const batch_sources[] = {
  "videotestsrc num-buffers=4 ! video/x-raw,format=I420,width=128,height=72",
  "videotestsrc num-buffers=3 pattern=ball ! "
      "video/x-raw,format=NV12,width=37,height=23",
  "videotestsrc num-buffers=4 pattern=colors ! "
      "video/x-raw,format=RGBA,width=40,height=40",
  "videotestsrc num-buffers=2 pattern=zone-plate ! "
      "video/x-raw,format=YUY2,width=300,height=200",
};

static const guint batch_frames[] = { 4, 3, 4, 2 };


/* The buffers appsink "out" of @desc received until the end of stream
 * (host copies of their bytes, as GBytes), and the first one's batch meta
 * slots' presence in *@present (a row of n_slots per buffer) if wanted. */
static GPtrArray *
batch_run (const gchar * desc, GArray * present, GPtrArray * pad_names)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstSample *sample;
  GstMessage *msg = NULL;

  fail_unless (pipeline != NULL, "%s: %s", desc, error ? error->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (;;) {
    GstBuffer *buf;
    GstCudaCacheBatchMeta *meta;
    GstMapInfo map;
    guint i;

    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        GST_SECOND / 10);
    if (!sample) {
      if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
        break;
      msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline),
          GST_MESSAGE_ERROR);
      if (msg)
        break;
      continue;
    }
    buf = gst_sample_get_buffer (sample);
    meta = gst_buffer_get_cuda_cache_batch_meta (buf);
    /* the tensor's bytes: CUDA memory's size counts its padding too */
    fail_unless (gst_buffer_get_cuda_cache_tensor_meta (buf) != NULL);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_ptr_array_add (out, g_bytes_new (map.data,
            gst_buffer_get_cuda_cache_tensor_meta (buf)->info.size));
    gst_buffer_unmap (buf, &map);
    if (present) {
      fail_unless (meta != NULL, "a batch without its meta");
      for (i = 0; i < meta->n_slots; i++) {
        const GstCudaCacheBatchSlot *slot =
            gst_cuda_cache_batch_meta_get_slot (meta, i);
        gboolean p = slot->present;

        g_array_append_val (present, p);
        if (pad_names)
          g_ptr_array_add (pad_names, g_strdup (slot->pad_name));
      }
    }
    gst_sample_unref (sample);
  }
  /* an error ends the stream too: it is what went wrong; the pipeline
   * stopped before the case fails */
  if (!msg)
    msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline),
        GST_MESSAGE_ERROR);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  if (msg) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    fail ("%s: %s", desc, err->message);
  }
  return out;
}

/* The first error @desc posts, or NULL where it runs to its end */
static gchar *
batch_run_error (const gchar * desc)
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstMessage *msg;
  gchar *text = NULL;

  fail_unless (pipeline != NULL, "%s", desc);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      30 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
  }
  gst_clear_message (&msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return text;
}

/* Every slot of the batches of @n_sources sources (@sources[i] a
 * source's description up to its caps, @frames[i] its frames) through
 * cudacachebatch with @options into @tensor caps (the batch's, of
 * n_sources slots; @slot_caps the same of 1), equal to the source's frame
 * converted alone by cudacacheconvert with @options; slots after a
 * source's end absent and zero. Returns the batches compared. */
static guint
batch_check_slots (const gchar * const *sources, const guint * frames,
    guint n_sources, const gchar * upload, const gchar * options,
    const gchar * tensor, const gchar * slot_caps)
{
  GString *desc = g_string_new (NULL);
  GArray *present = g_array_new (FALSE, FALSE, sizeof (gboolean));
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *batches, *solo[8];
  guint i, b, n_batches = 0;
  gsize slot_size = 0;

  fail_unless (n_sources <= G_N_ELEMENTS (solo));
  for (i = 0; i < n_sources; i++) {
    gchar *d = g_strdup_printf ("%s ! %s cudacacheconvert %s ! %s ! "
        "appsink name=out sync=false", sources[i], upload, options, slot_caps);

    solo[i] = batch_run (d, NULL, NULL);
    fail_unless_equals_int (solo[i]->len, frames[i]);
    slot_size = g_bytes_get_size (g_ptr_array_index (solo[i], 0));
    n_batches = MAX (n_batches, frames[i]);
    g_free (d);
  }

  g_string_printf (desc, "cudacachebatch name=b %s ! %s ! appsink name=out "
      "sync=false", options, tensor);
  for (i = 0; i < n_sources; i++)
    g_string_append_printf (desc, " %s ! %s b.sink_%u", sources[i], upload, i);
  batches = batch_run (desc->str, present, names);
  fail_unless_equals_int (batches->len, n_batches);

  for (b = 0; b < n_batches; b++) {
    gsize size;
    const guint8 *batch = g_bytes_get_data (g_ptr_array_index (batches, b),
        &size);

    fail_unless_equals_uint64 (size, slot_size * n_sources);
    for (i = 0; i < n_sources; i++) {
      const guint8 *slot = batch + i * slot_size;
      gboolean p = g_array_index (present, gboolean, b * n_sources + i);

      if (b < frames[i]) {
        gchar *name = g_strdup_printf ("sink_%u", i);

        fail_unless (p, "batch %u slot %u absent", b, i);
        fail_unless_equals_string (g_ptr_array_index (names,
                b * n_sources + i), name);
        fail_unless (memcmp (slot, g_bytes_get_data (g_ptr_array_index
                    (solo[i], b), NULL), slot_size) == 0,
            "batch %u slot %u differs from the frame converted alone", b, i);
        g_free (name);
      } else {
        gsize k;

        fail_if (p, "batch %u slot %u present after its end", b, i);
        for (k = 0; k < slot_size; k++)
          fail_unless (slot[k] == 0, "absent slot %u of batch %u not zero",
              i, b);
      }
    }
  }

  for (i = 0; i < n_sources; i++)
    g_ptr_array_unref (solo[i]);
  g_ptr_array_unref (batches);
  g_ptr_array_unref (names);
  g_array_unref (present);
  g_string_free (desc, TRUE);
  return n_batches;
}

/* A frame of @caps (system memory) of pseudo-random bytes from @seed,
 * of @pts and @duration */
static GstBuffer *
batch_noise_frame (const gchar * caps, guint32 seed, GstClockTime pts,
    GstClockTime duration)
{
  GstCaps *c = gst_caps_from_string (caps);
  GstVideoInfo info;
  GstBuffer *buf;
  GstMapInfo map;
  gsize k;

  fail_unless (gst_video_info_from_caps (&info, c), "%s", caps);
  gst_caps_unref (c);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (k = 0; k < map.size; k++) {
    seed = seed * 1664525u + 1013904223u;
    map.data[k] = seed >> 24;
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = duration;
  return buf;
}

/* @frame of @in_caps converted alone, as cudacacheconvert converts it,
 * with @config and its source rectangle set to @box, into one slot of
 * @slot_caps (system memory, or CUDA memory of @context); where it lies
 * in *@picture (source and picture rectangles) if wanted */
static GBytes *
batch_solo_region (GstBuffer * frame, const gchar * in_caps,
    const gchar * slot_caps, const GstStructure * config,
    const GstVideoRectangle * box, GstCudaContext * context,
    GstCudaCacheBatchSlot * picture)
{
  GstCaps *in = gst_caps_from_string (in_caps);
  GstCaps *out = gst_caps_from_string (slot_caps);
  GstStructure *c = gst_structure_copy (config);
  GstCudaCacheTensorInfo info;
  GstCudaCacheConverter *conv;
  GstBufferPool *pool = NULL;
  GError *error = NULL;
  GstBuffer *outbuf = NULL;
  GstMapInfo map;
  GBytes *bytes;

  gst_structure_set (c, GST_CUDA_CACHE_CONVERTER_OPT_SRC_X, G_TYPE_INT,
      box->x, GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y, G_TYPE_INT, box->y,
      GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH, G_TYPE_INT, box->w,
      GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT, G_TYPE_INT, box->h, NULL);
  conv = gst_cuda_cache_converter_new (in, out, context, c, &error);
  fail_unless (conv != NULL, "%s", error ? error->message : "");
  fail_unless (gst_cuda_cache_tensor_info_from_caps (&info, out));
  if (context) {
    GstStructure *pool_config;

    pool = gst_cuda_cache_pool_new (context);
    pool_config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (pool_config, out, info.size, 0, 0);
    fail_unless (gst_buffer_pool_set_config (pool, pool_config));
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &outbuf,
            NULL), GST_FLOW_OK);
  } else {
    outbuf = gst_buffer_new_allocate (NULL, info.size, NULL);
  }
  fail_unless (gst_cuda_cache_converter_convert_buffer (conv, frame, outbuf,
          NULL, &error), "%s", error ? error->message : "");
  if (picture) {
    GstCudaCachePictureMeta *pmeta =
        test_add_picture_meta (conv, frame, outbuf);

    fail_unless (pmeta != NULL);
    picture->geometry = pmeta->geometry;
  }
  /* the tensor's bytes: CUDA memory's size counts its padding too */
  fail_unless (gst_buffer_map (outbuf, &map, GST_MAP_READ));
  bytes = g_bytes_new (map.data, info.size);
  gst_buffer_unmap (outbuf, &map);
  gst_buffer_unref (outbuf);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_object_unref (conv);
  gst_caps_unref (in);
  gst_caps_unref (out);
  return bytes;
}

/* A region of interest of a test frame */
typedef struct
{
  const gchar *type;
  gint id;
  guint x, y, w, h;
} BatchRegion;

/* Frame @index of @caps (pseudo-random, system memory, of @index frames
 * of 1/30 s), with a GstVideoRegionOfInterestMeta per region, in order */
static GstBuffer *
batch_region_frame (const gchar * caps, guint index,
    const BatchRegion * regions, guint n)
{
  GstBuffer *buf = batch_noise_frame (caps, 1000 + index,
      index * GST_SECOND / 30, GST_SECOND / 30);
  guint i;

  for (i = 0; i < n; i++) {
    GstVideoRegionOfInterestMeta *m =
        gst_buffer_add_video_region_of_interest_meta (buf, regions[i].type,
        regions[i].x, regions[i].y, regions[i].w, regions[i].h);

    m->id = regions[i].id;
  }
  return buf;
}

/* @batch (of cudacachebatch mode=rois letterbox=true fill-value=114): its
 * slots the regions @expected[0..n_present-1] of @frame (of @in_caps, in
 * system memory or CUDA memory of @context), each equal to the frame
 * converted alone with its source rectangle the region clipped to the
 * frame (@clipped), its meta the frame's and the region's; the rest absent
 * and zero */
static void
batch_check_regions (GstBuffer * batch, GstBuffer * frame,
    const gchar * in_caps, const gchar * slot_caps, GstCudaContext * context,
    guint n_slots, const BatchRegion * expected,
    const GstVideoRectangle * clipped, guint n_present)
{
  static const gdouble zero[3] = { 0, 0, 0 }, one[3] = { 1, 1, 1 };
  GstStructure *config = test_config_new (TRUE, 114,
      GST_CUDA_CACHE_CHANNEL_ORDER_RGB, 1.0, zero, one);
  GstCudaCacheBatchMeta *meta = gst_buffer_get_cuda_cache_batch_meta (batch);
  GstCudaCacheTensorMeta *tmeta = gst_buffer_get_cuda_cache_tensor_meta (batch);
  GstCaps *caps = gst_caps_from_string (in_caps);
  GstVideoInfo info;
  gboolean sub_x, sub_y;
  GstMapInfo map;
  gsize slot_size;
  guint i;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  sub_x = GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, 1) > 0;
  sub_y = GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, 1) > 0;
  fail_unless (meta != NULL && meta->n_slots == n_slots);
  fail_unless (tmeta != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (batch), GST_BUFFER_PTS (frame));
  fail_unless (gst_buffer_map (batch, &map, GST_MAP_READ));
  slot_size = tmeta->info.size / n_slots;
  for (i = 0; i < n_slots; i++) {
    const GstCudaCacheBatchSlot *slot =
        gst_cuda_cache_batch_meta_get_slot (meta, i);
    const guint8 *data = map.data + i * slot_size;

    if (i < n_present) {
      const GstVideoRectangle *r = &clipped[i];
      GstCudaCacheBatchSlot solo_picture;
      GBytes *solo = batch_solo_region (frame, in_caps, slot_caps, config, r,
          context, &solo_picture);

      fail_unless (slot->present, "slot %u absent", i);
      fail_unless_equals_string (slot->pad_name, "sink_0");
      fail_unless_equals_int (slot->roi_id, expected[i].id);
      fail_unless_equals_uint64 (slot->pts, GST_BUFFER_PTS (frame));
      fail_unless_equals_uint64 (slot->duration, GST_BUFFER_DURATION (frame));
      fail_unless_equals_uint64 (g_bytes_get_size (solo), slot_size);
      fail_unless (memcmp (data, g_bytes_get_data (solo, NULL),
              slot_size) == 0, "slot %u (region %d) differs from the frame "
          "converted alone with its source rectangle", i, expected[i].id);
      /* the source rectangle: the region, grown to the chroma grid */
      fail_unless_equals_int (slot->geometry.source.x, sub_x ? r->x & ~1 : r->x);
      fail_unless_equals_int (slot->geometry.source.y, sub_y ? r->y & ~1 : r->y);
      fail_unless_equals_int (slot->geometry.source.x + slot->geometry.source.w, sub_x ?
          MIN ((r->x + r->w + 1) & ~1, GST_VIDEO_INFO_WIDTH (&info)) :
          r->x + r->w);
      fail_unless_equals_int (slot->geometry.source.y + slot->geometry.source.h, sub_y ?
          MIN ((r->y + r->h + 1) & ~1, GST_VIDEO_INFO_HEIGHT (&info)) :
          r->y + r->h);
      fail_unless (memcmp (&slot->geometry.source, &solo_picture.geometry.source,
              sizeof (GstVideoRectangle)) == 0);
      fail_unless (memcmp (&slot->geometry.picture, &solo_picture.geometry.picture,
              sizeof (GstVideoRectangle)) == 0);
      g_bytes_unref (solo);
    } else {
      gsize k;

      fail_if (slot->present, "slot %u present", i);
      for (k = 0; k < slot_size; k++)
        fail_unless (data[k] == 0, "absent slot %u not zero", i);
    }
  }
  gst_buffer_unmap (batch, &map);
  gst_structure_free (config);
}

/* Three pads, one of them given a frame the batch cannot take: three
 * appsrc of 32x24 RGBA frames (caps features @features) into sink_0,
 * sink_4 and sink_7 (slots 0, 1 and 2) */
#define BATCH_FRAME_W 32
#define BATCH_FRAME_H 24
#define BATCH_FRAME_SIZE (BATCH_FRAME_W * BATCH_FRAME_H * 4)
#define BATCH_FRAME_CAPS "video/x-raw,format=RGBA,width=32,height=24," \
  "framerate=30/1"

/* Frame @frame of pad @pad (0, 1, 2: sink_0, sink_4, sink_7); it may set
 * @src's caps first */
typedef GstBuffer *(*BatchFrameFunc) (GstAppSrc * src, guint pad,
    guint frame, gpointer user_data);

/* 4 frames of each of the three pads that @make makes, into batches of
 * memory of @features, @context (nullable) given to the pipeline. Returns
 * the first error's text (NULL where the stream ends without one), and
 * in *@batches the batches that went out before it, each of three present
 * slots. */
static gchar *
batch_run_three_pads (const gchar * features, GstContext * context,
    BatchFrameFunc make, gpointer user_data, guint * batches)
{
  static const gchar *const names[] = { "s0", "s4", "s7" };
  gchar *caps = g_strdup_printf ("video/x-raw%s,format=RGBA,width=%d,"
      "height=%d,framerate=30/1", features, BATCH_FRAME_W, BATCH_FRAME_H);
  gchar *desc = g_strdup_printf ("cudacachebatch name=b ! %s ! appsink "
      "name=out sync=false appsrc name=s0 format=time caps=%s ! b.sink_0 "
      "appsrc name=s4 format=time caps=%s ! b.sink_4 "
      "appsrc name=s7 format=time caps=%s ! b.sink_7",
      g_str_equal (features, "") ? U8_NHWC ("", 3) :
      U8_NHWC ("(memory:CUDAMemory)", 3), caps, caps, caps);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink;
  GstMessage *msg = NULL;
  gchar *text = NULL;
  guint i, k;

  fail_unless (pipeline != NULL, "%s", desc);
  g_free (desc);
  g_free (caps);
  if (context)
    gst_element_set_context (pipeline, context);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (k = 0; k < G_N_ELEMENTS (names); k++) {
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), names[k]);

    for (i = 0; i < 4; i++) {
      GstBuffer *buf = make (GST_APP_SRC (src), k, i, user_data);

      GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
      GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
      fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
              buf), GST_FLOW_OK);
    }
    gst_app_src_end_of_stream (GST_APP_SRC (src));
    gst_object_unref (src);
  }

  *batches = 0;
  for (;;) {
    /* once the error is posted, the batches sent before it are those
     * already at the sink: taken without waiting, after the error was
     * seen */
    gboolean draining = msg != NULL;
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        draining ? 0 : GST_SECOND / 10);

    if (!msg)
      msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipeline),
          GST_MESSAGE_ERROR);
    if (draining && !sample)
      break;
    if (sample) {
      GstCudaCacheBatchMeta *meta =
          gst_buffer_get_cuda_cache_batch_meta (gst_sample_get_buffer
          (sample));

      fail_unless (meta != NULL && meta->n_slots == 3);
      for (k = 0; k < 3; k++)
        fail_unless (gst_cuda_cache_batch_meta_get_slot (meta, k)->present,
            "batch %u: slot %u absent", *batches, k);
      (*batches)++;
      gst_sample_unref (sample);
    } else if (gst_app_sink_is_eos (GST_APP_SINK (sink))) {
      break;
    }
  }
  if (msg) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return text;
}

/* The error names the pad the bad frame came through, whichever slot it
 * fills, and says what is wrong (@says). What happens to the other pads'
 * frames: every batch before the bad frame goes out whole (@bad of them);
 * the batch it would have been in is not made (half a batch would pass
 * for a whole one with a stream missing), and the error, posted at once,
 * ends the stream, so the frames the other pads gave that batch and after
 * are not batched: the error tells the application so, naming the pad and
 * what is wrong with its frame. */
static void
batch_check_names_sink_4 (const gchar * error, guint batches, guint bad,
    const gchar * says)
{
  fail_unless (error != NULL, "no error for a bad frame of sink_4");
  fail_unless (g_str_has_prefix (error, "sink_4: "), "%s", error);
  fail_unless (strstr (error, says) != NULL, "%s", error);
  fail_unless (strstr (error, "slot") == NULL, "%s", error);
  fail_unless_equals_int (batches, bad);
}

/* A batch of two harnessed pads (@h[0] the element's sink_0 and src,
 * @h[1] its sink_1), frames @caps (features included), tensor @tensor,
 * each pad's frames in a segment starting at @start[i] */
static GstHarness *
batch_two_pads (const gchar * caps, const gchar * tensor,
    const GstClockTime start[2], GstContext * context, GstHarness * h[2])
{
  GstElement *e = gst_element_factory_make ("cudacachebatch", NULL);
  guint i;

  fail_unless (e != NULL);
  if (context)
    gst_element_set_context (e, context);
  h[0] = gst_harness_new_with_element (e, "sink_0", "src");
  h[1] = gst_harness_new_with_element (e, "sink_1", NULL);
  gst_object_unref (e);
  gst_harness_set_sink_caps_str (h[0], tensor);
  for (i = 0; i < 2; i++) {
    GstSegment segment;

    gst_harness_set_src_caps_str (h[i], caps);
    gst_segment_init (&segment, GST_FORMAT_TIME);
    segment.start = segment.time = start[i];
    fail_unless (gst_harness_push_event (h[i],
            gst_event_new_segment (&segment)));
  }
  return h[0];
}

/* @frame (a frame of the harness's caps, in its memory) at @pts, 1/30 s */
static GstBuffer *
batch_frame_at (GstBuffer * frame, GstClockTime pts)
{
  GstBuffer *buf = gst_buffer_copy (frame);

  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* The running time of @buf in the last segment @h's sink received */
static GstClockTime
batch_running_time (GstHarness * h, GstBuffer * buf)
{
  GstEvent *event = gst_pad_get_sticky_event (h->sinkpad, GST_EVENT_SEGMENT,
      0);
  const GstSegment *segment;
  GstClockTime t;

  fail_unless (event != NULL, "no segment downstream");
  gst_event_parse_segment (event, &segment);
  t = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));
  gst_event_unref (event);
  return t;
}

/* Two pads whose segments start at 3600 s (as MPEG-TS and HLS give) and at
 * 5 s, both at running time 0: the batches are at running times 0, 33, 67
 * ms, as compositor gives the same input, one after the other without
 * overlapping; a frame before its segment's start is not batched. Each
 * request (a frame per pad) is answered with its own batch, without a
 * next request to push it out. */
static void
batch_check_time (GstBuffer * frame, const gchar * caps,
    const gchar * tensor, GstContext * context)
{
  static const GstClockTime start[2] = { 3600 * GST_SECOND, 5 * GST_SECOND };
  GstHarness *h[2];
  GstClockTime end = 0;
  guint k, i;

  batch_two_pads (caps, tensor, start, context, h);
  /* before the segment: clipped */
  for (i = 0; i < 2; i++)
    fail_unless_equals_int (gst_harness_push (h[i], batch_frame_at (frame,
                start[i] - GST_SECOND)), GST_FLOW_OK);
  for (k = 0; k < 3; k++) {
    GstClockTime at = gst_util_uint64_scale (k, GST_SECOND, 30);
    GstBuffer *out;
    GstCudaCacheBatchMeta *meta;
    gint64 deadline = g_get_monotonic_time () + 3 * G_TIME_SPAN_SECOND;

    /* request k: a frame per pad, then wait for its batch */
    for (i = 0; i < 2; i++)
      fail_unless_equals_int (gst_harness_push (h[i], batch_frame_at (frame,
                  start[i] + at)), GST_FLOW_OK);
    while (!(out = gst_harness_try_pull (h[0])) &&
        g_get_monotonic_time () < deadline)
      g_usleep (1000);
    fail_unless (out != NULL, "request %u: no batch within 3 s", k);
    fail_unless_equals_uint64 (batch_running_time (h[0], out), at);
    fail_unless (GST_BUFFER_DURATION_IS_VALID (out));
    fail_unless (GST_BUFFER_PTS (out) >= end, "batches overlap");
    end = GST_BUFFER_PTS (out) + GST_BUFFER_DURATION (out);
    meta = gst_buffer_get_cuda_cache_batch_meta (out);
    fail_unless (meta != NULL);
    /* each slot is this request's frame, in its own stream's time */
    for (i = 0; i < 2; i++) {
      const GstCudaCacheBatchSlot *slot =
          gst_cuda_cache_batch_meta_get_slot (meta, i);

      fail_unless (slot->present);
      fail_unless_equals_uint64 (slot->pts, start[i] + at);
    }
    gst_buffer_unref (out);
  }
  fail_if (gst_harness_try_pull (h[0]) != NULL, "a batch of no request");
  gst_harness_teardown (h[1]);
  gst_harness_teardown (h[0]);
}

#endif /* __CUDACACHE_BATCH_H__ */
