/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* GstCudaCacheBaseTransform: what cudacacheidentity and cudacacheconvert
 * share: the CUDA context, the pools they keep across renegotiations, the
 * cache properties and the stats message.
 *
 * Contexts: the pipeline's (an nvcodec element's, through GstContext) or
 * the application's (a GstContext set on the pipeline or given on
 * NEED_CONTEXT) when there is one; otherwise the device's primary context,
 * shared by every element of this plugin in the process and by the CUDA
 * runtime's users (gst_cuda_cache_device_get_default_context()), so that
 * pipelines share cached blocks and a model's context. It is posted as a non-persistent HAVE_CONTEXT: nvcodec
 * elements of the pipeline take it too, and everyone drops it in NULL, so
 * it goes away with its last user.
 *
 * Pools: the base class answers upstream's allocation query with a pool
 * over the cache and decides its output's pool; which pool, and when to
 * make another, is gstcudacachekeptpools.c's. Subclasses implement
 * set_info (gstcudacachebasetransform.h) and override none of this.
 *
 * Its length is its properties': the cache's limit, size and figures, the
 * device and the stats interval, each with its locking, and the context
 * search, which gst_cuda_ensure_element_context () cannot do here (it makes
 * a new context per element where none is found; this takes the device's
 * shared one, so that pipelines share blocks). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/video/video.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudamemory.h>

#include "gstcudacachebasetransform.h"
#include "gstcudacacheelementprops.h"
#include "gstcudacachekeptpools.h"
/* header-only, not installed: the version differences of gst-cuda */
#include "gstcudacachecompat.h"

/* shared with gstcudacachekeptpools.c */
GST_DEBUG_CATEGORY (gst_cuda_cache_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_base_transform_debug

enum
{
  PROP_0,
  PROP_DEVICE_ID,
  PROP_CACHE_LIMIT,
  PROP_CURRENT_SIZE,
  PROP_STATS_INTERVAL,
  PROP_CACHE,
};

#define DEFAULT_DEVICE_ID -1
#define DEFAULT_STATS_INTERVAL 0

struct _GstCudaCacheBaseTransformPrivate
{
  /* the pools proposed and taken, across renegotiations; locks itself */
  GstCudaCacheKeptPools *kept;

  /* under the object lock: looking for a context now (a neighbour's
   * context query must not start a second search) */
  gboolean finding_context;

  /* under the object lock, from start to stop: the element's stream, that
   * it writes its output on; 1.24+: the CUDA memory of the pools it
   * configures for that output is allocated on it, so that writers leave it
   * to be waited for by readers of other streams */
  GstCudaCacheElementStream *stream;

  /* streaming thread only: in passthrough with tensor caps, the bytes a
   * buffer must hold (0 otherwise), and whether a shorter one was reported
   * for these caps */
  gsize tensor_bytes;
  gboolean short_reported;
  /* under the object lock: the caps last refused with an error (no output
   * pool for them, or downstream's tensor caps the element cannot make),
   * one error for them rather than one per negotiation attempt */
  GstCaps *refused_caps;
};

#define gst_cuda_cache_base_transform_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaCacheBaseTransform,
    gst_cuda_cache_base_transform, GST_TYPE_BASE_TRANSFORM);

static void gst_cuda_cache_base_transform_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_cache_base_transform_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_cuda_cache_base_transform_dispose (GObject * object);
static void gst_cuda_cache_base_transform_finalize (GObject * object);
static void gst_cuda_cache_base_transform_set_context (GstElement * element,
    GstContext * context);
static GstStateChangeReturn
gst_cuda_cache_base_transform_change_state (GstElement * element,
    GstStateChange transition);
static gboolean gst_cuda_cache_base_transform_start (GstBaseTransform * trans);
static gboolean gst_cuda_cache_base_transform_stop (GstBaseTransform * trans);
static gboolean gst_cuda_cache_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static gboolean gst_cuda_cache_base_transform_set_caps (GstBaseTransform *
    trans, GstCaps * incaps, GstCaps * outcaps);
static void gst_cuda_cache_base_transform_before_transform (GstBaseTransform *
    trans, GstBuffer * buffer);
static gboolean gst_cuda_cache_base_transform_sink_event (GstBaseTransform *
    trans, GstEvent * event);
static gboolean
gst_cuda_cache_base_transform_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query);
static gboolean
gst_cuda_cache_base_transform_decide_allocation (GstBaseTransform * trans,
    GstQuery * query);
static GstCudaCache *gst_cuda_cache_base_transform_get_cache
    (GstCudaCacheBaseTransform * self);
static void gst_cuda_cache_base_transform_post_stats (GstCudaCacheBaseTransform
    * self);

