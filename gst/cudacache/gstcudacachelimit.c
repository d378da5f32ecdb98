/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* A cache's limit as people write it: bytes with a unit, or a percentage
 * of the memory the cache allocates from (GST_CUDA_CACHE_LIMIT_ENV). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacache-private.h"
#include "gstcudacachelimit-private.h"

#include <errno.h>
#include <string.h>

GST_CUDA_CACHE_DEBUG_CATEGORY ("cudacache",
    "CUDA cache: keyed store of idle memory");
#define GST_CAT_DEFAULT ensure_debug_category ()

/* gst_cuda_cache_parse_limit(), saying in @why what is wrong with @str
 * when it is not a limit. */
static gboolean
gst_cuda_cache_parse_limit_why (const gchar * str, guint64 device_memory,
    guint64 * limit_bytes, const gchar ** why)
{
  static const gchar *suffixes = "KMGT";
  gchar *copy, *s, *end;
  gboolean ret = FALSE;
  guint64 value, scale = 1;

  copy = g_strstrip (g_strdup (str));
  s = copy;
  if (!g_ascii_isdigit (*s)) {
    *why = "not a number";
    goto out;
  }

  if (g_str_has_suffix (s, "%")) {
    gdouble percent = g_ascii_strtod (s, &end);

    if (*end != '%' || end[1] != '\0' || percent < 0 || percent > 100) {
      *why = "a percentage is a number from 0 to 100 followed by one %";
      goto out;
    }
    *limit_bytes = (guint64) (device_memory * (percent / 100.0));
    ret = TRUE;
    goto out;
  }

  errno = 0;
  value = g_ascii_strtoull (s, &end, 10);
  if (errno != 0) {
    *why = "too large";
    goto out;
  }

  if (*end && g_ascii_strcasecmp (end, "B") != 0) {
    const gchar *unit = strchr (suffixes, g_ascii_toupper (*end));

    if (!unit) {
      *why = "unknown unit";
      goto out;
    }
    scale = G_GUINT64_CONSTANT (1) << (10 * (unit - suffixes + 1));
    end++;
    if (g_ascii_strcasecmp (end, "") != 0 && g_ascii_strcasecmp (end, "B") != 0
        && g_ascii_strcasecmp (end, "iB") != 0) {
      *why = "unknown unit";
      goto out;
    }
  }

  if (value > G_MAXUINT64 / scale) {
    *why = "too large";
    goto out;
  }
  *limit_bytes = value * scale;
  ret = TRUE;

out:
  g_free (copy);
  return ret;
}

guint64
gst_cuda_cache_limit_default (GstCudaCache * cache, guint64 device_memory)
{
  const gchar *env = g_getenv (GST_CUDA_CACHE_LIMIT_ENV);
  const gchar *name = GST_OBJECT_NAME (cache);
  guint64 limit = device_memory / 2, parsed;
  const gchar *why = NULL;

  if (!env)
    return limit;

  if (gst_cuda_cache_parse_limit_why (env, device_memory, &parsed, &why)) {
    GST_INFO_OBJECT (cache, "limit %" G_GUINT64_FORMAT " bytes from "
        GST_CUDA_CACHE_LIMIT_ENV "=%s", parsed, env);
    return parsed;
  }

  /* the user's to fix, not a programming error: a warning on the debug
   * category, never g_warning (fatal under G_DEBUG=fatal-warnings) nor a
   * line on stderr (a library does not print) */
  GST_WARNING_OBJECT (cache, "ignoring " GST_CUDA_CACHE_LIMIT_ENV "=\"%s\": "
      "%s; expected bytes with an optional K, M, G or T suffix (e.g. 512M) "
      "or a percentage (e.g. 25%%) of the %" G_GUINT64_FORMAT " bytes of %s; "
      "keeping the default limit of %" G_GUINT64_FORMAT " bytes", env, why,
      device_memory, g_strcmp0 (name, GST_CUDA_CACHE_SYSTEM_NAME) == 0 ?
      "system memory" : g_str_has_prefix (name,
          GST_CUDA_CACHE_DEVICE_NAME_PREFIX) ? "device memory" :
      "memory this cache allocates from", limit);
  return limit;
}

/* gst_cuda_cache_parse_limit:
 * @str: a limit: bytes with an optional `K`, `M`, `G` or `T` suffix (powers
 *     of 1024, optionally followed by `B` or `iB`), or a percentage of
 *     @device_memory from 0 to 100 such as `25%`
 * @device_memory: total bytes, for percentages
 * @limit_bytes: (out): the limit in bytes
 *
 * Parses a limit as %GST_CUDA_CACHE_LIMIT_ENV takes it. What is wrong with a
 * refused @str is logged on the `cudacache` debug category.
 *
 * Returns: %TRUE if @str is a valid limit

 */
gboolean
gst_cuda_cache_parse_limit (const gchar * str, guint64 device_memory,
    guint64 * limit_bytes)
{
  const gchar *why = NULL;

  g_return_val_if_fail (str != NULL, FALSE);
  g_return_val_if_fail (limit_bytes != NULL, FALSE);

  if (!gst_cuda_cache_parse_limit_why (str, device_memory, limit_bytes, &why)) {
    GST_DEBUG ("\"%s\" is not a limit: %s", str, why);
    return FALSE;
  }
  return TRUE;
}
