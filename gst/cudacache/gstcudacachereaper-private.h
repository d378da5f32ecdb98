/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_REAPER_PRIVATE_H__
#define __GST_CUDA_CACHE_REAPER_PRIVATE_H__

#include <gst/gst.h>

#include "gstcudacachethreadcounters-private.h"

G_BEGIN_DECLS

/* A thread that frees the memory a cache drops
 * (GST_CUDA_CACHE_FLAG_ASYNC_FREE): a device free synchronises the whole
 * device, and must not stall a streaming thread. */
typedef struct _GstCudaCacheReaper GstCudaCacheReaper;

G_GNUC_INTERNAL
GstCudaCacheReaper *gst_cuda_cache_reaper_new (void);

/* Queues @mems (transfer full: the list and the memories) to be freed. */
G_GNUC_INTERNAL
void gst_cuda_cache_reaper_free (GstCudaCacheReaper * reaper, GList * mems);

/* The time the thread spent freeing, added to @time */
G_GNUC_INTERNAL
void gst_cuda_cache_reaper_add_free_time (GstCudaCacheReaper * reaper,
    GstCudaCacheTime * time);

/* Waits until everything queued so far is freed. */
G_GNUC_INTERNAL
void gst_cuda_cache_reaper_drain (GstCudaCacheReaper * reaper);

/* Stops the thread once it has freed what is queued, and drops @reaper.
 * Joins the thread, or detaches it when called on it (a memory it freed
 * held the cache's last reference). */
G_GNUC_INTERNAL
void gst_cuda_cache_reaper_stop (GstCudaCacheReaper * reaper);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_REAPER_PRIVATE_H__ */
