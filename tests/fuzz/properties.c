/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Fuzz target: an element's properties from strings and its caps, as a
 * gst-launch-1.0 line gives them. The input is lines: the element
 * (cudacacheconvert, cudacacheidentity or cudacachebatch; any other text
 * picks one by its first byte), the caps pushed into it, the caps asked
 * of it downstream, then `name=value` properties. Each property is set
 * with gst_util_set_object_arg, as gst-launch-1.0 sets it (a value
 * GObject would refuse as out of its range is left out: that refusal is
 * GObject's warning, not the element's); then one small buffer is pushed
 * through a GstHarness and EOS after it. A refusal is a flow return, an
 * error message or a refused caps event; never a critical, a crash or a
 * hang. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstharness.h>

#include "fuzz-common.h"

static const gchar *elements[] = {
  "cudacacheconvert", "cudacacheidentity", "cudacachebatch",
};

/* A buffer of @caps (fixed), its bytes from @data over and over; NULL
 * where @caps give no size or too large a one */
static GstBuffer *
make_buffer (const GstCaps * caps, const uint8_t * data, size_t size)
{
  gsize n = fuzz_caps_buffer_size (caps);
  GstBuffer *buf;

  if (n == 0 || n > 16 * MAX_PIXELS)
    return NULL;
  buf = fuzz_buffer_new (n, data, size);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  gchar **fields;
  const gchar *factory = NULL;
  GstElement *element;
  GstHarness *h;
  GstCaps *in_caps, *out_caps;
  GstBuffer *buf;
  guint i;

  fuzz_init ();
  fields = fuzz_split_fields (data, size);
  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    if (g_strcmp0 (fuzz_field (fields, 0), elements[i]) == 0)
      factory = elements[i];
  }
  if (factory == NULL)
    factory = elements[(guint8) fuzz_field (fields, 0)[0] %
        G_N_ELEMENTS (elements)];

  element = gst_element_factory_make (factory, NULL);
  if (element == NULL)
    g_error ("no %s: GST_PLUGIN_PATH_1_0 must name the plugin's build",
        factory);
  for (i = 3; i < g_strv_length (fields); i++) {
    gchar **pair = g_strsplit (fields[i], "=", 2);

    if (pair[0] != NULL && pair[1] != NULL)
      fuzz_set_property (element, g_strstrip (pair[0]), pair[1], FALSE, 0);
    g_strfreev (pair);
  }

  in_caps = fuzz_caps_from_string (fuzz_field (fields, 1));
  out_caps = fuzz_caps_from_string (fuzz_field (fields, 2));
  if (in_caps == NULL || !gst_caps_is_fixed (in_caps) ||
      !fuzz_caps_small_enough (in_caps) || out_caps == NULL ||
      !fuzz_caps_small_enough (out_caps)) {
    gst_object_unref (element);
    goto done;
  }

  h = gst_harness_new_with_element (element,
      g_str_equal (factory, "cudacachebatch") ? "sink_0" : "sink", "src");
  gst_harness_set_src_caps (h, gst_caps_ref (in_caps));
  gst_harness_set_sink_caps (h, gst_caps_ref (out_caps));
  buf = make_buffer (in_caps, data, size);
  if (buf != NULL)
    gst_harness_push (h, buf);
  gst_harness_push_event (h, gst_event_new_eos ());
  gst_harness_teardown (h);
  gst_object_unref (element);

done:
  gst_clear_caps (&in_caps);
  gst_clear_caps (&out_caps);
  g_strfreev (fields);
  return 0;
}
