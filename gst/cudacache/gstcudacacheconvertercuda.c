/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The converter's CUDA back end: CUDA memory of the converter's context,
 * converted by the library's kernels (gstcudacachekernels-private.h) on a
 * stream, and the rules of who waits for that stream.
 *
 * The stream is the caller's, or where the caller passes none this back
 * end's own non-blocking one, made at the first such conversion: never the
 * legacy default stream, which waits for, and is waited for by, every
 * blocking stream of the context.
 *
 * Who waits follows GstCudaMemory's contract (GStreamer 1.24 and later):
 * memory allocated on a stream may be handed on with work still queued on
 * that stream, flagged GST_CUDA_MEMORY_TRANSFER_NEED_SYNC, and whoever
 * reads it from another stream waits first. So:
 *
 * - input and output memory still pending on another stream than the one
 *   the conversion is launched on are waited for before it is launched
 *   (work of the same stream is ordered by the stream);
 * - where the input and output memory were both allocated on the
 *   conversion's stream, the output is left flagged, the conversion still
 *   queued: whatever writes either next (their producers write on their
 *   memory's stream) is ordered after it by the stream;
 * - otherwise the conversion is waited for before the call returns (or,
 *   for a launched batch, before its frames are let go): output memory of
 *   another stream, or none (all of GStreamer 1.22's), says nothing of
 *   pending work, and input memory of another stream goes back to its
 *   producer, which may write the next frame into it on a stream that
 *   nothing orders after the conversion's reads. So is every conversion
 *   of input through a stand-in frame (16-bit 4:2:0, 4:2:2 packed), which
 *   the next frame reuses.
 *
 * The stream of the output memory is only compared with the stream the
 * conversion runs on, never launched on: the caller says which stream.
 *
 * The wait takes no call into the CUDA driver, whose stream
 * synchronisation is serialised between a process's threads: the kernels'
 * last block writes a completion signal into pinned host memory
 * (GstCudaCacheKernelDone). One signal serves every conversion this back
 * end waits for: each launch writes a sequence number of its own, and a
 * wait is for its number to pass, so batches launched and not yet waited
 * for (gst_cuda_cache_converter_launch_batch ()) share it; the launches of
 * one signal go on one stream, in order.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudamemory.h>

#include "gstcudacacheconvertercuda-private.h"
#include "gstcudacacheconvertparams-private.h"
#include "gstcudacache-compat-private.h"
#include "gstcudacache-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_converter_debug

struct _GstCudaCacheConverterCuda
{
  GstCudaContext *context;
  GstCudaCacheKernels *kernels;

  /* what it converts, from set_params */
  GstCudaCacheConverterInfo info;
  GstCudaCacheConvertParams params;
  GstCudaCacheKernelPlan *plan;

  /* the stream of conversions whose caller gives none: made at the
   * first */
  GstCudaCacheStream *stream;
  /* the completion signal of the conversions waited for here, made at the
   * first (done_made); NULL: they are waited for by their stream */
  GstCudaCacheKernelDone *done;
  gboolean done_made;
  /* the graph a frame's kernel is launched through, made at the first */
  GstCudaCacheDeviceGraph *graph;
  /* the stand-in frame of input the kernels do not read themselves
   * (16-bit 4:2:0, 4:2:2 packed), made with the first such caps */
  GstCudaCacheStandIn *stand_in;
  /* where the method is not LINEAR, the resampling presets' kernel, which
   * converts in the plan's stead (plan NULL) */
  GstCudaCachePreset *preset;
  /* the table of the batches this back end launches (the first present
   * slot's), made at the first */
  GstCudaCacheKernelBatch *batch;
};

GstCudaCacheConverterCuda *
gst_cuda_cache_converter_cuda_new (GstCudaContext * context, GError ** error)
{
  GstCudaCacheConverterCuda *cuda;
  GstCudaCacheKernels *kernels;

  kernels = gst_cuda_cache_kernels_new (context);
  if (!kernels) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "cannot convert CUDA memory: %s", gst_cuda_cache_kernels_built ()?
        "the library's kernels do not load on this device" :
        "the library was built without its CUDA kernels (no nvcc); "
        "convert in system memory instead");
    return NULL;
  }

  cuda = g_new0 (GstCudaCacheConverterCuda, 1);
  cuda->context = gst_object_ref (context);
  cuda->kernels = kernels;

  return cuda;
}