static void
gst_cuda_cache_base_transform_class_init (GstCudaCacheBaseTransformClass *
    klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_cuda_cache_base_transform_set_property;
  gobject_class->get_property = gst_cuda_cache_base_transform_get_property;
  gobject_class->dispose = gst_cuda_cache_base_transform_dispose;
  gobject_class->finalize = gst_cuda_cache_base_transform_finalize;

  /* the name nvcodec's elements use */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      gst_cuda_cache_param_spec_device_id ());
  g_object_class_install_property (gobject_class, PROP_CACHE_LIMIT,
      gst_cuda_cache_param_spec_cache_limit ());
  g_object_class_install_property (gobject_class, PROP_CACHE,
      g_param_spec_object ("cache", "Cache",
          "The cache this element's memory comes from, for clearing it and "
          "reading its statistics (per thread too); NULL until caps are "
          "negotiated", GST_TYPE_CUDA_CACHE, ro));
  g_object_class_install_property (gobject_class, PROP_CURRENT_SIZE,
      g_param_spec_uint64 ("current-size", "Current size",
          "Bytes the cache this element's memory comes from owns, in use "
          "and idle (the cache property's; before negotiation, that of the "
          "cache the element would use); its other statistics are in the "
          "cudacache-stats message (stats-interval) and the cache's "
          "gst_cuda_cache_get_stats ()", 0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      gst_cuda_cache_param_spec_stats_interval ());

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_base_transform_set_context);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_base_transform_change_state);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_cache_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_cache_base_transform_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_cache_base_transform_query);
  trans_class->set_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_base_transform_set_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_base_transform_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_base_transform_decide_allocation);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_base_transform_before_transform);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_base_transform_sink_event);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CACHE_BASE_TRANSFORM, 0);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_base_transform_debug,
      "cudacachebasetransform", 0, "CUDA cache: element base class");
}

static void
gst_cuda_cache_base_transform_init (GstCudaCacheBaseTransform * self)
{
  self->priv = gst_cuda_cache_base_transform_get_instance_private (self);
  self->device_id = DEFAULT_DEVICE_ID;
  self->stats_interval_ms = DEFAULT_STATS_INTERVAL;
  self->last_stats = GST_CLOCK_TIME_NONE;
  self->priv->kept = gst_cuda_cache_kept_pools_new (GST_OBJECT (self));
}

static GstCudaCacheStats
gst_cuda_cache_base_transform_stats (GstCudaCacheBaseTransform * self)
{
  GstCudaCache *cache = gst_cuda_cache_base_transform_get_cache (self);
  GstCudaCacheStats stats;

  gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &stats);
  gst_object_unref (cache);

  return stats;
}

