/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:gstcudacache
 * @title: GstCudaCache
 * @short_description: a keyed store of idle memory blocks with a byte limit
 *
 * #GstCudaCache keeps memory that its users are done with, keyed by a string
 * that names the block's layout, and hands it back to the next acquisition
 * with the same key instead of allocating again. It works with any
 * #GstAllocator: a block returns to the cache through its #GstMiniObject
 * dispose hook when its last reference goes away, wherever that happens
 * (a buffer pool, a buffer that outlived its pool, another thread). The
 * memory's own dispose, if it has one, runs once the cache lets it go.
 *
 * The cache owns `current-size` bytes: the blocks handed out (used) and the
 * blocks kept for reuse (idle). Above its limit it drops idle blocks, least
 * recently used first; a returned block that cannot fit is not kept. A limit
 * of 0 disables caching. The limit never makes an acquisition fail: when the
 * allocator runs out of memory, the cache frees every idle block and tries
 * once more.
 *
 * With %GST_CUDA_CACHE_FLAG_ASYNC_FREE, blocks the cache drops are freed on a
 * reaper thread of its own, so that a device free (which synchronises the
 * whole device) never stalls a streaming thread.
 *
 * One cache serves every thread: a block released on one thread is reused by
 * another. Statistics and clearing can also be asked for the calling thread
 * only (%GST_CUDA_CACHE_SCOPE_THREAD). A thread's figures go when the thread
 * ends.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacache.h"
#include "gstcudacache-private.h"
#include "gstcudacachelimit-private.h"
#include "gstcudacachereaper-private.h"
#include "gstcudacachestreamordered-private.h"
#include "gstcudacachethreadcounters-private.h"

#include <string.h>
#include <unistd.h>

GST_CUDA_CACHE_DEBUG_CATEGORY ("cudacache",
    "CUDA cache: keyed store of idle memory");
#define GST_CAT_DEFAULT ensure_debug_category ()

enum
{
  PROP_0,
  PROP_DEVICE_MEMORY,
  PROP_FLAGS,
  PROP_LIMIT,
  PROP_CURRENT_SIZE,
  PROP_USED_BYTES,
  PROP_IDLE_BYTES,
  PROP_IDLE_BLOCKS,
  PROP_HITS,
  PROP_MISSES,
  PROP_EVICTIONS,
  PROP_PEAK_SIZE,
  PROP_PEAK_USED_BYTES,
  PROP_ALLOC_RETRIES,
  PROP_ALLOC_FAILURES,
  PROP_ALLOC_TIME,
  PROP_ALLOC_TIME_MAX,
  PROP_FREE_TIME,
  PROP_FREE_TIME_MAX,
  PROP_ALLOC_METHOD,
  PROP_MEMORY_POOL,
  PROP_POOL_RESERVED,
  PROP_POOL_USED,
  PROP_RESERVE,
};

#define DEFAULT_DEVICE_MEMORY 0
#define DEFAULT_FLAGS GST_CUDA_CACHE_FLAG_NONE

/* The keys of one user-defined group (a CUDA context, for the pools): kept
 * while the group has users, freed once it has none. */
typedef struct
{
  gchar *name;
  guint users;
  guint used_blocks;
  GHashTable *entries;          /* key -> GstCudaCacheEntry */
} GstCudaCacheGroup;

/* One key: removed once it has no block left, idle or in use, so that
 * a process going through many layouts keeps entries only for the blocks
 * it holds. */
typedef struct
{
  gchar *key;
  GstCudaCacheGroup *group;     /* NULL: the cache's own keys */
  /* idle blocks of this key, most recently released first */
  GQueue idle;
  guint used_blocks;
} GstCudaCacheEntry;

typedef struct
{
  GstMemory *mem;
  /* holds a reference on the cache while the block is in use, so that
   * memory may outlive every other user of the cache */
  GstCudaCache *cache;
  GstCudaCacheEntry *entry;
  GstCudaCacheCounters *owner;
  /* the memory's own dispose, back in place once the cache lets it go */
  GstMiniObjectDisposeFunction dispose;
  gsize size;
  gsize offset;
  gsize mem_size;
  gboolean idle;
  GList lru_link;
  GList entry_link;
} GstCudaCacheBlock;

struct _GstCudaCache
{
  GstObject parent;

  /* construct-only */
  guint64 device_memory;
  GstCudaCacheFlags flags;

  /* guards every field below it but the reaper */
  GMutex lock;
  guint64 limit_bytes;
  GHashTable *entries;          /* key -> GstCudaCacheEntry, no group */
  GHashTable *groups;           /* name -> GstCudaCacheGroup */
  GQueue idle_lru;              /* all idle blocks, most recent first */
  GstCudaCacheCounters totals;
  GstCudaCacheThreadCounters threads;
  /* frees made on the calling thread (no reaper) */
  GstCudaCacheTime free_time;
  /* when the limit set by gst_cuda_cache_set_limit_if_newer() was asked for
   * (G_MININT64: never) */
  gint64 limit_asked_at;
  GstCudaCacheAllocMethod alloc_method;
  GstCudaCacheMemoryPool memory_pool;
  guintptr pool_handle;
  guint64 reserve;

  /* construct-only, thread-safe: the pools of stream-ordered blocks */
  GstCudaCacheStreamOrdered *so;

  /* construct-only: GST_CUDA_CACHE_FLAG_ASYNC_FREE's thread, with a lock
   * of its own */
  GstCudaCacheReaper *reaper;
  /* this cache in live_caches */
  GWeakRef *live;
};

/* Every cache of the process, as weak references (gst_cuda_cache_list ()):
 * a cache being finalized is never handed out again */
static GMutex live_lock;
static GList *live_caches;

#define gst_cuda_cache_parent_class parent_class
G_DEFINE_TYPE (GstCudaCache, gst_cuda_cache, GST_TYPE_OBJECT);

static GQuark block_quark;
static GQuark wrapped_quark;

static void gst_cuda_cache_constructed (GObject * object);
static void gst_cuda_cache_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_cache_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cuda_cache_finalize (GObject * object);
static gboolean gst_cuda_cache_memory_dispose (GstMiniObject * obj);
static void gst_cuda_cache_entry_free (GstCudaCacheEntry * entry);
static void gst_cuda_cache_get_counters (GstCudaCache * cache,
    GstCudaCacheScope scope, GstCudaCacheStats * stats);

