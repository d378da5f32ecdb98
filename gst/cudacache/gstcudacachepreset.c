/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/* The resampling presets on the device (gstcudacachekernels-private.h):
 * gstcudacacheresample.c's tables uploaded once per set of params into a
 * block of the device's cache, and kernels/resample.cu's kernel of the
 * output's kind launched, which resamples and stores the output in one
 * launch. */

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
#include "gstcudacacheresample-private.h"
#include "gstcudacache-private.h"

#define GST_CAT_DEFAULT gst_cuda_cache_kernels_debug

/* How many presets the kernels keep beside the ones in use */
#define RECENT_PRESETS 8

struct _GstCudaCachePreset
{
  GstCudaCacheKernels *kernels;
  /* what it was made from, the planes' pointers and the source
   * rectangle's place left out: the launch gives those */
  GstCudaCacheConvertParams key;
  gint ref_count;               /* its users and the kernels' recent list */
  /* but for the planes: the table's pointer set */
  PresetConvert params;
  GstCudaCacheLaunch launch;
  GstMemory *table_block;
};

/* @params as a preset's key: zeroed first, so that padding compares */
static void
preset_key (GstCudaCacheConvertParams * key,
    const GstCudaCacheConvertParams * params)
{
  guint i;

  memset (key, 0, sizeof (*key));
  key->in_format = params->in_format;
  key->in_width = params->in_width;
  key->in_height = params->in_height;
  key->in_chroma_site = params->in_chroma_site;
  key->method = params->method;
  key->out_width = params->out_width;
  key->out_height = params->out_height;
  key->dest_x = params->dest_x;
  key->dest_y = params->dest_y;
  key->dest_width = params->dest_width;
  key->dest_height = params->dest_height;
  key->out_format = params->out_format;
  key->channels = params->channels;
  key->dtype = params->dtype;
  key->layout = params->layout;
  key->bgr = params->bgr;
  for (i = 0; i < 12; i++) {
    key->yuv_to_rgb[i] = params->yuv_to_rgb[i];
    key->rgb_to_yuv[i] = params->rgb_to_yuv[i];
  }
  for (i = 0; i < 3; i++) {
    key->fill[i] = params->fill[i];
    key->mul[i] = params->mul[i];
    key->add[i] = params->add[i];
  }
}

static GstCudaCachePreset *preset_make (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params);

GstCudaCachePreset *
gst_cuda_cache_preset_new (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params)
{
  GstCudaCacheConvertParams key;
  GstCudaCachePreset *preset;
  GQueue *recent;
  GList *l;

  g_return_val_if_fail (kernels != NULL, NULL);
  g_return_val_if_fail (params != NULL, NULL);

  preset_key (&key, params);
  recent = gst_cuda_cache_kernels_get_recent_presets (kernels);
  for (l = recent->head; l; l = l->next) {
    preset = l->data;
    if (memcmp (&preset->key, &key, sizeof (key)) == 0) {
      g_queue_unlink (recent, l);
      g_queue_push_head_link (recent, l);
      preset->ref_count++;
      GST_LOG ("a preset made before: %dx%d to %dx%d",
          params->in_width, params->in_height, params->dest_width,
          params->dest_height);
      return preset;
    }
  }

  preset = preset_make (kernels, params);
  if (!preset)
    return NULL;
  preset->key = key;
  /* kept among the recent ones: the oldest goes */
  preset->ref_count = 2;
  g_queue_push_head (recent, preset);
  if (recent->length > RECENT_PRESETS)
    gst_cuda_cache_preset_free (g_queue_pop_tail (recent));

  return preset;
}

