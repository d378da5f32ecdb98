/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* GstCudaCacheElementState (gstcudacacheelementstate.h): what
 * GstCudaCacheBaseTransform and GstCudaCacheBatch keep the same way, so that
 * a change to how elements take a context, or apply their cache-limit, is
 * made once.
 *
 * Contexts, one rule for every element:
 * 1. a context given to the element (set_context: the application's, the
 *    bin's, a neighbour's HAVE_CONTEXT) is taken while it has none;
 * 2. when the element needs one (the base transform at start) or a
 *    neighbour asks for one (a CONTEXT query), it searches: its
 *    neighbours' (a CONTEXT query on each pad, source pads first), then
 *    the application's (NEED_CONTEXT), and otherwise takes the device's
 *    primary context (gst_cuda_cache_device_get_default_context ()),
 *    posted as a non-persistent HAVE_CONTEXT: nvcodec elements of the
 *    pipeline take it too, and everyone drops it in NULL, so it goes away
 *    with its last user. gst_cuda_ensure_element_context () cannot do this
 *    (it makes a new context per element where none is found);
 * 3. memory that arrives may then decide: the base transform follows the
 *    context of the CUDA memory it is given (replace_context), the batch
 *    takes its first CUDA frame's where it has none yet (take_context).
 *
 * The cache-limit written before negotiation waits for the cache the
 * element will use, and is offered to it once (set_cache): the last write
 * wins, whoever made it (gst_cuda_cache_set_limit_if_newer ()). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/cuda/gstcudautils.h>

#include "gstcudacacheelementstate.h"
#include "gstcudacacheelementprops.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_element_state_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_element_state_debug

#define DEFAULT_DEVICE_ID -1
#define DEFAULT_STATS_INTERVAL 0

#define STATE_LOCK(state) GST_OBJECT_LOCK ((state)->element)
#define STATE_UNLOCK(state) GST_OBJECT_UNLOCK ((state)->element)

void
gst_cuda_cache_element_state_init (GstCudaCacheElementState * state,
    GstElement * element)
{
  static gsize debug_init = 0;

  if (g_once_init_enter (&debug_init)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_element_state_debug,
        "cudacacheelement", 0, "CUDA cache: what the elements share");
    g_once_init_leave (&debug_init, 1);
  }

  memset (state, 0, sizeof (*state));
  state->element = element;
  state->device_id = DEFAULT_DEVICE_ID;
  state->stats_interval_ms = DEFAULT_STATS_INTERVAL;
  state->last_stats = GST_CLOCK_TIME_NONE;
}

/* Lets go of the context and the cache (stop, READY to NULL), so that a
 * finished pipeline keeps no context alive; the next start finds them
 * again. The properties, and the cache a cache-limit was offered to, are
 * kept: the element never offers one write twice to one cache. */
void
gst_cuda_cache_element_state_release (GstCudaCacheElementState * state)
{
  GstCudaContext *context;
  GstCudaCache *cache;

  STATE_LOCK (state);
  context = g_steal_pointer (&state->context);
  cache = g_steal_pointer (&state->cache);
  state->cuda_memory = FALSE;
  state->last_stats = GST_CLOCK_TIME_NONE;
  STATE_UNLOCK (state);
  gst_clear_object (&cache);
  gst_clear_object (&context);
}

/* dispose: everything, the element is going */
void
gst_cuda_cache_element_state_clear (GstCudaCacheElementState * state)
{
  GstCudaCache *limit_cache;

  gst_cuda_cache_element_state_release (state);
  STATE_LOCK (state);
  limit_cache = g_steal_pointer (&state->limit_cache);
  STATE_UNLOCK (state);
  gst_clear_object (&limit_cache);
}

/* Installs the first @n_props GstCudaCacheElementProp properties on
 * @klass, the first one with id @first_prop_id */