static void
gst_cuda_cache_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (object);

  switch (prop_id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      self->device_id = g_value_get_int (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_CACHE_LIMIT:{
      guint64 limit_bytes = g_value_get_uint64 (value);
      gint64 asked_at = g_get_monotonic_time ();
      GstCudaCache *cache;

      /* remembered for the cache negotiation picks; applied now only to
       * the cache in use, never to one the element may not use */
      GST_OBJECT_LOCK (self);
      self->limit_bytes = limit_bytes;
      self->limit_asked_at = asked_at;
      cache = self->cache ? gst_object_ref (self->cache) : NULL;
      gst_object_replace ((GstObject **) & self->limit_cache,
          (GstObject *) cache);
      GST_OBJECT_UNLOCK (self);

      if (cache) {
        gst_cuda_cache_set_limit_if_newer (cache, limit_bytes, asked_at);
        gst_object_unref (cache);
      } else {
        GST_DEBUG_OBJECT (self, "cache-limit %" G_GUINT64_FORMAT " waits "
            "for negotiation to know its cache", limit_bytes);
      }
      break;
    }
    case PROP_STATS_INTERVAL:
      GST_OBJECT_LOCK (self);
      self->stats_interval_ms = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_cache_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (object);

  switch (prop_id) {
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (self);
      g_value_set_int (value, self->device_id);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_CACHE_LIMIT:{
      gboolean negotiated;
      guint64 limit_bytes;

      GST_OBJECT_LOCK (self);
      negotiated = self->cache != NULL;
      /* before negotiation: the value written, or 0 (nothing written: the
       * cache's default applies), never the machine-specific default of a
       * cache the element may not use, which gst-inspect would show as the
       * property's default */
      limit_bytes = self->limit_asked_at != 0 ? self->limit_bytes : 0;
      GST_OBJECT_UNLOCK (self);

      if (negotiated)
        limit_bytes = gst_cuda_cache_base_transform_stats (self).cache_limit;
      g_value_set_uint64 (value, limit_bytes);
      break;
    }
    case PROP_CACHE:
      GST_OBJECT_LOCK (self);
      g_value_set_object (value, self->cache);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_CURRENT_SIZE:
      g_value_set_uint64 (value,
          gst_cuda_cache_base_transform_stats (self).current_size);
      break;
    case PROP_STATS_INTERVAL:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->stats_interval_ms);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_cache_base_transform_set_context (GstElement * element,
    GstContext * context)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (element);
  GstCudaContext *cuda = NULL;
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);

  /* a CUDA context can only come from an element that already loaded the
   * driver, so this never touches gst-cuda on a machine without one. Not
   * under the object lock (gst-cuda logs with the element's path): the
   * context found is kept under it, unless the element has one by then */
  if (gst_cuda_cache_device_get_count () > 0 &&
      gst_cuda_handle_set_context (element, context, device_id, &cuda) &&
      cuda) {
    GST_OBJECT_LOCK (self);
    if (!self->context)
      self->context = g_steal_pointer (&cuda);
    GST_OBJECT_UNLOCK (self);
  }
  gst_clear_object (&cuda);

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* The element's CUDA context (transfer full), or NULL. self->context is
 * written and read under the object lock only: set_context () may set it
 * from any thread, stop () clears it from the state change's. */
static GstCudaContext *
gst_cuda_cache_base_transform_ref_context (GstCudaCacheBaseTransform * self)
{
  GstCudaContext *context = NULL;

  GST_OBJECT_LOCK (self);
  if (self->context)
    context = gst_object_ref (self->context);
  GST_OBJECT_UNLOCK (self);

  return context;
}

static gboolean
gst_cuda_cache_base_transform_has_context (GstCudaCacheBaseTransform * self)
{
  gboolean found;

  GST_OBJECT_LOCK (self);
  found = self->context != NULL;
  GST_OBJECT_UNLOCK (self);

  return found;
}

/* Asks @pad's peer for a CUDA context; set_context() takes it. */
static void
gst_cuda_cache_base_transform_query_context (GstCudaCacheBaseTransform * self,
    GstPad * pad)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstContext *context = NULL;

  if (gst_pad_peer_query (pad, query)) {
    gst_query_parse_context (query, &context);
    if (context) {
      GST_DEBUG_OBJECT (self, "context from %" GST_PTR_FORMAT, pad);
      gst_element_set_context (GST_ELEMENT (self), context);
    }
  }
  gst_query_unref (query);
}

/* Like gst_cuda_ensure_element_context(), but where neither the pipeline
 * nor the application has a context, takes the device's shared default
 * one instead of making a new one, and shares it as a non-persistent
 * context: elements and bins drop it in NULL, so it lives only as long as
 * someone uses it. */
static gboolean
gst_cuda_cache_base_transform_ensure_context (GstCudaCacheBaseTransform * self)
{
  static GRecMutex lock;
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCudaContext *context;
  GstContext *gst_context;
  gint device_id;
  gboolean found;

  /* one search at a time in the process, as gst-cuda does */
  g_rec_mutex_lock (&lock);
  GST_OBJECT_LOCK (self);
  if (self->context || self->priv->finding_context) {
    found = self->context != NULL;
    GST_OBJECT_UNLOCK (self);
    g_rec_mutex_unlock (&lock);
    return found;
  }
  self->priv->finding_context = TRUE;
  device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);

  /* downstream, upstream, then the application and the bins */
  gst_cuda_cache_base_transform_query_context (self, trans->srcpad);
  if (!gst_cuda_cache_base_transform_has_context (self))
    gst_cuda_cache_base_transform_query_context (self, trans->sinkpad);
  if (!gst_cuda_cache_base_transform_has_context (self)) {
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_need_context (GST_OBJECT (self),
            GST_CUDA_CONTEXT_TYPE));
  }

  if (!gst_cuda_cache_base_transform_has_context (self)) {
    context = gst_cuda_cache_device_get_default_context (MAX (device_id, 0));
    if (context) {
      GST_INFO_OBJECT (self, "shared default context %" GST_PTR_FORMAT,
          context);
      gst_context = gst_context_new (GST_CUDA_CONTEXT_TYPE, FALSE);
      gst_structure_set (gst_context_writable_structure (gst_context),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, context,
          "cuda-device-id", G_TYPE_UINT, (guint) MAX (device_id, 0), NULL);
      GST_OBJECT_LOCK (self);
      /* one set_context () gave meanwhile, from another thread, wins */
      if (!self->context)
        self->context = g_steal_pointer (&context);
      GST_OBJECT_UNLOCK (self);
      if (!context) {
        gst_element_post_message (GST_ELEMENT (self),
            gst_message_new_have_context (GST_OBJECT (self), gst_context));
      } else {
        gst_context_unref (gst_context);
        gst_object_unref (context);
      }
    }
  }

  GST_OBJECT_LOCK (self);
  self->priv->finding_context = FALSE;
  found = self->context != NULL;
  GST_OBJECT_UNLOCK (self);
  g_rec_mutex_unlock (&lock);

  return found;
}

