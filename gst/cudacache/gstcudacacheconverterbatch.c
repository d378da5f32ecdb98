/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * Batches: frames of many converters into the slots of one tensor, at once
 * or launched and waited for later (#GstCudaCacheBatchLaunch), for
 * `cudacachebatch` and applications alike.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/cuda/gstcudamemory.h>

#include "gstcudacacheconverter-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_converter_debug

/**
 * GstCudaCacheBatchLaunch:
 *
 * A batch gst_cuda_cache_converter_launch_batch() launched: its output is
 * written once gst_cuda_cache_batch_launch_wait() returns. Until then it
 * keeps what the device reads: the slots' converters and frames.
 *
 * Since: 0.1
 */
struct _GstCudaCacheBatchLaunch
{
  gint refcount;
  /* what the device reads until the batch is written: the slots'
   * converters (their plans and tables; the first's kernels, stream and
   * signal) and frames */
  GPtrArray *converters;
  GPtrArray *frames;
  GstCudaCacheConverterCudaPending pending;
  gboolean waited;
  gboolean ok;
};

G_DEFINE_BOXED_TYPE (GstCudaCacheBatchLaunch, gst_cuda_cache_batch_launch,
    gst_cuda_cache_batch_launch_ref, gst_cuda_cache_batch_launch_unref);

/**
 * gst_cuda_cache_batch_launch_ref:
 * @launch: a #GstCudaCacheBatchLaunch
 *
 * Takes a reference on @launch, for an application that waits for it
 * (gst_cuda_cache_batch_launch_wait()) on another thread than the one that
 * launched it.
 *
 * Returns: (transfer full): @launch
 *
 * Since: 0.1
 */
GstCudaCacheBatchLaunch *
gst_cuda_cache_batch_launch_ref (GstCudaCacheBatchLaunch * launch)
{
  g_return_val_if_fail (launch != NULL, NULL);

  g_atomic_int_inc (&launch->refcount);
  return launch;
}

/**
 * gst_cuda_cache_batch_launch_unref:
 * @launch: (transfer full): a #GstCudaCacheBatchLaunch
 *
 * Drops a reference; the last waits for the batch where nobody did, so
 * that its input frames and output can go.
 *
 * Since: 0.1
 */
void
gst_cuda_cache_batch_launch_unref (GstCudaCacheBatchLaunch * launch)
{
  g_return_if_fail (launch != NULL);

  if (!g_atomic_int_dec_and_test (&launch->refcount))
    return;
  gst_cuda_cache_batch_launch_wait (launch, NULL);
  g_ptr_array_unref (launch->converters);
  g_ptr_array_unref (launch->frames);
  g_free (launch);
}

/**
 * gst_cuda_cache_batch_launch_wait:
 * @launch: a #GstCudaCacheBatchLaunch
 * @error: (nullable): where to say why the conversion failed
 *
 * Waits until the batch of @launch is written (at once where it is written
 * already, or was system memory). Only then may its output be read,
 * handed on or released, and its input frames released. Waiting again
 * gives the first wait's answer.
 *
 * Returns: %TRUE once the batch is written; %FALSE where its conversion
 *     failed on the device
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_batch_launch_wait (GstCudaCacheBatchLaunch * launch,
    GError ** error)
{
  g_return_val_if_fail (launch != NULL, FALSE);

  if (!launch->waited) {
    launch->ok = gst_cuda_cache_converter_cuda_wait_pending (&launch->pending);
    launch->waited = TRUE;
    /* written: what it read can go */
    g_ptr_array_set_size (launch->converters, 0);
    g_ptr_array_set_size (launch->frames, 0);
  }
  if (!launch->ok)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "the CUDA conversion of a batch failed");

  return launch->ok;
}

static gboolean convert_batch (GstCudaCacheConverter ** converters,
    guint n_converters, GstBuffer ** inbufs, guint n_inbufs,
    GstBuffer * outbuf, CUstream stream, GstCudaCacheBatchLaunch * launch,
    guint * n_launches, GError ** error);

/* The converter of a present slot, and the tensor it makes: NULL where
 * the slot is absent */
