/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_ELEMENT_STATE_H__
#define __GST_CUDA_CACHE_ELEMENT_STATE_H__

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudacache/cudacache.h>

G_BEGIN_DECLS

/* The properties of GstCudaCacheElementState, in the order an element
 * installs them from its first id (gst_cuda_cache_element_state_install ()):
 * every element has the first five, the base transform all of them. */
typedef enum
{
  GST_CUDA_CACHE_ELEMENT_PROP_DEVICE_ID,
  GST_CUDA_CACHE_ELEMENT_PROP_CACHE_LIMIT,
  GST_CUDA_CACHE_ELEMENT_PROP_STATS_INTERVAL,
  GST_CUDA_CACHE_ELEMENT_PROP_ALLOC_METHOD,
  GST_CUDA_CACHE_ELEMENT_PROP_MEMORY_POOL,
  GST_CUDA_CACHE_ELEMENT_PROP_CACHE,
  GST_CUDA_CACHE_ELEMENT_PROP_CURRENT_SIZE,
  GST_CUDA_CACHE_ELEMENT_N_PROPS,
} GstCudaCacheElementProp;

/* The five properties every element has */
#define GST_CUDA_CACHE_ELEMENT_N_COMMON_PROPS \
  (GST_CUDA_CACHE_ELEMENT_PROP_MEMORY_POOL + 1)

/**
 * GstCudaCacheElementState:
 *
 * What every element of the plugin keeps the same way, embedded in
 * GstCudaCacheBaseTransform and GstCudaCacheBatch: the device it picks, its
 * CUDA context and how it finds one, the cache its memory comes from, the
 * cache-limit written to it and the stats it posts.
 *
 * Every field is guarded by the object lock of @element (the element
 * that embeds the state), which the functions below take; none of them
 * calls out (gst-cuda, the cache, a message) under it.
 */
typedef struct
{
  /* not a reference: the element that embeds this state */
  GstElement *element;

  /* < private >, under the element's object lock */
  gint device_id;               /* cuda-device-id */
  GstCudaContext *context;      /* NULL until found or given */
  gboolean finding_context;     /* a search runs: none other starts */
  GstCudaCache *cache;          /* the cache of the negotiated memory */
  gboolean cuda_memory;         /* that memory is CUDA memory */
  guint64 limit_bytes;          /* the last cache-limit written */
  gint64 limit_asked_at;        /* when, in monotonic time; 0: never */
  GstCudaCache *limit_cache;    /* the cache that write was offered to */
  guint stats_interval_ms;
  GstClockTime last_stats;
  /* alloc-method and memory-pool, and whether each was written: only a
   * value written is applied to the cache */
  GstCudaCacheAllocMethod alloc_method;
  gboolean alloc_method_set;
  GstCudaCacheMemoryPool memory_pool;
  gboolean memory_pool_set;
} GstCudaCacheElementState;

G_GNUC_INTERNAL
void gst_cuda_cache_element_state_init (GstCudaCacheElementState * state,
    GstElement * element);

G_GNUC_INTERNAL
void gst_cuda_cache_element_state_clear (GstCudaCacheElementState * state);

G_GNUC_INTERNAL
void gst_cuda_cache_element_state_release (GstCudaCacheElementState * state);

G_GNUC_INTERNAL
void gst_cuda_cache_element_state_install (GObjectClass * klass,
    guint first_prop_id, guint n_props);

G_GNUC_INTERNAL
void gst_cuda_cache_element_state_set_property (GstCudaCacheElementState *
    state, GstCudaCacheElementProp prop, const GValue * value);

G_GNUC_INTERNAL
void gst_cuda_cache_element_state_get_property (GstCudaCacheElementState *
    state, GstCudaCacheElementProp prop, GValue * value);

G_GNUC_INTERNAL
gint gst_cuda_cache_element_state_get_device_id (GstCudaCacheElementState *
    state);

G_GNUC_INTERNAL
GstCudaContext *gst_cuda_cache_element_state_ref_context
    (GstCudaCacheElementState * state);

G_GNUC_INTERNAL
GstCudaContext *gst_cuda_cache_element_state_take_context
    (GstCudaCacheElementState * state, GstCudaContext * context);

G_GNUC_INTERNAL
GstCudaContext *gst_cuda_cache_element_state_replace_context
    (GstCudaCacheElementState * state, GstCudaContext * context);

G_GNUC_INTERNAL
void gst_cuda_cache_element_state_set_context (GstCudaCacheElementState *
    state, GstContext * context);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_element_state_ensure_context (GstCudaCacheElementState
    * state);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_element_state_answer_context
    (GstCudaCacheElementState * state, GstQuery * query);

G_GNUC_INTERNAL
GstCudaCache *gst_cuda_cache_element_state_ref_cache (GstCudaCacheElementState
    * state);

G_GNUC_INTERNAL
void gst_cuda_cache_element_state_set_cache (GstCudaCacheElementState * state,
    GstCudaCache * cache, gboolean cuda_memory);

G_GNUC_INTERNAL
gboolean gst_cuda_cache_element_state_check_alloc (GstCudaCacheElementState *
    state);

G_GNUC_INTERNAL
void gst_cuda_cache_element_state_tick_stats (GstCudaCacheElementState *
    state, gboolean now);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_ELEMENT_STATE_H__ */