static GstCudaCachePreset *
preset_make (GstCudaCacheKernels * kernels,
    const GstCudaCacheConvertParams * params)
{
  GstCudaCachePreset *preset;
  GstCudaCacheConvertParams picture;
  GstCudaCacheResampler *r;
  PresetParams *p;
  GArray *table;
  CUdeviceptr data;
  gsize pitch;
  gboolean lq;
  gint format, inc;

  g_return_val_if_fail (params->method != GST_CUDA_CACHE_RESIZE_METHOD_LINEAR,
      NULL);

  gst_cuda_cache_kernels_init_debug ();

  format = gst_cuda_cache_plan_format (params->in_format);
  if (format < 0 || format >= CONVERT_FORMAT_TENSOR) {
    GST_ERROR ("the presets' kernels do not read %s",
        gst_video_format_to_string (params->in_format));
    return NULL;
  }

  preset = g_new0 (GstCudaCachePreset, 1);
  preset->kernels = kernels;
  preset->ref_count = 1;

  /* the output's side, as the kernels would convert the picture at 1:1
   * (an 8-bit RGBx frame of its size) */
  picture = *params;
  picture.in_format = GST_VIDEO_FORMAT_RGBx;
  picture.in_width = params->dest_width;
  picture.in_height = params->dest_height;
  picture.src_x = picture.src_y = 0;
  picture.method = GST_CUDA_CACHE_RESIZE_METHOD_LINEAR;
  if (!gst_cuda_cache_plan_params (&picture, &preset->params.c, &lq, &inc)) {
    g_free (preset);
    return NULL;
  }
  r = gst_cuda_cache_resampler_new (params->method, params->in_width,
      params->in_height, params->dest_width, params->dest_height);
  if (!r) {
    g_free (preset);
    return NULL;
  }
  p = &preset->params.p;
  p->in_format = format;
  if (!gst_cuda_cache_plan_is_yuv (format))
    gst_cuda_cache_plan_packed_layout (format, &p->in_r, &p->in_g, &p->in_b,
        &p->in_pixel_bytes);
  p->chroma_site = gst_cuda_cache_plan_chroma_site (params->in_chroma_site);
  memcpy (p->yuv_to_rgb, params->yuv_to_rgb, sizeof (p->yuv_to_rgb));

  table = g_array_new (FALSE, FALSE, sizeof (gint32));
  gst_cuda_cache_resampler_kernel_table (r, p, table);
  gst_cuda_cache_resampler_free (r);

  gst_cuda_cache_plan_preset (&preset->params.c, p->kind, &preset->launch);
  if (preset->launch.kernel == GST_CUDA_CACHE_KERNEL_NONE) {
    GST_ERROR ("no resampling preset kernel makes output format %d with "
        "kind %d", preset->params.c.out_format, p->kind);
    g_array_unref (table);
    g_free (preset);
    return NULL;
  }

  /* a kind without arrays still gets a block: the pointer is never 0 */
  preset->table_block = gst_cuda_cache_kernels_acquire (kernels,
      MAX (table->len, 1) * sizeof (gint32), 1, &data, &pitch);
  if (preset->table_block) {
    p->tab = data;
    if (table->len > 0 && !gst_cuda_cache_kernels_upload (kernels, data,
            table->data, table->len * sizeof (gint32)))
      g_clear_pointer (&preset->table_block, gst_memory_unref);
  }
  GST_DEBUG ("%s: %dx%d to %dx%d, kind %d, a table of %u values; %s, %ux%u "
      "blocks of %ux%u", gst_video_format_to_string (params->in_format),
      p->in_width, p->in_height, p->out_width, p->out_height, p->kind,
      table->len, gst_cuda_cache_kernel_info[preset->launch.kernel].name,
      preset->launch.grid_w, preset->launch.grid_h, preset->launch.block_w,
      preset->launch.block_h);
  g_array_unref (table);

  if (!preset->table_block) {
    GST_WARNING ("no device memory for the presets' table");
    gst_cuda_cache_preset_free (preset);
    return NULL;
  }

  return preset;
}

void
gst_cuda_cache_preset_prepare (const GstCudaCachePreset * preset,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], PresetConvert * a,
    GstCudaCacheLaunch * launch)
{
  gint i;

  *a = preset->params;
  for (i = 0; i < 3; i++) {
    a->p.in_data[i] = in_data[i];
    a->p.in_stride[i] = in_stride[i];
  }
  gst_cuda_cache_plan_set_output (&a->c, out_data, out_stride);
  *launch = preset->launch;
}

gboolean
gst_cuda_cache_preset_launch (GstCudaCachePreset * preset,
    const guintptr in_data[3], const gint in_stride[3],
    const guintptr out_data[3], const gint out_stride[3], CUstream stream,
    GstCudaCacheKernelDone * done, GstCudaCacheDeviceGraph ** graph)
{
  PresetConvert a;
  GstCudaCacheLaunch launch;
  void *args[] = { &a };
  gboolean ok;

  g_return_val_if_fail (preset != NULL, FALSE);
  g_return_val_if_fail (in_data != NULL && in_data[0] != 0, FALSE);
  g_return_val_if_fail (out_data != NULL && out_data[0] != 0, FALSE);

  gst_cuda_cache_preset_prepare (preset, in_data, in_stride, out_data,
      out_stride, &a, &launch);
  gst_cuda_cache_kernel_done_next (done, stream, &a.c.done_counter,
      &a.c.done_flag, &a.c.done_seq);
  GST_LOG ("%s", gst_cuda_cache_kernel_info[launch.kernel].name);

  if (!gst_cuda_context_push (gst_cuda_cache_kernels_get_context
          (preset->kernels))) {
    GST_ERROR ("could not push the CUDA context");
    return FALSE;
  }
  ok = gst_cuda_cache_kernels_launch (preset->kernels, &launch, args, stream,
      graph);
  gst_cuda_context_pop (NULL);

  return ok;
}

void
gst_cuda_cache_preset_free (GstCudaCachePreset * preset)
{
  if (!preset)
    return;
  if (--preset->ref_count > 0)
    return;

  /* a conversion nobody waited for (output on its stream, 1.24 and
   * later) may still read the table: retired, not handed back */
  if (preset->table_block)
    gst_cuda_cache_kernels_retire (preset->kernels, preset->table_block);
  g_free (preset);
}