void
gst_cuda_cache_element_state_install (GObjectClass * klass,
    guint first_prop_id, guint n_props)
{
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  GParamSpec *pspecs[GST_CUDA_CACHE_ELEMENT_N_PROPS];
  guint i;

  g_return_if_fail (n_props <= GST_CUDA_CACHE_ELEMENT_N_PROPS);

  pspecs[GST_CUDA_CACHE_ELEMENT_PROP_DEVICE_ID] =
      gst_cuda_cache_param_spec_device_id ();
  pspecs[GST_CUDA_CACHE_ELEMENT_PROP_CACHE_LIMIT] =
      gst_cuda_cache_param_spec_cache_limit ();
  pspecs[GST_CUDA_CACHE_ELEMENT_PROP_STATS_INTERVAL] =
      gst_cuda_cache_param_spec_stats_interval ();
  pspecs[GST_CUDA_CACHE_ELEMENT_PROP_ALLOC_METHOD] =
      gst_cuda_cache_param_spec_alloc_method ();
  pspecs[GST_CUDA_CACHE_ELEMENT_PROP_MEMORY_POOL] =
      gst_cuda_cache_param_spec_memory_pool ();
  pspecs[GST_CUDA_CACHE_ELEMENT_PROP_CACHE] =
      g_param_spec_object ("cache", "Cache",
      "The cache this element's memory comes from, for clearing it and "
      "reading its statistics (per thread too); NULL until caps are "
      "negotiated", GST_TYPE_CUDA_CACHE, ro);
  pspecs[GST_CUDA_CACHE_ELEMENT_PROP_CURRENT_SIZE] =
      g_param_spec_uint64 ("current-size", "Current size",
      "Bytes the cache this element's memory comes from owns, in use "
      "and idle (the cache property's; before negotiation, that of the "
      "cache the element would use); its other statistics are in the "
      "cudacache-stats message (stats-interval) and the cache's "
      "gst_cuda_cache_get_stats ()", 0, G_MAXUINT64, 0, ro);

  for (i = 0; i < GST_CUDA_CACHE_ELEMENT_N_PROPS; i++) {
    if (i < n_props)
      g_object_class_install_property (klass, first_prop_id + i, pspecs[i]);
    else
      g_param_spec_sink (pspecs[i]);
  }
}

/* The cache the element's memory comes from (transfer full): the
 * negotiated one; before negotiation, the device's where the element has a
 * context, the system-memory cache otherwise */
GstCudaCache *
gst_cuda_cache_element_state_ref_cache (GstCudaCacheElementState * state)
{
  GstCudaCache *cache = NULL;
  GstCudaContext *context = NULL;

  STATE_LOCK (state);
  if (state->cache)
    cache = gst_object_ref (state->cache);
  else if (state->context)
    context = gst_object_ref (state->context);
  STATE_UNLOCK (state);

  if (!cache) {
    cache = context ? gst_cuda_cache_device_get_cache (context) :
        gst_cuda_cache_get_system ();
    gst_clear_object (&context);
  }

  return cache;
}

static GstCudaCacheStats
gst_cuda_cache_element_state_stats (GstCudaCacheElementState * state)
{
  GstCudaCache *cache = gst_cuda_cache_element_state_ref_cache (state);
  GstCudaCacheStats stats;

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  gst_object_unref (cache);

  return stats;
}

/* Offers the cache in use the cache-limit last written, where it was not
 * offered to it already (@again: a new write, offered to the cache in use
 * even so, or left for the next one negotiated) */
static void
gst_cuda_cache_element_state_offer_limit (GstCudaCacheElementState * state,
    gboolean again)
{
  GstCudaCache *cache = NULL;
  guint64 limit_bytes;
  gint64 asked_at;

  STATE_LOCK (state);
  limit_bytes = state->limit_bytes;
  asked_at = state->limit_asked_at;
  /* a new write is offered to the cache in use, or waits for the next one
   * negotiated, even where an older write was offered to that one */
  if (asked_at != 0 && (again || (state->cache &&
              state->limit_cache != state->cache))) {
    cache = state->cache ? gst_object_ref (state->cache) : NULL;
    gst_object_replace ((GstObject **) & state->limit_cache,
        (GstObject *) cache);
  }
  STATE_UNLOCK (state);

  if (!cache) {
    if (again)
      GST_DEBUG_OBJECT (state->element, "cache-limit %" G_GUINT64_FORMAT
          " waits for negotiation to know its cache", limit_bytes);
    return;
  }
  if (gst_cuda_cache_set_limit_if_newer (cache, limit_bytes, asked_at))
    GST_DEBUG_OBJECT (state->element, "cache-limit %" G_GUINT64_FORMAT
        " applied to %" GST_PTR_FORMAT, limit_bytes, cache);
  else
    GST_DEBUG_OBJECT (state->element, "cache-limit %" G_GUINT64_FORMAT
        " not applied: %" GST_PTR_FORMAT "'s limit was set later",
        limit_bytes, cache);
  gst_object_unref (cache);
}

