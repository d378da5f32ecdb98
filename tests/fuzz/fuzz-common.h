/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Shared by the fuzz targets (docs/fuzzing.md): GStreamer's one-time
 * setup, GLib criticals and warnings made crashes, and the split of an input
 * into text fields. */

#ifndef __CUDACACHE_FUZZ_COMMON_H__
#define __CUDACACHE_FUZZ_COMMON_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cudacache/gstcudacachetensor.h>
#include <dlpack/dlpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* Frames and tensors above this many pixels (or values) are not made:
 * their conversion would take the fuzzer's time, not find more */
#define MAX_PIXELS (1 << 18)

/* At most this many fields are taken from an input */
#define FUZZ_MAX_FIELDS 24

/* Set while GStreamer parses a fuzzed string: its 1.22 parsers raise
 * criticals and warnings of their own for names they refuse (a structure
 * name, a caps feature) and for 0.10-style raw caps; those are
 * GStreamer's, not this project's, and the parse still returns NULL or
 * what it made */
static gboolean fuzz_in_gst_parser = FALSE;

/* Prints a GLib message as GLib would; a critical, a warning or an error
 * (a programming error a bad input must never reach) then aborts, which
 * the fuzzer reports as a crash with its input (GLib's own fatal path
 * stops on SIGTRAP, which the fuzzer does not catch) */
static inline void
fuzz_log_handler (const gchar * log_domain, GLogLevelFlags log_level,
    const gchar * message, gpointer user_data)
{
  if (fuzz_in_gst_parser && g_strcmp0 (log_domain, "GStreamer") == 0)
    return;
  /* GLib's default handler takes that fatal path itself for an error
   * (g_error ()) */
  if (log_level & G_LOG_LEVEL_ERROR) {
    g_printerr ("%s%sERROR **: %s\n", log_domain ? log_domain : "",
        log_domain ? "-" : "", message);
    abort ();
  }
  g_log_default_handler (log_domain, log_level, message, user_data);
  if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL |
          G_LOG_LEVEL_WARNING))
    abort ();
}

/* GStreamer 1.22's parsers leak part of a value they fail to parse (a
 * list cut short); tests/fuzz/lsan.supp leaves out what is allocated
 * under these two, which only parse, and what they made is copied before
 * any of it reaches the project's code, so a leak of it there still
 * shows */
static G_GNUC_NO_INLINE void
fuzz_gst_parse_caps (const gchar * text, GstCaps ** caps)
{
  /* a store after the call: no tail call, which would leave this frame
   * out of the allocation's stack */
  *caps = gst_caps_from_string (text);
}

static G_GNUC_NO_INLINE void
fuzz_gst_parse_structure (const gchar * text, GstStructure ** s)
{
  *s = gst_structure_from_string (text, NULL);
}

/* Whether @text nests lists, arrays or ranges deeper than 8: GStreamer
 * 1.22's parser leaks what it made of one it fails to parse, one
 * allocation a level, deeper than the leak checker's stack reaches to find
 * the parse in it (tests/fuzz/lsan.supp); caps and configs nest one or two
 * levels */
static inline gboolean
fuzz_nested_too_deep (const gchar * text)
{
  gint depth = 0;

  for (; *text; text++) {
    if (*text == '{' || *text == '<' || *text == '[' || *text == '(')
      depth++;
    else if (*text == '}' || *text == '>' || *text == ']' || *text == ')')
      depth--;
    if (depth > 8)
      return TRUE;
  }
  return FALSE;
}

/* gst_caps_from_string, tolerating GStreamer's own criticals above */
static inline GstCaps *
fuzz_caps_from_string (const gchar * text)
{
  GstCaps *parsed, *caps = NULL;

  if (fuzz_nested_too_deep (text))
    return NULL;
  fuzz_in_gst_parser = TRUE;
  fuzz_gst_parse_caps (text, &parsed);
  fuzz_in_gst_parser = FALSE;
  if (parsed != NULL) {
    caps = gst_caps_copy (parsed);
    gst_caps_unref (parsed);
  }
  return caps;
}

/* gst_structure_from_string, likewise */
static inline GstStructure *
fuzz_structure_from_string (const gchar * text)
{
  GstStructure *parsed, *s = NULL;

  if (fuzz_nested_too_deep (text))
    return NULL;
  fuzz_in_gst_parser = TRUE;
  fuzz_gst_parse_structure (text, &parsed);
  fuzz_in_gst_parser = FALSE;
  if (parsed != NULL) {
    s = gst_structure_copy (parsed);
    gst_structure_free (parsed);
  }
  return s;
}

/* gst_init once, and fuzz_log_handler for every message from then on */
static inline void
fuzz_init (void)
{
  static gboolean done = FALSE;

  if (done)
    return;
  done = TRUE;
  g_log_set_default_handler (fuzz_log_handler, NULL);
  /* the elements' task threads come from GLib's thread pools: kept alive
   * once made, so that no thread ends while the leak check runs (GLib
   * 2.74 frees a thread's slice magazine, which every thread that used
   * GSlice has, only as the thread ends; a thread ending during the check
   * was reported as a leak) */
  g_thread_pool_set_max_unused_threads (-1);
  g_thread_pool_set_max_idle_time (0);
  gst_init (NULL, NULL);
}

/* @data split on newlines into at most @max_lines strings (the last one
 * takes the rest), a NUL read as a space (a C string holds none). Free
 * with g_strfreev. */
static inline gchar **
fuzz_split_lines (const uint8_t * data, size_t size, guint max_lines)
{
  gchar *text = g_strndup ((const gchar *) data, size);
  gchar **fields;

  if (strlen (text) < size) {
    GString *joined = g_string_sized_new (size);
    size_t i;

    for (i = 0; i < size; i++)
      g_string_append_c (joined, data[i] == '\0' ? ' ' : (gchar) data[i]);
    g_free (text);
    text = g_string_free (joined, FALSE);
  }
  fields = g_strsplit (text, "\n", max_lines);
  g_free (text);
  return fields;
}

