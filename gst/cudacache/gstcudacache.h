/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_H__
#define __GST_CUDA_CACHE_H__

#include <gst/cudacache/cudacache-prelude.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CACHE (gst_cuda_cache_get_type ())
GST_CUDA_CACHE_API
G_DECLARE_FINAL_TYPE (GstCudaCache, gst_cuda_cache, GST, CUDA_CACHE, GstObject)

/**
 * GST_CUDA_CACHE_LIMIT_ENV:
 *
 * The environment variable that overrides a new cache's default limit:
 * bytes, optionally with a `K`, `M`, `G` or `T` suffix (powers of 1024), or a
 * percentage such as `25%` of the memory the cache allocates from (the
 * device's for a device cache, the machine's for the system cache). A value
 * that does not parse is ignored, with a warning on the `cudacache` debug
 * category.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_LIMIT_ENV "GST_CUDA_CACHE_LIMIT"

/**
 * GstCudaCacheScope:
 * @GST_CUDA_CACHE_SCOPE_GLOBAL: the whole cache
 * @GST_CUDA_CACHE_SCOPE_THREAD: the blocks the calling thread allocated, and
 *     the lookups it made
 *
 * What statistics and clearing apply to. A thread's figures go when the
 * thread ends.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_CACHE_SCOPE_GLOBAL = 0,
  GST_CUDA_CACHE_SCOPE_THREAD = 1,
} GstCudaCacheScope;

/**
 * GstCudaCacheFlags:
 * @GST_CUDA_CACHE_FLAG_NONE: blocks the cache drops are freed on the thread
 *     that dropped them
 * @GST_CUDA_CACHE_FLAG_ASYNC_FREE: blocks the cache drops are freed on the
 *     cache's own reaper thread, never on the thread that released or
 *     acquired a block (device frees synchronise the whole device)
 *
 * How a cache frees the blocks it drops, given when an application makes a
 * cache of its own (gst_cuda_cache_new(), #GstCudaCache:flags): with
 * %GST_CUDA_CACHE_FLAG_ASYNC_FREE no streaming thread waits for the device.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_CACHE_FLAG_NONE = 0,
  GST_CUDA_CACHE_FLAG_ASYNC_FREE = (1 << 0),
} GstCudaCacheFlags;

/**
 * GstCudaCacheAllocMethod:
 * @GST_CUDA_CACHE_ALLOC_METHOD_MALLOC: device memory from the driver's
 *     allocator (`cuMemAllocPitch`), freed with `cuMemFree`, which waits
 *     for the whole device: the default
 * @GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED: device memory from a CUDA
 *     memory pool (`cuMemAllocFromPoolAsync`), freed with `cuMemFreeAsync`,
 *     which waits for nothing: a miss takes memory the pool holds in a few
 *     microseconds. Needs GStreamer 1.24 or later (memory that carries a
 *     stream) and a device with memory pools
 *
 * How a #GstCudaCache makes the CUDA images and tensors of its pools
 * (gst_cuda_cache_set_alloc_method()).
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_CACHE_ALLOC_METHOD_MALLOC = 0,
  GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED = 1,
} GstCudaCacheAllocMethod;

/**
 * GstCudaCacheMemoryPool:
 * @GST_CUDA_CACHE_MEMORY_POOL_OWN: a pool the cache makes on each device
 *     it allocates on; it keeps at most the cache's limit of freed memory
 *     (its release threshold)
 * @GST_CUDA_CACHE_MEMORY_POOL_DEVICE_CURRENT: the device's current pool
 *     (`cuDeviceGetMemPool`), the one PyTorch's `cudaMallocAsync` backend
 *     and CuPy's `MemoryAsyncPool` draw from: a pipeline and the model it
 *     feeds share one pool
 * @GST_CUDA_CACHE_MEMORY_POOL_HANDLE: a `CUmemoryPool` the application
 *     gives (gst_cuda_cache_set_memory_pool())
 *
 * The CUDA memory pool stream-ordered blocks come from.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_CACHE_MEMORY_POOL_OWN = 0,
  GST_CUDA_CACHE_MEMORY_POOL_DEVICE_CURRENT = 1,
  GST_CUDA_CACHE_MEMORY_POOL_HANDLE = 2,
} GstCudaCacheMemoryPool;

#include <gst/cudacache/cudacache-enumtypes.h>

/**
 * GstCudaCacheStats:
 * @current_size: bytes the cache owns, in use and idle
 * @used_bytes: bytes of blocks handed out and not yet returned
 * @idle_bytes: bytes of blocks kept for reuse
 * @used_blocks: blocks handed out
 * @idle_blocks: blocks kept for reuse
 * @hits: block acquisitions served from an idle block
 * @misses: block acquisitions that had to allocate
 * @evictions: blocks the cache let go of because of its limit, a clear, or
 *     their group losing its last user
 * @cache_limit: the cache's limit, in bytes (the `cache-limit` property)
 * @peak_size: the highest @current_size since the cache was made or
 *     gst_cuda_cache_reset_peaks()
 * @peak_used_bytes: the highest @used_bytes over the same time
 * @alloc_retries: allocations that failed, made the cache free every idle
 *     block and try once more
 * @alloc_failures: acquisitions that failed even after that retry (out of
 *     memory errors)
 * @alloc_time: nanoseconds spent in the allocation function of misses (the
 *     driver's allocator for the pools' blocks), retries included
 * @alloc_time_max: the longest of those calls, in nanoseconds
 * @free_time: nanoseconds spent freeing the blocks the cache let go of, on
 *     its own thread with %GST_CUDA_CACHE_FLAG_ASYNC_FREE; the whole
 *     cache's in either scope, as frees are no one thread's
 * @free_time_max: the longest of those frees, in nanoseconds
 * @pool_reserved: bytes the CUDA memory pools of the cache's
 *     stream-ordered blocks hold from the device (their
 *     `CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT`, every user's: with
 *     %GST_CUDA_CACHE_MEMORY_POOL_DEVICE_CURRENT a model's too); 0 with
 *     %GST_CUDA_CACHE_ALLOC_METHOD_MALLOC. Global scope only
 * @pool_used: bytes of those pools allocated and not freed
 *     (`CU_MEMPOOL_ATTR_USED_MEM_CURRENT`); the rest of @pool_reserved is
 *     memory freed into them, which the next allocation of any of their
 *     users takes without the driver
 *
 * A snapshot of a cache's figures, for one #GstCudaCacheScope.
 *
 * Hits and misses count block acquisitions (gst_cuda_cache_acquire()), not
 * frames: a buffer pool acquires a block for each buffer it allocates (at
 * activation, when it grows, after a reconfiguration) and for each layout
 * it is configured for the first time. Buffers a pool recycles frame after
 * frame never reach the cache. A steady pipeline therefore shows a few
 * acquisitions per caps change, not one per frame.
 *
 * Since: 0.1
 */