static void
gst_cuda_cache_class_init (GstCudaCacheClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  gobject_class->constructed = gst_cuda_cache_constructed;
  gobject_class->set_property = gst_cuda_cache_set_property;
  gobject_class->get_property = gst_cuda_cache_get_property;
  gobject_class->finalize = gst_cuda_cache_finalize;

  /**
   * GstCudaCache:device-memory:
   *
   * The size of the memory the cache allocates from, set when the cache is
   * made: an application that makes its own cache with g_object_new() gives
   * it so that the default #GstCudaCache:limit is half of it.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_MEMORY,
      g_param_spec_uint64 ("device-memory", "Device memory",
          "Total bytes of the memory the cache allocates from; the default "
          "limit is half of it (0: unknown, no default limit)",
          0, G_MAXUINT64, DEFAULT_DEVICE_MEMORY,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaCache:flags:
   *
   * How the cache frees blocks (#GstCudaCacheFlags), set when the cache is
   * made: an application that makes its own cache asks here for frees on the
   * cache's own thread.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_FLAGS,
      g_param_spec_flags ("flags", "Flags", "How the cache frees blocks",
          GST_TYPE_CUDA_CACHE_FLAGS, DEFAULT_FLAGS,
          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaCache:limit:
   *
   * The bytes the cache may own, in use and idle, before it drops idle
   * blocks. An application sets it to leave room for a model or another
   * library on the same device; gst_cuda_cache_set_limit() does the same.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_LIMIT,
      g_param_spec_uint64 ("limit", "Limit",
          "Bytes the cache may own, in use and idle, before it drops idle "
          "blocks (0: keep nothing idle). Default: half of device-memory "
          "(the device's memory, or the machine's for the system-memory "
          "cache), or " GST_CUDA_CACHE_LIMIT_ENV, 0, G_MAXUINT64, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaCache:current-size:
   *
   * The bytes the cache owns, in use and idle: what an application reads to
   * see how much device memory the pipelines hold.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_CURRENT_SIZE,
      g_param_spec_uint64 ("current-size", "Current size",
          "Bytes the cache owns, in use and idle", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:used-bytes:
   *
   * The bytes of blocks in use by buffers: what an application reads to see
   * the memory its pipelines need at the moment.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_USED_BYTES,
      g_param_spec_uint64 ("used-bytes", "Used bytes",
          "Bytes of blocks in use", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:idle-bytes:
   *
   * The bytes of blocks kept for reuse and not in use: what
   * gst_cuda_cache_clear() would give back to the device.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_IDLE_BYTES,
      g_param_spec_uint64 ("idle-bytes", "Idle bytes",
          "Bytes of blocks kept for reuse", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:idle-blocks:
   *
   * The number of blocks kept for reuse and not in use.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_IDLE_BLOCKS,
      g_param_spec_uint ("idle-blocks", "Idle blocks",
          "Blocks kept for reuse", 0, G_MAXUINT, 0, ro));
  /**
   * GstCudaCache:hits:
   *
   * Block acquisitions served from an idle block, without the driver: with
   * #GstCudaCache:misses, the figure an application reads to see whether the
   * cache serves its renegotiations.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_HITS,
      g_param_spec_uint64 ("hits", "Hits",
          "Block acquisitions served from an idle block. A pool acquires a "
          "block per buffer it allocates (at activation, when it grows, "
          "after a reconfiguration) and per new layout it is configured "
          "for; buffers it recycles, frame after frame, are not counted",
          0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:misses:
   *
   * Block acquisitions that allocated from the driver; see
   * #GstCudaCache:hits.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_MISSES,
      g_param_spec_uint64 ("misses", "Misses",
          "Block acquisitions that allocated (see hits for what an "
          "acquisition is; frames are not counted)", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:evictions:
   *
   * Blocks dropped because of #GstCudaCache:limit or a clear: a growing
   * count tells an application that the limit is too low for the caps its
   * pipelines use.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_EVICTIONS,
      g_param_spec_uint64 ("evictions", "Evictions",
          "Blocks dropped because of the limit or a clear", 0, G_MAXUINT64, 0,
          ro));
  /**
   * GstCudaCache:peak-size:
   *
   * The highest #GstCudaCache:current-size since the cache was made or its
   * peaks were reset (gst_cuda_cache_reset_peaks()): what an application
   * reads to size #GstCudaCache:limit.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_PEAK_SIZE,
      g_param_spec_uint64 ("peak-size", "Peak size",
          "The highest current-size since the cache was made or its peaks "
          "were reset", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:peak-used-bytes:
   *
   * The highest #GstCudaCache:used-bytes since the cache was made or its
   * peaks were reset: the memory the pipelines needed at once, at most.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_PEAK_USED_BYTES,
      g_param_spec_uint64 ("peak-used-bytes", "Peak used bytes",
          "The highest used-bytes since the cache was made or its peaks were "
          "reset", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:alloc-retries:
   *
   * Allocations that failed, made the cache free every idle block, and
   * succeeded on the retry: a sign that the device's memory runs short.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_ALLOC_RETRIES,
      g_param_spec_uint64 ("alloc-retries", "Allocation retries",
          "Allocations that failed, made the cache free every idle block, "
          "and were tried again", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:alloc-failures:
   *
   * Acquisitions that failed even after the retry: the out of memory errors
   * an application's pipelines saw.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_ALLOC_FAILURES,
      g_param_spec_uint64 ("alloc-failures", "Allocation failures",
          "Acquisitions that failed even after the retry: out of memory "
          "errors", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:alloc-time:
   *
   * Nanoseconds spent allocating blocks on misses, in all: the driver time
   * the cache did not save.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_ALLOC_TIME,
      g_param_spec_uint64 ("alloc-time", "Allocation time",
          "Nanoseconds spent allocating blocks on misses (the driver's "
          "allocator), in all", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:alloc-time-max:
   *
   * Nanoseconds of the longest allocation on a miss.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_ALLOC_TIME_MAX,
      g_param_spec_uint64 ("alloc-time-max", "Longest allocation",
          "Nanoseconds of the longest of those allocations", 0, G_MAXUINT64,
          0, ro));
  /**
   * GstCudaCache:free-time:
   *
   * Nanoseconds spent freeing the blocks the cache let go of, in all.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_FREE_TIME,
      g_param_spec_uint64 ("free-time", "Free time",
          "Nanoseconds spent freeing the blocks the cache let go of (on its "
          "own thread with the async-free flag), in all", 0, G_MAXUINT64, 0,
          ro));
  /**
   * GstCudaCache:free-time-max:
   *
   * Nanoseconds of the longest of those frees.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_FREE_TIME_MAX,
      g_param_spec_uint64 ("free-time-max", "Longest free",
          "Nanoseconds of the longest of those frees", 0, G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:alloc-method:
   *
   * How the CUDA images and tensors of the cache's pools are made
   * (#GstCudaCacheAllocMethod). An application that shares a CUDA memory
   * pool with PyTorch or CuPy sets stream-ordered here or with
   * gst_cuda_cache_set_alloc_method().
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_ALLOC_METHOD,
      g_param_spec_enum ("alloc-method", "Allocation method",
          "How the CUDA images and tensors of the cache's pools are made: "
          "malloc (cuMemAllocPitch) or stream-ordered (from a CUDA memory "
          "pool, GStreamer 1.24+; set to it where it cannot be made, the "
          "cache stays malloc, with a warning: "
          "gst_cuda_cache_set_alloc_method () says why)",
          GST_TYPE_CUDA_CACHE_ALLOC_METHOD, GST_CUDA_CACHE_ALLOC_METHOD_MALLOC,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaCache:memory-pool:
   *
   * Which CUDA memory pool stream-ordered blocks come from
   * (#GstCudaCacheMemoryPool): the cache's own, or the device's current one,
   * which an application shares with PyTorch's or CuPy's allocator.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_MEMORY_POOL,
      g_param_spec_enum ("memory-pool", "Memory pool",
          "The CUDA memory pool stream-ordered blocks come from: the "
          "cache's own, or the device's current one (shared with PyTorch's "
          "cudaMallocAsync backend and CuPy's MemoryAsyncPool); a pool "
          "handle is given with gst_cuda_cache_set_memory_pool ()",
          GST_TYPE_CUDA_CACHE_MEMORY_POOL, GST_CUDA_CACHE_MEMORY_POOL_OWN,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaCache:reserve:
   *
   * The bytes the cache's own CUDA memory pool on each device holds from its
   * start, for stream-ordered blocks: an application sets it (or calls
   * gst_cuda_cache_set_reserve()) to keep that memory from other users of
   * the device.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_RESERVE,
      g_param_spec_uint64 ("reserve", "Reserve",
          "Bytes the cache's own CUDA memory pool on each device holds from "
          "its start, for stream-ordered blocks (at most the limit; "
          "gst_cuda_cache_set_reserve ())", 0, G_MAXUINT64, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaCache:pool-reserved:
   *
   * The bytes the CUDA memory pools of the cache's stream-ordered blocks
   * hold from the device, every user's (0 with malloc).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_POOL_RESERVED,
      g_param_spec_uint64 ("pool-reserved", "Pool reserved",
          "Bytes the CUDA memory pools of the cache's stream-ordered blocks "
          "hold from the device, every user's (0 with malloc)", 0,
          G_MAXUINT64, 0, ro));
  /**
   * GstCudaCache:pool-used:
   *
   * The bytes of those pools allocated and not freed.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_POOL_USED,
      g_param_spec_uint64 ("pool-used", "Pool used",
          "Bytes of those pools allocated and not freed", 0, G_MAXUINT64, 0,
          ro));

  block_quark = g_quark_from_static_string ("GstCudaCacheBlock");
  wrapped_quark = g_quark_from_static_string ("GstCudaCacheWrappedBlock");
}

static void
gst_cuda_cache_init (GstCudaCache * self)
{
  g_mutex_init (&self->lock);
  g_queue_init (&self->idle_lru);
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      (GDestroyNotify) gst_cuda_cache_entry_free);
  self->groups = g_hash_table_new (g_str_hash, g_str_equal);
  gst_cuda_cache_thread_counters_init (&self->threads, &self->lock);
  self->limit_asked_at = G_MININT64;
  self->so = gst_cuda_cache_stream_ordered_new ();
}

static void
gst_cuda_cache_constructed (GObject * object)
{
  GstCudaCache *self = GST_CUDA_CACHE (object);

  self->limit_bytes = gst_cuda_cache_limit_default (self, self->device_memory);
  gst_cuda_cache_stream_ordered_set_limit (self->so, self->limit_bytes);

  /* made now, not at the first eviction: that one runs under the cache's
   * lock on a streaming thread */
  if (self->flags & GST_CUDA_CACHE_FLAG_ASYNC_FREE)
    self->reaper = gst_cuda_cache_reaper_new ();

  GST_DEBUG_OBJECT (self, "new cache: device memory %" G_GUINT64_FORMAT
      ", limit %" G_GUINT64_FORMAT ", flags 0x%x", self->device_memory,
      self->limit_bytes, self->flags);

  self->live = g_new0 (GWeakRef, 1);
  g_weak_ref_init (self->live, self);
  g_mutex_lock (&live_lock);
  live_caches = g_list_prepend (live_caches, self->live);
  g_mutex_unlock (&live_lock);

  G_OBJECT_CLASS (parent_class)->constructed (object);
}

