/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:gstcudacachedevice
 * @title: CUDA devices
 * @short_description: device discovery, contexts and the cache of each device
 *
 * Every #GstCudaCachePool on a device shares one #GstCudaCache: a pool
 * reconfigured, a second pool, a second pipeline all find each other's idle
 * blocks. gst_cuda_cache_device_get_cache() returns it, for reading and
 * setting its limit, reading its statistics and clearing it.
 *
 * The CUDA driver is loaded at run time, never linked: on a machine without
 * a driver or a device, gst_cuda_cache_device_get_count() is 0 and nothing
 * else here touches gst-cuda. GStreamer 1.22's gst-cuda does not export
 * cuDeviceTotalMem() and cuMemGetInfo(); they are loaded from `libcuda.so.1`
 * here, and so are the events that order streams on the GPU.
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacachedevice.h"
#include "gstcudacache-private.h"
#include "gstcudacache-compat-private.h"
#include "gstcudacachestreamordered-private.h"
#include "gstcudacachekernels-private.h"

#include <gmodule.h>
#include <string.h>
#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

GST_CUDA_CACHE_DEBUG_CATEGORY ("cudacachedevice",
    "CUDA cache: devices and their caches");
#define GST_CAT_DEFAULT ensure_debug_category ()

#ifndef CUDAAPI
#define CUDAAPI
#endif

typedef struct
{
  CUresult (CUDAAPI * Init) (unsigned int flags);
  CUresult (CUDAAPI * DeviceGetCount) (int *count);
  CUresult (CUDAAPI * DeviceGet) (CUdevice * device, int ordinal);
  CUresult (CUDAAPI * DeviceTotalMem) (size_t *bytes, CUdevice device);
  CUresult (CUDAAPI * MemGetInfo) (size_t *free_bytes, size_t *total_bytes);
  /* the streams' ordering on the GPU, which 1.22's gst-cuda loader lacks */
  CUresult (CUDAAPI * EventCreate) (CUevent * event, unsigned int flags);
  CUresult (CUDAAPI * EventRecord) (CUevent event, CUstream stream);
  CUresult (CUDAAPI * EventDestroy) (CUevent event);
  CUresult (CUDAAPI * EventQuery) (CUevent event);
  CUresult (CUDAAPI * EventSynchronize) (CUevent event);
  CUresult (CUDAAPI * StreamWaitEvent) (CUstream stream, CUevent event,
      unsigned int flags);
  /* what imported memory belongs to, and the runtime's context */
  CUresult (CUDAAPI * PointerGetAttribute) (void *data,
      CUpointer_attribute attribute, CUdeviceptr ptr);
  CUresult (CUDAAPI * DevicePrimaryCtxRetain) (CUcontext * ctx,
      CUdevice device);
  CUresult (CUDAAPI * DevicePrimaryCtxRelease) (CUdevice device);
  /* the absent slots of a batch */
  CUresult (CUDAAPI * MemsetD8Async) (CUdeviceptr dst, unsigned char value,
      size_t n, CUstream stream);
#if CUDA_VERSION >= 12000
  /* optional (drivers of CUDA 12 on, the node parameters of cuda.h's
   * version 2): a conversion's kernel launched through a graph */
  CUresult (CUDAAPI * GraphCreate) (CUgraph * graph, unsigned int flags);
  CUresult (CUDAAPI * GraphAddKernelNode) (CUgraphNode * node, CUgraph graph,
      const CUgraphNode * deps, size_t n_deps,
      const CUDA_KERNEL_NODE_PARAMS * params);
  CUresult (CUDAAPI * GraphInstantiate) (CUgraphExec * exec, CUgraph graph,
      unsigned long long flags);
  CUresult (CUDAAPI * GraphExecKernelNodeSetParams) (CUgraphExec exec,
      CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS * params);
  CUresult (CUDAAPI * GraphLaunch) (CUgraphExec exec, CUstream stream);
  CUresult (CUDAAPI * GraphExecDestroy) (CUgraphExec exec);
  CUresult (CUDAAPI * GraphDestroy) (CUgraph graph);
  gboolean graphs;
#endif
  guint device_count;
} GstCudaCacheDriver;

