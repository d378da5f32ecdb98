/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The host side of cudacacheconvert's CUDA kernels: nvcc builds each
 * family of kernels/kernel-list.h into a fatbin embedded in the library;
 * this loads them into a #GstCudaContext as modules, makes each
 * conversion's plan (gstcudacacheplan.c works it out; its taps' table goes
 * to an arena of the device's cache, gstcudacachescratch.c), launches one
 * conversion at a time through gst-cuda's driver wrappers and waits for
 * it, by the grid's completion signal or the stream. The driver is never
 * linked: gst-cuda loads it. Builds without nvcc take
 * gstcudacachekernels-stub.c instead. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

#include "gstcudacachekernels-private.h"
#include "gstcudacacheplan-private.h"
#include "gstcudacachescratch-private.h"
#include "gstcudacachedevice.h"
#include "gstcudacache-private.h"
#include "gstcudacache-compat-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

struct _GstCudaCacheKernels
{
  GstCudaContext *context;
  CUmodule modules[GST_CUDA_CACHE_N_KERNEL_FAMILIES];
  CUfunction functions[GST_CUDA_CACHE_N_KERNELS];
  /* tap tables, narrowed frames and counters: blocks of the device's cache
   * in the context's group */
  GstCudaAllocator *allocator;
  GstCudaCacheScratch *scratch;
  /* the last RECENT_PLANS plans made, newest first, each with a reference:
   * caps that switch back and forth find theirs made; the same for the
   * presets (gstcudacachepreset.c) */
  GQueue recent;
  GQueue recent_presets;
  /* tables are copied to the device on this stream of the kernels' own,
   * never the legacy default one, which waits for other streams */
  CUstream upload_stream;

  GMutex lock;
  /* under lock: the streams launched on since the last retirement, each
   * with an event after its latest launch (GstCudaCacheLaunchMark) */
  GArray *marks;
  /* under lock: blocks retired while launches before them may still
   * read them, oldest first (GstCudaCacheRetired) */
  GQueue retired;
};

typedef struct
{
  CUstream stream;
  CUevent event;
} GstCudaCacheLaunchMark;

/* A block kernels may still read: it goes back to the cache once every
 * event has passed */
typedef struct
{
  GstMemory *block;
  GArray *events;               /* CUevent */
} GstCudaCacheRetired;

#define RECENT_PLANS 8

struct _GstCudaCacheKernelPlan
{
  GstCudaCacheKernels *kernels;
  GstCudaCachePlan plan;        /* params.taps: the table in its arena */
  GstCudaCacheTapArena *arena;
  /* what the plan was made from: ConvertParams before its taps, the
   * 2-tap step */
  ConvertParams key;
  gboolean key_lq;
  gint key_inc;
  gint ref_count;               /* its users and the kernels' recent plans */
};

struct _GstCudaCacheKernelDone
{
  GstCudaContext *context;
  GstMemory *counter_block;
  CUdeviceptr counter;          /* the grid's finished blocks */
  guint32 *flag;                /* pinned host memory, the device's too */
  guint32 seq;                  /* the last launch's */
  /* the stream of the launches so far: a signal's launches go on one
   * stream, in order, or a later number could pass before an earlier */
  CUstream stream;
};

/* Waiting for a signal: this many reads of the host's word, then a yield of
 * the thread between reads; after DONE_WAIT_US, the stream's own
 * synchronisation. */
#define DONE_SPINS 200
#define DONE_WAIT_US 2000

/* Synchronises @stream of @context. */
static gboolean
sync_stream (GstCudaContext * context, CUstream stream)
{
  gboolean ok;

  if (!gst_cuda_context_push (context)) {
    GST_ERROR_OBJECT (context, "could not push the CUDA context");
    return FALSE;
  }
  ok = gst_cuda_result (CuStreamSynchronize (stream));
  gst_cuda_context_pop (NULL);

  return ok;
}

/* Copies @bytes from pageable @src to @dst on the kernels' own stream,
 * with their context pushed, and returns once they landed: a wait for
 * this copy alone, where a synchronous copy would wait for the legacy
 * default stream and every blocking stream behind it. */
static gboolean
copy_to_device (GstCudaCacheKernels * self, CUdeviceptr dst, const void *src,
    gsize bytes)
{
  CUDA_MEMCPY2D copy = { 0, };

  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = src;
  copy.srcPitch = bytes;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = dst;
  copy.dstPitch = bytes;
  copy.WidthInBytes = bytes;
  copy.Height = 1;

  return gst_cuda_result (CuMemcpy2DAsync (&copy, self->upload_stream)) &&
      gst_cuda_result (CuStreamSynchronize (self->upload_stream));
}

/* ---- retiring blocks kernels may still read ------------------------------ */

static void
retired_free (GstCudaCacheRetired * r)
{
  guint i;

  for (i = 0; i < r->events->len; i++)
    gst_cuda_cache_device_event_destroy (g_array_index (r->events, CUevent, i));
  g_array_unref (r->events);
  gst_memory_unref (r->block);
  g_free (r);
}

