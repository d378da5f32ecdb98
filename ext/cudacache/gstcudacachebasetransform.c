/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* GstCudaCacheBaseTransform: what cudacacheidentity and cudacacheconvert
 * share: the CUDA context, the pools they keep across renegotiations, the
 * cache properties and the stats message.
 *
 * Contexts: found at start as every element finds one
 * (gstcudacacheelementstate.c: the pipeline's, the application's, or the
 * device's primary context, shared by every element of this plugin in the
 * process and by the CUDA runtime's users, so that pipelines share cached
 * blocks and a model's context); then the context of the CUDA memory that
 * arrives, where cuda-device-id lets the element follow it.
 *
 * Pools: the base class answers upstream's allocation query with a pool
 * over the cache and decides its output's pool; which pool, and when to
 * make another, is gstcudacachekeptpools.c's. Subclasses implement
 * set_info (gstcudacachebasetransform.h) and override none of this.
 *
 * The properties, the cache and its limit, the stats and the context
 * search are GstCudaCacheElementState's (gstcudacacheelementstate.c),
 * which cudacachebatch shares. */

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
  PROP_FIRST_STATE,
  PROP_WARM_CAPS = PROP_FIRST_STATE + GST_CUDA_CACHE_ELEMENT_N_PROPS,
  PROP_WARM_BUFFERS,
};

#define DEFAULT_WARM_BUFFERS 4

