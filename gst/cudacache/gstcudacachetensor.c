/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:gstcudacachetensor
 * @title: GstCudaCacheTensorInfo
 * @short_description: packed tensors: shape, caps and buffer meta
 *
 * A tensor here is one packed block of elements (no row or plane padding)
 * with four dimensions: batch, channels, height and width, stored in NCHW
 * (planar) or NHWC (interleaved) order. Its caps follow NNStreamer's
 * convention so that tensor elements written for it read ours:
 *
 * |[
 * other/tensors,format=static,num_tensors=1,types=float32,
 *     dimensions=640:640:3:1,layout=NCHW
 * ]|
 *
 * `dimensions` lists the innermost dimension first, as NNStreamer does: for
 * NCHW that is width, height, channels, batch; for NHWC channels, width,
 * height, batch. Fewer than four dimensions are padded with 1 on the outside,
 * as NNStreamer does. `layout` is this project's addition and defaults to
 * NCHW.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudacachetensor.h"
#include "gstcudacache-private.h"

static const struct
{
  const gchar *name;
  guint size;
} dtypes[] = {
  [GST_CUDA_CACHE_TENSOR_DTYPE_U8] = {"uint8", 1},
  [GST_CUDA_CACHE_TENSOR_DTYPE_F16] = {"float16", 2},
  [GST_CUDA_CACHE_TENSOR_DTYPE_F32] = {"float32", 4},
};

static const gchar *layouts[] = {
  [GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW] = "NCHW",
  [GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC] = "NHWC",
};

/* where batch, channels, height and width sit in dims[] for each layout */
enum
{ DIM_N, DIM_C, DIM_H, DIM_W };
static const guint dim_index[][GST_CUDA_CACHE_TENSOR_N_DIMS] = {
  [GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW] = {0, 1, 2, 3},
  [GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC] = {0, 3, 1, 2},
};

/**
 * gst_cuda_cache_tensor_dtype_get_size:
 * @dtype: an element type
 *
 * Gives an application the size of one element of @dtype, to compute a
 * tensor's bytes or strides.
 *
 * Returns: the bytes of one element of @dtype
 *
 * Since: 0.1
 */
guint
gst_cuda_cache_tensor_dtype_get_size (GstCudaCacheTensorDType dtype)
{
  g_return_val_if_fail (dtype <= GST_CUDA_CACHE_TENSOR_DTYPE_F32, 0);

  return dtypes[dtype].size;
}

/* The name caps use for @dtype */
const gchar *
gst_cuda_cache_tensor_dtype_to_string (GstCudaCacheTensorDType dtype)
{
  g_return_val_if_fail (dtype <= GST_CUDA_CACHE_TENSOR_DTYPE_F32, NULL);

  return dtypes[dtype].name;
}

/* Whether @str, a type name as caps give it, names a supported element
 * type, in *@dtype */
gboolean
gst_cuda_cache_tensor_dtype_from_string (const gchar * str,
    GstCudaCacheTensorDType * dtype)
{
  guint i;

  g_return_val_if_fail (dtype != NULL, FALSE);

  for (i = 0; str && i < G_N_ELEMENTS (dtypes); i++) {
    if (g_str_equal (str, dtypes[i].name)) {
      *dtype = i;
      return TRUE;
    }
  }

  return FALSE;
}

/* `NCHW` or `NHWC` */
const gchar *
gst_cuda_cache_tensor_layout_to_string (GstCudaCacheTensorLayout layout)
{
  g_return_val_if_fail (layout <= GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC, NULL);

  return layouts[layout];
}

/* Whether @str, `NCHW` or `NHWC` in any case, names a supported layout,
 * in *@layout */
gboolean
gst_cuda_cache_tensor_layout_from_string (const gchar * str,
    GstCudaCacheTensorLayout * layout)
{
  guint i;

  g_return_val_if_fail (layout != NULL, FALSE);

  for (i = 0; str && i < G_N_ELEMENTS (layouts); i++) {
    if (g_ascii_strcasecmp (str, layouts[i]) == 0) {
      *layout = i;
      return TRUE;
    }
  }

  return FALSE;
}