gboolean
gst_cuda_cache_converter_cuda_set_params (GstCudaCacheConverterCuda * cuda,
    const GstCudaCacheConverterInfo * info,
    const GstCudaCacheConvertParams * params, GError ** error)
{
  GstCudaCacheKernelPlan *plan = NULL;
  GstCudaCachePreset *preset = NULL;

  if (params->out_format == GST_VIDEO_FORMAT_GRAY8 ||
      GST_VIDEO_INFO_FORMAT (&info->in_info) == GST_VIDEO_FORMAT_GRAY8) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "GRAY8 frames are converted in system memory only (GStreamer 1.22's "
        "CUDA allocator does not lay them out); for gray in CUDA memory "
        "make a tensor of 1 channel");
    return FALSE;
  }
  if (params->method != GST_CUDA_CACHE_RESIZE_METHOD_LINEAR)
    preset = gst_cuda_cache_preset_new (cuda->kernels, params);
  else
    plan = gst_cuda_cache_kernel_plan_new (cuda->kernels, params);
  if (!plan && !preset) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "the CUDA kernels cannot convert %s to %s",
        GST_VIDEO_INFO_NAME (&info->in_info), info->tensor_out ?
        "a tensor" : GST_VIDEO_INFO_NAME (&info->out_info));
    g_clear_pointer (&preset, gst_cuda_cache_preset_free);
    return FALSE;
  }
  /* the stand-in's room now, so that a device without it refuses the
   * caps rather than the first frame (the presets read it too) */
  if (params->in_format != GST_VIDEO_INFO_FORMAT (&info->in_info)) {
    if (!cuda->stand_in)
      cuda->stand_in = gst_cuda_cache_stand_in_new (cuda->kernels);
    if (!gst_cuda_cache_stand_in_reserve (cuda->stand_in, &info->in_info)) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
          "no device memory for the %s frame the kernels convert %dx%d %s "
          "input as", gst_video_format_to_string (params->in_format),
          params->in_width, params->in_height,
          GST_VIDEO_INFO_NAME (&info->in_info));
      g_clear_pointer (&plan, gst_cuda_cache_kernel_plan_free);
      g_clear_pointer (&preset, gst_cuda_cache_preset_free);
      return FALSE;
    }
  }

  g_clear_pointer (&cuda->plan, gst_cuda_cache_kernel_plan_free);
  cuda->plan = plan;
  g_clear_pointer (&cuda->preset, gst_cuda_cache_preset_free);
  cuda->preset = preset;
  cuda->info = *info;
  cuda->params = *params;

  return TRUE;
}

/* Whether every memory of @buf is CUDA memory of @context. */
static gboolean
buffer_in_context (GstBuffer * buf, GstCudaContext * context,
    const gchar * side, GError ** error)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);

    if (!gst_is_cuda_memory (mem)) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
          "the %s buffer mixes CUDA and system memory", side);
      return FALSE;
    }
    if (GST_CUDA_MEMORY_CAST (mem)->context != context) {
      gst_cuda_cache_converter_set_error (error, GST_STREAM_ERROR,
          GST_STREAM_ERROR_WRONG_TYPE, "the %s buffer's CUDA memory belongs "
          "to another CUDA context (%" GST_PTR_FORMAT ") than the "
          "converter's (%" GST_PTR_FORMAT "): its device pointers are not "
          "valid there. Let the elements share one context (GstContext), or "
          "download and upload between them", side,
          GST_CUDA_MEMORY_CAST (mem)->context, context);
      return FALSE;
    }
  }

  return TRUE;
}

/* Whether @mem was allocated on @stream (never before 1.24, where memory
 * carries no stream). */
