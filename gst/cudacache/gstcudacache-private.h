/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_PRIVATE_H__
#define __GST_CUDA_CACHE_PRIVATE_H__

#include <gst/video/video.h>
#include <gst/cudacache/gstcudacache.h>
#include <gst/cudacache/gstcudacachetensor.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>

G_BEGIN_DECLS

/* Groups of keys and their users (docs/design.md, "Groups"): how
 * GstCudaCachePool keeps a context's blocks for as long as the context has
 * users; and the limits' parser behind GST_CUDA_CACHE_LIMIT_ENV */
G_GNUC_INTERNAL
void gst_cuda_cache_group_add_user (GstCudaCache * cache, const gchar * group);

G_GNUC_INTERNAL
void gst_cuda_cache_group_remove_user (GstCudaCache * cache,
    const gchar * group);

G_GNUC_INTERNAL
GstMemory *gst_cuda_cache_acquire_in_group (GstCudaCache * cache,
    const gchar * group, const gchar * key, GstCudaCacheAllocFunc alloc_func,
    gpointer user_data);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_parse_limit (const gchar * str, guint64 device_memory,
    guint64 * limit_bytes);

/* The names caps give tensors' element types and layouts (`uint8`,
 * `float16`, `float32`; `NCHW`, `NHWC`, read in any case): the caps'
 * parsing and printing, and the messages that name them. Applications have
 * the enums' GEnum nicks. */
G_GNUC_INTERNAL
const gchar *gst_cuda_cache_tensor_dtype_to_string (GstCudaCacheTensorDType
    dtype);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_tensor_dtype_from_string (const gchar * str,
    GstCudaCacheTensorDType * dtype);

G_GNUC_INTERNAL
const gchar *gst_cuda_cache_tensor_layout_to_string (GstCudaCacheTensorLayout
    layout);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_tensor_layout_from_string (const gchar * str,
    GstCudaCacheTensorLayout * layout);

/* The one way a file of the library gets its debug category: made on first
 * use, since any public function may run before a type's class_init. In
 * place of GST_DEBUG_CATEGORY_STATIC, a file says
 *
 *   GST_CUDA_CACHE_DEBUG_CATEGORY ("cudacachefoo", "CUDA cache: foo");
 *   #define GST_CAT_DEFAULT ensure_debug_category ()
 *
 * as gst-plugins-base's video library does. */
#ifndef GST_DISABLE_GST_DEBUG
#define GST_CUDA_CACHE_DEBUG_CATEGORY(name, description)                 \
static GstDebugCategory *                                                \
ensure_debug_category (void)                                             \
{                                                                        \
  static gsize cat = 0;                                                  \
                                                                         \
  if (g_once_init_enter (&cat))                                          \
    g_once_init_leave (&cat,                                             \
        (gsize) _gst_debug_category_new (name, 0, description));        \
  return (GstDebugCategory *) cat;                                       \
}                                                                        \
static GstDebugCategory *ensure_debug_category (void)
#else
#define GST_CUDA_CACHE_DEBUG_CATEGORY(name, description)                 \
static inline GstDebugCategory *                                         \
ensure_debug_category (void)                                             \
{                                                                        \
  return NULL;                                                           \
}                                                                        \
static inline GstDebugCategory *ensure_debug_category (void)
#endif

/* The name of each device's shared cache is this and the device's number
 * (gst_cuda_cache_device_get_cache ()). */
#define GST_CUDA_CACHE_DEVICE_NAME_PREFIX "cudacache-device"

/* The keys @cache has an entry for, its groups' included: for the tests,
 * which check that entries go with their last block. */
guint gst_cuda_cache_count_entries (GstCudaCache * cache);

/* The name of the process's system-memory cache (gst_cuda_cache_get_system ()). */
#define GST_CUDA_CACHE_SYSTEM_NAME "cudacache-system"

/* What a pool's caps ask for: a pitched video image, or a packed tensor. */
typedef enum
{
  GST_CUDA_CACHE_KIND_IMAGE,
  GST_CUDA_CACHE_KIND_TENSOR,
} GstCudaCacheKind;

typedef struct
{
  GstCudaCacheKind kind;
  GstVideoInfo video;           /* image: the caps' video info */
  GstCudaCacheTensorInfo tensor;     /* tensor: the caps' tensor info */
} GstCudaCacheLayout;

/* Everything the key names, in a form compared with memcmp: a pool that
 * meets a layout again reuses its key without building it. */
typedef struct
{
  GstCudaCacheKind kind;
  GstVideoFormat format;
  gint width;
  gint height;
  GstVideoInterlaceMode interlace_mode;
  gsize size;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  GstCudaCacheTensorDType dtype;
  GstCudaCacheTensorLayout tensor_layout;
  gsize dims[GST_CUDA_CACHE_TENSOR_N_DIMS];
  /* what else a pool puts in its key: allocator and its parameters, block
   * size (zero where the pool's key does not depend on them) */
  gpointer allocator;
  gsize align;
  gsize prefix;
  gsize padding;
  gsize bytes;
} GstCudaCacheLayoutSignature;

/* One layout a pool was configured for: its key and block size, so that a
 * switch back builds no key and probes no block. */
typedef struct
{
  GstCudaCacheLayoutSignature sig;
  gchar *key;
  gsize size;
} GstCudaCacheKnownLayout;

/* The layouts a pool was configured for, most recent first; at most
 * GST_CUDA_CACHE_MAX_KNOWN_LAYOUTS. Guarded as the pool's configuration
 * is: GstBufferPool serialises set_config. */
typedef struct
{
  GQueue known;
} GstCudaCacheKnownLayouts;

/* Renegotiating to a layout seen before costs a memcmp per entry. */
#define GST_CUDA_CACHE_MAX_KNOWN_LAYOUTS 32