/* Fills strides and size from dims; FALSE if a dimension is 0 or the size
 * is above G_MAXSSIZE (what a GstMemory, and DLPack's int64 strides, can
 * hold). */
gboolean
gst_cuda_cache_tensor_info_pack (GstCudaCacheTensorInfo * info)
{
  gsize stride = dtypes[info->dtype].size;
  gint i;

  for (i = GST_CUDA_CACHE_TENSOR_N_DIMS - 1; i >= 0; i--) {
    if (info->dims[i] == 0 || stride > G_MAXSSIZE / info->dims[i])
      return FALSE;
    info->strides[i] = stride;
    stride *= info->dims[i];
  }
  info->size = stride;

  return TRUE;
}

/* Whether @info describes a packed tensor as gst_cuda_cache_tensor_info_init
 * makes one: its type and layout are the library's, every dimension is a
 * guint above 0, and its strides and size are those of its dims. A tensor
 * meta's info is public and may hold anything; readers check it first. */
gboolean
gst_cuda_cache_tensor_info_is_packed (const GstCudaCacheTensorInfo * info)
{
  GstCudaCacheTensorInfo packed;
  guint i;

  if ((guint) info->dtype > GST_CUDA_CACHE_TENSOR_DTYPE_F32 ||
      (guint) info->layout > GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC)
    return FALSE;
  for (i = 0; i < GST_CUDA_CACHE_TENSOR_N_DIMS; i++) {
    if (info->dims[i] > G_MAXUINT)
      return FALSE;
  }
  packed = *info;
  return gst_cuda_cache_tensor_info_pack (&packed) &&
      memcmp (packed.strides, info->strides, sizeof (info->strides)) == 0 &&
      packed.size == info->size;
}

/**
 * gst_cuda_cache_tensor_info_init:
 * @info: (out caller-allocates): the info to fill
 * @dtype: the element type
 * @layout: the order of the dimensions in memory
 * @batch: frames in the tensor
 * @channels: channels per pixel
 * @height: rows
 * @width: columns
 *
 * Describes a packed tensor of the given shape.
 *
 * Returns: %TRUE on success, %FALSE if a dimension is 0 or the tensor is too
 *     large to address
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_tensor_info_init (GstCudaCacheTensorInfo * info,
    GstCudaCacheTensorDType dtype, GstCudaCacheTensorLayout layout, guint batch,
    guint channels, guint height, guint width)
{
  const guint *idx;

  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (dtype <= GST_CUDA_CACHE_TENSOR_DTYPE_F32, FALSE);
  g_return_val_if_fail (layout <= GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC, FALSE);

  memset (info, 0, sizeof (*info));
  info->dtype = dtype;
  info->layout = layout;
  idx = dim_index[layout];
  info->dims[idx[DIM_N]] = batch;
  info->dims[idx[DIM_C]] = channels;
  info->dims[idx[DIM_H]] = height;
  info->dims[idx[DIM_W]] = width;

  return gst_cuda_cache_tensor_info_pack (info);
}

/**
 * gst_cuda_cache_tensor_info_get_batch:
 * @info: a tensor info
 *
 * Gives an application the batch dimension (N) of the tensor @info describes,
 * whatever its layout.
 *
 * Returns: the batch dimension
 *
 * Since: 0.1
 */
guint
gst_cuda_cache_tensor_info_get_batch (const GstCudaCacheTensorInfo * info)
{
  g_return_val_if_fail (info != NULL, 0);

  return info->dims[dim_index[info->layout][DIM_N]];
}

/**
 * gst_cuda_cache_tensor_info_get_channels:
 * @info: a tensor info
 *
 * Gives an application the channel dimension (C) of the tensor @info
 * describes, whatever its layout.
 *
 * Returns: the channel dimension
 *
 * Since: 0.1
 */