/* Gives back the retired blocks whose launches have passed, in order;
 * with @wait, all of them once their launches have (this object's work
 * alone). Must be called with the lock and the context pushed. */
static void
reap_locked (GstCudaCacheKernels * self, gboolean wait)
{
  GstCudaCacheRetired *r;

  while ((r = g_queue_peek_head (&self->retired))) {
    while (r->events->len > 0) {
      CUevent event = g_array_index (r->events, CUevent, r->events->len - 1);

      if (!gst_cuda_cache_device_event_done (event, wait))
        return;
      gst_cuda_cache_device_event_destroy (event);
      g_array_set_size (r->events, r->events->len - 1);
    }
    g_queue_pop_head (&self->retired);
    GST_LOG_OBJECT (self->context, "a retired block of %" G_GSIZE_FORMAT
        " bytes goes back to the cache", r->block->size);
    retired_free (r);
  }
}

gboolean
gst_cuda_cache_kernels_launch (GstCudaCacheKernels * kernels,
    const GstCudaCacheLaunch * launch, void **args, CUstream stream,
    GstCudaCacheDeviceGraph ** graph)
{
  CUfunction func = kernels->functions[launch->kernel];
  gboolean ok;

  /* through the caller's graph where it has one: less of the host's time
   * a frame than a plain launch (docs/converter.md) */
  ok = graph && gst_cuda_cache_device_graph_launch (graph, func,
      launch->grid_w, launch->grid_h, launch->block_w, launch->block_h,
      launch->shared_bytes, args, stream);
  if (!ok)
    ok = gst_cuda_result (CuLaunchKernel (func, launch->grid_w,
            launch->grid_h, 1, launch->block_w, launch->block_h, 1,
            launch->shared_bytes, stream, args, NULL));
  if (ok)
    gst_cuda_cache_kernels_mark_launch (kernels, stream);
  return ok;
}

void
gst_cuda_cache_kernels_mark_launch (GstCudaCacheKernels * kernels,
    CUstream stream)
{
  GstCudaCacheLaunchMark *mark = NULL;
  guint i;

  g_mutex_lock (&kernels->lock);
  for (i = 0; i < kernels->marks->len && !mark; i++) {
    if (g_array_index (kernels->marks, GstCudaCacheLaunchMark, i).stream ==
        stream)
      mark = &g_array_index (kernels->marks, GstCudaCacheLaunchMark, i);
  }
  if (!mark) {
    GstCudaCacheLaunchMark m = { stream, NULL };

    g_array_append_val (kernels->marks, m);
    mark = &g_array_index (kernels->marks, GstCudaCacheLaunchMark,
        kernels->marks->len - 1);
  }
  if (!gst_cuda_cache_device_event_record (&mark->event, stream))
    GST_WARNING_OBJECT (kernels->context, "could not record an event after "
        "a launch on stream %p", stream);
  g_mutex_unlock (&kernels->lock);
}

void
gst_cuda_cache_kernels_retire (GstCudaCacheKernels * kernels, GstMemory * block)
{
  GstCudaCacheRetired *r;
  guint i;

  g_return_if_fail (kernels != NULL);
  g_return_if_fail (block != NULL);

  r = g_new0 (GstCudaCacheRetired, 1);
  r->block = block;
  r->events = g_array_new (FALSE, FALSE, sizeof (CUevent));

  if (!gst_cuda_context_push (kernels->context)) {
    /* nothing can be launched in the context either */
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context");
    retired_free (r);
    return;
  }
  g_mutex_lock (&kernels->lock);
  /* the launches so far, each stream's latest standing for the ones
   * before it; the marks start again from the next launch */
  for (i = 0; i < kernels->marks->len; i++) {
    GstCudaCacheLaunchMark *mark =
        &g_array_index (kernels->marks, GstCudaCacheLaunchMark, i);

    if (mark->event)
      g_array_append_val (r->events, mark->event);
  }
  g_array_set_size (kernels->marks, 0);
  GST_LOG_OBJECT (kernels->context, "retiring a block of %" G_GSIZE_FORMAT
      " bytes after the launches of %u stream(s)", block->size, r->events->len);
  g_queue_push_tail (&kernels->retired, r);
  reap_locked (kernels, FALSE);
  g_mutex_unlock (&kernels->lock);
  gst_cuda_context_pop (NULL);
}

/* Waits for this object's launches so far and gives back every retired
 * block: its teardown, once nothing launches any more */
static void
settle (GstCudaCacheKernels * self)
{
  GstCudaCacheLaunchMark *mark;
  guint i;

  if (!gst_cuda_context_push (self->context)) {
    GST_ERROR_OBJECT (self->context, "could not push the CUDA context: "
        "leaking %u retired block(s)", self->retired.length);
    return;
  }
  g_mutex_lock (&self->lock);
  reap_locked (self, TRUE);
  for (i = 0; i < self->marks->len; i++) {
    mark = &g_array_index (self->marks, GstCudaCacheLaunchMark, i);
    if (mark->event) {
      gst_cuda_cache_device_event_done (mark->event, TRUE);
      gst_cuda_cache_device_event_destroy (mark->event);
    }
  }
  g_array_set_size (self->marks, 0);
  g_mutex_unlock (&self->lock);
  gst_cuda_context_pop (NULL);
}