static GstCudaCacheConverter *
batch_slot (GstCudaCacheConverter ** converters, GstBuffer ** inbufs, guint i)
{
  return converters[i] && inbufs[i] ? converters[i] : NULL;
}

/**
 * gst_cuda_cache_converter_convert_batch:
 * @converters: (array length=n_slots) (nullable): per slot, the converter
 *     of its frame, or %NULL where the slot is absent
 * @inbufs: (array length=n_slots) (nullable): per slot, its frame, or
 *     %NULL where the slot is absent
 * @n_slots: the slots of the batch; none is refused with @error set
 * @outbuf: a writable tensor of @n_slots slots along its first dimension,
 *     each slot the tensor every present slot's converter makes (the
 *     converters' output caps: a tensor of batch 1), in the kind of memory
 *     of the frames
 * @stream: (type gpointer) (nullable): a `CUstream` of the converters'
 *     context to launch on; %NULL for the first present slot's
 *     converter's own
 * @n_launches: (out) (optional): the kernel launches the batch took
 *     (CUDA memory; 0 for system memory)
 * @error: (nullable): where to say why the conversion failed
 *
 * Converts frames of many streams into the slots of one tensor: slot i is
 * what gst_cuda_cache_converter_convert_buffer() makes of @inbufs[i] with
 * @converters[i], to the bit, and an absent slot is zeros. The converters
 * may convert different formats, sizes and source rectangles; their
 * outputs must all be the same tensor, and their frames of one kind of
 * memory (and, for CUDA memory, of one context).
 *
 * CUDA memory is converted in one kernel launch per kernel the slots
 * need: one where the frames share a format and are scaled alike (for
 * example, frames of one size), a few for a mix of formats and factors.
 * Each launch reads its slots' parameters from a table the first present
 * slot's converter keeps in the device's cache. The call waits as
 * gst_cuda_cache_converter_convert_buffer() does. System memory is
 * converted on the CPU, a slot at a time, in place.
 *
 * Like a single conversion, a batch is one thread's at a time: the
 * converters of a batch are not converting elsewhere meanwhile.
 *
 * A failure of one slot (its frame, or its converter) is an error of
 * #GST_CUDA_CACHE_BATCH_SLOT_ERROR whose code is the slot's index.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_convert_batch (GstCudaCacheConverter ** converters,
    GstBuffer ** inbufs, guint n_slots, GstBuffer * outbuf, CUstream stream,
    guint * n_launches, GError ** error)
{
  return convert_batch (converters, n_slots, inbufs, n_slots, outbuf, stream,
      NULL, n_launches, error);
}

/**
 * gst_cuda_cache_converter_convert_batch_full: (rename-to gst_cuda_cache_converter_convert_batch)
 * @converters: (array length=n_converters) (nullable): per slot, the
 *     converter of its frame, or %NULL where the slot is absent
 * @n_converters: the length of @converters
 * @inbufs: (array length=n_inbufs) (nullable): per slot, its frame, or
 *     %NULL where the slot is absent
 * @n_inbufs: the length of @inbufs: @n_converters, the slots of the batch
 * @outbuf: as for gst_cuda_cache_converter_convert_batch()
 * @stream: (type gpointer) (nullable): likewise
 * @n_launches: (out) (optional): likewise
 * @error: (nullable): where to say why the conversion failed
 *
 * gst_cuda_cache_converter_convert_batch() with a length for each array,
 * as bindings pass them (Python's `convert_batch (converters, frames,
 * ...)` is this call): arrays of different lengths, and a batch of no
 * slots, are refused with @error set.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_converter_convert_batch_full (GstCudaCacheConverter **
    converters, guint n_converters, GstBuffer ** inbufs, guint n_inbufs,
    GstBuffer * outbuf, CUstream stream, guint * n_launches, GError ** error)
{
  return convert_batch (converters, n_converters, inbufs, n_inbufs, outbuf,
      stream, NULL, n_launches, error);
}

/**
 * gst_cuda_cache_converter_launch_batch:
 * @converters: (array length=n_slots) (nullable): as for
 *     gst_cuda_cache_converter_convert_batch()
 * @inbufs: (array length=n_slots) (nullable): likewise
 * @n_slots: the slots of the batch
 * @outbuf: likewise
 * @stream: (type gpointer) (nullable): likewise
 * @n_launches: (out) (optional): likewise
 * @error: (nullable): where to say why the conversion failed
 *
 * gst_cuda_cache_converter_convert_batch() without its wait: CUDA memory's
 * batch is launched and the call returns at once, so that the caller
 * prepares the next batch while the device converts this one. @outbuf is
 * written once gst_cuda_cache_batch_launch_wait() returns for the launch
 * this returns, which keeps the converters and frames the device reads
 * until then; the caller keeps @outbuf, reads nothing of it and sets none
 * of the converters up anew (new caps or options free what the batch
 * reads) before the wait. Dropping the launch's last reference waits too. Launch the batches of one set of converters on one
 * stream (pass one; with %NULL, the first present slot's converter's own),
 * so that a batch's launch waits on the device for the one before.
 * System memory is converted before the call returns, as by
 * gst_cuda_cache_converter_convert_batch().
 *
 * Returns: (transfer full) (nullable): the launch, to wait for; %NULL
 *     with @error set where the batch was not launched
 *
 * Since: 0.1
 */