/* @data split into at most FUZZ_MAX_FIELDS lines (fuzz_split_lines ()) */
static inline gchar **
fuzz_split_fields (const uint8_t * data, size_t size)
{
  return fuzz_split_lines (data, size, FUZZ_MAX_FIELDS);
}

/* The @i-th field of @fields, or "" where there are fewer */
static inline const gchar *
fuzz_field (gchar ** fields, guint i)
{
  return i < g_strv_length (fields) ? fields[i] : "";
}

/* A refusal must say why */
static inline void
fuzz_expect_error (GError ** error, const gchar * what)
{
  if (*error == NULL || (*error)->message == NULL || !*(*error)->message)
    g_error ("%s failed without a GError", what);
  g_clear_error (error);
}

/* Whether every size @caps gives (width x height, or a tensor's
 * dimensions) stays within MAX_PIXELS; a width without a height (or the
 * reverse) counts as square, as an element fixating the other keeps the
 * aspect */
static inline gboolean
fuzz_caps_small_enough (const GstCaps * caps)
{
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    const gchar *dims = gst_structure_get_string (s, "dimensions");
    gint width = 0, height = 0;
    gboolean has_width = gst_structure_get_int (s, "width", &width);
    gboolean has_height = gst_structure_get_int (s, "height", &height);

    if (!has_width)
      width = height;
    if (!has_height)
      height = width;
    if (ABS ((gint64) width) * ABS ((gint64) height) > MAX_PIXELS)
      return FALSE;
    if (dims != NULL) {
      gchar **parts = g_strsplit_set (dims, ":,.", -1);
      gdouble product = 1;
      guint j;

      for (j = 0; parts[j] != NULL; j++)
        product *= ABS (g_ascii_strtod (parts[j], NULL)) + 1;
      g_strfreev (parts);
      if (product > 4.0 * MAX_PIXELS)
        return FALSE;
    }
  }
  return TRUE;
}

/* Sets @name to @value on @element as gst-launch-1.0 would, where the
 * property exists, can be set now (@playing: only those mutable while
 * PLAYING), GObject takes the value and it is at most @max_uint where it
 * is a guint (0: any); what GObject would refuse as out of its range is
 * left out, that refusal being GObject's warning, not the element's */
static inline void
fuzz_set_property (GstElement * element, const gchar * name,
    const gchar * value, gboolean playing, guint max_uint)
{
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (element), name);
  GValue v = G_VALUE_INIT;
  gboolean ok;

  if (pspec == NULL || !(pspec->flags & G_PARAM_WRITABLE) ||
      (pspec->flags & G_PARAM_CONSTRUCT_ONLY) ||
      (playing && !(pspec->flags & GST_PARAM_MUTABLE_PLAYING)) ||
      fuzz_nested_too_deep (value))
    return;
  g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (pspec));
  fuzz_in_gst_parser = TRUE;
  ok = gst_value_deserialize_with_pspec (&v, value, pspec);
  fuzz_in_gst_parser = FALSE;
  if (ok && max_uint && G_VALUE_HOLDS_UINT (&v) &&
      g_value_get_uint (&v) > max_uint)
    ok = FALSE;
  if (ok && !g_param_value_validate (pspec, &v))
    gst_util_set_object_arg (G_OBJECT (element), name, value);
  g_value_unset (&v);
}

/* A system-memory buffer of @n bytes, the input's @data over and over (its
 * bytes' index where the input is empty) */
static inline GstBuffer *
fuzz_buffer_new (gsize n, const uint8_t * data, size_t size)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n, NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = size ? data[i % size] : (guint8) i;
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* The lowest and highest element offsets @t's shape and strides reach
 * (row-major where it gives none), 0 and 0 for a tensor with a dimension
 * of 0 or less (@empty, where given, says which); FALSE where they
 * overflow */
static inline gboolean
fuzz_tensor_extent (const DLTensor * t, gint64 * lowest, gint64 * highest,
    gboolean * empty)
{
  gint64 lo = 0, hi = 0, row = 1;
  gint i;

  if (empty)
    *empty = FALSE;
  for (i = t->ndim - 1; i >= 0; i--) {
    gint64 stride = t->strides ? t->strides[i] : row;
    gint64 reach;

    if (t->shape[i] <= 0) {
      *lowest = *highest = 0;
      if (empty)
        *empty = TRUE;
      return TRUE;
    }
    if (__builtin_mul_overflow (t->shape[i] - 1, stride, &reach) ||
        __builtin_mul_overflow (row, t->shape[i], &row))
      return FALSE;
    if ((reach < 0 && __builtin_add_overflow (lo, reach, &lo)) ||
        (reach > 0 && __builtin_add_overflow (hi, reach, &hi)))
      return FALSE;
  }
  *lowest = lo;
  *highest = hi;
  return TRUE;
}

/* The size of a buffer of @caps, video or tensor; 0 where it is
 * neither or not fixed */
static inline gsize
fuzz_caps_buffer_size (const GstCaps * caps)
{
  GstVideoInfo vinfo;
  GstCudaCacheTensorInfo tinfo;

  if (!gst_caps_is_fixed (caps))
    return 0;
  if (gst_video_info_from_caps (&vinfo, caps))
    return vinfo.size;
  if (gst_cuda_cache_tensor_info_from_caps (&tinfo, caps))
    return tinfo.size;
  return 0;
}

#endif /* __CUDACACHE_FUZZ_COMMON_H__ */