static void
gst_cuda_cache_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaCache *self = GST_CUDA_CACHE (object);

  switch (prop_id) {
    case PROP_DEVICE_MEMORY:
      self->device_memory = g_value_get_uint64 (value);
      break;
    case PROP_FLAGS:
      self->flags = g_value_get_flags (value);
      break;
    case PROP_LIMIT:
      gst_cuda_cache_set_limit (self, g_value_get_uint64 (value));
      break;
    case PROP_ALLOC_METHOD:{
      GError *error = NULL;

      if (!gst_cuda_cache_set_alloc_method (self, g_value_get_enum (value),
              &error)) {
        GST_WARNING_OBJECT (self, "alloc-method refused: %s", error->message);
        g_clear_error (&error);
      }
      break;
    }
    case PROP_RESERVE:
      gst_cuda_cache_set_reserve (self, g_value_get_uint64 (value));
      break;
    case PROP_MEMORY_POOL:{
      GError *error = NULL;

      if (!gst_cuda_cache_set_memory_pool (self, g_value_get_enum (value), 0,
              &error)) {
        GST_WARNING_OBJECT (self, "memory-pool refused: %s", error->message);
        g_clear_error (&error);
      }
      break;
    }
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_cache_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaCache *self = GST_CUDA_CACHE (object);
  GstCudaCacheStats stats;

  /* the driver is asked for the pools' figures only where they are read */
  if (prop_id == PROP_POOL_RESERVED || prop_id == PROP_POOL_USED)
    gst_cuda_cache_get_stats (self, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  else
    gst_cuda_cache_get_counters (self, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);

  switch (prop_id) {
    case PROP_DEVICE_MEMORY:
      g_value_set_uint64 (value, self->device_memory);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_LIMIT:
      g_value_set_uint64 (value, stats.cache_limit);
      break;
    case PROP_CURRENT_SIZE:
      g_value_set_uint64 (value, stats.current_size);
      break;
    case PROP_USED_BYTES:
      g_value_set_uint64 (value, stats.used_bytes);
      break;
    case PROP_IDLE_BYTES:
      g_value_set_uint64 (value, stats.idle_bytes);
      break;
    case PROP_IDLE_BLOCKS:
      g_value_set_uint (value, stats.idle_blocks);
      break;
    case PROP_HITS:
      g_value_set_uint64 (value, stats.hits);
      break;
    case PROP_MISSES:
      g_value_set_uint64 (value, stats.misses);
      break;
    case PROP_EVICTIONS:
      g_value_set_uint64 (value, stats.evictions);
      break;
    case PROP_PEAK_SIZE:
      g_value_set_uint64 (value, stats.peak_size);
      break;
    case PROP_PEAK_USED_BYTES:
      g_value_set_uint64 (value, stats.peak_used_bytes);
      break;
    case PROP_ALLOC_RETRIES:
      g_value_set_uint64 (value, stats.alloc_retries);
      break;
    case PROP_ALLOC_FAILURES:
      g_value_set_uint64 (value, stats.alloc_failures);
      break;
    case PROP_ALLOC_TIME:
      g_value_set_uint64 (value, stats.alloc_time);
      break;
    case PROP_ALLOC_TIME_MAX:
      g_value_set_uint64 (value, stats.alloc_time_max);
      break;
    case PROP_FREE_TIME:
      g_value_set_uint64 (value, stats.free_time);
      break;
    case PROP_FREE_TIME_MAX:
      g_value_set_uint64 (value, stats.free_time_max);
      break;
    case PROP_ALLOC_METHOD:
      g_value_set_enum (value, gst_cuda_cache_get_alloc_method (self));
      break;
    case PROP_MEMORY_POOL:
      g_value_set_enum (value, gst_cuda_cache_get_memory_pool (self, NULL));
      break;
    case PROP_POOL_RESERVED:
      g_value_set_uint64 (value, stats.pool_reserved);
      break;
    case PROP_RESERVE:
      g_mutex_lock (&self->lock);
      g_value_set_uint64 (value, self->reserve);
      g_mutex_unlock (&self->lock);
      break;
    case PROP_POOL_USED:
      g_value_set_uint64 (value, stats.pool_used);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* Everything below that ends in _locked runs with self->lock held. */

static void
gst_cuda_cache_count_block_locked (GstCudaCache * self,
    GstCudaCacheBlock * block, gboolean idle, gint sign)
{
  GstCudaCacheCounters *all[2] = { &self->totals, block->owner };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (all); i++) {
    if (idle) {
      all[i]->idle_bytes += sign * (gint64) block->size;
      all[i]->idle_blocks += sign;
    } else {
      all[i]->used_bytes += sign * (gint64) block->size;
      all[i]->used_blocks += sign;
    }
    all[i]->peak_size = MAX (all[i]->peak_size,
        all[i]->used_bytes + all[i]->idle_bytes);
    all[i]->peak_used_bytes = MAX (all[i]->peak_used_bytes, all[i]->used_bytes);
  }

  if (!idle) {
    block->entry->used_blocks += sign;
    if (block->entry->group)
      block->entry->group->used_blocks += sign;
  }
}

static inline guint64
gst_cuda_cache_current_size_locked (GstCudaCache * self)
{
  return self->totals.used_bytes + self->totals.idle_bytes;
}

/* Forgets @entry if no block of it is left. */
static void
gst_cuda_cache_entry_maybe_free_locked (GstCudaCache * self,
    GstCudaCacheEntry * entry)
{
  if (entry->idle.length > 0 || entry->used_blocks > 0)
    return;

  GST_LOG_OBJECT (self, "no block of \"%s\" left: entry removed", entry->key);
  g_hash_table_remove (entry->group ? entry->group->entries : self->entries,
      entry->key);
}

/* Unlinks an idle block and returns its memory, no longer a cache block;
 * its entry goes with its last block. */
static GstMemory *
gst_cuda_cache_evict_locked (GstCudaCache * self, GstCudaCacheBlock * block,
    const gchar * why)
{
  GstMemory *mem = block->mem;
  GstCudaCacheEntry *entry = block->entry;

  g_queue_unlink (&self->idle_lru, &block->lru_link);
  g_queue_unlink (&block->entry->idle, &block->entry_link);
  gst_cuda_cache_count_block_locked (self, block, TRUE, -1);
  self->totals.evictions++;
  block->owner->evictions++;
  gst_cuda_cache_thread_counters_block_gone_locked (&self->threads,
      block->owner);

  GST_DEBUG_OBJECT (self, "evicting %" G_GSIZE_FORMAT " bytes of \"%s\" (%s); "
      "size now %" G_GUINT64_FORMAT ", limit %" G_GUINT64_FORMAT, block->size,
      block->entry->key, why, gst_cuda_cache_current_size_locked (self),
      self->limit_bytes);

  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), block_quark,
      NULL, NULL);
  GST_MINI_OBJECT_CAST (mem)->dispose = block->dispose;
  g_free (block);
  gst_cuda_cache_entry_maybe_free_locked (self, entry);

  return mem;
}

static GstCudaCacheEntry *
gst_cuda_cache_entry_new (const gchar * key, GstCudaCacheGroup * group)
{
  GstCudaCacheEntry *entry = g_new0 (GstCudaCacheEntry, 1);

  entry->key = g_strdup (key);
  entry->group = group;
  g_queue_init (&entry->idle);
  return entry;
}

static void
gst_cuda_cache_entry_free (GstCudaCacheEntry * entry)
{
  g_free (entry->key);
  g_free (entry);
}

static GstCudaCacheGroup *
gst_cuda_cache_group_lookup_locked (GstCudaCache * self, const gchar * name,
    gboolean create)
{
  GstCudaCacheGroup *group = g_hash_table_lookup (self->groups, name);

  if (!group && create) {
    group = g_new0 (GstCudaCacheGroup, 1);
    group->name = g_strdup (name);
    group->entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
        (GDestroyNotify) gst_cuda_cache_entry_free);
    g_hash_table_insert (self->groups, group->name, group);
  }
  return group;
}

