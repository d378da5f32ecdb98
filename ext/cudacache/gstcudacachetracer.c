/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:tracer-cudacache
 * @title: cudacache
 * @short_description: the statistics of every cache, at an interval
 *
 * Logs the statistics of every #GstCudaCache of the process (the
 * system-memory cache, each device's, those an application made) as a
 * `cudacache-stats` tracer record, once an interval, so that memory growth
 * is explained with the tools that read GStreamer's tracer log
 * (`gst-stats-1.0`, `GST_DEBUG=GST_TRACER:7`):
 *
 *     GST_TRACERS="cudacache(interval=500)" GST_DEBUG=GST_TRACER:7 \
 *         gst-launch-1.0 ...
 *
 * The parameter `interval` is in milliseconds (1000 by default, 10 at
 * least). The caches are logged too each time a pipeline (a bin without a
 * parent) changes state, so that a stop shows what it gave back. Each
 * record carries the cache's name and the fields of
 * gst_cuda_cache_stats_to_structure(), for the whole cache.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacachetracer.h"

#include <gst/cudacache/gstcudacache.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_tracer_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_tracer_debug

#define DEFAULT_INTERVAL_MS 1000
#define MIN_INTERVAL_MS 10

struct _GstCudaCacheTracer
{
  GstTracer parent;

  guint interval_ms;
  GThread *thread;
  GMutex lock;
  GCond cond;
  gboolean stopping;
};

G_DEFINE_TYPE_WITH_CODE (GstCudaCacheTracer, gst_cuda_cache_tracer,
    GST_TYPE_TRACER, GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_tracer_debug,
        "cudacachetracer", 0, "cudacache tracer"));

static GstTracerRecord *stats_record;

/* A guint64 (or guint) field of the record, described */
#define FIELD(name, type, description) name, GST_TYPE_STRUCTURE, \
  gst_structure_new ("value", "type", G_TYPE_GTYPE, type, \
      "related-to", GST_TYPE_TRACER_VALUE_SCOPE, \
      GST_TRACER_VALUE_SCOPE_PROCESS, "description", G_TYPE_STRING, \
      description, NULL)

static void
log_caches (void)
{
  GList *caches = gst_cuda_cache_list (), *l;

  for (l = caches; l; l = l->next) {
    GstCudaCacheStats s;
    gchar *name = gst_object_get_name (l->data);

    gst_cuda_cache_get_stats (l->data, GST_CUDA_CACHE_SCOPE_GLOBAL, &s);
    gst_tracer_record_log (stats_record, name ? name : "", s.current_size,
        s.used_bytes, s.idle_bytes, s.cache_limit, s.used_blocks,
        s.idle_blocks, s.hits, s.misses, s.evictions, s.peak_size,
        s.peak_used_bytes, s.alloc_retries, s.alloc_failures, s.alloc_time,
        s.alloc_time_max, s.free_time, s.free_time_max, s.pool_reserved,
        s.pool_used);
    g_free (name);
  }
  g_list_free_full (caches, gst_object_unref);
}

static gpointer
gst_cuda_cache_tracer_thread (gpointer data)
{
  GstCudaCacheTracer *self = data;

  g_mutex_lock (&self->lock);
  while (!self->stopping) {
    gint64 until = g_get_monotonic_time () +
        (gint64) self->interval_ms * G_TIME_SPAN_MILLISECOND;

    while (!self->stopping && g_cond_wait_until (&self->cond, &self->lock,
            until));
    if (self->stopping)
      break;
    g_mutex_unlock (&self->lock);
    log_caches ();
    g_mutex_lock (&self->lock);
  }
  g_mutex_unlock (&self->lock);
  return NULL;
}

/* `interval=MS` from the tracer's parameters; a value that is no number
 * in range keeps the default, with a warning */
static guint
parse_interval (GstCudaCacheTracer * self)
{
  gchar *params = NULL, *text;
  GstStructure *s;
  gint ms = DEFAULT_INTERVAL_MS;

  g_object_get (self, "params", &params, NULL);
  if (params == NULL)
    return DEFAULT_INTERVAL_MS;
  text = g_strdup_printf ("cudacache,%s", params);
  s = gst_structure_from_string (text, NULL);
  if (s == NULL || (gst_structure_has_field (s, "interval") &&
          (!gst_structure_get_int (s, "interval", &ms) ||
              ms < MIN_INTERVAL_MS))) {
    GST_WARNING_OBJECT (self, "parameters \"%s\": interval takes "
        "milliseconds, %d at least; logging every %d ms", params,
        MIN_INTERVAL_MS, DEFAULT_INTERVAL_MS);
    ms = DEFAULT_INTERVAL_MS;
  }
  if (s)
    gst_structure_free (s);
  g_free (text);
  g_free (params);
  return (guint) ms;
}

