/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Fuzz target: the readers of a buffer's metas, over a system-memory
 * buffer whose metas come from fuzzed fields, as another element or an
 * application could attach them. The input is lines:
 *
 *   0  the buffer's caps (a frame or a tensor)
 *   1  the buffer's size in bytes ("" for the caps' size)
 *   2  a GstVideoMeta: `FORMAT WIDTH HEIGHT N_PLANES OFFSET STRIDE ...`
 *   3  a GstVideoCropMeta: `X Y WIDTH HEIGHT`
 *   4  a GstCudaCacheTensorMeta: `DTYPE LAYOUT D0 D1 D2 D3 S0 S1 S2 S3 SIZE`
 *   5  a GstCudaCachePictureMeta: `PX PY PW PH SX SY SW SH SOURCE_WIDTH
 *      SOURCE_HEIGHT SCALE_X SCALE_Y`
 *   6  a GstCudaCacheBatchMeta: `N_SLOTS` then `INDEX PTS ROI_ID` triples
 *   7  the output caps of a conversion, and the size a scale transform
 *      gives (`video/x-raw,...`)
 *   8  on: GstVideoRegionOfInterestMeta `TYPE X Y WIDTH HEIGHT`
 *
 * An empty line leaves that meta out. The buffer is then read as users
 * read it: exported with DLPack (whole and plane by plane, every byte of
 * what is exported read), converted on the CPU (the video and crop metas
 * read), pushed through cudacacheconvert and, with its regions,
 * cudacachebatch mode=rois, its geometry mapped, its batch slots read,
 * and copied whole, in part and scaled (every meta's transform). A
 * refusal must come with a GError or an element error; a crash, a
 * sanitizer report, a leak or a GLib critical fails. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstharness.h>
#include <gst/cudacache/gstcudacachebatchmeta.h>
#include <gst/cudacache/gstcudacacheconverter.h>
#include <gst/cudacache/gstcudacachedlpack.h>
#include <math.h>

#include "fuzz-common.h"

/* The numbers of @text, at most @n of them (a missing one is 0); returns
 * how many there were */
static guint
parse_numbers (const gchar * text, gdouble * values, guint n)
{
  gchar **words = g_strsplit_set (text, " \t", -1);
  guint i, count = 0;

  for (i = 0; words[i] != NULL && count < n; i++) {
    if (*words[i])
      values[count++] = g_ascii_strtod (words[i], NULL);
  }
  for (i = count; i < n; i++)
    values[i] = 0;
  g_strfreev (words);
  return count;
}

/* A double fuzzed into an integer type's range, as C would cast it where
 * it fits */
static gint64
clamp_int (gdouble v, gint64 lo, gint64 hi)
{
  if (isnan (v))
    return 0;
  if (v <= (gdouble) lo)
    return lo;
  if (v >= (gdouble) hi)
    return hi;
  return (gint64) v;
}

static void
add_video_meta (GstBuffer * buf, const gchar * text)
{
  gchar **words = g_strsplit (text, " ", 2);
  gdouble v[3 + 2 * GST_VIDEO_MAX_PLANES];
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  GstVideoFormat format;
  guint i, n_planes;

  /* a format by name, or one of GStreamer's by number (a value that is
   * no format at all is the producer's programming error, not input) */
  format = gst_video_format_from_string (words[0]);
  if (format == GST_VIDEO_FORMAT_UNKNOWN && words[0] != NULL) {
    guint n_formats;
    const GstVideoFormat *formats = gst_video_formats_raw (&n_formats);

    format = formats[clamp_int (g_ascii_strtod (words[0], NULL), 0,
            G_MAXUINT) % n_formats];
  }
  parse_numbers (words[0] && words[1] ? words[1] : "", v, G_N_ELEMENTS (v));
  n_planes = (guint) clamp_int (v[2], 0, GST_VIDEO_MAX_PLANES);
  for (i = 0; i < GST_VIDEO_MAX_PLANES; i++) {
    offset[i] = (gsize) clamp_int (v[3 + 2 * i], 0, G_MAXINT64);
    stride[i] = (gint) clamp_int (v[4 + 2 * i], G_MININT, G_MAXINT);
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format,
      (guint) clamp_int (v[0], 0, G_MAXUINT),
      (guint) clamp_int (v[1], 0, G_MAXUINT), n_planes, offset, stride);
  g_strfreev (words);
}

static void
add_crop_meta (GstBuffer * buf, const gchar * text)
{
  GstVideoCropMeta *meta = gst_buffer_add_video_crop_meta (buf);
  gdouble v[4];

  parse_numbers (text, v, 4);
  meta->x = (guint) clamp_int (v[0], 0, G_MAXUINT);
  meta->y = (guint) clamp_int (v[1], 0, G_MAXUINT);
  meta->width = (guint) clamp_int (v[2], 0, G_MAXUINT);
  meta->height = (guint) clamp_int (v[3], 0, G_MAXUINT);
}

/* @word as a value of @type, by its nick in any case (the names caps
 * give: float16, NCHW) */
static gboolean
enum_from_nick (GType type, const gchar * word, gint * value)
{
  GEnumClass *klass = g_type_class_ref (type);
  gchar *nick = g_ascii_strdown (word, -1);
  GEnumValue *v = g_enum_get_value_by_nick (klass, nick);

  if (v)
    *value = v->value;
  g_free (nick);
  g_type_class_unref (klass);
  return v != NULL;
}

static void
add_tensor_meta (GstBuffer * buf, const gchar * text)
{
  gchar **words = g_strsplit (text, " ", 3);
  GstCudaCacheTensorInfo info = { 0, };
  gdouble v[2 * GST_CUDA_CACHE_TENSOR_N_DIMS + 1];
  guint i;

  if (g_strv_length (words) < 2 ||
      !enum_from_nick (GST_TYPE_CUDA_CACHE_TENSOR_DTYPE, words[0],
          (gint *) & info.dtype))
    info.dtype = (GstCudaCacheTensorDType) clamp_int (g_ascii_strtod (words[0]
            ? words[0] : "", NULL), 0, 255);
  if (g_strv_length (words) < 2 ||
      !enum_from_nick (GST_TYPE_CUDA_CACHE_TENSOR_LAYOUT, words[1],
          (gint *) & info.layout))
    info.layout = (GstCudaCacheTensorLayout) clamp_int (g_ascii_strtod (words[0]
            && words[1] ? words[1] : "", NULL), 0, 255);
  parse_numbers (g_strv_length (words) > 2 ? words[2] : "", v,
      G_N_ELEMENTS (v));
  for (i = 0; i < GST_CUDA_CACHE_TENSOR_N_DIMS; i++) {
    info.dims[i] = (gsize) clamp_int (v[i], 0, G_MAXINT64);
    info.strides[i] = (gsize) clamp_int (v[GST_CUDA_CACHE_TENSOR_N_DIMS + i],
        0, G_MAXINT64);
  }
  info.size = (gsize) clamp_int (v[2 * GST_CUDA_CACHE_TENSOR_N_DIMS], 0,
      G_MAXINT64);
  gst_buffer_add_cuda_cache_tensor_meta (buf, &info);
  g_strfreev (words);
}

static void
geometry_from_numbers (GstCudaCachePictureGeometry * g, const gdouble * v)
{
  g->picture.x = (gint) clamp_int (v[0], G_MININT, G_MAXINT);
  g->picture.y = (gint) clamp_int (v[1], G_MININT, G_MAXINT);
  g->picture.w = (gint) clamp_int (v[2], G_MININT, G_MAXINT);
  g->picture.h = (gint) clamp_int (v[3], G_MININT, G_MAXINT);
  g->source.x = (gint) clamp_int (v[4], G_MININT, G_MAXINT);
  g->source.y = (gint) clamp_int (v[5], G_MININT, G_MAXINT);
  g->source.w = (gint) clamp_int (v[6], G_MININT, G_MAXINT);
  g->source.h = (gint) clamp_int (v[7], G_MININT, G_MAXINT);
  g->source_width = (gint) clamp_int (v[8], G_MININT, G_MAXINT);
  g->source_height = (gint) clamp_int (v[9], G_MININT, G_MAXINT);
  g->scale_x = v[10];
  g->scale_y = v[11];
}

/* A geometry the API takes: a 4x4 picture of a 4x4 frame */
static const GstCudaCachePictureGeometry valid_geometry = {
  {0, 0, 4, 4}, {0, 0, 4, 4}, 4, 4, 1.0, 1.0
};

/* Slots `INDEX PTS ROI_ID`, each with @geometry */
static void
add_batch_meta (GstBuffer * buf, const gchar * text,
    const GstCudaCachePictureGeometry * geometry)
{
  gdouble v[1 + 3 * 8];
  guint n = parse_numbers (text, v, G_N_ELEMENTS (v)), i;
  GstCudaCacheBatchMeta *meta;

  meta = gst_buffer_add_cuda_cache_batch_meta (buf,
      (guint) clamp_int (v[0], 0, 64));
  if (meta == NULL)
    return;
  for (i = 1; i + 2 < n; i += 3) {
    /* a slot past the meta's is refused, without a critical */
    gst_cuda_cache_batch_meta_set_slot (meta,
        (guint) clamp_int (v[i], 0, G_MAXUINT), "sink_0", "stream",
        (GstClockTime) clamp_int (v[i + 1], 0, G_MAXINT64), GST_SECOND / 30,
        geometry, (gint) clamp_int (v[i + 2], G_MININT, G_MAXINT));
  }
}

static void
add_roi_meta (GstBuffer * buf, const gchar * text)
{
  gchar **words = g_strsplit (text, " ", 2);
  gdouble v[4];

  parse_numbers (words[0] && words[1] ? words[1] : "", v, 4);
  gst_buffer_add_video_region_of_interest_meta (buf,
      words[0] && *words[0] ? words[0] : "roi",
      (guint) clamp_int (v[0], 0, G_MAXUINT),
      (guint) clamp_int (v[1], 0, G_MAXUINT),
      (guint) clamp_int (v[2], 0, G_MAXUINT),
      (guint) clamp_int (v[3], 0, G_MAXUINT));
  g_strfreev (words);
}

/* What read_tensor reads goes here, so that the reads are made */
static volatile guint8 read_sink;

/* The elements of @t, from the lowest to the highest it reaches, must lie
 * within @map: checked from its shape and strides, and the first and last
 * bytes read (ASan sees a read past the memory) */
static void
read_tensor (const DLTensor * t, const GstMapInfo * map)
{
  gint64 lo, hi;
  gint64 bytes = (t->dtype.bits * t->dtype.lanes + 7) / 8;
  const guint8 *base = (const guint8 *) t->data + t->byte_offset;
  gboolean empty;

  if (t->ndim < 0 || t->ndim > 8)
    g_error ("an exported tensor of %d dimensions", t->ndim);
  if (!fuzz_tensor_extent (t, &lo, &hi, &empty))
    g_error ("an exported tensor whose extent overflows");
  if (empty)
    return;
  if (base + lo * bytes < map->data ||
      base + hi * bytes + bytes > map->data + map->size)
    g_error ("an exported tensor reaches bytes %" G_GINT64_FORMAT " to %"
        G_GINT64_FORMAT " of a buffer of %" G_GSIZE_FORMAT,
        (gint64) (base + lo * bytes - map->data),
        (gint64) (base + hi * bytes + bytes - map->data), map->size);
  read_sink += base[lo * bytes];
  read_sink += base[hi * bytes + bytes - 1];
}

/* The buffer as DLPack exports it, whole and each plane */
static void
export_all (GstBuffer * buf, const GstCaps * caps)
{
  gint plane;

  for (plane = GST_CUDA_CACHE_DLPACK_WHOLE; plane < GST_VIDEO_MAX_PLANES;
      plane++) {
    GError *error = NULL;
    DLManagedTensor *t;
    GstMapInfo map;

    t = gst_cuda_cache_dlpack_export (buf, caps, plane,
        GST_CUDA_CACHE_DLPACK_FLAG_NONE, &error);
    if (t == NULL) {
      fuzz_expect_error (&error, "gst_cuda_cache_dlpack_export");
      continue;
    }
    if (t->dl_tensor.device.device_type != kDLCPU)
      g_error ("system memory exported as device type %d",
          t->dl_tensor.device.device_type);
    /* what is exported lies in the buffer's one memory */
    gst_buffer_map (buf, &map, GST_MAP_READ);
    read_tensor (&t->dl_tensor, &map);
    gst_buffer_unmap (buf, &map);
    gst_cuda_cache_dlpack_release (t);
  }
}

static void
read_geometry (const GstCudaCachePictureGeometry * g)
{
  gdouble x0, y0, x1, y1;

  gst_cuda_cache_picture_geometry_to_source (g, g->picture.x, g->picture.y,
      &x0, &y0);
  gst_cuda_cache_picture_geometry_from_source (g, x0, y0, &x1, &y1);
  gst_cuda_cache_picture_geometry_box_to_source (g, g->picture.x,
      g->picture.y, (gdouble) g->picture.x + g->picture.w,
      (gdouble) g->picture.y + g->picture.h, &x0, &y0, &x1, &y1);
  gst_cuda_cache_picture_geometry_box_to_source (g, NAN, 0, 1, 1, &x0, &y0,
      &x1, &y1);
}

static void
read_metas (GstBuffer * buf)
{
  GstCudaCachePictureMeta *pmeta = gst_buffer_get_cuda_cache_picture_meta (buf);
  GstCudaCacheBatchMeta *bmeta = gst_buffer_get_cuda_cache_batch_meta (buf);
  guint i;

  if (pmeta)
    read_geometry (&pmeta->geometry);
  if (bmeta) {
    for (i = 0; i <= bmeta->n_slots; i++) {
      const GstCudaCacheBatchSlot *slot =
          gst_cuda_cache_batch_meta_get_slot (bmeta, i);

      if (slot != NULL && i == bmeta->n_slots)
        g_error ("slot %u of a batch meta of %u", i, bmeta->n_slots);
      if (slot != NULL && slot->present)
        read_geometry (&slot->geometry);
    }
  }
}

/* Every meta's transform: a whole copy and a region; and the project's
 * metas' scale to @to */
static void
transform_all (GstBuffer * buf, const GstCaps * caps, const GstCaps * to)
{
  GstVideoInfo in_info, out_info;
  GstBuffer *copy;
  gpointer state = NULL;
  GstMeta *meta;

  copy = gst_buffer_copy (buf);
  read_metas (copy);
  gst_buffer_unref (copy);
  if (gst_buffer_get_size (buf) > 1) {
    copy = gst_buffer_copy_region (buf, GST_BUFFER_COPY_ALL, 1,
        gst_buffer_get_size (buf) - 1);
    read_metas (copy);
    gst_buffer_unref (copy);
  }

  if (caps == NULL || to == NULL || !gst_caps_is_fixed (caps) ||
      !gst_caps_is_fixed (to) || !gst_video_info_from_caps (&in_info, caps) ||
      !gst_video_info_from_caps (&out_info, to))
    return;
  copy = gst_buffer_new ();
  while ((meta = gst_buffer_iterate_meta (buf, &state))) {
    GstVideoMetaTransform trans = { &in_info, &out_info };

    /* the project's metas; GStreamer's own transforms are GStreamer's */
    if (meta->info->api == GST_CUDA_CACHE_PICTURE_META_API_TYPE ||
        meta->info->api == GST_CUDA_CACHE_BATCH_META_API_TYPE ||
        meta->info->api == GST_CUDA_CACHE_TENSOR_META_API_TYPE)
      meta->info->transform_func (copy, meta, buf,
          gst_video_meta_transform_scale_get_quark (), &trans);
  }
  read_metas (copy);
  gst_buffer_unref (copy);
}

/* A CPU conversion of @buf, its video and crop metas read */
static void
convert (GstBuffer * buf, const GstCaps * caps, const GstCaps * out_caps)
{
  GstCudaCacheConverter *conv;
  GstCudaCachePictureGeometry geometry;
  GError *error = NULL;
  gsize out_size;
  GstBuffer *outbuf;

  if (caps == NULL || out_caps == NULL || !gst_caps_is_fixed (caps) ||
      !gst_caps_is_fixed (out_caps) || !fuzz_caps_small_enough (out_caps))
    return;
  out_size = fuzz_caps_buffer_size (out_caps);
  if (out_size == 0 || out_size > 16 * MAX_PIXELS)
    return;
  conv = gst_cuda_cache_converter_new (caps, out_caps, NULL, NULL, &error);
  if (conv == NULL) {
    fuzz_expect_error (&error, "gst_cuda_cache_converter_new");
    return;
  }
  outbuf = gst_buffer_new_allocate (NULL, out_size, NULL);
  if (!gst_cuda_cache_converter_convert_buffer (conv, buf, outbuf, NULL,
          &error))
    fuzz_expect_error (&error, "gst_cuda_cache_converter_convert_buffer");
  if (gst_cuda_cache_converter_get_geometry (conv, buf, &geometry, &error))
    read_geometry (&geometry);
  else
    fuzz_expect_error (&error, "gst_cuda_cache_converter_get_geometry");
  gst_buffer_unref (outbuf);
  gst_object_unref (conv);
}

/* @buf through @factory, its properties @props (`name=value ...`), from
 * @caps to @out_caps; what comes out is read as a user reads it */
static void
push_through (const gchar * factory, const gchar * props, GstBuffer * buf,
    const GstCaps * caps, const GstCaps * out_caps)
{
  GstHarness *h;
  GstBuffer *out;

  h = gst_harness_new_with_padnames (factory, g_str_equal (factory,
          "cudacachebatch") ? "sink_0" : "sink", "src");
  if (props) {
    gchar **pairs = g_strsplit (props, " ", -1);
    guint i;

    for (i = 0; pairs[i] != NULL; i++) {
      gchar **pair = g_strsplit (pairs[i], "=", 2);

      gst_util_set_object_arg (G_OBJECT (h->element), pair[0], pair[1]);
      g_strfreev (pair);
    }
    g_strfreev (pairs);
  }
  gst_harness_set_src_caps (h, gst_caps_copy (caps));
  gst_harness_set_sink_caps (h, gst_caps_copy (out_caps));
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  gst_harness_push (h, gst_buffer_ref (buf));
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((out = gst_harness_try_pull (h))) {
    GstCaps *got = gst_pad_get_current_caps (h->sinkpad);

    read_metas (out);
    export_all (out, got);
    gst_clear_caps (&got);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gchar **fields;
  GstCaps *caps, *out_caps = NULL;
  GstBuffer *buf;
  GstCudaCachePictureGeometry geometry;
  gdouble v[12];
  gsize n;
  guint line;

  fuzz_init ();
  fields = fuzz_split_fields (data, size);
  caps = fuzz_caps_from_string (fuzz_field (fields, 0));
  if (caps == NULL || !gst_caps_is_fixed (caps) ||
      !fuzz_caps_small_enough (caps) || gst_caps_is_empty (caps))
    goto done;
  if (*fuzz_field (fields, 7)) {
    out_caps = fuzz_caps_from_string (fuzz_field (fields, 7));
    if (out_caps && !fuzz_caps_small_enough (out_caps))
      gst_clear_caps (&out_caps);
  }

  n = *fuzz_field (fields, 1) ?
      (gsize) clamp_int (g_ascii_strtod (fuzz_field (fields, 1), NULL), 0,
      16 * MAX_PIXELS) : fuzz_caps_buffer_size (caps);
  if (n == 0 || n > 16 * MAX_PIXELS)
    goto done;
  buf = fuzz_buffer_new (n, data, size);

  if (*fuzz_field (fields, 2))
    add_video_meta (buf, fuzz_field (fields, 2));
  if (*fuzz_field (fields, 3))
    add_crop_meta (buf, fuzz_field (fields, 3));
  if (*fuzz_field (fields, 4))
    add_tensor_meta (buf, fuzz_field (fields, 4));
  parse_numbers (fuzz_field (fields, 5), v, 12);
  geometry_from_numbers (&geometry, v);
  if (*fuzz_field (fields, 5)) {
    GstCudaCachePictureMeta *meta =
        gst_buffer_add_cuda_cache_picture_meta (buf, &valid_geometry);

    /* the fields are public: a producer may write any */
    meta->geometry = geometry;
  }
  if (*fuzz_field (fields, 6))
    add_batch_meta (buf, fuzz_field (fields, 6), &geometry);
  for (line = 8; line < g_strv_length (fields); line++)
    add_roi_meta (buf, fields[line]);

  read_metas (buf);
  export_all (buf, caps);
  export_all (buf, NULL);
  transform_all (buf, caps, out_caps);
  if (out_caps) {
    convert (buf, caps, out_caps);
    push_through ("cudacacheconvert", NULL, buf, caps, out_caps);
    push_through ("cudacachebatch", "mode=rois batch-size=4", buf, caps,
        out_caps);
  }
  gst_buffer_unref (buf);

done:
  gst_clear_caps (&caps);
  gst_clear_caps (&out_caps);
  g_strfreev (fields);
  return 0;
}