/* ---- the kernels' memory, as blocks of the device's cache ---------------- */

/* A block of @rows rows of @row_bytes: gst-cuda's own memory, an RGBA
 * image of a quarter the bytes a row, pitched as cuMemAllocPitch () lays
 * it out. */
static GstMemory *
scratch_alloc (gsize row_bytes, gsize rows, gpointer user_data)
{
  GstCudaCacheKernels *self = user_data;
  GstVideoInfo info;

  if (row_bytes / 4 > G_MAXINT || rows > G_MAXINT ||
      !gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, row_bytes / 4,
          rows))
    return NULL;
  return gst_cuda_cache_compat_alloc (self->allocator, self->context, NULL,
      &info);
}

static guint64
scratch_address (GstMemory * block, gpointer user_data)
{
  GstMapInfo map;
  guint64 address;

  /* the address stays the block's while the block is held */
  if (!gst_memory_map (block, &map, GST_MAP_READ | GST_MAP_CUDA))
    return 0;
  address = (guint64) (guintptr) map.data;
  gst_memory_unmap (block, &map);

  return address;
}

gboolean
gst_cuda_cache_kernels_upload (GstCudaCacheKernels * kernels, CUdeviceptr dst,
    gconstpointer src, gsize bytes)
{
  gboolean ok;

  g_return_val_if_fail (kernels != NULL, FALSE);

  if (!gst_cuda_context_push (kernels->context)) {
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context");
    return FALSE;
  }
  ok = copy_to_device (kernels, dst, src, bytes);
  gst_cuda_context_pop (NULL);

  return ok;
}

static gboolean
scratch_upload (guint64 address, gconstpointer src, gsize bytes,
    gpointer user_data)
{
  return gst_cuda_cache_kernels_upload (user_data, (CUdeviceptr) address, src,
      bytes);
}

/* A full arena goes back to the cache once the launches before it passed:
 * a plan's conversion may still read it on a stream its caller has not
 * waited for (on 1.24, the output's) */
static void
scratch_retire (GstMemory * block, gpointer user_data)
{
  gst_cuda_cache_kernels_retire (user_data, block);
}

static const GstCudaCacheScratchFuncs scratch_funcs = {
  scratch_alloc, scratch_address, scratch_upload, scratch_retire
};

gboolean
gst_cuda_cache_kernels_built (void)
{
  return TRUE;
}

/* Loads every family's module into the pushed context, and looks their
 * kernels up. */
static gboolean
load_modules (GstCudaCacheKernels * self)
{
  guint i;

  for (i = 0; i < GST_CUDA_CACHE_N_KERNEL_FAMILIES; i++) {
    const GstCudaCacheKernelFatbin *f = &gst_cuda_cache_kernel_fatbins[i];

    if (!gst_cuda_result (CuModuleLoadData (&self->modules[i], f->data))) {
      GST_ERROR_OBJECT (self->context, "could not load the %s kernels (a "
          "fatbin of %" G_GSIZE_FORMAT " bytes) on this device", f->name,
          f->size);
      self->modules[i] = NULL;
      return FALSE;
    }
  }

  for (i = 0; i < GST_CUDA_CACHE_N_KERNELS; i++) {
    const GstCudaCacheKernelInfo *k = &gst_cuda_cache_kernel_info[i];

    if (!gst_cuda_result (CuModuleGetFunction (&self->functions[i],
                self->modules[k->family], k->name))) {
      GST_ERROR_OBJECT (self->context, "the %s module lacks %s",
          gst_cuda_cache_kernel_fatbins[k->family].name, k->name);
      return FALSE;
    }
  }

  return TRUE;
}

static void
unload_modules (GstCudaCacheKernels * self)
{
  guint i;

  for (i = 0; i < GST_CUDA_CACHE_N_KERNEL_FAMILIES; i++) {
    if (self->modules[i])
      gst_cuda_result (CuModuleUnload (self->modules[i]));
    self->modules[i] = NULL;
  }
}