static GstCudaCacheDriver driver;

static GMutex caches_lock;
static GHashTable *caches;      /* device id -> GstCudaCache */

/* Loads the driver and counts devices, once. Everything in gst-cuda waits
 * until this has found a device: 1.22 logs on debug categories it only sets
 * up once a device answered. */
static gboolean
gst_cuda_cache_driver_load (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GModule *module;
    int count = 0;

    module = g_module_open ("libcuda.so.1", G_MODULE_BIND_LAZY);
    if (!module) {
      GST_INFO ("no CUDA driver: %s", g_module_error ());
      goto done;
    }
    g_module_make_resident (module);

    if (!g_module_symbol (module, "cuInit", (gpointer *) & driver.Init) ||
        !g_module_symbol (module, "cuDeviceGetCount",
            (gpointer *) & driver.DeviceGetCount) ||
        !g_module_symbol (module, "cuDeviceGet",
            (gpointer *) & driver.DeviceGet) ||
        !g_module_symbol (module, "cuDeviceTotalMem_v2",
            (gpointer *) & driver.DeviceTotalMem) ||
        !g_module_symbol (module, "cuMemGetInfo_v2",
            (gpointer *) & driver.MemGetInfo) ||
        !g_module_symbol (module, "cuEventCreate",
            (gpointer *) & driver.EventCreate) ||
        !g_module_symbol (module, "cuEventRecord",
            (gpointer *) & driver.EventRecord) ||
        !g_module_symbol (module, "cuEventDestroy_v2",
            (gpointer *) & driver.EventDestroy) ||
        !g_module_symbol (module, "cuEventQuery",
            (gpointer *) & driver.EventQuery) ||
        !g_module_symbol (module, "cuEventSynchronize",
            (gpointer *) & driver.EventSynchronize) ||
        !g_module_symbol (module, "cuStreamWaitEvent",
            (gpointer *) & driver.StreamWaitEvent) ||
        !g_module_symbol (module, "cuPointerGetAttribute",
            (gpointer *) & driver.PointerGetAttribute) ||
        !g_module_symbol (module, "cuDevicePrimaryCtxRetain",
            (gpointer *) & driver.DevicePrimaryCtxRetain) ||
        !g_module_symbol (module, "cuDevicePrimaryCtxRelease_v2",
            (gpointer *) & driver.DevicePrimaryCtxRelease) ||
        !g_module_symbol (module, "cuMemsetD8Async",
            (gpointer *) & driver.MemsetD8Async)) {
      GST_WARNING ("CUDA driver lacks a needed symbol: %s", g_module_error ());
      goto done;
    }
#if CUDA_VERSION >= 12000
    driver.graphs = g_module_symbol (module, "cuGraphCreate",
        (gpointer *) & driver.GraphCreate) &&
        g_module_symbol (module, "cuGraphAddKernelNode_v2",
        (gpointer *) & driver.GraphAddKernelNode) &&
        g_module_symbol (module, "cuGraphInstantiateWithFlags",
        (gpointer *) & driver.GraphInstantiate) &&
        g_module_symbol (module, "cuGraphExecKernelNodeSetParams_v2",
        (gpointer *) & driver.GraphExecKernelNodeSetParams) &&
        g_module_symbol (module, "cuGraphLaunch",
        (gpointer *) & driver.GraphLaunch) &&
        g_module_symbol (module, "cuGraphExecDestroy",
        (gpointer *) & driver.GraphExecDestroy) &&
        g_module_symbol (module, "cuGraphDestroy",
        (gpointer *) & driver.GraphDestroy);
    if (!driver.graphs)
      GST_INFO ("CUDA driver without graphs (before CUDA 12): plain launches");
#endif

    /* not gst_cuda_result (): it names errors through gst-cuda's loader,
     * which is only loaded once a device answered */
    if (driver.Init (0) != CUDA_SUCCESS ||
        driver.DeviceGetCount (&count) != CUDA_SUCCESS || count <= 0) {
      GST_INFO ("CUDA driver found, but no usable device");
      goto done;
    }

    if (!gst_cuda_load_library ()) {
      GST_WARNING ("gst-cuda could not load the CUDA driver");
      goto done;
    }
    gst_cuda_memory_init_once ();
    driver.device_count = count;
    GST_INFO ("%d CUDA device(s)", count);

  done:
    g_once_init_leave (&once, 1);
  }

  return driver.device_count > 0;
}

