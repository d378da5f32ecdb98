/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The CUDA kernels' own memory as blocks of the device's cache
 * (gstcudacachescratch-private.h): single blocks, and the arenas the
 * plans' tap tables are appended to. The cache counts them, holds them to
 * its limit and frees them on its reaper thread; this keeps the arenas'
 * books. Allocator-agnostic, as the cache is: the kernels make CUDA
 * blocks, the tests system memory. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudacachescratch-private.h"
#include "gstcudacache-private.h"
#include "gstcudacacheplan-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

/* One table of an arena, as uploaded, for later plans to find it. */
typedef struct
{
  guint32 *values;
  gsize n_values;
  gsize offset;                 /* bytes into the arena */
} GstCudaCacheTapTable;

struct _GstCudaCacheTapArena
{
  GstMemory *block;
  guint64 address;
  gsize size;                   /* bytes */
  gsize used;
  guint users;                  /* tables placed and not released */
  gboolean retired;
  GPtrArray *tables;            /* GstCudaCacheTapTable, while current */
};

struct _GstCudaCacheScratch
{
  GstCudaCache *cache;
  gchar *group;
  GstCudaCacheScratchFuncs funcs;
  gpointer user_data;
  GstCudaCacheTapArena *arena;  /* the current one */
};

/* The shape of one block, for the cache's alloc function. */
typedef struct
{
  GstCudaCacheScratch *scratch;
  gsize row_bytes;
  gsize rows;
} GstCudaCacheScratchShape;

GstCudaCacheScratch *
gst_cuda_cache_scratch_new (GstCudaCache * cache, const gchar * group,
    const GstCudaCacheScratchFuncs * funcs, gpointer user_data)
{
  GstCudaCacheScratch *scratch;

  g_return_val_if_fail (GST_IS_CUDA_CACHE (cache), NULL);
  g_return_val_if_fail (group != NULL, NULL);
  g_return_val_if_fail (funcs != NULL && funcs->alloc && funcs->address &&
      funcs->upload && funcs->retire, NULL);

  gst_cuda_cache_kernels_init_debug ();

  scratch = g_new0 (GstCudaCacheScratch, 1);
  scratch->cache = gst_object_ref (cache);
  scratch->group = g_strdup (group);
  scratch->funcs = *funcs;
  scratch->user_data = user_data;
  gst_cuda_cache_group_add_user (cache, group);

  return scratch;
}

static GstMemory *
gst_cuda_cache_scratch_alloc (gpointer user_data)
{
  GstCudaCacheScratchShape *shape = user_data;
  GstCudaCacheScratch *scratch = shape->scratch;

  return scratch->funcs.alloc (shape->row_bytes, shape->rows,
      scratch->user_data);
}

GstMemory *
gst_cuda_cache_scratch_acquire (GstCudaCacheScratch * scratch, gsize row_bytes,
    gsize rows)
{
  GstCudaCacheScratchShape shape;
  GstMemory *block;
  gchar *key;

  g_return_val_if_fail (scratch != NULL, NULL);
  g_return_val_if_fail (row_bytes > 0 && rows > 0, NULL);

  shape.scratch = scratch;
  shape.row_bytes = GST_ROUND_UP_4 (row_bytes);
  shape.rows = rows;
  key = g_strdup_printf ("kernels-scratch,%" G_GSIZE_FORMAT "x%"
      G_GSIZE_FORMAT, shape.row_bytes, shape.rows);
  block = gst_cuda_cache_acquire_in_group (scratch->cache, scratch->group,
      key, gst_cuda_cache_scratch_alloc, &shape);
  if (!block) {
    GST_WARNING_OBJECT (scratch->cache, "out of memory for \"%s\" in group "
        "%s: %" G_GSIZE_FORMAT " rows of %" G_GSIZE_FORMAT " bytes", key,
        scratch->group, shape.rows, shape.row_bytes);
  }
  g_free (key);

  return block;
}

static void
gst_cuda_cache_tap_table_free (GstCudaCacheTapTable * t)
{
  g_free (t->values);
  g_free (t);
}

/* Hands @arena's block to the retire function, which gives it back to the
 * cache once no kernel reads it. */
static void
gst_cuda_cache_tap_arena_free (GstCudaCacheScratch * scratch,
    GstCudaCacheTapArena * arena)
{
  GST_DEBUG_OBJECT (scratch->cache, "returning an arena of %" G_GSIZE_FORMAT
      " bytes of tap tables (%" G_GSIZE_FORMAT " used)", arena->size,
      arena->used);
  scratch->funcs.retire (arena->block, scratch->user_data);
  g_clear_pointer (&arena->tables, g_ptr_array_unref);
  g_free (arena);
}