static gboolean
gst_cuda_cache_base_transform_start (GstBaseTransform * trans)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (trans);
  guint n_devices = gst_cuda_cache_device_get_count ();
  GstCudaCacheElementStream *stream = NULL;
  GstCudaContext *context;
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->device_id;
  self->last_stats = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);

  if (n_devices == 0) {
    if (device_id >= 0) {
      GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
          ("No CUDA device: cuda-device-id=%d is ignored, only system memory "
              "can be used", device_id), (NULL));
    }
    GST_INFO_OBJECT (self, "no CUDA device: system memory only");
    return TRUE;
  }

  if (device_id >= (gint) n_devices) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("CUDA device %d does not exist", device_id),
        ("cuda-device-id=%d, but this machine has %u CUDA device(s)", device_id,
            n_devices));
    return FALSE;
  }

  if (!gst_cuda_cache_base_transform_ensure_context (self)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not create a CUDA context on device %d", MAX (device_id, 0)),
        (NULL));
    return FALSE;
  }

  context = gst_cuda_cache_base_transform_ref_context (self);
  if (context)
    stream = gst_cuda_cache_element_stream_new (context);
  gst_clear_object (&context);
  GST_OBJECT_LOCK (self);
  gst_cuda_cache_element_stream_clear (&self->priv->stream);
  self->priv->stream = stream;
  GST_OBJECT_UNLOCK (self);

  return TRUE;
}

/* Lets go of the context, the caches and the pools, so that a finished
 * pipeline keeps no context alive. */
static void
gst_cuda_cache_base_transform_release (GstCudaCacheBaseTransform * self)
{
  GstCudaCacheBaseTransformPrivate *priv = self->priv;
  GstCudaCacheElementStream *stream;
  GstCudaContext *context;

  gst_cuda_cache_kept_pools_clear (priv->kept);

  GST_OBJECT_LOCK (self);
  gst_clear_caps (&priv->refused_caps);
  gst_clear_object (&self->cache);
  self->cuda_memory = FALSE;
  context = self->context;
  self->context = NULL;
  stream = priv->stream;
  priv->stream = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_cache_element_stream_clear (&stream);
  gst_clear_object (&context);
}

static gboolean
gst_cuda_cache_base_transform_stop (GstBaseTransform * trans)
{
  gst_cuda_cache_base_transform_release (GST_CUDA_CACHE_BASE_TRANSFORM (trans));

  return TRUE;
}

static GstStateChangeReturn
gst_cuda_cache_base_transform_change_state (GstElement * element,
    GstStateChange transition)
{
  GstStateChangeReturn ret;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  /* a neighbour's context query may have given the element a context
   * although it never started */
  if (transition == GST_STATE_CHANGE_READY_TO_NULL)
    gst_cuda_cache_base_transform_release (GST_CUDA_CACHE_BASE_TRANSFORM
        (element));

  return ret;
}

static gboolean
gst_cuda_cache_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (trans);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    const gchar *context_type = NULL;
    GstCudaContext *context = NULL;
    gboolean answered;

    gst_query_parse_context_type (query, &context_type);
    /* an nvcodec neighbour asking before this element started: answer
     * with what this element would use, so the pipeline agrees on one */
    if (g_strcmp0 (context_type, GST_CUDA_CONTEXT_TYPE) == 0 &&
        gst_cuda_cache_device_get_count () > 0 &&
        gst_cuda_cache_base_transform_ensure_context (self))
      context = gst_cuda_cache_base_transform_ref_context (self);
    answered = context && gst_cuda_handle_context_query (GST_ELEMENT (self),
        query, context);
    gst_clear_object (&context);
    if (answered)
      return TRUE;
  }

  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* The cache of @context's device, or the system cache where NULL */
static GstCudaCache *
gst_cuda_cache_base_transform_select_cache (GstCudaContext * context)
{
  if (context)
    return gst_cuda_cache_device_get_cache (context);

  return gst_cuda_cache_get_system ();
}

/* Picks the cache the output memory comes from and offers it the
 * element's cache-limit, once per cache (a limit set later on the cache,
 * by anyone, wins), then lets the subclass set up its conversion
 * (set_info). */