/* A group nobody uses and no block refers to is forgotten. */
static void
gst_cuda_cache_group_maybe_free_locked (GstCudaCache * self,
    GstCudaCacheGroup * group)
{
  if (group->users > 0 || group->used_blocks > 0)
    return;

  GST_DEBUG_OBJECT (self, "group \"%s\" has no user and no block left",
      group->name);
  g_hash_table_remove (self->groups, group->name);
  g_hash_table_unref (group->entries);
  g_free (group->name);
  g_free (group);
}

/* Evicts every idle block of @group (through the idle list: evicting
 * removes emptied entries from the group's table). */
static GList *
gst_cuda_cache_group_evict_locked (GstCudaCache * self,
    GstCudaCacheGroup * group, GList * to_free)
{
  GList *l = self->idle_lru.head;

  while (l) {
    GstCudaCacheBlock *block = l->data;

    l = l->next;
    if (block->entry->group == group)
      to_free = g_list_prepend (to_free, gst_cuda_cache_evict_locked (self,
              block, "its group has no user left"));
  }
  return to_free;
}

/* Drops least recently used idle blocks while above the limit. */
static GList *
gst_cuda_cache_trim_locked (GstCudaCache * self, GList * to_free)
{
  while (gst_cuda_cache_current_size_locked (self) > self->limit_bytes &&
      self->idle_lru.tail) {
    GstCudaCacheBlock *block = self->idle_lru.tail->data;

    to_free = g_list_prepend (to_free,
        gst_cuda_cache_evict_locked (self, block, "over the limit"));
  }
  return to_free;
}

/* Frees memory the cache let go of: inline, or on the reaper thread. */
static void
gst_cuda_cache_free_memories (GstCudaCache * self, GList * mems)
{
  if (!mems)
    return;

  if (self->reaper) {
    gst_cuda_cache_reaper_free (self->reaper, mems);
  } else {
    GList *l;

    for (l = mems; l; l = l->next) {
      GstClockTime start = gst_util_get_timestamp ();

      gst_memory_unref (l->data);
      g_mutex_lock (&self->lock);
      gst_cuda_cache_time_add (&self->free_time,
          gst_util_get_timestamp () - start);
      g_mutex_unlock (&self->lock);
    }
    g_list_free (mems);
  }
}

static void
gst_cuda_cache_finalize (GObject * object)
{
  GstCudaCache *self = GST_CUDA_CACHE (object);
  GList *to_free = NULL;

  GST_DEBUG_OBJECT (self, "finalize: freeing %u idle blocks (%"
      G_GUINT64_FORMAT " bytes)", self->totals.idle_blocks,
      self->totals.idle_bytes);

  /* used blocks hold a reference on the cache: only idle ones are left */
  g_mutex_lock (&self->lock);
  while (self->idle_lru.head)
    to_free = g_list_prepend (to_free,
        gst_cuda_cache_evict_locked (self, self->idle_lru.head->data,
            "cache finalized"));
  g_mutex_unlock (&self->lock);
  gst_cuda_cache_free_memories (self, to_free);

  if (self->reaper)
    gst_cuda_cache_reaper_stop (self->reaper);
  /* blocks freed later (in use now, or on a detached reaper) hold it */
  gst_cuda_cache_stream_ordered_unref (self->so);

  g_hash_table_unref (self->entries);
  /* used blocks hold the cache alive: every group is idle by now */
  while (g_hash_table_size (self->groups) > 0) {
    GHashTableIter iter;
    GstCudaCacheGroup *group;

    g_hash_table_iter_init (&iter, self->groups);
    g_hash_table_iter_next (&iter, NULL, (gpointer *) & group);
    group->users = 0;
    gst_cuda_cache_group_maybe_free_locked (self, group);
  }
  g_hash_table_unref (self->groups);
  gst_cuda_cache_thread_counters_clear (&self->threads);
  g_mutex_clear (&self->lock);

  g_mutex_lock (&live_lock);
  live_caches = g_list_remove (live_caches, self->live);
  g_mutex_unlock (&live_lock);
  g_weak_ref_clear (self->live);
  g_free (self->live);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* The dispose hook of a cache block: the last reference went away. */
static gboolean
gst_cuda_cache_memory_dispose (GstMiniObject * obj)
{
  GstMemory *mem = GST_MEMORY_CAST (obj);
  GstCudaCacheBlock *block = gst_mini_object_get_qdata (obj, block_quark);
  GstCudaCacheGroup *group;
  GstCudaCache *self;
  GList *to_free = NULL;

  if (!block)
    return TRUE;

  self = block->cache;

  /* revive: the cache holds the idle block's only reference */
  gst_memory_ref (mem);
  mem->offset = block->offset;
  mem->size = block->mem_size;

  g_mutex_lock (&self->lock);
  gst_cuda_cache_count_block_locked (self, block, FALSE, -1);
  block->idle = TRUE;
  block->cache = NULL;
  g_queue_push_head_link (&self->idle_lru, &block->lru_link);
  g_queue_push_head_link (&block->entry->idle, &block->entry_link);
  gst_cuda_cache_count_block_locked (self, block, TRUE, 1);
  /* idle, the block is the cache's, as a pool's free buffers are the
   * pool's: not a leak at exit */
  GST_MINI_OBJECT_FLAG_SET (mem, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED);
  GST_LOG_OBJECT (self, "released %" G_GSIZE_FORMAT " bytes of \"%s\"",
      block->size, block->entry->key);

  group = block->entry->group;
  if (group && group->users == 0) {
    to_free = g_list_prepend (to_free, gst_cuda_cache_evict_locked (self,
            block, "its group has no user left"));
    gst_cuda_cache_group_maybe_free_locked (self, group);
  } else if (block->size > self->limit_bytes) {
    to_free = g_list_prepend (to_free, gst_cuda_cache_evict_locked (self,
            block, "larger than the limit"));
  } else {
    to_free = gst_cuda_cache_trim_locked (self, to_free);
  }
  g_mutex_unlock (&self->lock);

  gst_cuda_cache_free_memories (self, to_free);
  gst_object_unref (self);

  return FALSE;
}

/**
 * gst_cuda_cache_new:
 * @device_memory: total bytes of the memory the cache allocates from, for
 *     the default limit (half of it) and percentages in
 *     %GST_CUDA_CACHE_LIMIT_ENV; 0 if unknown
 * @flags: #GstCudaCacheFlags
 *
 * Makes a new, empty cache. Most users want the shared one of their device
 * (gst_cuda_cache_pool_get_cache()) or of system memory
 * (gst_cuda_cache_get_system()) instead.
 *
 * Returns: (transfer full): a new #GstCudaCache
 *
 * Since: 0.1
 */
GstCudaCache *
gst_cuda_cache_new (guint64 device_memory, GstCudaCacheFlags flags)
{
  return gst_cuda_cache_new_named (NULL, device_memory, flags);
}

GstCudaCache *
gst_cuda_cache_new_named (const gchar * name, guint64 device_memory,
    GstCudaCacheFlags flags)
{
  GstCudaCache *self = g_object_new (GST_TYPE_CUDA_CACHE, "name", name,
      "device-memory", device_memory, "flags", flags, NULL);

  gst_object_ref_sink (self);
  return self;
}

guint
gst_cuda_cache_count_entries (GstCudaCache * cache)
{
  GHashTableIter iter;
  GstCudaCacheGroup *group;
  guint n;

  g_mutex_lock (&cache->lock);
  n = g_hash_table_size (cache->entries);
  g_hash_table_iter_init (&iter, cache->groups);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) & group))
    n += g_hash_table_size (group->entries);
  g_mutex_unlock (&cache->lock);

  return n;
}

GstCudaCacheThreadCounters *
gst_cuda_cache_get_thread_counters (GstCudaCache * cache)
{
  return &cache->threads;
}

/**
 * gst_cuda_cache_get_system:
 *
 * The process's cache of system memory, shared by every
 * #GstCudaCacheSystemPool made without a cache of its own. Its device
 * memory is the machine's physical memory.
 *
 * Returns: (transfer full): the system-memory #GstCudaCache
 *
 * Since: 0.1
 */