/* The driver loaded and @context made current: pop it when done */
static gboolean
driver_enter (GstCudaContext * context)
{
  return gst_cuda_cache_driver_load () && gst_cuda_context_push (context);
}

/**
 * gst_cuda_cache_device_get_count:
 *
 * Loads the CUDA driver on first use.
 *
 * Returns: the number of CUDA devices; 0 without a driver or a device
 *
 * Since: 0.1
 */
guint
gst_cuda_cache_device_get_count (void)
{
  gst_cuda_cache_driver_load ();

  return driver.device_count;
}

/**
 * gst_cuda_cache_device_open_context:
 * @device_id: a CUDA device ordinal
 *
 * Makes a #GstCudaContext for @device_id after checking, without touching
 * gst-cuda, that the device exists. Elements share the pipeline's context
 * instead, through #GstContext. A function, not a constructor: %NULL
 * (Python's None) where there is no such device.
 *
 * Returns: (transfer full) (nullable): a new context, or %NULL where there
 *     is no such device
 *
 * Since: 0.1
 */
GstCudaContext *
gst_cuda_cache_device_open_context (guint device_id)
{
  if (!gst_cuda_cache_driver_load () || device_id >= driver.device_count) {
    GST_INFO ("no CUDA device %u", device_id);
    return NULL;
  }

  return gst_cuda_context_new (device_id);
}

static guint
gst_cuda_cache_device_id (GstCudaContext * context)
{
  guint device_id = 0;

  g_object_get (context, "cuda-device-id", &device_id, NULL);
  return device_id;
}

/**
 * gst_cuda_cache_device_get_cache:
 * @context: a #GstCudaContext
 *
 * The cache shared by every pool on @context's device, made on first use
 * with a default limit of half the device's memory (see
 * %GST_CUDA_CACHE_LIMIT_ENV). It frees on its own thread
 * (%GST_CUDA_CACHE_FLAG_ASYNC_FREE). Blocks of different contexts on one
 * device share the limit and the statistics, never a block.
 *
 * The cache lives as long as the process. A process that checks for leaks
 * at exit (compute-sanitizer's `--leak-check full`) calls
 * gst_cuda_cache_drain() on it once its pipelines are gone: frees still
 * queued on the thread would otherwise be counted.
 *
 * Returns: (transfer full): the device's #GstCudaCache
 *
 * Since: 0.1
 */