struct _GstCudaCacheBaseTransformPrivate
{
  /* the pools proposed and taken, across renegotiations; locks itself */
  GstCudaCacheKeptPools *kept;

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
  /* under the object lock: warm-caps, warm-buffers, and whether this start
   * warmed the cache already; the context the element is a user of while
   * its warm blocks wait for the pools of the first buffers: without a
   * user, a context's idle blocks go at once (docs/design.md, "Groups") */
  GstCaps *warm_caps;
  guint warm_buffers;
  gboolean warmed;
  GstCudaContext *warm_user;
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

static void
gst_cuda_cache_base_transform_class_init (GstCudaCacheBaseTransformClass *
    klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cuda_cache_base_transform_set_property;
  gobject_class->get_property = gst_cuda_cache_base_transform_get_property;
  gobject_class->dispose = gst_cuda_cache_base_transform_dispose;
  gobject_class->finalize = gst_cuda_cache_base_transform_finalize;

  gst_cuda_cache_element_state_install (gobject_class, PROP_FIRST_STATE,
      GST_CUDA_CACHE_ELEMENT_N_PROPS);
  g_object_class_install_property (gobject_class, PROP_WARM_CAPS,
      g_param_spec_boxed ("warm-caps", "Warm caps",
          "Layouts of CUDA memory to make warm-buffers blocks of in the "
          "device's cache at the first negotiation, one per structure (an "
          "adaptive stream's ladder, say "
          "\"video/x-raw,format=NV12,width=1920,height=1080; "
          "video/x-raw,format=NV12,width=1280,height=720\"; the "
          "memory:CUDAMemory feature is implied): the first switch to "
          "each is a hit of the pools proposed upstream. They are idle "
          "blocks of the cache: its limit and statistics count them",
          GST_TYPE_CAPS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_WARM_BUFFERS,
      g_param_spec_uint ("warm-buffers", "Warm buffers",
          "Blocks made of each layout of warm-caps", 1, 64,
          DEFAULT_WARM_BUFFERS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

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
  gst_cuda_cache_element_state_init (&self->state, GST_ELEMENT (self));
  self->priv->kept = gst_cuda_cache_kept_pools_new (GST_OBJECT (self));
  self->priv->warm_buffers = DEFAULT_WARM_BUFFERS;
}

static void
gst_cuda_cache_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (object);

  if (prop_id >= PROP_FIRST_STATE &&
      prop_id < PROP_FIRST_STATE + GST_CUDA_CACHE_ELEMENT_N_PROPS) {
    gst_cuda_cache_element_state_set_property (&self->state,
        prop_id - PROP_FIRST_STATE, value);
  } else if (prop_id == PROP_WARM_CAPS) {
    GST_OBJECT_LOCK (self);
    gst_caps_replace (&self->priv->warm_caps,
        (GstCaps *) gst_value_get_caps (value));
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_WARM_BUFFERS) {
    GST_OBJECT_LOCK (self);
    self->priv->warm_buffers = g_value_get_uint (value);
    GST_OBJECT_UNLOCK (self);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cuda_cache_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (object);

  if (prop_id >= PROP_FIRST_STATE &&
      prop_id < PROP_FIRST_STATE + GST_CUDA_CACHE_ELEMENT_N_PROPS) {
    gst_cuda_cache_element_state_get_property (&self->state,
        prop_id - PROP_FIRST_STATE, value);
  } else if (prop_id == PROP_WARM_CAPS) {
    GST_OBJECT_LOCK (self);
    gst_value_set_caps (value, self->priv->warm_caps);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_WARM_BUFFERS) {
    GST_OBJECT_LOCK (self);
    g_value_set_uint (value, self->priv->warm_buffers);
    GST_OBJECT_UNLOCK (self);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_cuda_cache_base_transform_set_context (GstElement * element,
    GstContext * context)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (element);

  gst_cuda_cache_element_state_set_context (&self->state, context);

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_cuda_cache_base_transform_start (GstBaseTransform * trans)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (trans);
  guint n_devices = gst_cuda_cache_device_get_count ();
  GstCudaCacheElementStream *stream = NULL;
  GstCudaContext *context;
  gint device_id;

  device_id = gst_cuda_cache_element_state_get_device_id (&self->state);

  if (!gst_cuda_cache_element_state_check_alloc (&self->state))
    return FALSE;
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

  if (!gst_cuda_cache_element_state_ensure_context (&self->state)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not create a CUDA context on device %d", MAX (device_id, 0)),
        (NULL));
    return FALSE;
  }

  context = gst_cuda_cache_element_state_ref_context (&self->state);
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
  GstCudaContext *warm_user;

  gst_cuda_cache_kept_pools_clear (priv->kept);

  GST_OBJECT_LOCK (self);
  gst_clear_caps (&priv->refused_caps);
  priv->warmed = FALSE;
  warm_user = priv->warm_user;
  priv->warm_user = NULL;
  stream = priv->stream;
  priv->stream = NULL;
  GST_OBJECT_UNLOCK (self);
  if (warm_user) {
    gst_cuda_cache_device_remove_context_user (warm_user);
    gst_object_unref (warm_user);
  }
  gst_cuda_cache_element_stream_clear (&stream);
  gst_cuda_cache_element_state_release (&self->state);
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

  if (gst_cuda_cache_element_state_answer_context (&self->state, query))
    return TRUE;

  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

/* Once a start, at the first negotiation of CUDA memory: warm-buffers
 * blocks of each layout of warm-caps in @cache, in @context, of which the
 * element stays a user until it stops, so that the blocks wait for the
 * pools it proposes (the first negotiation comes before any of them). A
 * layout refused is a warning that names it; the stream goes on. */
static void
gst_cuda_cache_base_transform_warm (GstCudaCacheBaseTransform * self,
    GstCudaCache * cache, GstCudaContext * context)
{
  GstCaps *warm = NULL;
  guint n_buffers, i;

  GST_OBJECT_LOCK (self);
  if (!self->priv->warmed && self->priv->warm_caps) {
    warm = gst_caps_ref (self->priv->warm_caps);
    self->priv->warm_user = gst_object_ref (context);
  }
  self->priv->warmed = TRUE;
  n_buffers = self->priv->warm_buffers;
  GST_OBJECT_UNLOCK (self);
  if (!warm)
    return;
  gst_cuda_cache_device_add_context_user (context);

  for (i = 0; i < gst_caps_get_size (warm); i++) {
    GstCaps *layout = gst_caps_copy_nth (warm, i);
    GError *error = NULL;

    gst_caps_set_features (layout, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
    if (!gst_caps_is_fixed (layout)) {
      GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
          ("warm-caps: layout %u is not fixed", i), ("%" GST_PTR_FORMAT,
              layout));
    } else if (!gst_cuda_cache_warm (cache, context, layout, n_buffers, &error)) {
      GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
          ("warm-caps: layout %u was not made", i), ("%s", error->message));
      g_clear_error (&error);
    } else {
      GST_DEBUG_OBJECT (self, "warmed %u blocks of %" GST_PTR_FORMAT,
          n_buffers, layout);
    }
    gst_caps_unref (layout);
  }
  gst_caps_unref (warm);
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
  GstCudaCache *cache;
  gboolean ret = TRUE;

  if (cuda_memory) {
    context = gst_cuda_cache_element_state_ref_context (&self->state);
    if (!context) {
      GST_ERROR_OBJECT (self, "CUDA memory caps without a CUDA context");
      return FALSE;
    }
  }

  cache = gst_cuda_cache_base_transform_select_cache (context);
  gst_cuda_cache_element_state_set_cache (&self->state, cache, cuda_memory);
  if (cuda_memory)
    gst_cuda_cache_base_transform_warm (self, cache, context);
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
  device_id = gst_cuda_cache_element_state_get_device_id (&self->state);
  /* compared, never used: no reference needed */
  GST_OBJECT_LOCK (self);
  same = self->state.context == context;
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
  old = gst_cuda_cache_element_state_replace_context (&self->state, context);
  GST_OBJECT_LOCK (self);
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

  gst_cuda_cache_base_transform_follow_context (self, buffer);
  gst_cuda_cache_element_state_tick_stats (&self->state, FALSE);

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

  /* before the EOS goes on, so applications see it before EOS */
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
    gst_cuda_cache_element_state_tick_stats (&self->state, TRUE);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static void
gst_cuda_cache_base_transform_dispose (GObject * object)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (object);

  gst_cuda_cache_base_transform_release (self);
  gst_cuda_cache_element_state_clear (&self->state);

  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_cuda_cache_base_transform_finalize (GObject * object)
{
  GstCudaCacheBaseTransform *self = GST_CUDA_CACHE_BASE_TRANSFORM (object);

  gst_cuda_cache_kept_pools_free (self->priv->kept);
  gst_clear_caps (&self->priv->warm_caps);

  G_OBJECT_CLASS (parent_class)->finalize (object);
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
    own = GST_IS_CUDA_CACHE_POOL (pool) && self->state.context &&
        GST_CUDA_BUFFER_POOL (pool)->context == self->state.context;
    GST_OBJECT_UNLOCK (self);
    return own;
  }

  return GST_IS_CUDA_CACHE_SYSTEM_POOL (pool);
}

/* What downstream's own @pool says of its memory's allocation:
 * "cuda-stream-ordered-alloc" (cudaipcsink ipc-mode=legacy sets %FALSE:
 * legacy CUDA IPC cannot export stream-ordered memory), -1 where unset */
static gint
pool_stream_ordered (GstBufferPool * pool)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gboolean value;
  gint stream_ordered = -1;

  if (gst_structure_get_boolean (config, "cuda-stream-ordered-alloc", &value))
    stream_ordered = value;
  gst_structure_free (config);

  return stream_ordered;
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
  gint stream_ordered = -1;
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
    if (pool && side == GST_CUDA_CACHE_POOL_OUTPUT)
      stream_ordered = pool_stream_ordered (pool);
    gst_clear_object (&pool);
  }

  /* stop () may clear the context from another thread (a state change
   * while upstream queries): one reference throughout. The stream is only
   * used for the output, on the streaming thread, which stop () waits for */
  GST_OBJECT_LOCK (self);
  if (self->state.context)
    context = gst_object_ref (self->state.context);
  stream = self->priv->stream;
  GST_OBJECT_UNLOCK (self);
  pool = gst_cuda_cache_kept_pools_get (self->priv->kept, side, caps, context,
      stream, stream_ordered, *min_buffers, *max_buffers, size, reason);
  gst_clear_object (&context);

  return pool;
}

/* For decide_allocation: the first pool of @query if it hands out memory
 * from this element's cache for @query's caps (@from_downstream set), else
 * one of the element's kept output pools, reconfigured for @query's caps
 * (a new one only when all of them still have buffers downstream), its
 * blocks allocated as downstream's own pool config asks
 * ("cuda-stream-ordered-alloc"), else as the cache's method says. The
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