GstCudaCache *
gst_cuda_cache_get_system (void)
{
  static GstCudaCache *system_cache = NULL;

  if (g_once_init_enter (&system_cache)) {
    gint64 pages = sysconf (_SC_PHYS_PAGES);
    gint64 page_size = sysconf (_SC_PAGESIZE);
    GstCudaCache *cache = gst_cuda_cache_new_named (GST_CUDA_CACHE_SYSTEM_NAME,
        pages > 0 && page_size > 0 ? (guint64) pages * page_size : 0,
        GST_CUDA_CACHE_FLAG_NONE);

    GST_OBJECT_FLAG_SET (cache, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&system_cache, cache);
  }

  return gst_object_ref (system_cache);
}

/**
 * gst_cuda_cache_acquire:
 * @cache: a #GstCudaCache
 * @key: the layout the block must have; equal keys share blocks
 * @alloc_func: (scope call): makes a block on a miss
 * @user_data: data for @alloc_func
 *
 * Takes the most recently released idle block for @key, or on a miss makes
 * one with @alloc_func. If that fails, frees every idle block of the cache,
 * waits for the frees, and calls @alloc_func once more (counted in the
 * `alloc-retries` statistic; a second failure in `alloc-failures`).
 *
 * Each call counts as one hit or one miss. A buffer pool calls it once per
 * buffer it allocates, not per frame: buffers it recycles never reach the
 * cache.
 *
 * The returned memory goes back to @cache when its last reference is
 * dropped, on any thread.
 *
 * Returns: (transfer full) (nullable): a block, or %NULL when the allocator
 *     failed twice
 *
 * Since: 0.1
 */
GstMemory *
gst_cuda_cache_acquire (GstCudaCache * cache, const gchar * key,
    GstCudaCacheAllocFunc alloc_func, gpointer user_data)
{
  return gst_cuda_cache_acquire_in_group (cache, NULL, key, alloc_func,
      user_data);
}

/* The entry of @key in @group, or in the cache's own keys. */
static GstCudaCacheEntry *
gst_cuda_cache_lookup_entry_locked (GstCudaCache * self, const gchar * group,
    const gchar * key, gboolean create)
{
  GstCudaCacheGroup *g = NULL;
  GHashTable *entries = self->entries;
  GstCudaCacheEntry *entry;

  if (group) {
    g = gst_cuda_cache_group_lookup_locked (self, group, create);
    if (!g)
      return NULL;
    entries = g->entries;
  }

  entry = g_hash_table_lookup (entries, key);
  if (!entry && create) {
    entry = gst_cuda_cache_entry_new (key, g);
    g_hash_table_insert (entries, entry->key, entry);
  }
  return entry;
}

/* @alloc_func, its time counted in the cache's totals and @caller's */
static GstMemory *
gst_cuda_cache_timed_alloc (GstCudaCache * self, GstCudaCacheCounters * caller,
    GstCudaCacheAllocFunc alloc_func, gpointer user_data)
{
  GstClockTime start = gst_util_get_timestamp ();
  GstMemory *mem = alloc_func (user_data);
  guint64 took = gst_util_get_timestamp () - start;

  g_mutex_lock (&self->lock);
  gst_cuda_cache_time_add (&self->totals.alloc_time, took);
  gst_cuda_cache_time_add (&caller->alloc_time, took);
  g_mutex_unlock (&self->lock);
  return mem;
}

/* gst_cuda_cache_acquire_in_group:
 * @cache: a #GstCudaCache
 * @group: (nullable): the group the block belongs to (see
 *     gst_cuda_cache_group_add_user()), or %NULL for the cache's own keys
 * @key: the layout the block must have; equal keys of one group share
 *     blocks, keys of different groups never do
 * @alloc_func: (scope call): makes a block on a miss
 * @user_data: data for @alloc_func
 *
 * As gst_cuda_cache_acquire(), for a block of @group. While @group has no
 * user, its blocks are freed when they are released instead of kept.
 *
 * Returns: (transfer full) (nullable): a block, or %NULL when the allocator
 *     failed twice

 */
GstMemory *
gst_cuda_cache_acquire_in_group (GstCudaCache * cache, const gchar * group,
    const gchar * key, GstCudaCacheAllocFunc alloc_func, gpointer user_data)
{
  GstCudaCacheCounters *caller;
  GstCudaCacheEntry *entry;
  GstCudaCacheBlock *block;
  GstMemory *mem;
  GList *to_free = NULL;
  gsize maxsize;

  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), NULL);
  g_return_val_if_fail (key != NULL, NULL);
  g_return_val_if_fail (alloc_func != NULL, NULL);

  g_mutex_lock (&cache->lock);
  caller = gst_cuda_cache_thread_counters_get_locked (&cache->threads, cache);
  entry = gst_cuda_cache_lookup_entry_locked (cache, group, key, FALSE);
  if (entry && entry->idle.head) {
    block = entry->idle.head->data;
    g_queue_unlink (&cache->idle_lru, &block->lru_link);
    g_queue_unlink (&entry->idle, &block->entry_link);
    gst_cuda_cache_count_block_locked (cache, block, TRUE, -1);
    gst_cuda_cache_count_block_locked (cache, block, FALSE, 1);
    block->idle = FALSE;
    block->cache = gst_object_ref (cache);
    GST_MINI_OBJECT_FLAG_UNSET (block->mem, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED);
    cache->totals.hits++;
    caller->hits++;
    GST_LOG_OBJECT (cache, "hit: %" G_GSIZE_FORMAT " bytes of \"%s\"%s%s",
        block->size, key, group ? " in group " : "", group ? group : "");
    g_mutex_unlock (&cache->lock);
    return block->mem;
  }
  cache->totals.misses++;
  caller->misses++;
  g_mutex_unlock (&cache->lock);

  mem = gst_cuda_cache_timed_alloc (cache, caller, alloc_func, user_data);
  if (!mem) {
    guint64 freed = gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);

    GST_INFO_OBJECT (cache, "allocation for \"%s\" failed; freed %"
        G_GUINT64_FORMAT " idle bytes, retrying once", key, freed);
    g_mutex_lock (&cache->lock);
    cache->totals.alloc_retries++;
    caller->alloc_retries++;
    g_mutex_unlock (&cache->lock);
    gst_cuda_cache_drain (cache);
    mem = gst_cuda_cache_timed_alloc (cache, caller, alloc_func, user_data);
    if (!mem) {
      GST_WARNING_OBJECT (cache, "allocation for \"%s\" failed again", key);
      g_mutex_lock (&cache->lock);
      cache->totals.alloc_failures++;
      caller->alloc_failures++;
      g_mutex_unlock (&cache->lock);
      return NULL;
    }
  }

  gst_memory_get_sizes (mem, NULL, &maxsize);
  block = g_new0 (GstCudaCacheBlock, 1);
  block->mem = mem;
  block->cache = gst_object_ref (cache);
  block->size = maxsize;
  block->offset = mem->offset;
  block->mem_size = mem->size;
  block->lru_link.data = block;
  block->entry_link.data = block;
  block->dispose = GST_MINI_OBJECT_CAST (mem)->dispose;
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), block_quark,
      block, NULL);
  GST_MINI_OBJECT_CAST (mem)->dispose = gst_cuda_cache_memory_dispose;

  g_mutex_lock (&cache->lock);
  entry = gst_cuda_cache_lookup_entry_locked (cache, group, key, TRUE);
  block->entry = entry;
  block->owner = caller;
  gst_cuda_cache_count_block_locked (cache, block, FALSE, 1);
  GST_DEBUG_OBJECT (cache, "miss: allocated %" G_GSIZE_FORMAT " bytes for "
      "\"%s\"%s%s; size now %" G_GUINT64_FORMAT, maxsize, key,
      group ? " in group " : "", group ? group : "",
      gst_cuda_cache_current_size_locked (cache));
  to_free = gst_cuda_cache_trim_locked (cache, to_free);
  g_mutex_unlock (&cache->lock);

  gst_cuda_cache_free_memories (cache, to_free);

  return mem;
}

/* gst_cuda_cache_group_add_user:
 * @cache: a #GstCudaCache
 * @group: a group of keys, such as the blocks of one CUDA context
 *
 * Counts one more user of @group: while it has users, its blocks are kept
 * for reuse as the cache's own are. Each call is balanced by one
 * gst_cuda_cache_group_remove_user(). #GstCudaCachePool registers its
 * context this way for as long as it lives, so that the idle blocks of a
 * context (which keep the context alive) go when its last pool goes.

 */
void
gst_cuda_cache_group_add_user (GstCudaCache * cache, const gchar * group)
{
  GstCudaCacheGroup *g;

  g_return_if_fail (GST_IS_CUDA_CACHE (cache));
  g_return_if_fail (group != NULL);

  g_mutex_lock (&cache->lock);
  g = gst_cuda_cache_group_lookup_locked (cache, group, TRUE);
  g->users++;
  GST_DEBUG_OBJECT (cache, "group \"%s\" has %u user(s)", group, g->users);
  g_mutex_unlock (&cache->lock);
}