static gboolean
gst_cuda_cache_base_transform_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (trans);
  GstCudaCacheBaseTransformClass *klass =
      GST_CUDA_CACHE_BASE_TRANSFORM_GET_CLASS (self);
  gboolean cuda_memory = gst_cuda_cache_caps_are_cuda (outcaps);
  GstCudaCacheTensorInfo tensor;
  GstCudaContext *context = NULL;
  GstCudaCache *cache, *old;
  guint64 limit_bytes;
  gint64 asked_at;
  gboolean offer_limit, ret = TRUE;

  if (cuda_memory) {
    context = gst_cuda_cache_base_transform_ref_context (self);
    if (!context) {
      GST_ERROR_OBJECT (self, "CUDA memory caps without a CUDA context");
      return FALSE;
    }
  }

  cache = gst_cuda_cache_base_transform_select_cache (context);
  GST_OBJECT_LOCK (self);
  old = self->cache;
  self->cache = gst_object_ref (cache);
  self->cuda_memory = cuda_memory;
  limit_bytes = self->limit_bytes;
  asked_at = self->limit_asked_at;
  offer_limit = asked_at != 0 && self->limit_cache != cache;
  if (offer_limit)
    gst_object_replace ((GstObject **) & self->limit_cache,
        (GstObject *) cache);
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&old);

  if (offer_limit) {
    if (gst_cuda_cache_set_limit_if_newer (cache, limit_bytes, asked_at))
      GST_DEBUG_OBJECT (self, "cache-limit %" G_GUINT64_FORMAT " applied to "
          "%" GST_PTR_FORMAT, limit_bytes, cache);
    else
      GST_DEBUG_OBJECT (self, "cache-limit %" G_GUINT64_FORMAT " not applied:"
          " %" GST_PTR_FORMAT "'s limit was set later", limit_bytes, cache);
  }
  GST_DEBUG_OBJECT (self, "output in %s memory, cache %" GST_PTR_FORMAT,
      cuda_memory ? "CUDA" : "system", cache);
  gst_object_unref (cache);

  self->priv->tensor_bytes = gst_base_transform_is_passthrough (trans) &&
      gst_cuda_cache_tensor_info_from_caps (&tensor, incaps) ? tensor.size : 0;
  self->priv->short_reported = FALSE;

  if (klass->set_info && !gst_base_transform_is_passthrough (trans))
    ret = klass->set_info (self, incaps, outcaps, context);
  gst_clear_object (&context);

  return ret;
}

/* With cuda-device-id -1, or the device of the CUDA memory that arrives,
 * the element takes that memory's context, as gst-cuda's base transform
 * does: an upload or a decoder on another device than the context the
 * element found at start. The stream and the kept pools are the new
 * context's, the subclass sets its conversion up again there (set_caps),
 * and the output pool is negotiated anew before the buffer is
 * transformed. Other memory is left to the subclass to refuse. */
static void
gst_cuda_cache_base_transform_follow_context (GstCudaCacheBaseTransform *
    self, GstBuffer * buffer)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCudaCacheBaseTransformPrivate *priv = self->priv;
  GstMemory *mem = gst_buffer_n_memory (buffer) > 0 ?
      gst_buffer_peek_memory (buffer, 0) : NULL;
  GstCudaContext *context, *old;
  GstCudaCacheElementStream *stream, *old_stream;
  GstCaps *incaps = NULL, *outcaps = NULL;
  gboolean same;
  gint device_id, mem_device_id = -1;

  if (!mem || !gst_is_cuda_memory (mem))
    return;
  context = GST_CUDA_MEMORY_CAST (mem)->context;
  GST_OBJECT_LOCK (self);
  device_id = self->device_id;
  same = self->context == context;
  GST_OBJECT_UNLOCK (self);
  if (same)
    return;
  if (device_id >= 0) {
    g_object_get (context, "cuda-device-id", &mem_device_id, NULL);
    if (mem_device_id != device_id)
      return;
  }
  incaps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
  outcaps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SRC_PAD (trans));
  if (!incaps || !outcaps)
    goto done;

  stream = gst_cuda_cache_element_stream_new (context);
  GST_OBJECT_LOCK (self);
  old = self->context;
  self->context = gst_object_ref (context);
  old_stream = priv->stream;
  priv->stream = stream;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "following the input's memory to %" GST_PTR_FORMAT
      " from %" GST_PTR_FORMAT, context, old);
  /* the kept pools hand out the old context's memory */
  gst_cuda_cache_kept_pools_clear (priv->kept);
  gst_cuda_cache_element_stream_clear (&old_stream);
  gst_clear_object (&old);

  if (gst_cuda_cache_base_transform_set_caps (trans, incaps, outcaps))
    gst_base_transform_reconfigure_src (trans);

done:
  gst_clear_caps (&incaps);
  gst_clear_caps (&outcaps);
}