/* A pipeline (a bin with no parent) changed state: the caches as they are
 * after it, a stop's trims included */
static void
do_change_state_post (GstTracer * tracer, guint64 ts, GstElement * element,
    GstStateChange change, GstStateChangeReturn result)
{
  if (GST_IS_BIN (element) && GST_OBJECT_PARENT (element) == NULL &&
      result != GST_STATE_CHANGE_FAILURE)
    log_caches ();
}

static void
gst_cuda_cache_tracer_constructed (GObject * object)
{
  GstCudaCacheTracer *self = GST_CUDA_CACHE_TRACER (object);

  G_OBJECT_CLASS (gst_cuda_cache_tracer_parent_class)->constructed (object);

  /* the hook holds the tracer for the process's life, as GStreamer's own
   * tracers are held */
  gst_tracing_register_hook (GST_TRACER (self), "element-change-state-post",
      G_CALLBACK (do_change_state_post));
  self->interval_ms = parse_interval (self);
  GST_INFO_OBJECT (self, "logging every cache's statistics every %u ms",
      self->interval_ms);
  self->thread = g_thread_new ("cudacache-tracer",
      gst_cuda_cache_tracer_thread, self);
}

static void
gst_cuda_cache_tracer_finalize (GObject * object)
{
  GstCudaCacheTracer *self = GST_CUDA_CACHE_TRACER (object);

  g_mutex_lock (&self->lock);
  self->stopping = TRUE;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
  g_thread_join (self->thread);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (gst_cuda_cache_tracer_parent_class)->finalize (object);
}

static void
gst_cuda_cache_tracer_class_init (GstCudaCacheTracerClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->constructed = gst_cuda_cache_tracer_constructed;
  gobject_class->finalize = gst_cuda_cache_tracer_finalize;

  stats_record = gst_tracer_record_new ("cudacache-stats.class",
      "cache", GST_TYPE_STRUCTURE, gst_structure_new ("value",
          "type", G_TYPE_GTYPE, G_TYPE_STRING,
          "related-to", GST_TYPE_TRACER_VALUE_SCOPE,
          GST_TRACER_VALUE_SCOPE_PROCESS,
          "description", G_TYPE_STRING, "the cache's name", NULL),
      FIELD ("current-size", G_TYPE_UINT64, "bytes the cache owns"),
      FIELD ("used-bytes", G_TYPE_UINT64, "bytes of blocks in use"),
      FIELD ("idle-bytes", G_TYPE_UINT64, "bytes of blocks kept for reuse"),
      FIELD ("cache-limit", G_TYPE_UINT64, "the cache's limit in bytes"),
      FIELD ("used-blocks", G_TYPE_UINT, "blocks in use"),
      FIELD ("idle-blocks", G_TYPE_UINT, "blocks kept for reuse"),
      FIELD ("hits", G_TYPE_UINT64, "acquisitions served from idle blocks"),
      FIELD ("misses", G_TYPE_UINT64, "acquisitions that allocated"),
      FIELD ("evictions", G_TYPE_UINT64, "idle blocks dropped"),
      FIELD ("peak-size", G_TYPE_UINT64, "the highest current-size"),
      FIELD ("peak-used-bytes", G_TYPE_UINT64, "the highest used-bytes"),
      FIELD ("alloc-retries", G_TYPE_UINT64,
          "allocations retried after freeing every idle block"),
      FIELD ("alloc-failures", G_TYPE_UINT64,
          "acquisitions that failed after the retry"),
      FIELD ("alloc-time", G_TYPE_UINT64,
          "nanoseconds in the allocations of misses"),
      FIELD ("alloc-time-max", G_TYPE_UINT64,
          "nanoseconds of the longest allocation"),
      FIELD ("free-time", G_TYPE_UINT64,
          "nanoseconds freeing the blocks the cache dropped"),
      FIELD ("free-time-max", G_TYPE_UINT64,
          "nanoseconds of the longest free"),
      FIELD ("pool-reserved", G_TYPE_UINT64, "bytes the CUDA memory pools "
          "of the cache's stream-ordered blocks hold"),
      FIELD ("pool-used", G_TYPE_UINT64, "bytes of those pools allocated"),
      NULL);
  GST_OBJECT_FLAG_SET (stats_record, GST_OBJECT_FLAG_MAY_BE_LEAKED);
}

static void
gst_cuda_cache_tracer_init (GstCudaCacheTracer * self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
}