GstCudaCacheBatchLaunch *
gst_cuda_cache_converter_launch_batch (GstCudaCacheConverter ** converters,
    GstBuffer ** inbufs, guint n_slots, GstBuffer * outbuf, CUstream stream,
    guint * n_launches, GError ** error)
{
  return gst_cuda_cache_converter_launch_batch_full (converters, n_slots,
      inbufs, n_slots, outbuf, stream, n_launches, error);
}

/**
 * gst_cuda_cache_converter_launch_batch_full: (rename-to gst_cuda_cache_converter_launch_batch)
 * @converters: (array length=n_converters) (nullable): as for
 *     gst_cuda_cache_converter_convert_batch_full()
 * @n_converters: likewise
 * @inbufs: (array length=n_inbufs) (nullable): likewise
 * @n_inbufs: likewise
 * @outbuf: as for gst_cuda_cache_converter_launch_batch()
 * @stream: (type gpointer) (nullable): likewise
 * @n_launches: (out) (optional): likewise
 * @error: (nullable): where to say why the conversion failed
 *
 * gst_cuda_cache_converter_launch_batch() with a length for each array,
 * as bindings pass them: arrays of different lengths, and a batch of no
 * slots, are refused with @error set.
 *
 * Returns: (transfer full) (nullable): the launch, to wait for; %NULL
 *     with @error set where the batch was not launched
 *
 * Since: 0.1
 */
GstCudaCacheBatchLaunch *
gst_cuda_cache_converter_launch_batch_full (GstCudaCacheConverter **
    converters, guint n_converters, GstBuffer ** inbufs, guint n_inbufs,
    GstBuffer * outbuf, CUstream stream, guint * n_launches, GError ** error)
{
  GstCudaCacheBatchLaunch *launch = g_new0 (GstCudaCacheBatchLaunch, 1);
  guint i;

  launch->refcount = 1;
  launch->converters = g_ptr_array_new_with_free_func (gst_object_unref);
  launch->frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  if (!convert_batch (converters, n_converters, inbufs, n_inbufs, outbuf,
          stream, launch, n_launches, error)) {
    launch->waited = TRUE;
    gst_cuda_cache_batch_launch_unref (launch);
    return NULL;
  }
  for (i = 0; i < n_inbufs; i++) {
    if (!batch_slot (converters, inbufs, i))
      continue;
    g_ptr_array_add (launch->converters, gst_object_ref (converters[i]));
    g_ptr_array_add (launch->frames, gst_buffer_ref (inbufs[i]));
  }

  return launch;
}

/* Converts the batch; with @launch, CUDA memory's is launched, for
 * @launch to wait for (and to keep the converter it runs on). */