/* gst_cuda_cache_group_remove_user:
 * @cache: a #GstCudaCache
 * @group: a group given to gst_cuda_cache_group_add_user()
 *
 * Counts one user of @group fewer. When none is left, the group's idle
 * blocks are dropped at once (freed on the reaper thread with
 * %GST_CUDA_CACHE_FLAG_ASYNC_FREE), and its blocks still in use are freed
 * when they are released, unless the group has a user again by then.

 */
void
gst_cuda_cache_group_remove_user (GstCudaCache * cache, const gchar * group)
{
  GstCudaCacheGroup *g;
  GList *to_free = NULL;

  g_return_if_fail (GST_IS_CUDA_CACHE (cache));
  g_return_if_fail (group != NULL);

  g_mutex_lock (&cache->lock);
  g = gst_cuda_cache_group_lookup_locked (cache, group, FALSE);
  if (!g || g->users == 0) {
    g_mutex_unlock (&cache->lock);
    g_critical ("%s: group \"%s\" of %s has no user to remove",
        G_STRFUNC, group, GST_OBJECT_NAME (cache));
    return;
  }

  g->users--;
  GST_DEBUG_OBJECT (cache, "group \"%s\" has %u user(s)", group, g->users);
  if (g->users == 0) {
    to_free = gst_cuda_cache_group_evict_locked (cache, g, NULL);
    gst_cuda_cache_group_maybe_free_locked (cache, g);
  }
  g_mutex_unlock (&cache->lock);

  gst_cuda_cache_free_memories (cache, to_free);
}

/* Marks @wrapper as memory over the block @block, which it holds (a
 * pool's memory for a writer of another stream, gstcudacachepool.c): the
 * cache's questions about @wrapper are about @block. */
void
gst_cuda_cache_memory_set_block (GstMemory * wrapper, GstMemory * block)
{
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (wrapper), wrapped_quark,
      block, NULL);
}

/* The block @mem wraps (gst_cuda_cache_memory_set_block ()), or @mem */
GstMemory *
gst_cuda_cache_memory_get_block (GstMemory * mem)
{
  GstMemory *block = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem),
      wrapped_quark);

  return block ? block : mem;
}

/**
 * gst_cuda_cache_owns_memory:
 * @cache: a #GstCudaCache
 * @mem: a #GstMemory
 *
 * Lets an application check whether a buffer's memory is a block of @cache in
 * use, for example that the buffers reaching its appsink came from the cache
 * and not from another allocator.
 *
 * Returns: whether @mem is a block of @cache, in use
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_owns_memory (GstCudaCache * cache, GstMemory * mem)
{
  GstCudaCacheBlock *block;

  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), FALSE);
  g_return_val_if_fail (mem != NULL, FALSE);

  mem = gst_cuda_cache_memory_get_block (mem);
  block = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem), block_quark);
  return block != NULL && block->cache == cache;
}

/* For a copy of a block to come from its cache: the cache, group and key
 * of @mem's block, in use. FALSE where @mem is not a cache's block in
 * use. */
gboolean
gst_cuda_cache_block_origin (GstMemory * mem, GstCudaCache ** cache,
    gchar ** group, gchar ** key)
{
  GstCudaCacheBlock *block;
  gboolean found = FALSE;

  mem = gst_cuda_cache_memory_get_block (mem);
  block = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem), block_quark);
  if (!block || !block->cache)
    return FALSE;

  /* an in-use block holds its cache, and its entry stays while it does */
  g_mutex_lock (&block->cache->lock);
  if (!block->idle) {
    *cache = gst_object_ref (block->cache);
    *group = g_strdup (block->entry->group ? block->entry->group->name : NULL);
    *key = g_strdup (block->entry->key);
    found = TRUE;
  }
  g_mutex_unlock (&block->cache->lock);

  return found;
}

/**
 * gst_cuda_cache_get_limit:
 * @cache: a #GstCudaCache
 *
 * Tells an application the bytes @cache may own before it drops idle blocks,
 * as set by gst_cuda_cache_set_limit(), an element's `cache-limit` or the
 * default, so that it can leave room beside it for a model.
 *
 * Returns: the bytes @cache may own before it drops idle blocks
 *
 * Since: 0.1
 */
guint64
gst_cuda_cache_get_limit (GstCudaCache * cache)
{
  guint64 limit;

  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), 0);

  g_mutex_lock (&cache->lock);
  limit = cache->limit_bytes;
  g_mutex_unlock (&cache->lock);

  return limit;
}

/* Sets the limit, unless @if_newer and a limit asked for after @asked_at
 * was set; decided under the lock, the blocks it drops freed outside it. */
static gboolean
gst_cuda_cache_apply_limit (GstCudaCache * cache, guint64 limit_bytes,
    gboolean if_newer, gint64 asked_at)
{
  GList *to_free;

  g_mutex_lock (&cache->lock);
  if (if_newer) {
    if (asked_at < cache->limit_asked_at) {
      g_mutex_unlock (&cache->lock);
      GST_DEBUG_OBJECT (cache, "limit %" G_GUINT64_FORMAT " asked at %"
          G_GINT64_FORMAT " superseded by a later one", limit_bytes, asked_at);
      return FALSE;
    }
    cache->limit_asked_at = asked_at;
  }
  GST_DEBUG_OBJECT (cache, "limit %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT,
      cache->limit_bytes, limit_bytes);
  cache->limit_bytes = limit_bytes;
  to_free = gst_cuda_cache_trim_locked (cache, NULL);
  g_mutex_unlock (&cache->lock);

  gst_cuda_cache_stream_ordered_set_limit (cache->so, limit_bytes);

  gst_cuda_cache_free_memories (cache, to_free);
  return TRUE;
}

/**
 * gst_cuda_cache_set_limit:
 * @cache: a #GstCudaCache
 * @limit_bytes: bytes the cache may own, in use and idle; 0 keeps nothing
 *
 * Sets the limit, and drops idle blocks at once until @cache is back under
 * it. Blocks in use are never taken away.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_set_limit (GstCudaCache * cache, guint64 limit_bytes)
{
  g_return_if_fail (GST_IS_CUDA_CACHE (cache));

  gst_cuda_cache_apply_limit (cache, limit_bytes, FALSE, 0);
}

/**
 * gst_cuda_cache_set_alloc_method:
 * @cache: a #GstCudaCache
 * @method: how the CUDA images and tensors of the cache's pools are made
 * @error: where to say why @method was refused, or %NULL
 *
 * Chooses how #GstCudaCachePool makes the blocks of @cache from now on.
 * Blocks of each method are kept apart (the method is part of their key):
 * blocks already made stay what they are until freed, and a pool whose
 * config asks for one method (GStreamer 1.26's
 * `gst_buffer_pool_config_set_cuda_stream_ordered_alloc ()`, %FALSE for a
 * consumer such as legacy CUDA IPC that cannot take stream-ordered memory)
 * gets it whatever the cache's.
 *
 * %GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED blocks come from the pool
 * gst_cuda_cache_set_memory_pool() chose. A miss then takes memory the
 * pool holds without the driver's allocator, and a block the cache lets go
 * of goes back to the pool with `cuMemFreeAsync`, waited for by no thread.
 * The cache's limit bounds the pool as well: a pool holding more than the
 * limit is trimmed to it after a free, and gst_cuda_cache_clear() gives
 * the device all a pool holds unused. It is refused (%FALSE, @error set,
 * nothing changed) against GStreamer 1.22, whose CUDA memory carries no
 * stream, and with a driver without memory pools.
 *
 * Returns: %TRUE if @method is the cache's now
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_set_alloc_method (GstCudaCache * cache,
    GstCudaCacheAllocMethod method, GError ** error)
{
  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (method != GST_CUDA_CACHE_ALLOC_METHOD_MALLOC &&
      method != GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "%d is no GstCudaCacheAllocMethod", method);
    return FALSE;
  }
  if (method == GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED &&
      !gst_cuda_cache_stream_ordered_supported (error))
    return FALSE;

  g_mutex_lock (&cache->lock);
  cache->alloc_method = method;
  g_mutex_unlock (&cache->lock);
  GST_INFO_OBJECT (cache, "alloc-method %s", method ==
      GST_CUDA_CACHE_ALLOC_METHOD_MALLOC ? "malloc" : "stream-ordered");
  return TRUE;
}

/**
 * gst_cuda_cache_get_alloc_method:
 * @cache: a #GstCudaCache
 *
 * Tells an application how the cache's pools make new blocks: malloc, or
 * stream-ordered where gst_cuda_cache_set_alloc_method() could switch to it,
 * so that it knows whether the cache shares a CUDA memory pool with PyTorch or
 * CuPy.
 *
 * Returns: how the cache's pools make new blocks
 *
 * Since: 0.1
 */