static GstCudaCacheTapArena *
gst_cuda_cache_tap_arena_new (GstCudaCacheScratch * scratch, gsize bytes)
{
  GstCudaCacheTapArena *arena = g_new0 (GstCudaCacheTapArena, 1);

  arena->size = MAX (GST_CUDA_CACHE_TAP_ARENA_MIN_BYTES,
      GST_ROUND_UP_N (2 * bytes, 4096));
  arena->block = gst_cuda_cache_scratch_acquire (scratch, arena->size, 1);
  if (!arena->block) {
    g_free (arena);
    return NULL;
  }
  arena->address = scratch->funcs.address (arena->block, scratch->user_data);
  arena->tables = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_cuda_cache_tap_table_free);

  return arena;
}

/* The table of @arena equal to @table, or NULL. */
static GstCudaCacheTapTable *
gst_cuda_cache_tap_arena_find (GstCudaCacheTapArena * arena,
    const GArray * table)
{
  guint i;

  for (i = 0; arena && i < arena->tables->len; i++) {
    GstCudaCacheTapTable *t = g_ptr_array_index (arena->tables, i);

    if (t->n_values == table->len &&
        memcmp (t->values, table->data, table->len * sizeof (guint32)) == 0)
      return t;
  }
  return NULL;
}

GstCudaCacheTapArena *
gst_cuda_cache_scratch_place_table (GstCudaCacheScratch * scratch,
    const GArray * table, guint64 * address)
{
  gsize bytes;
  GstCudaCacheTapArena *a;
  GstCudaCacheTapTable *t;

  g_return_val_if_fail (scratch != NULL, NULL);
  g_return_val_if_fail (table != NULL && table->len > 0, NULL);
  g_return_val_if_fail (address != NULL, NULL);

  bytes = table->len * sizeof (guint32);
  a = scratch->arena;
  t = gst_cuda_cache_tap_arena_find (a, table);
  if (!t) {
    if (a && a->used + bytes > a->size) {
      /* retired: goes back to the cache with its last table */
      a->retired = TRUE;
      g_clear_pointer (&a->tables, g_ptr_array_unref);
      if (a->users == 0)
        gst_cuda_cache_tap_arena_free (scratch, a);
      a = scratch->arena = NULL;
    }
    if (!a) {
      a = gst_cuda_cache_tap_arena_new (scratch, bytes);
      if (!a)
        goto no_memory;
      scratch->arena = a;
    }

    t = g_new0 (GstCudaCacheTapTable, 1);
    t->values = g_memdup2 (table->data, bytes);
    t->n_values = table->len;
    t->offset = a->used;
    /* into bytes no kernel reads yet */
    if (!scratch->funcs.upload (a->address + t->offset, t->values, bytes,
            scratch->user_data)) {
      gst_cuda_cache_tap_table_free (t);
      goto upload_failed;
    }
    a->used += GST_ROUND_UP_16 (bytes);
    g_ptr_array_add (a->tables, t);
  }

  a->users++;
  *address = a->address + t->offset;

  return a;

  /* ERRORS */
no_memory:
  {
    GST_ERROR_OBJECT (scratch->cache, "no memory for an arena of the taps' "
        "tables (%" G_GSIZE_FORMAT " bytes for this one)", bytes);
    return NULL;
  }
upload_failed:
  {
    GST_ERROR_OBJECT (scratch->cache, "could not copy the taps' table (%"
        G_GSIZE_FORMAT " bytes) to its arena", bytes);
    return NULL;
  }
}

void
gst_cuda_cache_scratch_release_table (GstCudaCacheScratch * scratch,
    GstCudaCacheTapArena * arena)
{
  g_return_if_fail (scratch != NULL);
  g_return_if_fail (arena != NULL && arena->users > 0);

  arena->users--;
  if (arena->retired && arena->users == 0)
    gst_cuda_cache_tap_arena_free (scratch, arena);
}

void
gst_cuda_cache_scratch_free (GstCudaCacheScratch * scratch)
{
  if (!scratch)
    return;

  if (scratch->arena) {
    if (scratch->arena->users > 0) {
      GST_ERROR_OBJECT (scratch->cache, "%u tap table(s) still in use: "
          "leaking their arena", scratch->arena->users);
    } else {
      gst_cuda_cache_tap_arena_free (scratch, scratch->arena);
    }
  }
  gst_cuda_cache_group_remove_user (scratch->cache, scratch->group);
  g_free (scratch->group);
  gst_object_unref (scratch->cache);
  g_free (scratch);
}