static void
gst_cuda_cache_base_transform_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (trans);
  GstClockTime now, interval;
  gboolean post = FALSE;

  gst_cuda_cache_base_transform_follow_context (self, buffer);

  GST_OBJECT_LOCK (self);
  interval = self->stats_interval_ms * GST_MSECOND;
  if (interval > 0) {
    now = gst_util_get_timestamp ();
    if (!GST_CLOCK_TIME_IS_VALID (self->last_stats))
      self->last_stats = now;
    else if (now - self->last_stats >= interval) {
      self->last_stats = now;
      post = TRUE;
    }
  }
  GST_OBJECT_UNLOCK (self);

  if (post)
    gst_cuda_cache_base_transform_post_stats (self);

  /* passed on as it is, but not silently: a reader of the tensor would
   * read past the buffer */
  if (self->priv->tensor_bytes > 0 && !self->priv->short_reported &&
      gst_buffer_get_size (buffer) < self->priv->tensor_bytes) {
    self->priv->short_reported = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("A buffer of %" G_GSIZE_FORMAT " bytes for tensor caps of %"
            G_GSIZE_FORMAT " bytes: passed on as it is (reported once per "
            "caps)", gst_buffer_get_size (buffer), self->priv->tensor_bytes),
        ("buffer %" GST_PTR_FORMAT, buffer));
  }
}

static gboolean
gst_cuda_cache_base_transform_sink_event (GstBaseTransform * trans,
    GstEvent * event)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    gboolean post;

    GST_OBJECT_LOCK (self);
    post = self->stats_interval_ms > 0;
    GST_OBJECT_UNLOCK (self);
    /* before the EOS goes on, so applications see it before EOS */
    if (post)
      gst_cuda_cache_base_transform_post_stats (self);
  }

  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static void
gst_cuda_cache_base_transform_dispose (GObject * object)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (object);

  gst_cuda_cache_base_transform_release (self);
  gst_clear_object (&self->limit_cache);

  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_cuda_cache_base_transform_finalize (GObject * object)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (object);

  gst_cuda_cache_kept_pools_free (self->priv->kept);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}


/* Returns: (transfer full): the cache of the negotiated memory; before
 * negotiation, the device's where the element has a context */
static GstCudaCache *
gst_cuda_cache_base_transform_get_cache (GstCudaCacheBaseTransform * self)
{
  GstCudaCache *cache = NULL;

  GST_OBJECT_LOCK (self);
  if (self->cache)
    cache = gst_object_ref (self->cache);
  GST_OBJECT_UNLOCK (self);

  if (!cache) {
    GstCudaContext *context = gst_cuda_cache_base_transform_ref_context (self);

    cache = gst_cuda_cache_base_transform_select_cache (context);
    gst_clear_object (&context);
  }

  return cache;
}

/* For subclasses too: remembers @caps as the last refused ones; TRUE where
 * they are not those already, so that the refusal is posted once rather
 * than at every negotiation attempt. NULL forgets them (caps accepted). */
gboolean
gst_cuda_cache_base_transform_refuse_caps (GstCudaCacheBaseTransform * self,
    GstCaps * caps)
{
  gboolean again;

  GST_OBJECT_LOCK (self);
  again = caps && self->priv->refused_caps &&
      gst_caps_is_equal (caps, self->priv->refused_caps);
  gst_caps_replace (&self->priv->refused_caps, caps);
  GST_OBJECT_UNLOCK (self);

  return caps && !again;
}

/* For subclasses: the CUDA stream the element writes its output on, from
 * start to stop; NULL where it has none (no device, or the driver refused
 * one) */
CUstream
gst_cuda_cache_base_transform_get_stream (GstCudaCacheBaseTransform * self)
{
  CUstream stream;

  GST_OBJECT_LOCK (self);
  stream = gst_cuda_cache_element_stream_handle (self->priv->stream);
  GST_OBJECT_UNLOCK (self);

  return stream;
}

/* Whether @pool hands out memory from the cache this element would use. */
static gboolean
gst_cuda_cache_base_transform_is_own_pool (GstCudaCacheBaseTransform * self,
    GstBufferPool * pool, gboolean cuda_memory)
{
  if (!pool)
    return FALSE;

  if (cuda_memory) {
    gboolean own;

    /* the context is compared, never used: no reference needed */
    GST_OBJECT_LOCK (self);
    own = GST_IS_CUDA_CACHE_POOL (pool) && self->context &&
        GST_CUDA_BUFFER_POOL (pool)->context == self->context;
    GST_OBJECT_UNLOCK (self);
    return own;
  }

  return GST_IS_CUDA_CACHE_SYSTEM_POOL (pool);
}