GstCudaCacheAllocMethod
gst_cuda_cache_get_alloc_method (GstCudaCache * cache)
{
  GstCudaCacheAllocMethod method;

  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache),
      GST_CUDA_CACHE_ALLOC_METHOD_MALLOC);

  g_mutex_lock (&cache->lock);
  method = cache->alloc_method;
  g_mutex_unlock (&cache->lock);
  return method;
}

/**
 * gst_cuda_cache_set_memory_pool:
 * @cache: a #GstCudaCache
 * @pool: which CUDA memory pool stream-ordered blocks come from
 * @handle: with %GST_CUDA_CACHE_MEMORY_POOL_HANDLE, the `CUmemoryPool`
 *     (on GStreamer 1.26, `gst_cuda_memory_pool_get_handle ()` of a
 *     #GstCudaMemoryPool); it must outlive every block of it. Otherwise 0
 * @error: where to say why @pool was refused, or %NULL
 *
 * Chooses the pool of the stream-ordered blocks @cache makes from now on;
 * a pool given by handle must be one of the device the blocks are made on.
 * %GST_CUDA_CACHE_MEMORY_POOL_OWN (the default) is a pool per device that
 * the cache makes and destroys, whose release threshold is the cache's
 * limit. %GST_CUDA_CACHE_MEMORY_POOL_DEVICE_CURRENT is the device's current
 * pool: PyTorch's `cudaMallocAsync` backend and CuPy's `MemoryAsyncPool`
 * allocate from it, so memory the pipeline frees serves the model and the
 * reverse; the cache's limit and clearing then trim what the model left
 * in it too.
 *
 * Returns: %TRUE if @pool is the cache's choice now
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_set_memory_pool (GstCudaCache * cache,
    GstCudaCacheMemoryPool pool, guintptr handle, GError ** error)
{
  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (pool != GST_CUDA_CACHE_MEMORY_POOL_OWN &&
      pool != GST_CUDA_CACHE_MEMORY_POOL_DEVICE_CURRENT &&
      pool != GST_CUDA_CACHE_MEMORY_POOL_HANDLE) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "%d is no GstCudaCacheMemoryPool", pool);
    return FALSE;
  }
  if ((pool == GST_CUDA_CACHE_MEMORY_POOL_HANDLE) != (handle != 0)) {
    g_set_error_literal (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        pool == GST_CUDA_CACHE_MEMORY_POOL_HANDLE ?
        "a pool handle is needed with GST_CUDA_CACHE_MEMORY_POOL_HANDLE" :
        "a pool handle is only taken with GST_CUDA_CACHE_MEMORY_POOL_HANDLE");
    return FALSE;
  }

  g_mutex_lock (&cache->lock);
  cache->memory_pool = pool;
  cache->pool_handle = handle;
  g_mutex_unlock (&cache->lock);
  gst_cuda_cache_stream_ordered_set_pool (cache->so, pool, handle);
  return TRUE;
}

/**
 * gst_cuda_cache_get_memory_pool:
 * @cache: a #GstCudaCache
 * @handle: (out) (optional): the pool handle given, or 0
 *
 * Tells an application which CUDA memory pool @cache takes stream-ordered
 * blocks from, as set with gst_cuda_cache_set_memory_pool().
 *
 * Returns: the CUDA memory pool stream-ordered blocks come from
 *
 * Since: 0.1
 */
GstCudaCacheMemoryPool
gst_cuda_cache_get_memory_pool (GstCudaCache * cache, guintptr * handle)
{
  GstCudaCacheMemoryPool pool;

  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache),
      GST_CUDA_CACHE_MEMORY_POOL_OWN);

  g_mutex_lock (&cache->lock);
  pool = cache->memory_pool;
  if (handle)
    *handle = cache->pool_handle;
  g_mutex_unlock (&cache->lock);
  return pool;
}

/**
 * gst_cuda_cache_set_reserve:
 * @cache: a #GstCudaCache
 * @reserve_bytes: bytes to hold before they are needed
 *
 * Has the cache's own CUDA memory pool on each device
 * (%GST_CUDA_CACHE_MEMORY_POOL_OWN) hold @reserve_bytes from its start, as
 * OpenCV's `cuda::BufferPool` allocates its stack once: the pool is filled
 * once (now for the pools the cache has, at their making for the others)
 * and keeps the memory, so that stream-ordered misses after the start take
 * memory the process already holds. The reserve counts in the limit (a
 * reserve above it holds the limit) and in the statistics
 * (`pool-reserved`); a clear leaves it in the pool. Pools that are not the
 * cache's own are the application's to fill.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_set_reserve (GstCudaCache * cache, guint64 reserve_bytes)
{
  g_return_if_fail (GST_IS_CUDA_CACHE (cache));

  g_mutex_lock (&cache->lock);
  cache->reserve = reserve_bytes;
  g_mutex_unlock (&cache->lock);
  gst_cuda_cache_stream_ordered_set_reserve (cache->so, reserve_bytes);
}

GstCudaCacheStreamOrdered *
gst_cuda_cache_get_stream_ordered (GstCudaCache * cache)
{
  return cache->so;
}

/**
 * gst_cuda_cache_get_device_memory:
 * @cache: a #GstCudaCache
 *
 * Tells an application the size of the memory @cache allocates from (the
 * device's, or the machine's for the system-memory cache), which it compares
 * with gst_cuda_cache_get_limit() to choose a limit of its own.
 *
 * Returns: the total bytes of the memory @cache allocates from, as given at
 *     construction (0 if unknown)
 *
 * Since: 0.1
 */
guint64
gst_cuda_cache_get_device_memory (GstCudaCache * cache)
{
  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), 0);

  return cache->device_memory;
}

/**
 * gst_cuda_cache_list:
 *
 * Every cache of the process alive now: the system-memory cache, each
 * device's, and those an application made, most recently made first. A
 * monitor reads their statistics (the `cudacache` tracer does).
 *
 * Returns: (transfer full) (element-type GstCudaCache): the caches, each
 *     with a reference; free with `g_list_free_full (list,
 *     gst_object_unref)`
 *
 * Since: 0.1
 */
GList *
gst_cuda_cache_list (void)
{
  GList *caches = NULL, *l;

  g_mutex_lock (&live_lock);
  for (l = live_caches; l; l = l->next) {
    GstCudaCache *cache = g_weak_ref_get (l->data);

    if (cache)
      caches = g_list_prepend (caches, cache);
  }
  g_mutex_unlock (&live_lock);

  return g_list_reverse (caches);
}

/**
 * gst_cuda_cache_get_stats:
 * @cache: a #GstCudaCache
 * @scope: the whole cache, or the calling thread's share
 * @stats: (out caller-allocates): the figures
 *
 * Fills @stats. With %GST_CUDA_CACHE_SCOPE_THREAD, sizes and evictions count
 * the blocks the calling thread allocated, hits and misses the acquisitions
 * it made.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_get_stats (GstCudaCache * cache, GstCudaCacheScope scope,
    GstCudaCacheStats * stats)
{
  g_return_if_fail (GST_IS_CUDA_CACHE (cache));
  g_return_if_fail (stats != NULL);

  gst_cuda_cache_get_counters (cache, scope, stats);
  /* the pools are the device's, no thread's */
  if (scope == GST_CUDA_CACHE_SCOPE_GLOBAL)
    gst_cuda_cache_stream_ordered_get_usage (cache->so, &stats->pool_reserved,
        &stats->pool_used);
}

/* gst_cuda_cache_get_stats () but the pools' figures, which ask the driver:
 * the cache's own counters alone (pool_reserved and pool_used 0) */
