/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright (C) 2026 the gst-cuda-cache authors */

/*
 * The converter's front end, shared by its files. The converter is layers,
 * each calling only the ones below it:
 *
 *   gstcudacacheconverter.c        the public API: caps, which back end
 *                                  converts, the picture's geometry
 *   gstcudacacheconverterbatch.c   batches: many converters into one
 *                                  tensor, and launches waited for later
 *   gstcudacacheconvertersetup.c   the conversion set up for the caps, the
 *                                  options and the input's crop: the
 *                                  parameters, the back ends made for them
 *   gstcudacacheconverterconfig.c  the options: their one definition,
 *                                  checked and made canonical
 *   gstcudacacheconvertercpu.c     the CPU back end: system memory, LINEAR
 *                                  through gstcudacachelinear.c, the presets
 *                                  through gstcudacacheresample.c
 *   gstcudacacheconvertercuda.c    the CUDA back end: streams, their
 *                                  synchronisation, the kernels' launches
 *   gstcudacacheconvertparams.c    the definition's parameters: colour
 *                                  matrices, picture rectangle, chroma
 *                                  siting, tensor normalisation
 *   gstcudacacheconvertbase.c      beneath them all: mapping frames and
 *                                  batches, errors
 *
 * Both back ends take the same GstCudaCacheConvertParams
 * (gstcudacachekernels-private.h) from the definition's parameters, so
 * that either is the other's reference.
 */

#ifndef __GST_CUDA_CACHE_CONVERTER_PRIVATE_H__
#define __GST_CUDA_CACHE_CONVERTER_PRIVATE_H__

#include "gstcudacacheconvertbase-private.h"
#include "gstcudacacheconvertparams-private.h"
#include "gstcudacacheconvertercpu-private.h"
#include "gstcudacacheconvertercuda-private.h"

G_BEGIN_DECLS

struct _GstCudaCacheConverter
{
  GstObject parent;

  GstCudaContext *context;      /* NULL: the CPU back end only */

  /* every option, canonical (gstcudacacheconverterconfig.c): the one
   * record of them */
  GstStructure *config;
  GstCudaCacheConverterInfo info;
  /* the conversion as set up for the crop of the frames that last came
   * (a plan per rectangle, which the kernels keep): the input's crop meta
   * changes it, nothing reads it but the conversion */
  gboolean has_crop;
  GstCudaCacheInputCrop crop;
  GstCudaCacheConvertParams params;

  /* the back ends: CUDA where there is a context, made with the converter;
   * the CPU's where there is none, or when system memory first comes */
  GstCudaCacheConverterCuda *cuda;
  GstCudaCacheConverterCpu *cpu;
};

/* The options (gstcudacacheconverterconfig.c) */

/* The defaults, as GST_CUDA_CACHE_CONVERTER_OPT_* document them. */
G_GNUC_INTERNAL
void gst_cuda_cache_converter_options_init (GstCudaCacheConverterOptions *
    options);

/* Parses @config (NULL: nothing) over @options; @options is left alone on
 * failure. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_options_parse (GstCudaCacheConverterOptions
    * options, const GstStructure * config, GError ** error);

/* The canonical config of @options: every option, each in its one type. */
G_GNUC_INTERNAL
GstStructure *gst_cuda_cache_converter_options_to_config (const
    GstCudaCacheConverterOptions * options);

/* Sets every field of @from in @config, over what it held. */
G_GNUC_INTERNAL
void gst_cuda_cache_converter_config_update (GstStructure * config,
    const GstStructure * from);

/* The conversion set up (gstcudacacheconvertersetup.c) */

/* The parameters of converting @info's frames with the canonical @config,
 * with the crop @crop (NULL: none) */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_conversion_params (const
    GstCudaCacheConverterInfo * info, const GstStructure * config,
    const GstCudaCacheInputCrop * crop, GstCudaCacheConvertParams * params,
    GError ** error);

/* Sets the conversion up for @info and the canonical @config (with the
 * crop @self follows); on failure nothing changes. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_configure (GstCudaCacheConverter * self,
    const GstCudaCacheConverterInfo * info, const GstStructure * config,
    GError ** error);

/* @inbuf's GstVideoCropMeta, as the crop the conversion follows: the frame
 * downstream of the crop sees (the caps' size, as videocrop and decoders
 * give it), in the buffer's whole frame (its GstVideoMeta's size, or the
 * caps' without one). FALSE where @inbuf (or NULL) has none. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_input_crop (GstCudaCacheConverter * self,
    GstBuffer * inbuf, GstCudaCacheInputCrop * crop);

/* Whether @self's conversion is set up for the crop @crop (@has_crop) */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_crop_is_set_up (GstCudaCacheConverter *
    self, gboolean has_crop, const GstCudaCacheInputCrop * crop);

/* Sets @self's conversion up for the crop meta of @inbuf (or its absence)
 * where it was set up for another; @self is unchanged on failure. */
G_GNUC_INTERNAL
gboolean gst_cuda_cache_converter_follow_crop (GstCudaCacheConverter * self,
    GstBuffer * inbuf, GError ** error);

/* The CPU back end of @self, made for its caps where it has none yet. */
G_GNUC_INTERNAL
GstCudaCacheConverterCpu *gst_cuda_cache_converter_get_cpu
    (GstCudaCacheConverter * self, GError ** error);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_CONVERTER_PRIVATE_H__ */