guint
gst_cuda_cache_tensor_info_get_channels (const GstCudaCacheTensorInfo * info)
{
  g_return_val_if_fail (info != NULL, 0);

  return info->dims[dim_index[info->layout][DIM_C]];
}

/**
 * gst_cuda_cache_tensor_info_get_height:
 * @info: a tensor info
 *
 * Gives an application the height dimension (H) of the tensor @info describes,
 * whatever its layout.
 *
 * Returns: the height dimension
 *
 * Since: 0.1
 */
guint
gst_cuda_cache_tensor_info_get_height (const GstCudaCacheTensorInfo * info)
{
  g_return_val_if_fail (info != NULL, 0);

  return info->dims[dim_index[info->layout][DIM_H]];
}

/**
 * gst_cuda_cache_tensor_info_get_width:
 * @info: a tensor info
 *
 * Gives an application the width dimension (W) of the tensor @info describes,
 * whatever its layout.
 *
 * Returns: the width dimension
 *
 * Since: 0.1
 */
guint
gst_cuda_cache_tensor_info_get_width (const GstCudaCacheTensorInfo * info)
{
  g_return_val_if_fail (info != NULL, 0);

  return info->dims[dim_index[info->layout][DIM_W]];
}

/**
 * gst_cuda_cache_tensor_info_is_equal:
 * @info: a tensor info
 * @other: another tensor info
 *
 * Compares two tensor infos: an application uses it to tell whether a buffer's
 * tensor is the one its model expects.
 *
 * Returns: %TRUE if both describe the same type, layout and shape
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_tensor_info_is_equal (const GstCudaCacheTensorInfo * info,
    const GstCudaCacheTensorInfo * other)
{
  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (other != NULL, FALSE);

  return info->dtype == other->dtype && info->layout == other->layout &&
      memcmp (info->dims, other->dims, sizeof (info->dims)) == 0;
}

/**
 * gst_cuda_cache_tensor_info_from_caps:
 * @info: (out caller-allocates): the info to fill
 * @caps: fixed `other/tensors` caps
 *
 * Reads one static tensor from @caps (see #GST_CUDA_CACHE_TENSOR_CAPS_NAME).
 *
 * Returns: %TRUE if @caps describe one tensor this library supports
 *
 * Since: 0.1
 */
gboolean
gst_cuda_cache_tensor_info_from_caps (GstCudaCacheTensorInfo * info,
    const GstCaps * caps)
{
  const GstStructure *s;
  const gchar *str;
  gchar **parts = NULL;
  gint num_tensors = 1;
  guint n_parts, i;
  gboolean ret = FALSE;

  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (caps != NULL, FALSE);

  if (gst_caps_get_size (caps) != 1)
    return FALSE;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, GST_CUDA_CACHE_TENSOR_CAPS_NAME))
    return FALSE;

  memset (info, 0, sizeof (*info));

  str = gst_structure_get_string (s, "format");
  if (str && !g_str_equal (str, "static"))
    return FALSE;
  if (gst_structure_has_field (s, "num_tensors") &&
      (!gst_structure_get_int (s, "num_tensors", &num_tensors) ||
          num_tensors != 1))
    return FALSE;
  if (!gst_cuda_cache_tensor_dtype_from_string (gst_structure_get_string (s,
              "types"), &info->dtype))
    return FALSE;
  str = gst_structure_get_string (s, "layout");
  if (str && !gst_cuda_cache_tensor_layout_from_string (str, &info->layout))
    return FALSE;

  str = gst_structure_get_string (s, "dimensions");
  if (!str)
    return FALSE;
  parts = g_strsplit (str, ":", -1);
  n_parts = g_strv_length (parts);
  if (n_parts < 1 || n_parts > GST_CUDA_CACHE_TENSOR_N_DIMS)
    goto out;

  /* caps list the innermost dimension first */
  for (i = 0; i < GST_CUDA_CACHE_TENSOR_N_DIMS; i++) {
    guint64 dim = 1;

    if (i < n_parts) {
      gchar *end = NULL;

      dim = g_ascii_strtoull (parts[i], &end, 10);
      if (end == parts[i] || *end != '\0' || dim > G_MAXINT)
        goto out;
    }
    info->dims[GST_CUDA_CACHE_TENSOR_N_DIMS - 1 - i] = dim;
  }

  ret = gst_cuda_cache_tensor_info_pack (info);