static gboolean
memory_on_stream (GstMemory * mem, CUstream stream)
{
  GstCudaCacheStream *mem_stream =
      gst_cuda_cache_compat_memory_get_stream (mem);

  return mem_stream &&
      gst_cuda_cache_compat_stream_handle (mem_stream) == stream;
}

static gboolean
buffer_on_stream (GstBuffer * buf, CUstream stream)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    if (!memory_on_stream (gst_buffer_peek_memory (buf, i), stream))
      return FALSE;
  }

  return TRUE;
}

/* Waits for work still pending on @buf's memory from streams other than
 * @stream; work queued on @stream itself is ordered before what follows. */
static void
buffer_sync_other_streams (GstBuffer * buf, CUstream stream)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);

    if (!memory_on_stream (mem, stream))
      gst_cuda_cache_compat_memory_sync (mem);
  }
}

static void
buffer_set_need_sync (GstBuffer * buf, gboolean need_sync)
{
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++)
    gst_cuda_cache_compat_memory_set_need_sync (gst_buffer_peek_memory (buf,
            i), need_sync);
}

/* The stream a conversion launches on: @stream, or else @cuda's own,
 * made at the first; NULL where it cannot be made. */
static CUstream
cuda_stream (GstCudaCacheConverterCuda * cuda, CUstream stream, GError ** error)
{
  if (stream)
    return stream;
  if (!cuda->stream)
    cuda->stream = gst_cuda_cache_compat_stream_new (cuda->context);
  if (!cuda->stream) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "could not create a CUDA stream");
    return NULL;
  }
  return gst_cuda_cache_compat_stream_handle (cuda->stream);
}

/* Whether @cuda's conversions go through a frame of its own (a stand-in),
 * which the next conversion rewrites: they are waited for before the
 * call returns. */
static gboolean
cuda_uses_frames (GstCudaCacheConverterCuda * cuda)
{
  return cuda->params.in_format != GST_VIDEO_INFO_FORMAT (&cuda->info.in_info);
}

/* Whether converting @inbuf with @cuda on @stream must be waited for
 * before @inbuf is let go (the top of this file): a stand-in frame the
 * next conversion rewrites, or input of another stream, whose producer
 * nothing orders after the conversion's reads. */
static gboolean
cuda_input_needs_wait (GstCudaCacheConverterCuda * cuda, GstBuffer * inbuf,
    CUstream stream)
{
  return cuda_uses_frames (cuda) || !buffer_on_stream (inbuf, stream);
}

/* One frame's input, mapped, and the planes the plan (or preset) reads:
 * the source rectangle's, or its stand-in's, launched on @stream. */
typedef struct
{
  GstVideoFrame frame;
  gboolean mapped;
  guintptr data[3];
  gint stride[3];
} CudaInput;

static gboolean
cuda_input_prepare (GstCudaCacheConverterCuda * cuda, GstBuffer * inbuf,
    CUstream stream, CudaInput * in, GError ** error)
{
  const GstCudaCacheConverterInfo *info = &cuda->info;
  const GstCudaCacheConvertParams *p = &cuda->params;
  GstVideoInfo source;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gboolean ok = TRUE;
  guint i;

  memset (in, 0, sizeof (*in));
  if (!gst_cuda_cache_converter_frame_map (&in->frame, &info->in_info, inbuf,
          GST_MAP_READ | GST_MAP_CUDA, "input", error))
    return FALSE;
  in->mapped = TRUE;
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (&in->frame); i++) {
    in->data[i] = (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&in->frame, i);
    in->stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&in->frame, i);
  }

  /* the source rectangle; its stand-in, where there is one, is what the
   * plan converts */
  gst_cuda_cache_convert_params_source_offsets (p,
      GST_VIDEO_INFO_FORMAT (&info->in_info), in->stride, offset);
  for (i = 0; i < 3; i++)
    in->data[i] += offset[i];
  source = info->in_info;
  GST_VIDEO_INFO_WIDTH (&source) = p->in_width;
  GST_VIDEO_INFO_HEIGHT (&source) = p->in_height;
  if (p->in_format != GST_VIDEO_INFO_FORMAT (&info->in_info))
    ok = gst_cuda_cache_stand_in_launch (cuda->stand_in, &source,
        p->yuv_to_rgb, p->in_chroma_site, stream, in->data, in->stride);
  if (!ok)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "CUDA conversion of %dx%d %s failed before its kernel (its "
        "stand-in frame)", p->in_width, p->in_height,
        GST_VIDEO_INFO_NAME (&info->in_info));
  return ok;
}