GstCudaCacheKernels *
gst_cuda_cache_kernels_new (GstCudaContext * context)
{
  GstCudaCacheKernels *self;
  GstAllocator *allocator;
  GstCudaCache *cache;
  gchar *group;
  gboolean ok;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  gst_cuda_cache_kernels_init_debug ();

  allocator = (GstAllocator *) gst_cuda_cache_device_get_allocator ();
  if (!allocator) {
    GST_ERROR_OBJECT (context, "the CUDA allocator is unavailable");
    return NULL;
  }

  self = g_new0 (GstCudaCacheKernels, 1);
  self->context = gst_object_ref (context);
  self->allocator = GST_CUDA_ALLOCATOR (gst_object_ref (allocator));

  if (!gst_cuda_context_push (context)) {
    GST_ERROR_OBJECT (context, "could not push the CUDA context");
    gst_cuda_cache_kernels_free (self);
    return NULL;
  }
  g_mutex_init (&self->lock);
  self->marks = g_array_new (FALSE, FALSE, sizeof (GstCudaCacheLaunchMark));
  ok = load_modules (self) &&
      gst_cuda_result (CuStreamCreate (&self->upload_stream,
          CU_STREAM_NON_BLOCKING));
  if (!ok)
    unload_modules (self);
  gst_cuda_context_pop (NULL);
  if (!ok) {
    gst_cuda_cache_kernels_free (self);
    return NULL;
  }

  cache = gst_cuda_cache_device_get_cache (context);
  group = gst_cuda_cache_context_group (context);
  self->scratch = gst_cuda_cache_scratch_new (cache, group, &scratch_funcs,
      self);
  g_free (group);
  gst_object_unref (cache);

  GST_DEBUG_OBJECT (context, "loaded %u kernels of %u families",
      GST_CUDA_CACHE_N_KERNELS, GST_CUDA_CACHE_N_KERNEL_FAMILIES);

  return self;
}

GQueue *
gst_cuda_cache_kernels_get_recent_presets (GstCudaCacheKernels * kernels)
{
  g_return_val_if_fail (kernels != NULL, NULL);

  return &kernels->recent_presets;
}

GstCudaContext *
gst_cuda_cache_kernels_get_context (GstCudaCacheKernels * kernels)
{
  g_return_val_if_fail (kernels != NULL, NULL);

  return kernels->context;
}

CUfunction
gst_cuda_cache_kernels_get_function (GstCudaCacheKernels * kernels, gint kernel)
{
  g_return_val_if_fail (kernels != NULL, NULL);
  g_return_val_if_fail (kernel >= 0 && kernel < GST_CUDA_CACHE_N_KERNELS, NULL);

  return kernels->functions[kernel];
}

GstMemory *
gst_cuda_cache_kernels_acquire (GstCudaCacheKernels * kernels,
    gsize row_bytes, gsize rows, CUdeviceptr * data, gsize * pitch)
{
  GstMemory *block;

  g_return_val_if_fail (kernels != NULL, NULL);
  g_return_val_if_fail (data != NULL && pitch != NULL, NULL);

  block = gst_cuda_cache_scratch_acquire (kernels->scratch, row_bytes, rows);
  if (!block)
    return NULL;
  *data = (CUdeviceptr) scratch_address (block, kernels);
  *pitch = GST_CUDA_MEMORY_CAST (block)->info.stride[0];
  if (!*data) {
    GST_ERROR_OBJECT (kernels->context, "could not map a block of the cache");
    gst_memory_unref (block);
    return NULL;
  }

  return block;
}

void
gst_cuda_cache_kernels_free (GstCudaCacheKernels * kernels)
{
  if (!kernels)
    return;

  /* the recent plans' references; the callers' plans are freed before
   * the kernels: the current arena then has no table in use */
  g_queue_clear_full (&kernels->recent, (GDestroyNotify)
      gst_cuda_cache_kernel_plan_free);
  g_queue_clear_full (&kernels->recent_presets, (GDestroyNotify)
      gst_cuda_cache_preset_free);
  /* no launch follows: what is retired from here on goes back at once */
  if (kernels->marks)
    settle (kernels);
  g_clear_pointer (&kernels->scratch, gst_cuda_cache_scratch_free);
  if (gst_cuda_context_push (kernels->context)) {
    unload_modules (kernels);
    if (kernels->upload_stream)
      gst_cuda_result (CuStreamDestroy (kernels->upload_stream));
    gst_cuda_context_pop (NULL);
  } else {
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context: "
        "leaking the kernels' modules");
  }
  gst_clear_object (&kernels->allocator);
  g_clear_pointer (&kernels->marks, g_array_unref);
  g_mutex_clear (&kernels->lock);
  gst_object_unref (kernels->context);
  g_free (kernels);
}

/* ---- plans ------------------------------------------------------------- */