/* @reason: where there is no pool, why (where given) */
static GstBufferPool *
gst_cuda_cache_base_transform_find_pool (GstCudaCacheBaseTransform * self,
    GstCudaCachePoolSide side, GstQuery * query, guint * size,
    guint * min_buffers, guint * max_buffers, gboolean * from_downstream,
    gchar ** reason)
{
  GstCudaContext *context = NULL;
  GstCudaCacheElementStream *stream;
  GstBufferPool *pool = NULL;
  GstCaps *caps;

  *size = *min_buffers = *max_buffers = 0;
  *from_downstream = FALSE;
  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps) {
    if (reason)
      *reason = g_strdup ("the allocation query carries no caps");
    return NULL;
  }

  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, size, min_buffers,
        max_buffers);
    if (gst_cuda_cache_base_transform_is_own_pool (self, pool,
            gst_cuda_cache_caps_are_cuda (caps))) {
      *from_downstream = TRUE;
      return pool;
    }
    gst_clear_object (&pool);
  }

  /* stop () may clear the context from another thread (a state change
   * while upstream queries): one reference throughout. The stream is only
   * used for the output, on the streaming thread, which stop () waits for */
  GST_OBJECT_LOCK (self);
  if (self->context)
    context = gst_object_ref (self->context);
  stream = self->priv->stream;
  GST_OBJECT_UNLOCK (self);
  pool = gst_cuda_cache_kept_pools_get (self->priv->kept, side, caps, context,
      stream, *min_buffers, *max_buffers, size, reason);
  gst_clear_object (&context);

  return pool;
}

/* For decide_allocation: the first pool of @query if it hands out memory
 * from this element's cache for @query's caps (@from_downstream set), else
 * one of the element's kept output pools, reconfigured for @query's caps
 * (a new one only when all of them still have buffers downstream). The
 * caller must not activate it: GstBaseTransform does. @size, @min_buffers,
 * @max_buffers: its parameters; @reason: where there is no pool, why.
 * Returns: (transfer full) (nullable): the pool, %NULL if there is none */
static GstBufferPool *
gst_cuda_cache_base_transform_query_pool (GstCudaCacheBaseTransform * self,
    GstQuery * query, guint * size, guint * min_buffers, guint * max_buffers,
    gboolean * from_downstream, gchar ** reason)
{
  return gst_cuda_cache_base_transform_find_pool (self,
      GST_CUDA_CACHE_POOL_OUTPUT, query, size, min_buffers, max_buffers,
      from_downstream, reason);
}

/* Posts the 'cudacache-stats' element message with the cache's figures. */
static void
gst_cuda_cache_base_transform_post_stats (GstCudaCacheBaseTransform * self)
{
  GstCudaCache *cache = gst_cuda_cache_base_transform_get_cache (self);
  gboolean cuda_memory;

  GST_OBJECT_LOCK (self);
  cuda_memory = self->cuda_memory;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_cache_post_stats (GST_ELEMENT (self), cache, cuda_memory);
  gst_object_unref (cache);
}

/* Puts @pool first in @query, keeping what downstream offered after it. */
static void
query_prepend_pool (GstQuery * query, GstBufferPool * pool, guint size,
    guint min_buffers, guint max_buffers)
{
  guint n = gst_query_get_n_allocation_pools (query);
  GstBufferPool **pools = g_newa (GstBufferPool *, n + 1);
  guint *params = g_newa (guint, 3 * (n + 1));
  guint i;

  for (i = 0; i < n; i++) {
    gst_query_parse_nth_allocation_pool (query, 0, &pools[i], &params[3 * i],
        &params[3 * i + 1], &params[3 * i + 2]);
    gst_query_remove_nth_allocation_pool (query, 0);
  }

  gst_query_add_allocation_pool (query, pool, size, min_buffers, max_buffers);
  for (i = 0; i < n; i++) {
    gst_query_add_allocation_pool (query, pools[i], params[3 * i],
        params[3 * i + 1], params[3 * i + 2]);
    gst_clear_object (&pools[i]);
  }
}

/* The fields every GstBufferPool config has */
static const gchar *const plain_config_fields[] = {
  "caps", "size", "min-buffers", "max-buffers", "allocator", "params",
  "options", NULL
};

/* Whether a pool of the cache would serve what downstream's @pool asks
 * of its buffers: its config names no allocator and nothing beyond
 * GstBufferPool's own fields (1.24's "cuda-stream" and
 * "cuda-alloc-method", 1.26's "cuda-stream-ordered-alloc", or any other
 * pool's), and its options are ones @own has; else a reason, in *@why */