/* Applies the alloc-method and memory-pool written to @cache, the CUDA
 * cache negotiated: before the element's pools are configured, which read
 * them. Refusals were reported at start (check_alloc). */
static void
gst_cuda_cache_element_state_apply_alloc (GstCudaCacheElementState * state,
    GstCudaCache * cache)
{
  GstCudaCacheAllocMethod method;
  GstCudaCacheMemoryPool pool;
  gboolean method_set, pool_set;
  GError *error = NULL;

  STATE_LOCK (state);
  method = state->alloc_method;
  method_set = state->alloc_method_set;
  pool = state->memory_pool;
  pool_set = state->memory_pool_set;
  STATE_UNLOCK (state);

  if (pool_set && !gst_cuda_cache_set_memory_pool (cache, pool, 0, &error)) {
    GST_WARNING_OBJECT (state->element, "memory-pool: %s", error->message);
    g_clear_error (&error);
  }
  if (method_set && !gst_cuda_cache_set_alloc_method (cache, method, &error)) {
    GST_WARNING_OBJECT (state->element, "alloc-method: %s", error->message);
    g_clear_error (&error);
  }
}

/* Negotiation: @cache is the one the element's memory now comes from
 * (@cuda_memory: CUDA memory); the cache-limit written is offered to it,
 * once per cache (a limit set later on the cache, by anyone, wins), and
 * to a CUDA cache the alloc-method and memory-pool written */
void
gst_cuda_cache_element_state_set_cache (GstCudaCacheElementState * state,
    GstCudaCache * cache, gboolean cuda_memory)
{
  GstCudaCache *old;

  STATE_LOCK (state);
  old = state->cache;
  state->cache = gst_object_ref (cache);
  state->cuda_memory = cuda_memory;
  STATE_UNLOCK (state);
  gst_clear_object (&old);

  gst_cuda_cache_element_state_offer_limit (state, FALSE);
  if (cuda_memory)
    gst_cuda_cache_element_state_apply_alloc (state, cache);
}

/* Start: an alloc-method written that this build or driver cannot make,
 * or memory-pool=handle (no handle comes with it), fails the element, with
 * why, instead of running on other blocks than those asked for */
gboolean
gst_cuda_cache_element_state_check_alloc (GstCudaCacheElementState * state)
{
  GstCudaCacheAllocMethod method;
  GstCudaCacheMemoryPool pool;
  GError *error = NULL;
  GstCudaCache *probe;
  gboolean ok;

  STATE_LOCK (state);
  method = state->alloc_method_set ? state->alloc_method :
      GST_CUDA_CACHE_ALLOC_METHOD_MALLOC;
  pool = state->memory_pool_set ? state->memory_pool :
      GST_CUDA_CACHE_MEMORY_POOL_OWN;
  STATE_UNLOCK (state);

  if (pool == GST_CUDA_CACHE_MEMORY_POOL_HANDLE) {
    GST_ELEMENT_ERROR (state->element, RESOURCE, SETTINGS,
        ("memory-pool=handle cannot be set on an element"),
        ("a pool handle is given to the cache itself, with "
            "gst_cuda_cache_set_memory_pool ()"));
    return FALSE;
  }

  if (method == GST_CUDA_CACHE_ALLOC_METHOD_MALLOC ||
      gst_cuda_cache_device_get_count () == 0)
    return TRUE;
  /* asked of a cache of no one's: the device's is not known yet */
  probe = gst_cuda_cache_new (0, GST_CUDA_CACHE_FLAG_NONE);
  ok = gst_cuda_cache_set_alloc_method (probe, method, &error);
  gst_object_unref (probe);
  if (ok)
    return TRUE;

  GST_ELEMENT_ERROR (state->element, RESOURCE, SETTINGS,
      ("alloc-method=stream-ordered is not available"), ("%s", error->message));
  g_clear_error (&error);
  return FALSE;
}