GstCudaCacheKernelPlan *
gst_cuda_cache_kernel_plan_new (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params)
{
  GstCudaCacheKernelPlan *plan;
  ConvertParams key;
  gint inc;
  gboolean lq;
  guint64 taps;
  GList *l;

  g_return_val_if_fail (kernels != NULL, NULL);
  g_return_val_if_fail (params != NULL, NULL);

  if (!gst_cuda_cache_plan_params (params, &key, &lq, &inc))
    return NULL;

  /* a plan made from the same parameters, kept */
  for (l = kernels->recent.head; l; l = l->next) {
    GstCudaCacheKernelPlan *recent = l->data;

    if (recent->key_lq == lq && recent->key_inc == inc &&
        memcmp (&recent->key, &key, sizeof (key)) == 0) {
      g_queue_unlink (&kernels->recent, l);
      g_queue_push_head_link (&kernels->recent, l);
      recent->ref_count++;
      return recent;
    }
  }

  plan = g_new0 (GstCudaCacheKernelPlan, 1);
  plan->kernels = kernels;
  plan->key = key;
  plan->key_lq = lq;
  plan->key_inc = inc;
  plan->ref_count = 1;
  gst_cuda_cache_plan_init (&plan->plan, &key, lq, inc);

  plan->arena = gst_cuda_cache_scratch_place_table (kernels->scratch,
      plan->plan.table, &taps);
  if (!plan->arena) {
    gst_cuda_cache_plan_clear (&plan->plan);
    g_free (plan);
    return NULL;
  }
  plan->plan.params.taps = taps;

  {
    const ConvertParams *p = &plan->plan.params;

    GST_DEBUG ("%dx%d %s to %dx%d %s, picture at %d,%d %dx%d, %dx%d taps: "
        "%s, %ux%u blocks of %ux%u, tile of %d rows reading up to %d rows "
        "of %d bytes (%d of chroma, of %d), %u bytes of shared memory; "
        "direct kernel: %s (groups of %d rows reading up to %d rows, %d of "
        "chroma)", p->in_width, p->in_height,
        gst_video_format_to_string (params->in_format), p->out_width,
        p->out_height, p->out_format == CONVERT_FORMAT_TENSOR ? "tensor" :
        gst_video_format_to_string (params->out_format), p->dest_x,
        p->dest_y, p->dest_width, p->dest_height, p->x_taps, p->y_taps,
        gst_cuda_cache_kernel_info[plan->plan.tiled.kernel].name,
        plan->plan.tiled.grid_w, plan->plan.tiled.grid_h,
        plan->plan.tiled.block_w, plan->plan.tiled.block_h, p->tile_h,
        p->tile_rows, p->tile_pitch, p->tile_chroma_rows,
        p->tile_chroma_pitch, plan->plan.tiled.shared_bytes,
        plan->plan.direct.kernel != GST_CUDA_CACHE_KERNEL_NONE ?
        gst_cuda_cache_kernel_info[plan->plan.direct.kernel].name : "none",
        CONVERT_DIRECT_ROWS, p->direct_rows, p->direct_chroma_rows);
  }

  /* kept among the recent ones: the oldest goes */
  plan->ref_count++;
  g_queue_push_head (&kernels->recent, plan);
  if (kernels->recent.length > RECENT_PLANS)
    gst_cuda_cache_kernel_plan_free (g_queue_pop_tail (&kernels->recent));

  return plan;
}

/* @plan's parameters for one frame's planes in *p, and in *launch the
 * kernel that converts them and its grid: the direct kernel where the
 * plan has one and the input's rows allow it */
static void
plan_prepare (const GstCudaCacheKernelPlan * plan, const guintptr in_data[3],
    const gint in_stride[3], const guintptr out_data[3],
    const gint out_stride[3], ConvertParams * p, GstCudaCacheLaunch * launch)
{
  const GstCudaCachePlan *pl = &plan->plan;
  gboolean words = TRUE;
  gint i;

  *p = pl->params;
  for (i = 0; i < 3; i++) {
    p->in_data[i] = in_data[i];
    p->in_stride[i] = in_stride[i];
  }
  gst_cuda_cache_plan_set_output (p, out_data, out_stride);
  /* 16-byte loads where the rows allow them */
  p->in_aligned = TRUE;
  for (i = 0; i < pl->n_planes; i++) {
    if (in_data[i] % 16 != 0 || in_stride[i] % 16 != 0)
      p->in_aligned = FALSE;
    if (in_data[i] % 4 != 0 || in_stride[i] % 4 != 0)
      words = FALSE;
  }

  /* the direct kernel reads whole words of the input's rows */
  *launch = pl->direct.kernel != GST_CUDA_CACHE_KERNEL_NONE && words ?
      pl->direct : pl->tiled;
  GST_LOG ("%s%s", gst_cuda_cache_kernel_info[launch->kernel].name,
      pl->direct.kernel != GST_CUDA_CACHE_KERNEL_NONE && !words ?
      " (input rows not 4-byte aligned)" : "");
}

gboolean
gst_cuda_cache_kernel_plan_launch (GstCudaCacheKernelPlan * plan,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], CUstream stream,
    GstCudaCacheKernelDone * done, GstCudaCacheDeviceGraph ** graph)
{
  GstCudaCacheKernels *kernels;
  GstCudaCacheLaunch launch;
  ConvertParams p;
  void *args[] = { &p };
  gboolean ok;

  g_return_val_if_fail (plan != NULL, FALSE);
  g_return_val_if_fail (in_data != NULL && in_data[0] != 0, FALSE);
  g_return_val_if_fail (out_data != NULL && out_data[0] != 0, FALSE);

  kernels = plan->kernels;
  plan_prepare (plan, in_data, in_stride, out_data, out_stride, &p, &launch);
  gst_cuda_cache_kernel_done_next (done, stream, &p.done_counter,
      &p.done_flag, &p.done_seq);

  if (!gst_cuda_context_push (kernels->context)) {
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context");
    return FALSE;
  }
  ok = gst_cuda_cache_kernels_launch (kernels, &launch, args, stream, graph);
  gst_cuda_context_pop (NULL);

  return ok;
}