/* Whether @format is in @list, a caps field's list of format names such
 * as the public headers' *_FORMATS: the tables the library checks
 * formats against are those lists. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_format_in_list (GstVideoFormat format,
    const gchar * list);

G_GNUC_INTERNAL
void gst_cuda_cache_layout_get_signature (const GstCudaCacheLayout * layout,
    GstCudaCacheLayoutSignature * sig);

G_GNUC_INTERNAL
void gst_cuda_cache_known_layouts_clear (GstCudaCacheKnownLayouts * layouts);

G_GNUC_INTERNAL
const GstCudaCacheKnownLayout *gst_cuda_cache_known_layouts_lookup (
    GstCudaCacheKnownLayouts * layouts, const GstCudaCacheLayoutSignature * sig);

G_GNUC_INTERNAL
const GstCudaCacheKnownLayout *gst_cuda_cache_known_layouts_add (
    GstCudaCacheKnownLayouts * layouts, const GstCudaCacheLayoutSignature * sig,
    const gchar * key, gsize size);

G_GNUC_INTERNAL
void gst_cuda_cache_pool_discard_queued (GstBufferPool * pool,
    GstBufferPoolClass * base_class);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_pool_start_counted (GstBufferPool * pool,
    gint * starting, GstBufferPoolClass * base_class);

G_GNUC_INTERNAL
void gst_cuda_cache_pool_release (GstBufferPool * pool, GstBuffer * buffer,
    gint * starting, GstBufferPoolClass * base_class);

/* The cache group of a CUDA context's blocks. */
#define gst_cuda_cache_context_group(context) \
    g_strdup_printf ("cuda-context:%p", (gpointer) (context))

/* Memory that wraps a block (a pool's memory for a writer of another
 * stream), and the block that memory stands for (itself where none) */
G_GNUC_INTERNAL
void gst_cuda_cache_memory_set_block (GstMemory * wrapper, GstMemory * block);
G_GNUC_INTERNAL
GstMemory *gst_cuda_cache_memory_get_block (GstMemory * mem);

/* The cache, group (NULL: none) and key of @mem's block in use, each
 * transfer full; FALSE where @mem is no cache's block in use. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_block_origin (GstMemory * mem, GstCudaCache ** cache,
    gchar ** group, gchar ** key);

/* The stream-ordered side of @cache (transfer none: the cache's for its
 * life; gstcudacachestreamordered-private.h) */
typedef struct _GstCudaCacheStreamOrdered GstCudaCacheStreamOrdered;
G_GNUC_INTERNAL
GstCudaCacheStreamOrdered *gst_cuda_cache_get_stream_ordered (GstCudaCache *
    cache);

/* The CUDA allocator of the project's blocks: gst-cuda's, but a copy of
 * a cache's block (gst_memory_copy (), whole as gst-cuda's is, as a sink's
 * last sample is copied
 * when upstream renegotiates) comes from that cache, copied on a stream of
 * its own, instead of from the driver and freed with a cuMemFree () that
 * waits for the whole device. Transfer none; NULL without gst-cuda's
 * allocator. */
G_GNUC_INTERNAL
GstCudaAllocator *gst_cuda_cache_device_get_allocator (void);

/* gst_cuda_cache_new() with a name, so that what the cache logs while it
 * is made (a bad GST_CUDA_CACHE_LIMIT) names it. */
G_GNUC_INTERNAL
GstCudaCache *gst_cuda_cache_new_named (const gchar * name,
    guint64 device_memory, GstCudaCacheFlags flags);

/* Makes @consumer wait on the GPU for the work queued on @producer so far
 * (an event recorded there), in @context: no host synchronise. FALSE,
 * logged, where the driver refused. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_device_stream_wait (GstCudaContext * context,
    CUstream consumer, CUstream producer);

/* Events, with a context of theirs pushed by the caller: records *@event
 * (made at the first call) after the work queued on @stream so far. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_device_event_record (CUevent * event, CUstream stream);

/* Whether the work before @event has finished; with @wait, returns once it
 * has (a wait for that work alone, not the context's). An event the driver
 * cannot answer for counts as finished, logged. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_device_event_done (CUevent event, gboolean wait);

G_GNUC_INTERNAL
void gst_cuda_cache_device_event_destroy (CUevent event);

/* Sets @size bytes at @dst to @value on @stream, in @context. FALSE,
 * logged, where the driver refused. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_device_memset_async (GstCudaContext * context,
    CUdeviceptr dst, guint8 value, gsize size, CUstream stream);

/* Whether @size bytes at @ptr lie within one allocation that belongs to
 * @context's CUDA context (the driver's pointer attributes). */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_device_owns_range (GstCudaContext * context,
    CUdeviceptr ptr, gsize size);

G_GNUC_INTERNAL
gchar *gst_cuda_cache_describe_out_of_memory (GstCudaCache * cache,
    gsize bytes, const gchar * key);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_layout_from_caps (GstCudaCacheLayout * layout,
    const GstCaps * caps);

G_GNUC_INTERNAL
gchar *gst_cuda_cache_layout_to_key (const GstCudaCacheLayout * layout,
    const gchar * prefix);

/* gstcudacachetensor.c: strides and size from @info's dims */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_tensor_info_pack (GstCudaCacheTensorInfo * info);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_tensor_info_is_packed (const GstCudaCacheTensorInfo *
    info);

/* gstcudacacheanalytics.c: the tensor of a GstTensorMeta on @buffer */
G_GNUC_INTERNAL
GstBuffer *gst_cuda_cache_analytics_tensor (GstBuffer * buffer,
    GstCudaCacheTensorInfo * info, GError ** error);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_PRIVATE_H__ */