void
gst_cuda_cache_element_state_set_property (GstCudaCacheElementState * state,
    GstCudaCacheElementProp prop, const GValue * value)
{
  switch (prop) {
    case GST_CUDA_CACHE_ELEMENT_PROP_DEVICE_ID:
      STATE_LOCK (state);
      state->device_id = g_value_get_int (value);
      STATE_UNLOCK (state);
      break;
    case GST_CUDA_CACHE_ELEMENT_PROP_CACHE_LIMIT:
      /* remembered for the cache negotiation picks; applied now only to
       * the cache in use, never to one the element may not use */
      STATE_LOCK (state);
      state->limit_bytes = g_value_get_uint64 (value);
      state->limit_asked_at = g_get_monotonic_time ();
      STATE_UNLOCK (state);
      gst_cuda_cache_element_state_offer_limit (state, TRUE);
      break;
    case GST_CUDA_CACHE_ELEMENT_PROP_STATS_INTERVAL:
      STATE_LOCK (state);
      state->stats_interval_ms = g_value_get_uint (value);
      STATE_UNLOCK (state);
      break;
    case GST_CUDA_CACHE_ELEMENT_PROP_ALLOC_METHOD:
      STATE_LOCK (state);
      state->alloc_method = g_value_get_enum (value);
      state->alloc_method_set = TRUE;
      STATE_UNLOCK (state);
      break;
    case GST_CUDA_CACHE_ELEMENT_PROP_MEMORY_POOL:
      STATE_LOCK (state);
      state->memory_pool = g_value_get_enum (value);
      state->memory_pool_set = TRUE;
      STATE_UNLOCK (state);
      break;
    default:
      g_assert_not_reached ();
      break;
  }
}

void
gst_cuda_cache_element_state_get_property (GstCudaCacheElementState * state,
    GstCudaCacheElementProp prop, GValue * value)
{
  switch (prop) {
    case GST_CUDA_CACHE_ELEMENT_PROP_DEVICE_ID:
      g_value_set_int (value, gst_cuda_cache_element_state_get_device_id
          (state));
      break;
    case GST_CUDA_CACHE_ELEMENT_PROP_CACHE_LIMIT:{
      gboolean negotiated;
      guint64 limit_bytes;

      STATE_LOCK (state);
      negotiated = state->cache != NULL;
      /* before negotiation: the value written, or 0 (nothing written: the
       * cache's default applies), never the machine-specific default of a
       * cache the element may not use, which gst-inspect would show as the
       * property's default */
      limit_bytes = state->limit_asked_at != 0 ? state->limit_bytes : 0;
      STATE_UNLOCK (state);

      if (negotiated)
        limit_bytes = gst_cuda_cache_element_state_stats (state).cache_limit;
      g_value_set_uint64 (value, limit_bytes);
      break;
    }
    case GST_CUDA_CACHE_ELEMENT_PROP_STATS_INTERVAL:
      STATE_LOCK (state);
      g_value_set_uint (value, state->stats_interval_ms);
      STATE_UNLOCK (state);
      break;
    case GST_CUDA_CACHE_ELEMENT_PROP_ALLOC_METHOD:
    case GST_CUDA_CACHE_ELEMENT_PROP_MEMORY_POOL:{
      GstCudaCache *cache = NULL;
      gint written;

      /* the negotiated CUDA cache's; the value written before */
      STATE_LOCK (state);
      if (state->cache && state->cuda_memory)
        cache = gst_object_ref (state->cache);
      written = prop == GST_CUDA_CACHE_ELEMENT_PROP_ALLOC_METHOD ?
          (gint) state->alloc_method : (gint) state->memory_pool;
      STATE_UNLOCK (state);
      if (cache && prop == GST_CUDA_CACHE_ELEMENT_PROP_ALLOC_METHOD)
        written = gst_cuda_cache_get_alloc_method (cache);
      else if (cache)
        written = gst_cuda_cache_get_memory_pool (cache, NULL);
      gst_clear_object (&cache);
      g_value_set_enum (value, written);
      break;
    }
    case GST_CUDA_CACHE_ELEMENT_PROP_CACHE:
      STATE_LOCK (state);
      g_value_set_object (value, state->cache);
      STATE_UNLOCK (state);
      break;
    case GST_CUDA_CACHE_ELEMENT_PROP_CURRENT_SIZE:
      g_value_set_uint64 (value,
          gst_cuda_cache_element_state_stats (state).current_size);
      break;
    default:
      g_assert_not_reached ();
      break;
  }
}