void
gst_cuda_cache_kernel_plan_free (GstCudaCacheKernelPlan * plan)
{
  if (!plan)
    return;
  if (--plan->ref_count > 0)
    return;

  gst_cuda_cache_scratch_release_table (plan->kernels->scratch, plan->arena);
  gst_cuda_cache_plan_clear (&plan->plan);
  g_free (plan);
}

/* ---- batches ------------------------------------------------------------ */

struct _GstCudaCacheKernelBatch
{
  GstCudaCacheKernels *kernels;
  /* the slots' table in device memory, a block of the device's cache;
   * its room in slots (of the larger kind, PresetBatchSlot) */
  GstMemory *block;
  CUdeviceptr table;
  guint room;
  /* the host's copy of the table, rewritten per batch: the copy to the
   * device stages it before returning (pageable memory). Each kernel's
   * slots lie next to each other, ConvertBatchSlot or, for the presets'
   * kernels, PresetBatchSlot each. */
  guint8 *host;
  GstCudaCacheLaunch *launches; /* per slot of host */
  gsize *offsets;               /* per slot of host: its byte in the table */
  /* each slot, in the batch's order, before it is placed in host (a
   * plan's in prepared[].slot); and the first slot of its kernel's */
  PresetBatchSlot *prepared;
  GstCudaCacheLaunch *prepared_launches;
  guint *group;
  guint host_room;
};

/* a slot's bytes in a batch's table at most: the larger kind's, and the
 * alignment of its kernel's slots */
#define BATCH_SLOT_ROOM (sizeof (PresetBatchSlot) + 16)

static gboolean
same_launch (const GstCudaCacheLaunch * a, const GstCudaCacheLaunch * b)
{
  return a->kernel == b->kernel && a->block_w == b->block_w &&
      a->block_h == b->block_h;
}

GstCudaCacheKernelBatch *
gst_cuda_cache_kernel_batch_new (GstCudaCacheKernels * kernels)
{
  GstCudaCacheKernelBatch *batch;

  g_return_val_if_fail (kernels != NULL, NULL);

  batch = g_new0 (GstCudaCacheKernelBatch, 1);
  batch->kernels = kernels;
  return batch;
}

/* Room for @n slots in the device's table. A smaller table may still be
 * read by a batch whose output nobody has waited for yet (1.24 and
 * later): it is retired, back to the cache once those launches passed. */
static gboolean
batch_reserve (GstCudaCacheKernelBatch * batch, guint n)
{
  gsize pitch;

  if (n > batch->host_room) {
    batch->host = g_renew (guint8, batch->host, n * BATCH_SLOT_ROOM);
    batch->launches = g_renew (GstCudaCacheLaunch, batch->launches, n);
    batch->offsets = g_renew (gsize, batch->offsets, n);
    batch->prepared = g_renew (PresetBatchSlot, batch->prepared, n);
    batch->prepared_launches =
        g_renew (GstCudaCacheLaunch, batch->prepared_launches, n);
    batch->group = g_renew (guint, batch->group, n);
    batch->host_room = n;
  }
  if (n <= batch->room)
    return TRUE;

  if (batch->block) {
    gst_cuda_cache_kernels_retire (batch->kernels, batch->block);
    batch->block = NULL;
    batch->room = 0;
  }
  batch->block = gst_cuda_cache_kernels_acquire (batch->kernels,
      (gsize) n * BATCH_SLOT_ROOM, 1, &batch->table, &pitch);
  if (!batch->block)
    return FALSE;
  batch->room = n;
  return TRUE;
}