GstCudaCache *
gst_cuda_cache_device_get_cache (GstCudaContext * context)
{
  GstCudaCache *cache;
  guint device_id;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  device_id = gst_cuda_cache_device_id (context);

  g_mutex_lock (&caches_lock);
  if (!caches)
    caches = g_hash_table_new (NULL, NULL);
  cache = g_hash_table_lookup (caches, GUINT_TO_POINTER (device_id));
  if (!cache) {
    guint64 total = 0;
    gchar *name;

    gst_cuda_cache_device_get_memory_info (context, NULL, &total);
    name = g_strdup_printf (GST_CUDA_CACHE_DEVICE_NAME_PREFIX "%u", device_id);
    cache = gst_cuda_cache_new_named (name, total,
        GST_CUDA_CACHE_FLAG_ASYNC_FREE);
    g_free (name);
    /* lives as long as the process, like a registered allocator */
    GST_OBJECT_FLAG_SET (cache, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    g_hash_table_insert (caches, GUINT_TO_POINTER (device_id), cache);
    GST_INFO ("cache for device %u: %" G_GUINT64_FORMAT " bytes of device "
        "memory, limit %" G_GUINT64_FORMAT, device_id, total,
        gst_cuda_cache_get_limit (cache));
  }
  gst_object_ref (cache);
  g_mutex_unlock (&caches_lock);

  return cache;
}

/**
 * gst_cuda_cache_device_add_context_user:
 * @context: a #GstCudaContext
 *
 * Counts one more user of @context's blocks in its device's cache
 * (gst_cuda_cache_device_get_cache()): while @context has users, its idle
 * blocks are kept for reuse. Every #GstCudaCachePool is a user of its
 * context from creation to finalize; call this where a context should keep
 * its blocks between pools, for instance a context shared by every
 * pipeline of the process, and balance it with
 * gst_cuda_cache_device_remove_context_user().
 *
 * Idle blocks hold a reference on their context, so a context's reference
 * count cannot tell when it is no longer used; its users can.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_device_add_context_user (GstCudaContext * context)
{
  GstCudaCache *cache;
  gchar *group;

  g_return_if_fail (GST_IS_CUDA_CONTEXT (context));

  cache = gst_cuda_cache_device_get_cache (context);
  group = gst_cuda_cache_context_group (context);
  gst_cuda_cache_group_add_user (cache, group);
  g_free (group);
  gst_object_unref (cache);
}

/**
 * gst_cuda_cache_device_remove_context_user:
 * @context: a #GstCudaContext given to
 *     gst_cuda_cache_device_add_context_user()
 *
 * Counts one user of @context fewer. With none left, @context's idle
 * blocks in its device's cache are freed (on the cache's reaper thread),
 * and its blocks in use are freed when released: the context is no longer
 * kept alive by the cache.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_device_remove_context_user (GstCudaContext * context)
{
  GstCudaCache *cache;
  gchar *group;

  g_return_if_fail (GST_IS_CUDA_CONTEXT (context));

  cache = gst_cuda_cache_device_get_cache (context);
  group = gst_cuda_cache_context_group (context);
  gst_cuda_cache_group_remove_user (cache, group);
  g_free (group);
  gst_object_unref (cache);
}

/**
 * gst_cuda_cache_device_get_memory_info:
 * @context: a #GstCudaContext
 * @free_bytes: (out) (optional): free device memory, as the driver sees it
 * @total_bytes: (out) (optional): total device memory
 *
 * Asks the driver how much memory the device of @context has, and how much of
 * it is free: what an application reads to choose a cache limit
 * (gst_cuda_cache_set_limit()) that leaves room for the rest of its work on
 * the device.
 *
 * Returns: %TRUE if the driver answered
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_device_get_memory_info (GstCudaContext * context,
    guint64 * free_bytes, guint64 * total_bytes)
{
  size_t free_mem = 0, total_mem = 0;
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), FALSE);

  if (!driver_enter (context))
    return FALSE;
  ret = gst_cuda_result (driver.MemGetInfo (&free_mem, &total_mem));
  gst_cuda_context_pop (NULL);

  if (!ret) {
    CUdevice device;

    /* fall back to the device's size alone */
    ret = gst_cuda_result (driver.DeviceGet (&device,
            gst_cuda_cache_device_id (context))) &&
        gst_cuda_result (driver.DeviceTotalMem (&total_mem, device));
  }

  if (free_bytes)
    *free_bytes = free_mem;
  if (total_bytes)
    *total_bytes = total_mem;

  return ret;
}

/* One context per device, while anyone holds it */
typedef struct
{
  GMutex lock;
  GHashTable *contexts;         /* device id -> GWeakRef to GstCudaContext */
} SharedContexts;

typedef GstCudaContext *(*ContextNewFunc) (guint device_id);