static gboolean
convert_batch (GstCudaCacheConverter ** converters, guint n_converters,
    GstBuffer ** inbufs, guint n_inbufs, GstBuffer * outbuf, CUstream stream,
    GstCudaCacheBatchLaunch * launch, guint * n_launches, GError ** error)
{
  GstCudaCacheConverter *first = NULL;
  guint n_slots = n_inbufs;
  gsize slot_size = 0;
  gboolean cuda, ok = TRUE;
  GstMapInfo map;
  guint i;

  g_return_val_if_fail (GST_IS_BUFFER (outbuf), FALSE);

  if (n_launches)
    *n_launches = 0;
  /* what bindings pass as lists: their mistakes are the caller's input */
  if (n_converters != n_inbufs) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "the lists of converters (%u) and frames (%u) differ in length: a "
        "batch takes one converter (or none, for an absent slot) per frame",
        n_converters, n_inbufs);
    return FALSE;
  }
  if (n_slots == 0) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "a batch of no slots: give one converter and one frame per slot");
    return FALSE;
  }
  g_return_val_if_fail (converters != NULL && inbufs != NULL, FALSE);
  if (gst_buffer_n_memory (outbuf) == 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "a batch buffer without memory");
    return FALSE;
  }
  cuda = gst_is_cuda_memory (gst_buffer_peek_memory (outbuf, 0));

  for (i = 0; i < n_slots; i++) {
    GstCudaCacheConverter *conv = batch_slot (converters, inbufs, i);

    if (!conv)
      continue;
    g_return_val_if_fail (GST_IS_CUDA_CACHE_CONVERTER (conv), FALSE);
    g_return_val_if_fail (GST_IS_BUFFER (inbufs[i]), FALSE);
    if (!conv->info.tensor_out) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "its converter makes video, not a tensor");
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
    if (!first) {
      first = conv;
      slot_size = conv->info.tensor.size;
    } else if (!gst_cuda_cache_tensor_info_is_equal (&conv->info.tensor,
            &first->info.tensor)) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "its converter makes another tensor than the other slots'");
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
    if (gst_buffer_n_memory (inbufs[i]) == 0 ||
        gst_is_cuda_memory (gst_buffer_peek_memory (inbufs[i], 0)) != cuda) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
          "its frame is not in %s memory, as the batch is",
          cuda ? "CUDA" : "system");
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
    if (cuda && !conv->cuda) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "its converter was made without a CUDA context: it converts "
          "system memory only");
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
    if (!gst_cuda_cache_converter_follow_crop (conv, inbufs[i], error)) {
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
  }
  if (!first) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "a batch without a frame: nothing to convert");
    return FALSE;
  }

  if (cuda) {
    GstCudaCacheConverterCuda **slots =
        g_newa (GstCudaCacheConverterCuda *, n_slots);

    for (i = 0; i < n_slots; i++) {
      GstCudaCacheConverter *conv = batch_slot (converters, inbufs, i);

      slots[i] = conv ? conv->cuda : NULL;
    }
    return gst_cuda_cache_converter_cuda_convert_batch (slots, inbufs,
        n_slots, outbuf, slot_size, stream, launch ? &launch->pending : NULL,
        n_launches, error);
  }

  /* system memory: each slot converted in place, through a buffer that
   * wraps its bytes */
  if (!gst_cuda_cache_converter_batch_map (outbuf, GST_MAP_WRITE, n_slots,
          slot_size, &map, error))
    return FALSE;
  for (i = 0; i < n_slots && ok; i++) {
    GstCudaCacheConverter *conv = batch_slot (converters, inbufs, i);
    guint8 *data = map.data + i * slot_size;
    GstBuffer *slot;

    if (!conv) {
      memset (data, 0, slot_size);
      continue;
    }
    if (!gst_cuda_cache_converter_get_cpu (conv, error)) {
      ok = FALSE;
      break;
    }
    slot = gst_buffer_new_wrapped_full (0, data, slot_size, 0, slot_size,
        NULL, NULL);
    ok = gst_cuda_cache_converter_cpu_convert (conv->cpu, inbufs[i], slot,
        error);
    gst_buffer_unref (slot);
    if (!ok)
      gst_cuda_cache_converter_slot_error (error, i);
  }
  gst_buffer_unmap (outbuf, &map);

  return ok;
}