static void
cuda_input_clear (CudaInput * in)
{
  if (in->mapped)
    gst_video_frame_unmap (&in->frame);
  in->mapped = FALSE;
}

/* The completion signal of the conversions waited for here, made at the
 * first; NULL: waited for by their stream */
static GstCudaCacheKernelDone *
cuda_done (GstCudaCacheConverterCuda * cuda)
{
  if (!cuda->done_made) {
    cuda->done = gst_cuda_cache_kernel_done_new (cuda->kernels);
    cuda->done_made = TRUE;
  }
  return cuda->done;
}

gboolean
gst_cuda_cache_converter_cuda_convert (GstCudaCacheConverterCuda * cuda,
    GstBuffer * inbuf, GstBuffer * outbuf, CUstream stream, GError ** error)
{
  const GstCudaCacheConverterInfo *info = &cuda->info;
  const GstCudaCacheConvertParams *p = &cuda->params;
  guintptr out_data[3] = { 0, };
  gint out_stride[3] = { 0, };
  GstVideoFrame out_frame;
  CudaInput in;
  GstMapInfo map;
  GstCudaCacheKernelDone *done;
  gboolean wait, ok;
  guint i;

  if (!buffer_in_context (inbuf, cuda->context, "input", error) ||
      !buffer_in_context (outbuf, cuda->context, "output", error))
    return FALSE;

  stream = cuda_stream (cuda, stream, error);
  if (!stream)
    return FALSE;
  /* see the top of this file */
  wait = !buffer_on_stream (outbuf, stream) ||
      cuda_input_needs_wait (cuda, inbuf, stream);
  done = wait ? cuda_done (cuda) : NULL;
  GST_LOG ("converting on stream %p, %s", stream, wait ? "waiting for it" :
      "left to the output's readers to wait for");

  /* the output too: its last reader may be on another stream */
  buffer_sync_other_streams (inbuf, stream);
  buffer_sync_other_streams (outbuf, stream);

  if (info->tensor_out) {
    if (!gst_buffer_map (outbuf, &map, GST_MAP_WRITE | GST_MAP_CUDA))
      goto map_failed;
    if (!gst_cuda_cache_converter_tensor_fits (info, map.size, error)) {
      gst_buffer_unmap (outbuf, &map);
      return FALSE;
    }
    out_data[0] = (guintptr) map.data;
  } else {
    if (!gst_cuda_cache_converter_frame_map (&out_frame, &info->out_info,
            outbuf, GST_MAP_WRITE | GST_MAP_CUDA, "output", error))
      return FALSE;
    for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (&out_frame); i++) {
      out_data[i] = (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&out_frame, i);
      out_stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, i);
    }
  }

  ok = cuda_input_prepare (cuda, inbuf, stream, &in, error);
  if (ok) {
    if (cuda->preset)
      ok = gst_cuda_cache_preset_launch (cuda->preset, in.data, in.stride,
          out_data, out_stride, stream, done, &cuda->graph);
    else
      ok = gst_cuda_cache_kernel_plan_launch (cuda->plan, in.data, in.stride,
          out_data, out_stride, stream, done, &cuda->graph);
    if (ok && wait)
      ok = gst_cuda_cache_kernels_wait (cuda->kernels, stream, done);
    if (!ok)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
          "CUDA conversion of %dx%d %s to %dx%d %s failed", p->in_width,
          p->in_height, GST_VIDEO_INFO_NAME (&info->in_info), p->out_width,
          p->out_height, info->tensor_out ? "tensor" :
          GST_VIDEO_INFO_NAME (&info->out_info));
  } else if (wait) {
    /* what was launched reads the input and the frames: done before the
     * input is unmapped */
    gst_cuda_cache_kernels_wait (cuda->kernels, stream, NULL);
  }

  if (info->tensor_out)
    gst_buffer_unmap (outbuf, &map);
  else
    gst_video_frame_unmap (&out_frame);
  cuda_input_clear (&in);

  if (!ok)
    return FALSE;

  /* written now, or once the output's stream is waited for */
  buffer_set_need_sync (outbuf, !wait);

  return TRUE;

  /* ERRORS */