static GstCudaContext *
shared_context_get (SharedContexts * shared, guint device_id,
    ContextNewFunc context_new)
{
  GstCudaContext *context;
  GWeakRef *ref;

  if (!gst_cuda_cache_driver_load () || device_id >= driver.device_count) {
    GST_INFO ("no CUDA device %u", device_id);
    return NULL;
  }

  g_mutex_lock (&shared->lock);
  if (!shared->contexts)
    shared->contexts = g_hash_table_new (NULL, NULL);
  ref = g_hash_table_lookup (shared->contexts, GUINT_TO_POINTER (device_id));
  if (!ref) {
    ref = g_new0 (GWeakRef, 1);
    g_weak_ref_init (ref, NULL);
    g_hash_table_insert (shared->contexts, GUINT_TO_POINTER (device_id), ref);
  }
  context = g_weak_ref_get (ref);
  if (!context) {
    context = context_new (device_id);
    if (context)
      g_weak_ref_set (ref, context);
  }
  g_mutex_unlock (&shared->lock);

  return context;
}

typedef struct
{
  CUdevice device;
} PrimaryHold;

static void
primary_release (gpointer data)
{
  PrimaryHold *hold = data;

  driver.DevicePrimaryCtxRelease (hold->device);
  g_free (hold);
}

/* A GstCudaContext of the device's primary context, retained until the
 * object's last reference goes */
static GstCudaContext *
primary_context_new (guint device_id)
{
  PrimaryHold *hold = g_new0 (PrimaryHold, 1);
  GstCudaContext *context;
  CUcontext handle = NULL;

  if (driver.DeviceGet (&hold->device, device_id) != CUDA_SUCCESS ||
      !gst_cuda_result (driver.DevicePrimaryCtxRetain (&handle,
              hold->device))) {
    GST_WARNING ("device %u's primary context could not be retained",
        device_id);
    g_free (hold);
    return NULL;
  }
  context = gst_cuda_context_new_wrapped (handle, hold->device);
  if (!context) {
    primary_release (hold);
    return NULL;
  }
  g_object_set_data_full (G_OBJECT (context), "gst-cuda-cache-primary-hold",
      hold, primary_release);
  GST_INFO ("primary context %" GST_PTR_FORMAT " of device %u", context,
      device_id);
  return context;
}

/**
 * gst_cuda_cache_device_get_default_context:
 * @device_id: a CUDA device ordinal
 *
 * The context that elements of this project use on @device_id when neither
 * the pipeline nor the application gives them one: the device's primary
 * context, the one the CUDA runtime, and so PyTorch, CuPy and TensorRT,
 * work in (the same object as gst_cuda_cache_device_get_primary_context()).
 * Pipelines of a process share cached blocks (blocks of one context are
 * not usable by another), and a pipeline beside a model shares the
 * model's context: the GPU runs their streams side by side instead of
 * time-slicing between contexts. It is held weakly: once no one holds
 * it, it goes away, and the next call makes a new one.
 *
 * Returns: (transfer full) (nullable): the device's shared context, or
 *     %NULL where there is no such device
 *
 * Since: 0.1
 */
GstCudaContext *
gst_cuda_cache_device_get_default_context (guint device_id)
{
  return gst_cuda_cache_device_get_primary_context (device_id);
}

gboolean
gst_cuda_cache_device_stream_wait (GstCudaContext * context,
    CUstream consumer, CUstream producer)
{
  CUevent event;
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), FALSE);

  if (!driver_enter (context))
    return FALSE;
  ret = gst_cuda_result (driver.EventCreate (&event, CU_EVENT_DISABLE_TIMING));
  if (ret) {
    ret = gst_cuda_result (driver.EventRecord (event, producer)) &&
        gst_cuda_result (driver.StreamWaitEvent (consumer, event, 0));
    /* the wait already queued keeps what it needs of the event */
    driver.EventDestroy (event);
  }
  gst_cuda_context_pop (NULL);

  return ret;
}

gboolean
gst_cuda_cache_device_event_record (CUevent * event, CUstream stream)
{
  if (!*event && !gst_cuda_result (driver.EventCreate (event,
              CU_EVENT_DISABLE_TIMING))) {
    *event = NULL;
    return FALSE;
  }
  return gst_cuda_result (driver.EventRecord (*event, stream));
}