gboolean
gst_cuda_cache_kernel_batch_launch (GstCudaCacheKernelBatch * batch,
    const GstCudaCacheKernelBatchSlot * slots, guint n, CUstream stream,
    GstCudaCacheKernelDone * done, guint * n_launches)
{
  GstCudaCacheKernels *kernels;
  CUDA_MEMCPY2D copy = { 0, };
  guint i, j, placed = 0, launches = 0;
  gsize bytes = 0;
  gboolean ok;

  g_return_val_if_fail (batch != NULL, FALSE);
  g_return_val_if_fail (slots != NULL && n > 0, FALSE);

  kernels = batch->kernels;
  if (!batch_reserve (batch, n)) {
    GST_ERROR_OBJECT (kernels->context, "no device memory for the table of "
        "a batch of %u", n);
    return FALSE;
  }

  /* each slot's params and kernel, its batch twin */
  for (i = 0; i < n; i++) {
    const GstCudaCacheKernelBatchSlot *s = &slots[i];
    guintptr out_data[3] = { s->out_data, 0, 0 };
    gint out_stride[3] = { 0, };
    GstCudaCacheLaunch *l = &batch->prepared_launches[i];
    PresetBatchSlot *slot = &batch->prepared[i];

    if (s->preset) {
      PresetConvert a;

      gst_cuda_cache_preset_prepare (s->preset, s->in_data, s->in_stride,
          out_data, out_stride, &a, l);
      slot->slot.params = a.c;
      slot->preset = a.p;
    } else {
      g_return_val_if_fail (s->plan != NULL && s->plan->kernels->context ==
          kernels->context, FALSE);
      plan_prepare (s->plan, s->in_data, s->in_stride, out_data, out_stride,
          &slot->slot.params, l);
    }
    l->kernel = gst_cuda_cache_kernel_batch_twin (l->kernel);
    g_return_val_if_fail (l->kernel != GST_CUDA_CACHE_KERNEL_NONE, FALSE);
    slot->slot.grid_w = l->grid_w;
    slot->slot.grid_h = l->grid_h;
  }

  /* the slots of one kernel (and block) next to each other in the table,
   * each group in the order of its first slot, the slots in theirs: a
   * launch per group */
  for (i = 0; i < n; i++) {
    batch->group[i] = i;
    for (j = 0; j < i; j++) {
      if (same_launch (&batch->prepared_launches[j],
              &batch->prepared_launches[i])) {
        batch->group[i] = batch->group[j];
        break;
      }
    }
  }
  for (i = 0; i < n; i++) {
    if (batch->group[i] != i)
      continue;
    /* each kernel's table 16-byte aligned, as a table of one kind of slot
     * alone would be */
    bytes = GST_ROUND_UP_16 (bytes);
    for (j = i; j < n; j++) {
      const GstCudaCacheLaunch *l = &batch->prepared_launches[j];
      /* the presets' twins read the larger slots */
      gsize size = gst_cuda_cache_kernel_info[l->kernel].family ==
          GST_CUDA_CACHE_KERNEL_FAMILY_RESAMPLE ? sizeof (PresetBatchSlot) :
          sizeof (ConvertBatchSlot);

      if (batch->group[j] == i) {
        memcpy (batch->host + bytes, &batch->prepared[j], size);
        batch->offsets[placed] = bytes;
        batch->launches[placed++] = *l;
        bytes += size;
      }
    }
  }
  placed = 0;

  if (!gst_cuda_context_push (kernels->context)) {
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context");
    return FALSE;
  }

  /* on the batch's stream, so that the launches read this batch's table
   * and the next batch's copy waits for them */
  copy.srcMemoryType = CU_MEMORYTYPE_HOST;
  copy.srcHost = batch->host;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = batch->table;
  copy.srcPitch = copy.dstPitch = copy.WidthInBytes = bytes;
  copy.Height = 1;
  ok = gst_cuda_result (CuMemcpy2DAsync (&copy, stream));

  for (i = 0; ok && i < n; i = placed) {
    const GstCudaCacheLaunch *first = &batch->launches[i];
    guint grid_w = 0, grid_h = 0, shared = 0;
    ConvertBatch b = { 0, };
    void *args[] = { &b };

    for (placed = i; placed < n; placed++) {
      const GstCudaCacheLaunch *l = &batch->launches[placed];

      if (!same_launch (l, first))
        break;
      grid_w = MAX (grid_w, l->grid_w);
      grid_h = MAX (grid_h, l->grid_h);
      shared = MAX (shared, l->shared_bytes);
    }
    b.slots = batch->table + batch->offsets[i];
    /* the last launch signals: the stream orders the others before it */
    gst_cuda_cache_kernel_done_next (placed == n ? done : NULL, stream,
        &b.done_counter, &b.done_flag, &b.done_seq);
    GST_LOG ("launching %s for %u slots, %ux%u blocks of %ux%u",
        gst_cuda_cache_kernel_info[first->kernel].name, placed - i, grid_w,
        grid_h, first->block_w, first->block_h);
    ok = gst_cuda_result (CuLaunchKernel (kernels->functions[first->kernel],
            grid_w, grid_h, placed - i, first->block_w, first->block_h, 1,
            shared, stream, args, NULL));
    launches++;
  }
  if (launches > 0)
    gst_cuda_cache_kernels_mark_launch (kernels, stream);
  gst_cuda_context_pop (NULL);

  if (n_launches)
    *n_launches = launches;
  return ok;
}

void
gst_cuda_cache_kernel_batch_free (GstCudaCacheKernelBatch * batch)
{
  if (!batch)
    return;

  /* a batch nobody waited for (1.24 and later) may still read the table */
  if (batch->block)
    gst_cuda_cache_kernels_retire (batch->kernels, batch->block);
  g_free (batch->host);
  g_free (batch->launches);
  g_free (batch->offsets);
  g_free (batch->prepared);
  g_free (batch->prepared_launches);
  g_free (batch->group);
  g_free (batch);
}

/* ---- the completion signal --------------------------------------------- */