static void
gst_cuda_cache_get_counters (GstCudaCache * cache, GstCudaCacheScope scope,
    GstCudaCacheStats * stats)
{
  const GstCudaCacheCounters *counters;
  static const GstCudaCacheCounters none;
  GstCudaCacheTime free_time;

  memset (stats, 0, sizeof (*stats));

  g_mutex_lock (&cache->lock);
  if (scope == GST_CUDA_CACHE_SCOPE_THREAD)
    counters = gst_cuda_cache_thread_counters_lookup_locked (&cache->threads);
  else
    counters = &cache->totals;
  if (!counters)
    counters = &none;

  stats->used_bytes = counters->used_bytes;
  stats->idle_bytes = counters->idle_bytes;
  stats->current_size = counters->used_bytes + counters->idle_bytes;
  stats->used_blocks = counters->used_blocks;
  stats->idle_blocks = counters->idle_blocks;
  stats->hits = counters->hits;
  stats->misses = counters->misses;
  stats->evictions = counters->evictions;
  stats->cache_limit = cache->limit_bytes;
  stats->peak_size = counters->peak_size;
  stats->peak_used_bytes = counters->peak_used_bytes;
  stats->alloc_retries = counters->alloc_retries;
  stats->alloc_failures = counters->alloc_failures;
  stats->alloc_time = counters->alloc_time.total;
  stats->alloc_time_max = counters->alloc_time.max;
  free_time = cache->free_time;
  g_mutex_unlock (&cache->lock);

  if (cache->reaper)
    gst_cuda_cache_reaper_add_free_time (cache->reaper, &free_time);
  stats->free_time = free_time.total;
  stats->free_time_max = free_time.max;
}

/**
 * gst_cuda_cache_stats_to_structure:
 * @stats: figures from gst_cuda_cache_get_stats()
 * @name: the structure's name
 *
 * Puts the figures of gst_cuda_cache_get_stats() into a #GstStructure, the
 * form the elements' `cudacache-stats` messages and the tracer use: an
 * application uses it to post or log the figures of a cache of its own in the
 * same form.
 *
 * Returns: (transfer full): a structure with the fields of @stats:
 *     `current-size`, `used-bytes`, `idle-bytes`, `cache-limit`,
 *     `peak-size`, `peak-used-bytes` (all #guint64), `used-blocks`,
 *     `idle-blocks` (#guint), `hits`, `misses`, `evictions`,
 *     `alloc-retries`, `alloc-failures`, `alloc-time`, `alloc-time-max`,
 *     `free-time`, `free-time-max` (#guint64, the times in nanoseconds),
 *     `pool-reserved`, `pool-used` (#guint64)
 *
 * Since: 0.1
 */
GstStructure *
gst_cuda_cache_stats_to_structure (const GstCudaCacheStats * stats,
    const gchar * name)
{
  g_return_val_if_fail (stats != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return gst_structure_new (name,
      "current-size", G_TYPE_UINT64, stats->current_size,
      "used-bytes", G_TYPE_UINT64, stats->used_bytes,
      "idle-bytes", G_TYPE_UINT64, stats->idle_bytes,
      "cache-limit", G_TYPE_UINT64, stats->cache_limit,
      "used-blocks", G_TYPE_UINT, stats->used_blocks,
      "idle-blocks", G_TYPE_UINT, stats->idle_blocks,
      "hits", G_TYPE_UINT64, stats->hits,
      "misses", G_TYPE_UINT64, stats->misses,
      "evictions", G_TYPE_UINT64, stats->evictions,
      "peak-size", G_TYPE_UINT64, stats->peak_size,
      "peak-used-bytes", G_TYPE_UINT64, stats->peak_used_bytes,
      "alloc-retries", G_TYPE_UINT64, stats->alloc_retries,
      "alloc-failures", G_TYPE_UINT64, stats->alloc_failures,
      "alloc-time", G_TYPE_UINT64, stats->alloc_time,
      "alloc-time-max", G_TYPE_UINT64, stats->alloc_time_max,
      "free-time", G_TYPE_UINT64, stats->free_time,
      "free-time-max", G_TYPE_UINT64, stats->free_time_max,
      "pool-reserved", G_TYPE_UINT64, stats->pool_reserved,
      "pool-used", G_TYPE_UINT64, stats->pool_used, NULL);
}

/**
 * gst_cuda_cache_reset_peaks:
 * @cache: a #GstCudaCache
 * @scope: the whole cache, or the calling thread's share
 *
 * Sets `peak-size` and `peak-used-bytes` to the current figures, to measure
 * the peaks of what follows (a stage, a benchmark run).
 *
 * Since: 0.1
 */
void
gst_cuda_cache_reset_peaks (GstCudaCache * cache, GstCudaCacheScope scope)
{
  GstCudaCacheCounters *counters;

  g_return_if_fail (GST_IS_CUDA_CACHE (cache));

  g_mutex_lock (&cache->lock);
  if (scope == GST_CUDA_CACHE_SCOPE_THREAD)
    counters = gst_cuda_cache_thread_counters_lookup_locked (&cache->threads);
  else
    counters = &cache->totals;
  if (counters) {
    counters->peak_size = counters->used_bytes + counters->idle_bytes;
    counters->peak_used_bytes = counters->used_bytes;
  }
  g_mutex_unlock (&cache->lock);
}

/**
 * gst_cuda_cache_clear:
 * @cache: a #GstCudaCache
 * @scope: drop every idle block, or those the calling thread allocated
 *
 * Drops idle blocks. Blocks in use are not affected. With
 * %GST_CUDA_CACHE_FLAG_ASYNC_FREE the frees happen on the reaper thread:
 * gst_cuda_cache_drain() waits for them.
 *
 * Where the cache made stream-ordered blocks, clearing the whole cache also
 * gives the device what their CUDA memory pools hold unused, as CuPy's
 * `free_all_blocks ()` does: it waits for the frees (the reaper's, then
 * the pools' streams) and trims every pool to nothing
 * (`cuMemPoolTrimTo`), a model's memory freed into the device's current
 * pool included; the cache's own pools keep their reserve
 * (gst_cuda_cache_set_reserve()).
 *
 * Returns: the bytes dropped
 *
 * Since: 0.1
 */
guint64
gst_cuda_cache_clear (GstCudaCache * cache, GstCudaCacheScope scope)
{
  GstCudaCacheCounters *owner = NULL;
  GList *to_free = NULL, *l;
  guint64 bytes = 0;

  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), 0);

  g_mutex_lock (&cache->lock);
  if (scope == GST_CUDA_CACHE_SCOPE_THREAD) {
    owner = gst_cuda_cache_thread_counters_lookup_locked (&cache->threads);
    if (!owner) {
      g_mutex_unlock (&cache->lock);
      return 0;
    }
  }

  l = cache->idle_lru.head;
  while (l) {
    GstCudaCacheBlock *block = l->data;

    l = l->next;
    if (owner && block->owner != owner)
      continue;
    bytes += block->size;
    to_free = g_list_prepend (to_free,
        gst_cuda_cache_evict_locked (cache, block, "cleared"));
  }
  g_mutex_unlock (&cache->lock);

  gst_cuda_cache_free_memories (cache, to_free);

  if (scope == GST_CUDA_CACHE_SCOPE_GLOBAL) {
    guint64 reserved, used;

    gst_cuda_cache_stream_ordered_get_usage (cache->so, &reserved, &used);
    if (reserved > 0) {
      gst_cuda_cache_drain (cache);
      gst_cuda_cache_stream_ordered_release (cache->so, 0);
    }
  }

  return bytes;
}

/**
 * gst_cuda_cache_drain:
 * @cache: a #GstCudaCache
 *
 * Waits until every block @cache has dropped so far is freed. Returns at
 * once without %GST_CUDA_CACHE_FLAG_ASYNC_FREE, where frees are inline.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_drain (GstCudaCache * cache)
{
  g_return_if_fail (GST_IS_CUDA_CACHE (cache));

  if (cache->reaper)
    gst_cuda_cache_reaper_drain (cache->reaper);
}

/**
 * gst_cuda_cache_set_limit_if_newer:
 * @cache: a #GstCudaCache
 * @limit_bytes: bytes the cache may own, in use and idle; 0 keeps nothing
 * @asked_at: when the limit was asked for, in g_get_monotonic_time() units
 *
 * Sets the limit as gst_cuda_cache_set_limit() does, unless a limit asked
 * for later than @asked_at was already set through this function: the last
 * write wins, even when an earlier one is applied late. The plugin's
 * elements apply their `cache-limit` property this way, once they know
 * which cache they use; an application sharing that cache uses it too, so
 * that an element's older value does not undo its own.
 *
 * Returns: %TRUE if @limit_bytes was set
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_set_limit_if_newer (GstCudaCache * cache, guint64 limit_bytes,
    gint64 asked_at)
{
  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), FALSE);

  return gst_cuda_cache_apply_limit (cache, limit_bytes, TRUE, asked_at);
}