static gboolean
gst_cuda_cache_base_transform_serves (GstBufferPool * own,
    GstBufferPool * pool, gchar ** why)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocator *allocator = NULL;
  guint i, n;

  *why = NULL;
  if (gst_buffer_pool_config_get_allocator (config, &allocator, NULL) &&
      allocator)
    *why = g_strdup_printf ("its allocator %s", allocator->mem_type);
  n = gst_structure_n_fields (config);
  for (i = 0; i < n && !*why; i++) {
    const gchar *field = gst_structure_nth_field_name (config, i);

    if (!g_strv_contains (plain_config_fields, field))
      *why = g_strdup_printf ("its config field %s", field);
  }
  n = gst_buffer_pool_config_n_options (config);
  for (i = 0; i < n && !*why; i++) {
    const gchar *option = gst_buffer_pool_config_get_option (config, i);

    if (!gst_buffer_pool_has_option (own, option))
      *why = g_strdup_printf ("its option %s", option);
  }
  gst_structure_free (config);

  return *why == NULL;
}

/* Offers upstream, first in @query, a pool over the cache for @query's
 * caps, unless downstream already offers one: the pool offered before,
 * reconfigured, when it has no buffers out. Upstream activates it. In
 * passthrough, a pool downstream offers asking for what the cache's pools
 * do not serve is left first, as downstream offered it. */
static gboolean
gst_cuda_cache_base_transform_propose_pool (GstCudaCacheBaseTransform * base,
    GstQuery * query)
{
  GstBufferPool *pool;
  guint size, min_buffers, max_buffers;
  gboolean from_downstream;

  pool =
      gst_cuda_cache_base_transform_find_pool (base,
      GST_CUDA_CACHE_POOL_PROPOSED, query, &size, &min_buffers, &max_buffers,
      &from_downstream, NULL);
  if (!pool) {
    GST_DEBUG_OBJECT (base, "no cache pool for %" GST_PTR_FORMAT, query);
    return gst_query_get_n_allocation_pools (query) > 0;
  }
  if (from_downstream) {
    GST_DEBUG_OBJECT (base, "downstream already offers %" GST_PTR_FORMAT, pool);
    gst_object_unref (pool);
    return TRUE;
  }
  if (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (base)) &&
      gst_query_get_n_allocation_pools (query) > 0) {
    GstBufferPool *theirs = NULL;
    gchar *why = NULL;

    gst_query_parse_nth_allocation_pool (query, 0, &theirs, NULL, NULL, NULL);
    if (theirs && !gst_cuda_cache_base_transform_serves (pool, theirs, &why)) {
      GST_DEBUG_OBJECT (base, "downstream's %" GST_PTR_FORMAT " asks for %s:"
          " left first", theirs, why);
      g_free (why);
      gst_object_unref (theirs);
      gst_object_unref (pool);
      return TRUE;
    }
    gst_clear_object (&theirs);
  }

  GST_DEBUG_OBJECT (base, "proposing %" GST_PTR_FORMAT, pool);
  query_prepend_pool (query, pool, size, min_buffers, max_buffers);
  gst_object_unref (pool);

  if (!gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (!gst_query_find_allocation_meta (query,
          GST_CUDA_CACHE_TENSOR_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_CUDA_CACHE_TENSOR_META_API_TYPE,
        NULL);

  return TRUE;
}

static gboolean
gst_cuda_cache_base_transform_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  /* downstream's answer first: its metas and buffer counts matter */
  GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
      decide_query, query);

  return gst_cuda_cache_base_transform_propose_pool
      (GST_CUDA_CACHE_BASE_TRANSFORM (trans), query);
}

/* Output buffers from the shared cache: downstream's pool when it is one
 * of ours for this memory, one of the element's kept pools otherwise. */
static gboolean
gst_cuda_cache_base_transform_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (trans);
  GstCaps *caps = NULL;
  GstBufferPool *pool;
  guint size, min_buffers, max_buffers;
  gboolean from_downstream;
  gchar *reason = NULL;

  pool = gst_cuda_cache_base_transform_query_pool (self, query, &size,
      &min_buffers, &max_buffers, &from_downstream, &reason);
  gst_query_parse_allocation (query, &caps, NULL);
  if (!pool) {
    if (gst_cuda_cache_base_transform_refuse_caps (self, caps))
      GST_ELEMENT_ERROR (trans, RESOURCE, SETTINGS,
          ("No output buffers: %s", reason), (NULL));
    else
      GST_DEBUG_OBJECT (self, "refused again: %s", reason);
    g_free (reason);
    return FALSE;
  }
  gst_cuda_cache_base_transform_refuse_caps (self, NULL);

  GST_DEBUG_OBJECT (trans, "output from %" GST_PTR_FORMAT, pool);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min_buffers,
        max_buffers);
  else
    gst_query_add_allocation_pool (query, pool, size, min_buffers, max_buffers);
  gst_object_unref (pool);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}
