/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

#ifndef __GST_CUDA_CACHE_CONVERTER_H__
#define __GST_CUDA_CACHE_CONVERTER_H__

#include <gst/cudacache/cudacache-prelude.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cudacache/cudacache-enumtypes.h>
#include <gst/cudacache/gstcudacachepicturemeta.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CACHE_CONVERTER (gst_cuda_cache_converter_get_type ())
GST_CUDA_CACHE_API
G_DECLARE_FINAL_TYPE (GstCudaCacheConverter, gst_cuda_cache_converter, GST,
    CUDA_CACHE_CONVERTER, GstObject)

/**
 * GstCudaCacheChannelOrder:
 * @GST_CUDA_CACHE_CHANNEL_ORDER_RGB: red, green, blue
 * @GST_CUDA_CACHE_CHANNEL_ORDER_BGR: blue, green, red
 *
 * The order of a tensor's colour channels.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_CACHE_CHANNEL_ORDER_RGB,
  GST_CUDA_CACHE_CHANNEL_ORDER_BGR,
} GstCudaCacheChannelOrder;


/**
 * GstCudaCacheResizeMethod:
 * @GST_CUDA_CACHE_RESIZE_METHOD_LINEAR: GStreamer's LINEAR resampler
 *   (`videoscale method=bilinear`): a triangle filter widened by the shrink
 *   factor, so shrinking does not alias
 * @GST_CUDA_CACHE_RESIZE_METHOD_NEAREST: OpenCV's
 *   `cv2.resize (..., interpolation=cv2.INTER_NEAREST)`
 * @GST_CUDA_CACHE_RESIZE_METHOD_BILINEAR: OpenCV's
 *   `cv2.resize (..., interpolation=cv2.INTER_LINEAR)`: half-pixel
 *   centres, two taps, no antialiasing
 * @GST_CUDA_CACHE_RESIZE_METHOD_AREA: OpenCV's
 *   `cv2.resize (..., interpolation=cv2.INTER_AREA)`
 * @GST_CUDA_CACHE_RESIZE_METHOD_ANTIALIAS: Pillow's
 *   `Image.resize (..., Image.BILINEAR)`, which torchvision's
 *   `antialias=True` follows: the triangle filter widened by the shrink
 *   factor
 *
 * How a picture is resampled. Every method but LINEAR equals the library
 * it names on 8-bit RGB input, to the value.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_CACHE_RESIZE_METHOD_LINEAR,
  GST_CUDA_CACHE_RESIZE_METHOD_NEAREST,
  GST_CUDA_CACHE_RESIZE_METHOD_BILINEAR,
  GST_CUDA_CACHE_RESIZE_METHOD_AREA,
  GST_CUDA_CACHE_RESIZE_METHOD_ANTIALIAS,
} GstCudaCacheResizeMethod;

/**
 * GstCudaCacheLetterboxPosition:
 * @GST_CUDA_CACHE_LETTERBOX_POSITION_CENTER: the picture centred, the bars
 *   on both sides (Ultralytics' LetterBox)
 * @GST_CUDA_CACHE_LETTERBOX_POSITION_TOP_LEFT: the picture at the top left
 *   corner, the bars right or below it (DeepStream's default padding)
 *
 * Where a letterboxed picture lies in the output.
 *
 * Since: 0.1
 */