gint
gst_cuda_cache_element_state_get_device_id (GstCudaCacheElementState * state)
{
  gint device_id;

  STATE_LOCK (state);
  device_id = state->device_id;
  STATE_UNLOCK (state);

  return device_id;
}

/* The element's CUDA context (transfer full), or NULL. set_context () may
 * set it from any thread, release () clears it from the state change's. */
GstCudaContext *
gst_cuda_cache_element_state_ref_context (GstCudaCacheElementState * state)
{
  GstCudaContext *context = NULL;

  STATE_LOCK (state);
  if (state->context)
    context = gst_object_ref (state->context);
  STATE_UNLOCK (state);

  return context;
}

/* Takes @context where the element has none yet (rule 3, the batch's first
 * frame); returns the element's context (transfer full), @context or the
 * one it had */
GstCudaContext *
gst_cuda_cache_element_state_take_context (GstCudaCacheElementState * state,
    GstCudaContext * context)
{
  GstCudaContext *ret;

  STATE_LOCK (state);
  if (!state->context)
    state->context = gst_object_ref (context);
  ret = gst_object_ref (state->context);
  STATE_UNLOCK (state);

  return ret;
}

/* Makes @context the element's (rule 3, the base transform following its
 * input's memory); returns the one it had (transfer full), or NULL */
GstCudaContext *
gst_cuda_cache_element_state_replace_context (GstCudaCacheElementState *
    state, GstCudaContext * context)
{
  GstCudaContext *old;

  STATE_LOCK (state);
  old = state->context;
  state->context = gst_object_ref (context);
  STATE_UNLOCK (state);

  return old;
}

/* GstElement::set_context: a context given is taken while the element has
 * none. The element chains up itself. */
void
gst_cuda_cache_element_state_set_context (GstCudaCacheElementState * state,
    GstContext * context)
{
  GstCudaContext *cuda = NULL;
  gint device_id = gst_cuda_cache_element_state_get_device_id (state);

  /* a CUDA context can only come from an element that already loaded the
   * driver, so this never touches gst-cuda on a machine without one. Not
   * under the object lock (gst-cuda logs with the element's path): the
   * context found is kept under it, unless the element has one by then */
  if (gst_cuda_cache_device_get_count () > 0 &&
      gst_cuda_handle_set_context (state->element, context, device_id, &cuda)
      && cuda) {
    STATE_LOCK (state);
    if (!state->context)
      state->context = g_steal_pointer (&cuda);
    STATE_UNLOCK (state);
  }
  gst_clear_object (&cuda);
}

static gboolean
gst_cuda_cache_element_state_has_context (GstCudaCacheElementState * state)
{
  gboolean found;

  STATE_LOCK (state);
  found = state->context != NULL;
  STATE_UNLOCK (state);

  return found;
}

/* Asks the peers of the element's pads for a CUDA context, source pads
 * first, until one answers; set_context () takes it */