gboolean
gst_cuda_cache_device_event_done (CUevent event, gboolean wait)
{
  CUresult res;

  if (wait)
    return gst_cuda_result (driver.EventSynchronize (event));
  res = driver.EventQuery (event);
  if (res == CUDA_ERROR_NOT_READY)
    return FALSE;
  /* an error is the context's, and the event will never say otherwise */
  gst_cuda_result (res);
  return TRUE;
}

void
gst_cuda_cache_device_event_destroy (CUevent event)
{
  if (event)
    gst_cuda_result (driver.EventDestroy (event));
}

struct _GstCudaCacheDeviceGraph
{
#if CUDA_VERSION >= 12000
  CUgraph graph;
  CUgraphExec exec;
  CUgraphNode node;
  CUfunction func;
#endif
  gboolean failed;
};

#if CUDA_VERSION >= 12000
/* Makes @graph's one node, a launch of @params->func, and instantiates it */
static CUresult
device_graph_make (GstCudaCacheDeviceGraph * graph,
    const CUDA_KERNEL_NODE_PARAMS * params)
{
  CUresult res;

  res = driver.GraphCreate (&graph->graph, 0);
  if (res != CUDA_SUCCESS)
    return res;
  res = driver.GraphAddKernelNode (&graph->node, graph->graph, NULL, 0, params);
  if (res == CUDA_SUCCESS)
    res = driver.GraphInstantiate (&graph->exec, graph->graph, 0);
  if (res != CUDA_SUCCESS) {
    driver.GraphDestroy (graph->graph);
    graph->graph = NULL;
    graph->exec = NULL;
    return res;
  }
  graph->func = params->func;
  return CUDA_SUCCESS;
}

/* Destroys @graph's graph, keeping @graph */
static void
device_graph_clear (GstCudaCacheDeviceGraph * graph)
{
  if (graph->exec)
    gst_cuda_result (driver.GraphExecDestroy (graph->exec));
  if (graph->graph)
    gst_cuda_result (driver.GraphDestroy (graph->graph));
  graph->exec = NULL;
  graph->graph = NULL;
  graph->func = NULL;
}
#endif

gboolean
gst_cuda_cache_device_graph_launch (GstCudaCacheDeviceGraph ** graph,
    CUfunction func, guint grid_w, guint grid_h, guint block_w,
    guint block_h, guint shared_bytes, void **args, CUstream stream)
{
#if CUDA_VERSION >= 12000
  GstCudaCacheDeviceGraph *g;
  CUDA_KERNEL_NODE_PARAMS params;
  CUresult res;

  g_return_val_if_fail (graph != NULL, FALSE);

  if (!driver.graphs)
    return FALSE;
  if (!*graph)
    *graph = g_new0 (GstCudaCacheDeviceGraph, 1);
  g = *graph;
  if (g->failed)
    return FALSE;

  memset (&params, 0, sizeof (params));
  params.func = func;
  params.gridDimX = grid_w;
  params.gridDimY = grid_h;
  params.gridDimZ = 1;
  params.blockDimX = block_w;
  params.blockDimY = block_h;
  params.blockDimZ = 1;
  params.sharedMemBytes = shared_bytes;
  params.kernelParams = args;

  if (g->exec && g->func == func) {
    res = driver.GraphExecKernelNodeSetParams (g->exec, g->node, &params);
  } else {
    device_graph_clear (g);
    res = device_graph_make (g, &params);
  }
  if (res == CUDA_SUCCESS)
    res = driver.GraphLaunch (g->exec, stream);
  if (res == CUDA_SUCCESS)
    return TRUE;

  /* nothing was launched: the caller launches plainly, from now on */
  GST_WARNING ("the driver refused a conversion's graph (%d): plain kernel "
      "launches from now on", (gint) res);
  device_graph_clear (g);
  g->failed = TRUE;
#endif
  return FALSE;
}

void
gst_cuda_cache_device_graph_free (GstCudaCacheDeviceGraph * graph)
{
  if (!graph)
    return;
#if CUDA_VERSION >= 12000
  device_graph_clear (graph);
#endif
  g_free (graph);
}

