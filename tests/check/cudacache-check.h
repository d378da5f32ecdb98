/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Shared by the project's gst-check suites. */

#ifndef __CUDACACHE_CHECK_H__
#define __CUDACACHE_CHECK_H__

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

/* Under valgrind or AddressSanitizer, some cases do less, or leave out what
 * the tool itself makes impossible (and say so) */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RUNNING_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RUNNING_UNDER_ASAN 1
#endif
#endif
#ifndef RUNNING_UNDER_ASAN
#define RUNNING_UNDER_ASAN 0
#endif

/* Whether @meta describes a frame of @info's format and size */
static inline gboolean
cudacache_meta_matches (const GstVideoMeta * meta, const GstVideoInfo * info)
{
  return meta->format == GST_VIDEO_INFO_FORMAT (info) &&
      meta->width == (guint) GST_VIDEO_INFO_WIDTH (info) &&
      meta->height == (guint) GST_VIDEO_INFO_HEIGHT (info);
}

/* gst-check turns criticals and warnings into failures (or ASSERT_WARNING
 * expectations) only for the log domains it knows; do the same for ours and gst-cuda's. */
static void
cudacache_check_log_func (const gchar * log_domain, GLogLevelFlags log_level,
    const gchar * message, gpointer user_data)
{
  if (!_gst_check_expecting_log)
    fail ("Unexpected critical/warning in %s: %s", log_domain, message);

  if (log_level & G_LOG_LEVEL_CRITICAL)
    _gst_check_raised_critical = TRUE;
  if (log_level & G_LOG_LEVEL_WARNING)
    _gst_check_raised_warning = TRUE;
}

static inline void
cudacache_check_init (void)
{
  static const gchar *domains[] = { "GStreamer-CudaCache", "GStreamer-Cuda" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (domains); i++)
    g_log_set_handler (domains[i], G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING,
        cudacache_check_log_func, NULL);
}

/* GObject refuses a value out of a property's range with a warning up to
 * GLib 2.74 (Debian 12) and with a critical in later ones (Debian 13's
 * 2.84): either one is the refusal these suites expect. */
#define ASSERT_PROPERTY_REFUSED(code)                           \
G_STMT_START {                                                  \
  _gst_check_expecting_log = TRUE;                              \
  _gst_check_raised_warning = FALSE;                            \
  _gst_check_raised_critical = FALSE;                           \
  code;                                                         \
  if (!_gst_check_raised_warning && !_gst_check_raised_critical) \
    _ck_assert_failed (__FILE__, __LINE__,                      \
        "Expected the value to be refused with a g_warning or a " \
        "g_critical, got nothing", NULL);                       \
  _gst_check_expecting_log = FALSE;                             \
} G_STMT_END

#endif /* __CUDACACHE_CHECK_H__ */