out:
  g_strfreev (parts);
  return ret;
}

/**
 * gst_cuda_cache_tensor_info_to_caps:
 * @info: a tensor info
 *
 * Makes the `other/tensors` caps of the tensor @info describes: an application
 * uses it to set the caps of an appsrc that pushes such tensors, or a
 * capsfilter asking `cudacacheconvert` for them.
 *
 * Returns: (transfer full): fixed `other/tensors` caps describing @info,
 *     without a caps feature or a framerate
 *
 * Since: 0.1
 */
GstCaps *
gst_cuda_cache_tensor_info_to_caps (const GstCudaCacheTensorInfo * info)
{
  gchar *dims;
  GstCaps *caps;

  g_return_val_if_fail (info != NULL, NULL);

  dims = g_strdup_printf ("%" G_GSIZE_FORMAT ":%" G_GSIZE_FORMAT ":%"
      G_GSIZE_FORMAT ":%" G_GSIZE_FORMAT, info->dims[3], info->dims[2],
      info->dims[1], info->dims[0]);
  caps = gst_caps_new_simple (GST_CUDA_CACHE_TENSOR_CAPS_NAME,
      "format", G_TYPE_STRING, "static",
      "num_tensors", G_TYPE_INT, 1,
      "types", G_TYPE_STRING, dtypes[info->dtype].name,
      "dimensions", G_TYPE_STRING, dims,
      "layout", G_TYPE_STRING, layouts[info->layout], NULL);
  g_free (dims);

  return caps;
}

/**
 * gst_cuda_cache_tensor_info_to_string:
 * @info: a tensor info
 *
 * Describes the tensor @info describes in words, for an application's logs and
 * error messages.
 *
 * Returns: (transfer full): a readable description such as
 *     `float32 NCHW 1x3x640x640` (dimensions outermost first)
 *
 * Since: 0.1
 */
gchar *
gst_cuda_cache_tensor_info_to_string (const GstCudaCacheTensorInfo * info)
{
  g_return_val_if_fail (info != NULL, NULL);

  /* a type or layout past the library's (fields written by hand) is
   * named by its number */
  if ((guint) info->dtype > GST_CUDA_CACHE_TENSOR_DTYPE_F32 ||
      (guint) info->layout > GST_CUDA_CACHE_TENSOR_LAYOUT_NHWC)
    return g_strdup_printf ("type %u layout %u %" G_GSIZE_FORMAT "x%"
        G_GSIZE_FORMAT "x%" G_GSIZE_FORMAT "x%" G_GSIZE_FORMAT,
        (guint) info->dtype, (guint) info->layout, info->dims[0],
        info->dims[1], info->dims[2], info->dims[3]);
  return g_strdup_printf ("%s %s %" G_GSIZE_FORMAT "x%" G_GSIZE_FORMAT "x%"
      G_GSIZE_FORMAT "x%" G_GSIZE_FORMAT, dtypes[info->dtype].name,
      layouts[info->layout], info->dims[0], info->dims[1], info->dims[2],
      info->dims[3]);
}

/* the meta */

/**
 * gst_cuda_cache_tensor_meta_api_get_type:
 *
 * The API type of #GstCudaCacheTensorMeta: an application gives it to
 * gst_buffer_get_meta() or a meta API query (gst_query_find_allocation_meta())
 * to look for the meta.
 *
 * Returns: the #GType of the meta's API
 *
 * Since: 0.1
 */