gboolean
gst_cuda_cache_device_memset_async (GstCudaContext * context,
    CUdeviceptr dst, guint8 value, gsize size, CUstream stream)
{
  gboolean ret;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), FALSE);

  if (!driver_enter (context))
    return FALSE;
  ret = gst_cuda_result (driver.MemsetD8Async (dst, value, size, stream));
  gst_cuda_context_pop (NULL);

  return ret;
}

/* ---- the allocator of the project's blocks ------------------------------ */

static GstMemoryCopyFunction cuda_mem_copy;

typedef struct
{
  GstCudaContext *context;
  const GstVideoInfo *info;
  /* the copied block's cache, where it is stream-ordered */
  GstCudaCache *stream_ordered;
} CopyShape;

static GstMemory *
copy_alloc (gpointer user_data)
{
  CopyShape *shape = user_data;

  if (shape->stream_ordered)
    return gst_cuda_cache_stream_ordered_alloc
        (gst_cuda_cache_get_stream_ordered (shape->stream_ordered),
        gst_cuda_cache_device_get_allocator (), shape->context, NULL,
        shape->info);
  return gst_cuda_cache_compat_alloc (gst_cuda_cache_device_get_allocator (),
      shape->context, NULL, shape->info);
}

/* Copies the whole of @src into @dst, both of @context, on a stream of
 * the copy's own: the wait is for this copy alone. */
static gboolean
copy_on_device (GstCudaContext * context, GstMemory * src, GstMemory * dst)
{
  CUDA_MEMCPY2D copy = { 0, };
  GstMapInfo in, out;
  CUstream stream = NULL;
  gboolean ok;

  if (!gst_memory_map (src, &in, GST_MAP_READ | GST_MAP_CUDA))
    return FALSE;
  if (!gst_memory_map (dst, &out, GST_MAP_WRITE | GST_MAP_CUDA)) {
    gst_memory_unmap (src, &in);
    return FALSE;
  }
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = (CUdeviceptr) in.data;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = (CUdeviceptr) out.data;
  copy.srcPitch = copy.dstPitch = copy.WidthInBytes = MIN (src->maxsize,
      dst->maxsize);
  copy.Height = 1;

  ok = gst_cuda_context_push (context);
  if (ok) {
    ok = gst_cuda_result (CuStreamCreate (&stream, CU_STREAM_NON_BLOCKING)) &&
        gst_cuda_result (CuMemcpy2DAsync (&copy, stream)) &&
        gst_cuda_result (CuStreamSynchronize (stream));
    if (stream)
      gst_cuda_result (CuStreamDestroy (stream));
    gst_cuda_context_pop (NULL);
  }
  gst_memory_unmap (dst, &out);
  gst_memory_unmap (src, &in);

  return ok;
}

/* A copy of a cache's block (or of memory over one, for a writer of
 * another stream: gstcudacachepool.c) is another block of its key, from
 * the cache, made once the source's pending writes are done; of other
 * memory, gst-cuda's copy. Both copy the whole memory: gst-cuda's copy
 * ignores @offset and @size too. */
static GstMemory *
cache_mem_copy (GstMemory * mem, gssize offset, gssize size)
{
  GstCudaMemory *cmem;
  GstCudaCache *cache;
  GstMemory *copy = NULL;
  gchar *group, *key;
  CopyShape shape;

  if (!gst_cuda_cache_block_origin (mem, &cache, &group, &key))
    return cuda_mem_copy (mem, offset, size);
  gst_cuda_cache_compat_memory_sync (mem);
  mem = gst_cuda_cache_memory_get_block (mem);
  cmem = GST_CUDA_MEMORY_CAST (mem);

  shape.context = cmem->context;
  shape.info = &cmem->info;
  /* a block of the same key: allocated the same way */
  shape.stream_ordered = strstr (key, GST_CUDA_CACHE_KEY_STREAM_ORDERED) ?
      cache : NULL;
  copy = gst_cuda_cache_acquire_in_group (cache, group, key, copy_alloc,
      &shape);
  /* a tensor's block is its bytes, not the pitched image behind them */
  if (copy && copy->maxsize == mem->maxsize &&
      (copy->offset != mem->offset || copy->size != mem->size))
    gst_memory_resize (copy, (gssize) mem->offset - (gssize) copy->offset,
        mem->size);
  if (copy && (copy->maxsize != mem->maxsize ||
          !copy_on_device (cmem->context, mem, copy))) {
    GST_WARNING_OBJECT (cache, "could not copy a block of \"%s\" on the "
        "device: copying it through gst-cuda", key);
    g_clear_pointer (&copy, gst_memory_unref);
  }
  gst_object_unref (cache);
  g_free (group);
  g_free (key);

  return copy ? copy : cuda_mem_copy (mem, offset, size);
}