typedef struct
{
  guint64 current_size;
  guint64 used_bytes;
  guint64 idle_bytes;
  guint used_blocks;
  guint idle_blocks;
  guint64 hits;
  guint64 misses;
  guint64 evictions;
  guint64 cache_limit;
  guint64 peak_size;
  guint64 peak_used_bytes;
  guint64 alloc_retries;
  guint64 alloc_failures;
  guint64 alloc_time;
  guint64 alloc_time_max;
  guint64 free_time;
  guint64 free_time_max;
  guint64 pool_reserved;
  guint64 pool_used;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstCudaCacheStats;

/**
 * GstCudaCacheAllocFunc:
 * @user_data: the data given to gst_cuda_cache_acquire()
 *
 * Makes a new block on a cache miss. Called without any cache lock held.
 *
 * Returns: (transfer full) (nullable): a new memory, or %NULL when the
 *     allocator is out of memory
 *
 * Since: 0.1
 */
typedef GstMemory *(*GstCudaCacheAllocFunc) (gpointer user_data);

GST_CUDA_CACHE_API
GstCudaCache *gst_cuda_cache_new (guint64 device_memory,
    GstCudaCacheFlags flags);

GST_CUDA_CACHE_API
GstCudaCache *gst_cuda_cache_get_system (void);

GST_CUDA_CACHE_API
GList *gst_cuda_cache_list (void);

GST_CUDA_CACHE_API
GstMemory *gst_cuda_cache_acquire (GstCudaCache * cache, const gchar * key,
    GstCudaCacheAllocFunc alloc_func, gpointer user_data);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_owns_memory (GstCudaCache * cache, GstMemory * mem);

GST_CUDA_CACHE_API
guint64 gst_cuda_cache_get_limit (GstCudaCache * cache);

GST_CUDA_CACHE_API
void gst_cuda_cache_set_limit (GstCudaCache * cache, guint64 limit_bytes);

GST_CUDA_CACHE_API
guint64 gst_cuda_cache_get_device_memory (GstCudaCache * cache);

GST_CUDA_CACHE_API
void gst_cuda_cache_get_stats (GstCudaCache * cache, GstCudaCacheScope scope,
    GstCudaCacheStats * stats);

GST_CUDA_CACHE_API
GstStructure *gst_cuda_cache_stats_to_structure (const GstCudaCacheStats *
    stats, const gchar * name);

GST_CUDA_CACHE_API
void gst_cuda_cache_reset_peaks (GstCudaCache * cache, GstCudaCacheScope scope);

GST_CUDA_CACHE_API
guint64 gst_cuda_cache_clear (GstCudaCache * cache, GstCudaCacheScope scope);

GST_CUDA_CACHE_API
void gst_cuda_cache_drain (GstCudaCache * cache);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_set_alloc_method (GstCudaCache * cache,
    GstCudaCacheAllocMethod method, GError ** error);

GST_CUDA_CACHE_API
GstCudaCacheAllocMethod gst_cuda_cache_get_alloc_method (GstCudaCache * cache);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_set_memory_pool (GstCudaCache * cache,
    GstCudaCacheMemoryPool pool, guintptr handle, GError ** error);

GST_CUDA_CACHE_API
GstCudaCacheMemoryPool gst_cuda_cache_get_memory_pool (GstCudaCache * cache,
    guintptr * handle);

GST_CUDA_CACHE_API
void gst_cuda_cache_set_reserve (GstCudaCache * cache, guint64 reserve_bytes);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_set_limit_if_newer (GstCudaCache * cache,
    guint64 limit_bytes, gint64 asked_at);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_H__ */