typedef enum
{
  GST_CUDA_CACHE_LETTERBOX_POSITION_CENTER,
  GST_CUDA_CACHE_LETTERBOX_POSITION_TOP_LEFT,
} GstCudaCacheLetterboxPosition;

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX:
 *
 * #G_TYPE_BOOLEAN: keep the picture's aspect ratio, centred, and fill the
 * rest of the output with %GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE.
 * Default %FALSE.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX "GstCudaCacheConverter.letterbox"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_METHOD:
 *
 * #GST_TYPE_CUDA_CACHE_RESIZE_METHOD, or its nick as a string (such as
 * `"area"`): how the picture is resampled. Default
 * %GST_CUDA_CACHE_RESIZE_METHOD_LINEAR.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_METHOD "GstCudaCacheConverter.method"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION:
 *
 * #GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION, or its nick as a string: where
 * a letterboxed picture lies. Default %GST_CUDA_CACHE_LETTERBOX_POSITION_CENTER.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION "GstCudaCacheConverter.letterbox-position"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE:
 *
 * The letterbox padding's colour, before normalisation: #GST_TYPE_ARRAY of
 * three whole numbers from 0 to 255 (red, green, blue), or one for all
 * three. Canonical: an array of three #G_TYPE_UINT. Default 0.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE "GstCudaCacheConverter.fill-value"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER:
 *
 * #GST_TYPE_CUDA_CACHE_CHANNEL_ORDER, or its nick as a string: a tensor's
 * channel order. Default
 * %GST_CUDA_CACHE_CHANNEL_ORDER_RGB.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_CHANNEL_ORDER "GstCudaCacheConverter.channel-order"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_SCALE:
 *
 * #G_TYPE_DOUBLE, from -3.40282e+38 to 3.40282e+38: tensors are
 * `value * scale / std - mean / std` per channel, for pixel values 0..255.
 * Default 1.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_SCALE "GstCudaCacheConverter.scale"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_MEAN:
 *
 * #GST_TYPE_ARRAY of three numbers from -3.40282e+38 to 3.40282e+38 (of
 * any numeric type; canonical: #G_TYPE_DOUBLE), in the tensor's channel
 * order. Default 0.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_MEAN "GstCudaCacheConverter.mean"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_STD:
 *
 * #GST_TYPE_ARRAY of three numbers from 1e-12 to 3.40282e+38 (of any
 * numeric type; canonical: #G_TYPE_DOUBLE), in the tensor's channel
 * order. Default 1.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_STD "GstCudaCacheConverter.std"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_SRC_X:
 *
 * #G_TYPE_INT, 0 or more: the left edge of the input's region to convert
 * (a crop), in its pixels. With %GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y,
 * %GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH and
 * %GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT all 0 (the default) the
 * converter takes the whole frame. A buffer's #GstVideoCropMeta is
 * honoured too (the caps its region's size, a #GstVideoMeta the whole
 * frame's): this region is then one of the frame the crop shows. Where
 * the input's chroma is subsampled, the region grows to the chroma grid
 * (even edges on that axis).
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_SRC_X "GstCudaCacheConverter.src-x"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y:
 *
 * #G_TYPE_INT, 0 or more: the top edge of the region to convert.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_SRC_Y "GstCudaCacheConverter.src-y"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH:
 *
 * #G_TYPE_INT, 0 or more: the region's width; 0 reaches the frame's right
 * edge.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_SRC_WIDTH "GstCudaCacheConverter.src-width"

/**
 * GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT:
 *
 * #G_TYPE_INT, 0 or more: the region's height; 0 reaches the frame's
 * bottom edge.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OPT_SRC_HEIGHT "GstCudaCacheConverter.src-height"

/* the one table of the converter's formats, which the lists below make */
#define _GST_CUDA_CACHE_CONVERTER_FORMATS \
  "NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR"
#define _GST_CUDA_CACHE_CONVERTER_INPUT_ONLY_FORMATS \
  "P010_10LE, P016_LE, YUY2, UYVY"

/**
 * GST_CUDA_CACHE_CONVERTER_INPUT_FORMATS:
 *
 * The video formats a converter takes in system memory, as a caps field's
 * list.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_INPUT_FORMATS "{ " \
  _GST_CUDA_CACHE_CONVERTER_FORMATS ", GRAY8, " \
  _GST_CUDA_CACHE_CONVERTER_INPUT_ONLY_FORMATS " }"

/**
 * GST_CUDA_CACHE_CONVERTER_CUDA_INPUT_FORMATS:
 *
 * The video formats a converter takes in CUDA memory: those of system
 * memory but GRAY8, for which GStreamer 1.22's CUDA allocator has no
 * layout.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_CUDA_INPUT_FORMATS "{ " \
  _GST_CUDA_CACHE_CONVERTER_FORMATS ", " \
  _GST_CUDA_CACHE_CONVERTER_INPUT_ONLY_FORMATS " }"

/**
 * GST_CUDA_CACHE_CONVERTER_OUTPUT_FORMATS:
 *
 * The video formats a converter makes in system memory.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_OUTPUT_FORMATS "{ " \
  _GST_CUDA_CACHE_CONVERTER_FORMATS ", GRAY8 }"

/**
 * GST_CUDA_CACHE_CONVERTER_CUDA_OUTPUT_FORMATS:
 *
 * The video formats a converter makes in CUDA memory: those of system
 * memory but GRAY8.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_CUDA_OUTPUT_FORMATS "{ " \
  _GST_CUDA_CACHE_CONVERTER_FORMATS " }"

/* The options' defaults, as the OPT_ documentation above states them: an
 * application compares a config's values with them, or gives them back to
 * undo an option. */
#define GST_CUDA_CACHE_CONVERTER_DEFAULT_METHOD GST_CUDA_CACHE_RESIZE_METHOD_LINEAR

/**
 * GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX:
 *
 * The default of %GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX: the picture is
 * stretched to the output, not letterboxed. An application gives it back to
 * undo the option.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX FALSE
#define GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX_POSITION GST_CUDA_CACHE_LETTERBOX_POSITION_CENTER

/**
 * GST_CUDA_CACHE_CONVERTER_DEFAULT_FILL_VALUE:
 *
 * The default of %GST_CUDA_CACHE_CONVERTER_OPT_FILL_VALUE, for each of red,
 * green and blue: black borders. An application gives it back to undo the
 * option.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_DEFAULT_FILL_VALUE 0
#define GST_CUDA_CACHE_CONVERTER_DEFAULT_CHANNEL_ORDER GST_CUDA_CACHE_CHANNEL_ORDER_RGB

/**
 * GST_CUDA_CACHE_CONVERTER_DEFAULT_SCALE:
 *
 * The default of %GST_CUDA_CACHE_CONVERTER_OPT_SCALE: pixel values are kept as
 * they are. An application gives it back to undo the option.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_DEFAULT_SCALE 1.0

/**
 * GST_CUDA_CACHE_CONVERTER_DEFAULT_MEAN:
 *
 * The default of %GST_CUDA_CACHE_CONVERTER_OPT_MEAN, for each channel: nothing
 * subtracted. An application gives it back to undo the option.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_DEFAULT_MEAN 0.0

/**
 * GST_CUDA_CACHE_CONVERTER_DEFAULT_STD:
 *
 * The default of %GST_CUDA_CACHE_CONVERTER_OPT_STD, for each channel: nothing
 * divided. An application gives it back to undo the option.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_CONVERTER_DEFAULT_STD 1.0

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_converter_check_config (GstStructure * config,
    GError ** error);

GST_CUDA_CACHE_API
GstCudaCacheConverter *gst_cuda_cache_converter_new (const GstCaps * in_caps,
    const GstCaps * out_caps, GstCudaContext * context, GstStructure * config,
    GError ** error);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_converter_reconfigure (GstCudaCacheConverter *
    converter, const GstCaps * in_caps, const GstCaps * out_caps,
    GstStructure * config, GError ** error);

GST_CUDA_CACHE_API
GstStructure *gst_cuda_cache_converter_get_config (GstCudaCacheConverter *
    converter);

GST_CUDA_CACHE_API
GstCudaContext *gst_cuda_cache_converter_get_context (GstCudaCacheConverter *
    converter);

/* The stream is the driver's CUstream, as gst-cuda's own converter takes
 * it: the stream type of every GStreamer version (GstCudaStream exists only
 * from 1.24, and a type of the project's own would have every caller wrap
 * the stream it already has) and of every CUDA library, so the API is the
 * same whichever GStreamer the library was built against. Bindings see a
 * pointer; NULL is the converter's own stream, not the legacy default one. */
GST_CUDA_CACHE_API
gboolean gst_cuda_cache_converter_convert_buffer (GstCudaCacheConverter *
    converter, GstBuffer * inbuf, GstBuffer * outbuf, CUstream stream,
    GError ** error);

/**
 * GST_CUDA_CACHE_BATCH_SLOT_ERROR:
 *
 * The error domain of a batch conversion that failed on one slot (its
 * frame, or its converter): the error's code is the slot's index, and its
 * message starts with "slot N: ". Other failures of a batch keep their
 * GStreamer error domains.
 *
 * Since: 0.1
 */
#define GST_CUDA_CACHE_BATCH_SLOT_ERROR (gst_cuda_cache_batch_slot_domain ())

GST_CUDA_CACHE_API
GQuark gst_cuda_cache_batch_slot_domain (void);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_converter_convert_batch (GstCudaCacheConverter **
    converters, GstBuffer ** inbufs, guint n_slots, GstBuffer * outbuf,
    CUstream stream, guint * n_launches, GError ** error);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_converter_convert_batch_full (GstCudaCacheConverter **
    converters, guint n_converters, GstBuffer ** inbufs, guint n_inbufs,
    GstBuffer * outbuf, CUstream stream, guint * n_launches, GError ** error);

typedef struct _GstCudaCacheBatchLaunch GstCudaCacheBatchLaunch;

#define GST_TYPE_CUDA_CACHE_BATCH_LAUNCH (gst_cuda_cache_batch_launch_get_type ())
GST_CUDA_CACHE_API
GType gst_cuda_cache_batch_launch_get_type (void);

GST_CUDA_CACHE_API
GstCudaCacheBatchLaunch *gst_cuda_cache_converter_launch_batch
    (GstCudaCacheConverter ** converters, GstBuffer ** inbufs, guint n_slots,
    GstBuffer * outbuf, CUstream stream, guint * n_launches, GError ** error);

GST_CUDA_CACHE_API
GstCudaCacheBatchLaunch *gst_cuda_cache_converter_launch_batch_full
    (GstCudaCacheConverter ** converters, guint n_converters,
    GstBuffer ** inbufs, guint n_inbufs, GstBuffer * outbuf, CUstream stream,
    guint * n_launches, GError ** error);

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_batch_launch_wait (GstCudaCacheBatchLaunch * launch,
    GError ** error);

GST_CUDA_CACHE_API
GstCudaCacheBatchLaunch *gst_cuda_cache_batch_launch_ref
    (GstCudaCacheBatchLaunch * launch);

GST_CUDA_CACHE_API
void gst_cuda_cache_batch_launch_unref (GstCudaCacheBatchLaunch * launch);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstCudaCacheBatchLaunch,
    gst_cuda_cache_batch_launch_unref)

GST_CUDA_CACHE_API
gboolean gst_cuda_cache_converter_get_geometry (GstCudaCacheConverter *
    converter, GstBuffer * inbuf, GstCudaCachePictureGeometry * geometry,
    GError ** error);

G_END_DECLS

#endif /* __GST_CUDA_CACHE_CONVERTER_H__ */