map_failed:
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "could not map CUDA memory for the conversion");
  return FALSE;
}

gboolean
gst_cuda_cache_converter_cuda_wait_pending (GstCudaCacheConverterCudaPending *
    pending)
{
  gboolean ok = TRUE;
  guint i;

  if (!pending->kernels)
    return TRUE;
  ok = gst_cuda_cache_kernels_wait_for (pending->kernels, pending->stream,
      pending->done, pending->seq);
  pending->kernels = NULL;
  for (i = 0; ok && i < pending->memory->len; i++)
    gst_cuda_cache_compat_memory_set_need_sync (g_ptr_array_index
        (pending->memory, i), FALSE);
  g_clear_pointer (&pending->memory, g_ptr_array_unref);

  return ok;
}

gboolean
gst_cuda_cache_converter_cuda_convert_batch (GstCudaCacheConverterCuda **
    slots, GstBuffer ** inbufs, guint n, GstBuffer * outbuf, gsize slot_size,
    CUstream stream, GstCudaCacheConverterCudaPending * pending,
    guint * n_launches, GError ** error)
{
  GstCudaCacheConverterCuda *first = NULL;
  GstCudaCacheKernelBatchSlot *launch;
  CudaInput *in;
  GstCudaCacheKernelDone *done;
  GstMapInfo map;
  guint i, first_slot = 0, n_launch = 0;
  gboolean wait, ok = TRUE;

  for (i = 0; i < n && !first; i++) {
    first = slots[i];
    first_slot = i;
  }
  g_return_val_if_fail (first != NULL, FALSE);

  if (!buffer_in_context (outbuf, first->context, "output", error))
    return FALSE;
  for (i = 0; i < n; i++) {
    if (!slots[i])
      continue;
    if (slots[i]->context != first->context) {
      gst_cuda_cache_converter_set_error (error, GST_STREAM_ERROR,
          GST_STREAM_ERROR_WRONG_TYPE, "its converter belongs to another "
          "CUDA context (%" GST_PTR_FORMAT ") than slot %u's (%"
          GST_PTR_FORMAT ")", slots[i]->context, first_slot, first->context);
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
    if (!buffer_in_context (inbufs[i], first->context, "input", error)) {
      gst_cuda_cache_converter_slot_error (error, i);
      return FALSE;
    }
  }

  stream = cuda_stream (first, stream, error);
  if (!stream)
    return FALSE;
  wait = !buffer_on_stream (outbuf, stream);
  for (i = 0; i < n; i++)
    wait |= slots[i] && cuda_input_needs_wait (slots[i], inbufs[i], stream);
  done = wait ? cuda_done (first) : NULL;
  if (!first->batch)
    first->batch = gst_cuda_cache_kernel_batch_new (first->kernels);

  for (i = 0; i < n; i++) {
    if (inbufs[i])
      buffer_sync_other_streams (inbufs[i], stream);
  }
  buffer_sync_other_streams (outbuf, stream);

  if (!gst_cuda_cache_converter_batch_map (outbuf,
          GST_MAP_WRITE | GST_MAP_CUDA, n, slot_size, &map, error))
    return FALSE;

  in = g_new0 (CudaInput, n);
  launch = g_new0 (GstCudaCacheKernelBatchSlot, n);
  for (i = 0; i < n && ok; i++) {
    guintptr slot = (guintptr) map.data + i * slot_size;

    if (!slots[i]) {
      ok = gst_cuda_cache_device_memset_async (first->context, slot, 0,
          slot_size, stream);
      if (!ok)
        g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
            "could not clear slot %u of the batch", i);
      continue;
    }
    if (!slots[i]->info.tensor_out || slots[i]->info.tensor.size != slot_size) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "its converter does not make a tensor of the batch's slots (%"
          G_GSIZE_FORMAT " bytes)", slot_size);
      gst_cuda_cache_converter_slot_error (error, i);
      ok = FALSE;
      break;
    }
    ok = cuda_input_prepare (slots[i], inbufs[i], stream, &in[i], error);
    if (!ok) {
      gst_cuda_cache_converter_slot_error (error, i);
      break;
    }
    launch[n_launch].plan = slots[i]->plan;
    launch[n_launch].preset = slots[i]->preset;
    memcpy (launch[n_launch].in_data, in[i].data, sizeof (in[i].data));
    memcpy (launch[n_launch].in_stride, in[i].stride, sizeof (in[i].stride));
    launch[n_launch].out_data = slot;
    n_launch++;
  }

  if (ok && n_launch > 0) {
    ok = gst_cuda_cache_kernel_batch_launch (first->batch, launch, n_launch,
        stream, done, n_launches);
  } else if (n_launches) {
    *n_launches = 0;
  }
  /* what was launched reads the inputs and the frames: done before they
   * are unmapped, or, deferred, before the caller lets them go (the
   * mapping of CUDA memory for CUDA only gives its address); a batch of
   * absent slots has no signal */
  if (ok && wait && pending) {
    pending->kernels = first->kernels;
    pending->done = n_launch > 0 ? done : NULL;
    pending->seq = pending->done ?
        gst_cuda_cache_kernel_done_get_seq (done) : 0;
    pending->stream = stream;
    pending->memory = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_memory_unref);
    for (i = 0; i < gst_buffer_n_memory (outbuf); i++)
      g_ptr_array_add (pending->memory,
          gst_memory_ref (gst_buffer_peek_memory (outbuf, i)));
  } else if (ok && wait)
    ok = gst_cuda_cache_kernels_wait (first->kernels, stream,
        n_launch > 0 ? done : NULL);
  else if (!ok)
    gst_cuda_cache_kernels_wait (first->kernels, stream, NULL);
  if (!ok && error && !*error)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "the CUDA conversion of a batch of %u failed", n);

  gst_buffer_unmap (outbuf, &map);
  for (i = 0; i < n; i++)
    cuda_input_clear (&in[i]);
  g_free (in);
  g_free (launch);

  if (ok)
    buffer_set_need_sync (outbuf, !wait || pending);
  return ok;
}

void
gst_cuda_cache_converter_cuda_free (GstCudaCacheConverterCuda * cuda)
{
  if (!cuda)
    return;

  /* what borrows the kernels first */
  g_clear_pointer (&cuda->plan, gst_cuda_cache_kernel_plan_free);
  g_clear_pointer (&cuda->preset, gst_cuda_cache_preset_free);
  g_clear_pointer (&cuda->batch, gst_cuda_cache_kernel_batch_free);
  g_clear_pointer (&cuda->done, gst_cuda_cache_kernel_done_free);
  g_clear_pointer (&cuda->stand_in, gst_cuda_cache_stand_in_free);
  if (cuda->graph) {
    if (gst_cuda_context_push (cuda->context)) {
      gst_cuda_cache_device_graph_free (cuda->graph);
      gst_cuda_context_pop (NULL);
    } else {
      GST_ERROR ("could not push the CUDA context: leaking a launch graph");
    }
  }
  g_clear_pointer (&cuda->kernels, gst_cuda_cache_kernels_free);
  gst_cuda_cache_compat_stream_clear (&cuda->stream);
  gst_clear_object (&cuda->context);
  g_free (cuda);
}