static void
gst_cuda_cache_element_state_query_pads (GstCudaCacheElementState * state)
{
  GstElement *element = state->element;
  GList *pads = NULL, *l;

  GST_OBJECT_LOCK (element);
  for (l = element->srcpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  for (l = element->sinkpads; l; l = l->next)
    pads = g_list_prepend (pads, gst_object_ref (l->data));
  GST_OBJECT_UNLOCK (element);
  pads = g_list_reverse (pads);

  for (l = pads; l && !gst_cuda_cache_element_state_has_context (state);
      l = l->next) {
    GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
    GstContext *context = NULL;

    if (gst_pad_peer_query (l->data, query)) {
      gst_query_parse_context (query, &context);
      if (context) {
        GST_DEBUG_OBJECT (element, "context from %" GST_PTR_FORMAT, l->data);
        gst_element_set_context (element, context);
      }
    }
    gst_query_unref (query);
  }
  g_list_free_full (pads, gst_object_unref);
}

/* Rule 2: the element's context, searched for where it has none: TRUE
 * once it has one. Like gst_cuda_ensure_element_context (), but where
 * neither the pipeline nor the application has a context, takes the
 * device's shared default one instead of making a new one, and shares it
 * as a non-persistent context: elements and bins drop it in NULL, so it
 * lives only as long as someone uses it. */
gboolean
gst_cuda_cache_element_state_ensure_context (GstCudaCacheElementState * state)
{
  static GRecMutex lock;
  GstElement *element = state->element;
  GstCudaContext *context;
  GstContext *gst_context;
  gint device_id;
  gboolean found;

  /* one search at a time in the process, as gst-cuda does */
  g_rec_mutex_lock (&lock);
  STATE_LOCK (state);
  if (state->context || state->finding_context) {
    found = state->context != NULL;
    STATE_UNLOCK (state);
    g_rec_mutex_unlock (&lock);
    return found;
  }
  state->finding_context = TRUE;
  device_id = state->device_id;
  STATE_UNLOCK (state);

  /* the neighbours, then the application and the bins */
  gst_cuda_cache_element_state_query_pads (state);
  if (!gst_cuda_cache_element_state_has_context (state)) {
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (element),
            GST_CUDA_CONTEXT_TYPE));
  }

  if (!gst_cuda_cache_element_state_has_context (state)) {
    context = gst_cuda_cache_device_get_default_context (MAX (device_id, 0));
    if (context) {
      GST_INFO_OBJECT (element, "shared default context %" GST_PTR_FORMAT,
          context);
      gst_context = gst_context_new (GST_CUDA_CONTEXT_TYPE, FALSE);
      gst_structure_set (gst_context_writable_structure (gst_context),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, context,
          "cuda-device-id", G_TYPE_UINT, (guint) MAX (device_id, 0), NULL);
      STATE_LOCK (state);
      /* one set_context () gave meanwhile, from another thread, wins */
      if (!state->context)
        state->context = g_steal_pointer (&context);
      STATE_UNLOCK (state);
      if (!context) {
        gst_element_post_message (element,
            gst_message_new_have_context (GST_OBJECT (element), gst_context));
      } else {
        gst_context_unref (gst_context);
        gst_object_unref (context);
      }
    }
  }

  STATE_LOCK (state);
  state->finding_context = FALSE;
  found = state->context != NULL;
  STATE_UNLOCK (state);
  g_rec_mutex_unlock (&lock);

  return found;
}

/* A neighbour's CONTEXT query (an nvcodec element asking before this one
 * started): answered with the element's context, searched for where it
 * has none (rule 2), so that the pipeline agrees on one. FALSE where it is
 * not answered: the element passes it on as its base class does. */
gboolean
gst_cuda_cache_element_state_answer_context (GstCudaCacheElementState *
    state, GstQuery * query)
{
  const gchar *context_type = NULL;
  GstCudaContext *context = NULL;
  gboolean answered;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  gst_query_parse_context_type (query, &context_type);
  if (g_strcmp0 (context_type, GST_CUDA_CONTEXT_TYPE) == 0 &&
      gst_cuda_cache_device_get_count () > 0 &&
      gst_cuda_cache_element_state_ensure_context (state))
    context = gst_cuda_cache_element_state_ref_context (state);
  answered = context && gst_cuda_handle_context_query (state->element, query,
      context);
  gst_clear_object (&context);

  return answered;
}

/* stats-interval: posts the cudacache-stats message of the element's
 * cache once the interval has passed since the first buffer or the last
 * message (@now: at once, as at the end of the stream); nothing where the
 * interval is 0 */
void
gst_cuda_cache_element_state_tick_stats (GstCudaCacheElementState * state,
    gboolean now)
{
  GstClockTime interval, t;
  gboolean post = FALSE, cuda_memory;
  GstCudaCache *cache;

  STATE_LOCK (state);
  interval = state->stats_interval_ms * GST_MSECOND;
  cuda_memory = state->cuda_memory;
  if (interval > 0) {
    t = gst_util_get_timestamp ();
    if (now || (GST_CLOCK_TIME_IS_VALID (state->last_stats) &&
            t - state->last_stats >= interval)) {
      state->last_stats = t;
      post = TRUE;
    } else if (!GST_CLOCK_TIME_IS_VALID (state->last_stats)) {
      state->last_stats = t;
    }
  }
  STATE_UNLOCK (state);
  if (!post)
    return;

  cache = gst_cuda_cache_element_state_ref_cache (state);
  gst_cuda_cache_post_stats (state->element, cache, cuda_memory);
  gst_object_unref (cache);
}