GstCudaCacheKernelDone *
gst_cuda_cache_kernel_done_new (GstCudaCacheKernels * kernels)
{
  GstCudaCacheKernelDone *done;
  CUdevice device;
  guint device_id = 0;
  gint unified = 0, map = 0;
  guint32 zero = 0;
  gsize pitch;
  gboolean ok;

  g_return_val_if_fail (kernels != NULL, NULL);

  g_object_get (kernels->context, "cuda-device-id", &device_id, NULL);
  if (!gst_cuda_context_push (kernels->context)) {
    GST_ERROR_OBJECT (kernels->context, "could not push the CUDA context");
    return NULL;
  }

  done = g_new0 (GstCudaCacheKernelDone, 1);
  ok = gst_cuda_result (CuDeviceGet (&device, device_id)) &&
      gst_cuda_result (CuDeviceGetAttribute (&unified,
          CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, device)) &&
      gst_cuda_result (CuDeviceGetAttribute (&map,
          CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, device));
  /* with unified addressing, pinned host memory is the device's at the
   * same address */
  if (ok && (!unified || !map)) {
    GST_INFO_OBJECT (kernels->context, "the device cannot write host memory "
        "at its own address: conversions are waited for by their stream");
    ok = FALSE;
  } else if (ok) {
    ok = gst_cuda_result (CuMemAllocHost ((void **) &done->flag,
            sizeof (guint32)));
    if (ok) {
      done->counter_block = gst_cuda_cache_kernels_acquire (kernels,
          sizeof (guint32), 1, &done->counter, &pitch);
      ok = done->counter_block != NULL;
    }
    if (ok) {
      *done->flag = 0;
      /* the block may come back from the cache with any value */
      ok = copy_to_device (kernels, done->counter, &zero, sizeof (guint32));
    }
    if (!ok)
      GST_WARNING_OBJECT (kernels->context, "could not allocate a completion "
          "signal: conversions are waited for by their stream");
  }

  if (!ok) {
    if (done->flag)
      gst_cuda_result (CuMemFreeHost (done->flag));
    if (done->counter_block)
      gst_memory_unref (done->counter_block);
    g_clear_pointer (&done, g_free);
  } else {
    done->context = gst_object_ref (kernels->context);
  }
  gst_cuda_context_pop (NULL);

  return done;
}

gboolean
gst_cuda_cache_kernels_wait (GstCudaCacheKernels * kernels, CUstream stream,
    GstCudaCacheKernelDone * done)
{
  return gst_cuda_cache_kernels_wait_for (kernels, stream, done,
      done ? done->seq : 0);
}

guint32
gst_cuda_cache_kernel_done_get_seq (GstCudaCacheKernelDone * done)
{
  return done->seq;
}

static gboolean done_wait (GstCudaContext * context, CUstream stream,
    GstCudaCacheKernelDone * done, guint32 seq);

void
gst_cuda_cache_kernel_done_next (GstCudaCacheKernelDone * done,
    CUstream stream, unsigned long long *counter, unsigned long long *flag,
    unsigned int *seq)
{
  if (!done) {
    *counter = *flag = 0;
    *seq = 0;
    return;
  }
  /* one stream per signal: a launch on another waits for the last one of
   * the stream before (its own work) */
  if (done->seq != 0 && done->stream != stream) {
    GST_DEBUG_OBJECT (done->context, "signal moves from stream %p to %p: "
        "waiting for launch %u first", done->stream, stream, done->seq);
    if (!done_wait (done->context, done->stream, done, done->seq))
      GST_WARNING_OBJECT (done->context, "could not wait for stream %p",
          done->stream);
  }
  done->stream = stream;
  *counter = done->counter;
  *flag = (guintptr) done->flag;
  *seq = ++done->seq;
}

gboolean
gst_cuda_cache_kernels_wait_for (GstCudaCacheKernels * kernels,
    CUstream stream, GstCudaCacheKernelDone * done, guint32 seq)
{
  g_return_val_if_fail (kernels != NULL, FALSE);

  if (!done)
    return sync_stream (kernels->context, stream);
  return done_wait (kernels->context, stream, done, seq);
}

static gboolean
done_wait (GstCudaContext * context, CUstream stream,
    GstCudaCacheKernelDone * done, guint32 seq)
{
  gint64 deadline = 0;
  guint spins = 0;

  /* an atomic read: whatever follows is ordered after it. Launches of
   * one signal are on one stream, in order: the word passing @seq means
   * @seq's grid is done (compared as a difference, across wrapping) */
  while ((gint32) ((guint32) g_atomic_int_get ((gint *) done->flag) - seq) < 0) {
    if (++spins < DONE_SPINS)
      continue;
    if (deadline == 0) {
      deadline = g_get_monotonic_time () + DONE_WAIT_US;
    } else if (g_get_monotonic_time () >= deadline) {
      GST_LOG_OBJECT (context, "no signal after %d us: waiting for "
          "the stream", DONE_WAIT_US);
      return sync_stream (context, stream);
    }
    g_thread_yield ();
  }

  return TRUE;
}

void
gst_cuda_cache_kernel_done_free (GstCudaCacheKernelDone * done)
{
  if (!done)
    return;

  if (gst_cuda_context_push (done->context)) {
    gst_cuda_result (CuMemFreeHost (done->flag));
    gst_cuda_context_pop (NULL);
  } else {
    GST_ERROR_OBJECT (done->context, "could not push the CUDA context: "
        "leaking a completion signal");
  }
  /* no conversion of @done's in flight: the counter is 0 again */
  gst_memory_unref (done->counter_block);
  gst_object_unref (done->context);
  g_free (done);
}
