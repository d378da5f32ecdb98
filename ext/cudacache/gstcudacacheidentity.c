/* SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-cudacacheidentity
 * @title: cudacacheidentity
 *
 * Passes frames and tensors through untouched and offers upstream a buffer
 * pool over the shared cache: a #GstCudaCachePool for CUDA memory (which
 * `cudaupload`, NVDEC decoders and `cudacacheconvert` take), a
 * #GstCudaCacheSystemPool for system memory. Upstream's allocations then
 * survive caps changes: caps seen before are served from the cache.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! cudaupload ! \
 *     cudacacheidentity stats-interval=1000 ! cudadownload ! fakesink -m
 * ]|
 * Without a GPU the same element works on system memory:
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! \
 *     cudacacheidentity stats-interval=1000 ! fakesink -m
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include "gstcudacacheidentity.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_identity_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_identity_debug

#define IDENTITY_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      GST_CUDA_CACHE_VIDEO_FORMATS) "; " \
  GST_CUDA_TENSOR_CAPS_NAME "(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), " \
      "format = (string) static, num_tensors = (int) 1; " \
  "video/x-raw; " \
  GST_CUDA_TENSOR_CAPS_NAME ", format = (string) static, " \
      "num_tensors = (int) 1"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (IDENTITY_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (IDENTITY_CAPS));

struct _GstCudaCacheIdentity
{
  GstCudaCacheBaseTransform parent;
};

#define gst_cuda_cache_identity_parent_class parent_class
G_DEFINE_TYPE (GstCudaCacheIdentity, gst_cuda_cache_identity,
    GST_TYPE_CUDA_CACHE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (cudacacheidentity, "cudacacheidentity",
    GST_RANK_NONE, GST_TYPE_CUDA_CACHE_IDENTITY);

static gboolean gst_cuda_cache_identity_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);

static void
gst_cuda_cache_identity_class_init (GstCudaCacheIdentityClass * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA cache identity", "Filter/Video/Hardware",
      "Passes frames through and offers upstream a buffer pool over the "
      "shared CUDA (or system-memory) cache, so caps changes reuse memory",
      "gst-cuda-cache developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_identity_propose_allocation);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_identity_debug, "cudacacheidentity",
      0, "CUDA cache: identity element");
}

static void
gst_cuda_cache_identity_init (GstCudaCacheIdentity * self)
{
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
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

static gboolean
gst_cuda_cache_identity_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaCacheBaseTransform *base = GST_CUDA_CACHE_BASE_TRANSFORM (trans);
  GstBufferPool *pool = NULL;
  guint size = 0, min_buffers = 0, max_buffers = 0;
  gboolean cuda_memory, need_pool;
  GstCaps *caps;

  /* downstream's answer first: its metas and buffer counts matter */
  GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
      decide_query, query);

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps)
    return FALSE;
  cuda_memory = gst_cuda_cache_caps_are_cuda (caps);

  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min_buffers,
        &max_buffers);
    if (gst_cuda_cache_base_transform_is_own_pool (base, pool, cuda_memory)) {
      GST_DEBUG_OBJECT (trans, "downstream already offers %" GST_PTR_FORMAT,
          pool);
      gst_object_unref (pool);
      return TRUE;
    }
    gst_clear_object (&pool);
  }

  pool = gst_cuda_cache_base_transform_new_pool (base, caps, min_buffers,
      max_buffers);
  if (!pool) {
    GST_DEBUG_OBJECT (trans, "no cache pool for %" GST_PTR_FORMAT, caps);
    return gst_query_get_n_allocation_pools (query) > 0;
  }

  {
    GstStructure *config = gst_buffer_pool_get_config (pool);

    gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
    gst_structure_free (config);
  }

  GST_DEBUG_OBJECT (trans, "proposing %" GST_PTR_FORMAT " for %"
      GST_PTR_FORMAT, pool, caps);
  query_prepend_pool (query, pool, size, min_buffers, max_buffers);
  gst_object_unref (pool);

  if (!gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (!gst_query_find_allocation_meta (query, GST_CUDA_TENSOR_META_API_TYPE,
          NULL))
    gst_query_add_allocation_meta (query, GST_CUDA_TENSOR_META_API_TYPE, NULL);

  return TRUE;
}