GstCudaAllocator *
gst_cuda_cache_device_get_allocator (void)
{
  static GstCudaAllocator *allocator;
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GstAllocator *cuda;

    gst_cuda_memory_init_once ();
    cuda = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
    if (cuda) {
      /* an instance of gst-cuda's type, so that its memory is CUDA memory
       * to every element, with the copy made ours */
      allocator = g_object_new (G_OBJECT_TYPE (cuda), NULL);
      gst_object_ref_sink (allocator);
      GST_OBJECT_FLAG_SET (allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED);
      cuda_mem_copy = GST_ALLOCATOR (cuda)->mem_copy;
      GST_ALLOCATOR (allocator)->mem_copy = cache_mem_copy;
      gst_object_unref (cuda);
    } else {
      GST_ERROR ("the CUDA allocator is unavailable");
    }
    g_once_init_leave (&once, 1);
  }

  return allocator;
}

/**
 * gst_cuda_cache_device_get_primary_context:
 * @device_id: a CUDA device ordinal
 *
 * A #GstCudaContext of @device_id's primary context: the CUDA context the
 * CUDA runtime, and so PyTorch, CuPy and Numba, allocate in. Memory they
 * made belongs to it, and gst_cuda_cache_dlpack_import () wraps such
 * memory without a copy (GStreamer 1.24 and later) when given this
 * context. For elements to read that memory, the pipeline shares the
 * context: gst_element_set_context () with gst_context_new_cuda_context ()
 * (GstCuda.context_new_cuda_context () in Python). One object per device while
 * anyone holds it; the primary context is retained as long.
 *
 * Returns: (transfer full) (nullable): the context, or %NULL where there
 *     is no such device
 *
 * Since: 0.1
 */
GstCudaContext *
gst_cuda_cache_device_get_primary_context (guint device_id)
{
  static SharedContexts shared;

  return shared_context_get (&shared, device_id, primary_context_new);
}

/* Whether @size bytes at @ptr lie in one allocation of @context's, which
 * its kernels may read: the driver says which context an allocation
 * belongs to and where it starts and ends. */
gboolean
gst_cuda_cache_device_owns_range (GstCudaContext * context, CUdeviceptr ptr,
    gsize size)
{
  CUcontext owner = NULL;
  CUdeviceptr start = 0;
  size_t range = 0;

  if (!gst_cuda_cache_driver_load ())
    return FALSE;
  if (driver.PointerGetAttribute (&owner, CU_POINTER_ATTRIBUTE_CONTEXT,
          ptr) != CUDA_SUCCESS ||
      driver.PointerGetAttribute (&start,
          CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr) != CUDA_SUCCESS ||
      driver.PointerGetAttribute (&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
          ptr) != CUDA_SUCCESS) {
    GST_DEBUG ("the driver does not know %p", (gpointer) ptr);
    return FALSE;
  }
  GST_DEBUG ("%p: context %p, allocation %p + %" G_GSIZE_FORMAT,
      (gpointer) ptr, owner, (gpointer) start, (gsize) range);

  return owner != NULL && owner == gst_cuda_context_get_handle (context) &&
      ptr >= start && size <= range - (ptr - start);
}