GType
gst_cuda_cache_tensor_meta_api_get_type (void)
{
  static GType type = 0;
  /* GstVideoMeta's, for the same reason: it describes the memory's layout,
   * the values' type and channel order, and the shape, which an element
   * converting the buffer changes; caps are authoritative */
  static const gchar *tags[] = { GST_META_TAG_MEMORY_STR,
    GST_META_TAG_VIDEO_COLORSPACE_STR, GST_META_TAG_VIDEO_SIZE_STR,
    GST_CUDA_CACHE_META_TAG_TENSOR_STR, NULL
  };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstCudaCacheTensorMetaAPI", tags);
    g_once_init_leave (&type, t);
  }

  return type;
}

static gboolean
gst_cuda_cache_tensor_meta_init (GstMeta * meta, gpointer params,
    GstBuffer * buffer)
{
  GstCudaCacheTensorMeta *tmeta = (GstCudaCacheTensorMeta *) meta;

  memset (&tmeta->info, 0, sizeof (tmeta->info));

  return TRUE;
}

/* The shape stays true only for a full copy of the data: a region or a
 * conversion makes it something else, so the meta is dropped there. */
static gboolean
gst_cuda_cache_tensor_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstCudaCacheTensorMeta *tmeta = (GstCudaCacheTensorMeta *) meta;

  if (GST_META_TRANSFORM_IS_COPY (type)) {
    GstMetaTransformCopy *copy = data;

    if (!copy->region)
      return gst_buffer_add_cuda_cache_tensor_meta (dest, &tmeta->info) != NULL;
  }

  return TRUE;
}

/**
 * gst_cuda_cache_tensor_meta_get_info:
 *
 * The registered #GstMetaInfo of #GstCudaCacheTensorMeta: an application that
 * adds the meta with gst_buffer_add_meta() or compares a meta's info uses it.
 *
 * Returns: (transfer none): the meta's #GstMetaInfo
 *
 * Since: 0.1
 */
const GstMetaInfo *
gst_cuda_cache_tensor_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi =
        gst_meta_register (GST_CUDA_CACHE_TENSOR_META_API_TYPE,
        "GstCudaCacheTensorMeta", sizeof (GstCudaCacheTensorMeta),
        gst_cuda_cache_tensor_meta_init, NULL,
        gst_cuda_cache_tensor_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }

  return info;
}

/**
 * gst_buffer_add_cuda_cache_tensor_meta:
 * @buffer: a writable buffer
 * @info: the tensor the buffer holds
 *
 * Describes the packed tensor @buffer holds with a #GstCudaCacheTensorMeta: an
 * application that pushes tensors of its own (through appsrc) adds it so that
 * the elements and gst_cuda_cache_dlpack_export() read their shape.
 *
 * Returns: (transfer none): the new meta on @buffer
 *
 * Since: 0.1
 */
GstCudaCacheTensorMeta *
gst_buffer_add_cuda_cache_tensor_meta (GstBuffer * buffer,
    const GstCudaCacheTensorInfo * info)
{
  GstCudaCacheTensorMeta *meta;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (info != NULL, NULL);

  meta = (GstCudaCacheTensorMeta *) gst_buffer_add_meta (buffer,
      GST_CUDA_CACHE_TENSOR_META_INFO, NULL);
  if (meta)
    meta->info = *info;

  return meta;
}

/**
 * gst_buffer_get_cuda_cache_tensor_meta:
 * @buffer: a buffer
 *
 * Finds the #GstCudaCacheTensorMeta of a buffer: an application reads it to
 * learn the type, layout, shape and strides of the tensor the buffer holds.
 *
 * Returns: (transfer none) (nullable): the tensor meta of @buffer, if any
 *
 * Since: 0.1
 */
GstCudaCacheTensorMeta *
gst_buffer_get_cuda_cache_tensor_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstCudaCacheTensorMeta *) gst_buffer_get_meta (buffer,
      GST_CUDA_CACHE_TENSOR_META_API_TYPE);
}
