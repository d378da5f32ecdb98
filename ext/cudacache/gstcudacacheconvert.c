/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/**
 * SECTION:element-cudacacheconvert
 * @title: cudacacheconvert
 *
 * Converts, scales (bilinear) and packs frames: NV12, I420, RGBA, BGRA,
 * RGBx, BGRx, RGB, BGR and GRAY8 in, the 10 and 16-bit 4:2:0 frames of
 * decoders (P010_10LE, P016_LE: converted as the 8-bit NV12 frame they
 * round to) and the 4:2:2 frames of webcams (YUY2, UYVY); the 8-bit
 * formats but YUY2 and UYVY out (GRAY8, in and out, in system memory
 * only: GStreamer 1.22's CUDA allocator has no layout for it), or a
 * packed tensor
 * (`other/tensors`: uint8, float16 or float32; NCHW or NHWC; 3 channels,
 * RGB or BGR order, or 1 channel of gray) normalised as
 * `value * scale / std - mean / std` per channel. With `letterbox` the picture keeps its aspect ratio and the rest
 * of the output is `fill-value`.
 *
 * A tensor's `dimensions` is a string of three or four numbers, innermost
 * first: W:H:3:1 for NCHW, 3:W:H:1 for NHWC. Write it as
 * `dimensions=(string)640:640:3:1`: GStreamer reads two unquoted numbers
 * (`64:48`) as a flagset. Tensor fields the element cannot make (`types`,
 * `num_tensors`, `layout`, `format`) are one error that names the field.
 *
 * The conversion itself is the library's #GstCudaCacheConverter: CUDA
 * memory is converted on the device by its kernels, on a non-blocking
 * stream of the element's own, and system memory on the CPU with
 * #GstVideoConverter. The element negotiates, configures the converter and
 * calls it. Properties changed while playing apply from the next buffer.
 * Output buffers come from the shared cache: caps seen before reuse their
 * memory.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! cudaupload ! \
 *     cudacacheconvert letterbox=true fill-value=114 scale=0.00392156862745098 ! \
 *     "other/tensors(memory:CUDAMemory),types=float32,dimensions=640:640:3:1" ! \
 *     fakesink
 * ]| A float32 NCHW tensor of 640x640, values in 0..1, for a detector.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! cudacacheconvert ! \
 *     video/x-raw,format=RGBA,width=320,height=240 ! fakesink
 * ]| Scales in system memory, without a GPU.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcudacacheconvert.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_convert_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_convert_debug

enum
{
  PROP_0,
  PROP_METHOD,
  PROP_LETTERBOX,
  PROP_LETTERBOX_POSITION,
  PROP_FILL_VALUE,
  PROP_FILL_RGB,
  PROP_CHANNEL_ORDER,
  PROP_SCALE,
  PROP_MEAN,
  PROP_STD,
};

#define DEFAULT_LETTERBOX GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX
#define DEFAULT_FILL_VALUE GST_CUDA_CACHE_CONVERTER_DEFAULT_FILL_VALUE
#define DEFAULT_CHANNEL_ORDER GST_CUDA_CACHE_CONVERTER_DEFAULT_CHANNEL_ORDER
#define DEFAULT_SCALE GST_CUDA_CACHE_CONVERTER_DEFAULT_SCALE
#define DEFAULT_MEAN GST_CUDA_CACHE_CONVERTER_DEFAULT_MEAN
#define DEFAULT_STD GST_CUDA_CACHE_CONVERTER_DEFAULT_STD

#define CONVERT_CUDA_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, " \
  "BGR }"
/* GRAY8 in system memory only: GStreamer 1.22's CUDA allocator has no
 * layout for it */
#define CONVERT_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR, " \
  "GRAY8 }"
#define CONVERT_IN_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR, " \
  "GRAY8, P010_10LE, P016_LE, YUY2, UYVY }"
#define CONVERT_TYPES "{ float32, float16, uint8 }"
#define CONVERT_LAYOUTS "{ NCHW, NHWC }"

#define VIDEO_CAPS(formats) \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      formats) "; " \
  GST_VIDEO_CAPS_MAKE (formats)

#define CONVERT_CUDA_IN_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, " \
  "RGB, BGR, P010_10LE, P016_LE, YUY2, UYVY }"

#define SINK_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      CONVERT_CUDA_IN_FORMATS) "; " \
  GST_VIDEO_CAPS_MAKE (CONVERT_IN_FORMATS)

/* the fields a tensor's caps may name; dimensions, a string, is checked by
 * the converter */
#define TENSOR_FIELDS ", format = (string) static, num_tensors = (int) 1, " \
  "types = (string) " CONVERT_TYPES ", layout = (string) " CONVERT_LAYOUTS
#define TENSOR_CAPS(features) \
  GST_CUDA_CACHE_TENSOR_CAPS_NAME features TENSOR_FIELDS

#define SRC_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      CONVERT_CUDA_FORMATS) "; " \
  GST_VIDEO_CAPS_MAKE (CONVERT_FORMATS) "; " \
  TENSOR_CAPS ("(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY ")") "; " \
  TENSOR_CAPS ("")

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (SINK_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (SRC_CAPS));

struct _GstCudaCacheConvert
{
  GstCudaCacheBaseTransform parent;

  /* properties, under the object lock */
  GstCudaCacheResizeMethod method;
  gboolean letterbox;
  GstCudaCacheLetterboxPosition position;
  guint fill[3];                /* red, green, blue */
  GstCudaCacheChannelOrder channel_order;
  gdouble scale;
  gdouble mean[3];
  gdouble std[3];
  gboolean config_changed;      /* since the converter last took them */
  /* a property value refused before the element had a bus: posted as a
   * warning once it has one (set_bus) */
  gchar *refusal;

  /* streaming thread only */
  GstCudaCacheConverter *converter;
  gboolean tensor_out;
  GstCaps *failed_in;           /* the last caps the converter refused: */
  GstCaps *failed_out;          /* one error for them, not one per retry */
  GstVideoRectangle passed;     /* the input's frame, for the picture meta
                                 * of buffers passed through */
};

#define gst_cuda_cache_convert_parent_class parent_class
G_DEFINE_TYPE (GstCudaCacheConvert, gst_cuda_cache_convert,
    GST_TYPE_CUDA_CACHE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (cudacacheconvert, "cudacacheconvert",
    GST_RANK_NONE, GST_TYPE_CUDA_CACHE_CONVERT);

static void gst_cuda_cache_convert_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_cache_convert_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_cuda_cache_convert_finalize (GObject * object);
static GstStateChangeReturn gst_cuda_cache_convert_change_state (GstElement *
    element, GstStateChange transition);
static gboolean gst_cuda_cache_convert_stop (GstBaseTransform * trans);
static gboolean gst_cuda_cache_convert_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstCaps *gst_cuda_cache_convert_transform_caps (GstBaseTransform *
    trans, GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static GstCaps *gst_cuda_cache_convert_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
static gboolean gst_cuda_cache_convert_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps);
static gboolean gst_cuda_cache_convert_set_info (GstCudaCacheBaseTransform *
    base, GstCaps * incaps, GstCaps * outcaps, GstCudaContext * context);
static gboolean gst_cuda_cache_convert_transform_size (GstBaseTransform *
    trans, GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize);
static gboolean gst_cuda_cache_convert_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cuda_cache_convert_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static GstFlowReturn gst_cuda_cache_convert_generate_output (GstBaseTransform
    * trans, GstBuffer ** outbuf);
static GstFlowReturn gst_cuda_cache_convert_transform (GstBaseTransform *
    trans, GstBuffer * inbuf, GstBuffer * outbuf);

/* No element spec: GObject would replace each value not of its type by
 * the default and refuse the array with a GLib warning, and Python's
 * Gst.ValueArray([1, 2, 3]) holds ints. get_triple () takes any number and
 * checks the range. */
static GParamSpec *
triple_param_spec (const gchar * name, const gchar * nick, const gchar * blurb)
{
  return gst_param_spec_array (name, nick, blurb, NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
}

static void
gst_cuda_cache_convert_class_init (GstCudaCacheConvertClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaCacheBaseTransformClass *base_class =
      GST_CUDA_CACHE_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_cuda_cache_convert_set_property;
  gobject_class->get_property = gst_cuda_cache_convert_get_property;
  gobject_class->finalize = gst_cuda_cache_convert_finalize;

  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method",
          "How the picture is resampled: linear (GStreamer's, antialiased), "
          "or the preset of the library the model was trained with: nearest, "
          "bilinear and area (OpenCV's cv2.resize INTER_NEAREST, "
          "INTER_LINEAR, INTER_AREA), antialias (Pillow's BILINEAR), "
          "on system and CUDA memory alike",
          GST_TYPE_CUDA_CACHE_RESIZE_METHOD,
          GST_CUDA_CACHE_CONVERTER_DEFAULT_METHOD, rw));
  g_object_class_install_property (gobject_class, PROP_LETTERBOX,
      g_param_spec_boolean ("letterbox", "Letterbox",
          "Keep the picture's display aspect ratio (pixel-aspect-ratio "
          "counted) at letterbox-position, and fill the rest of the output "
          "with fill-value", DEFAULT_LETTERBOX, rw));
  g_object_class_install_property (gobject_class, PROP_LETTERBOX_POSITION,
      g_param_spec_enum ("letterbox-position", "Letterbox position",
          "Where a letterboxed picture lies: center (Ultralytics' "
          "LetterBox) or top-left (the bars right and below, DeepStream's "
          "default)", GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION,
          GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX_POSITION, rw));
  g_object_class_install_property (gobject_class, PROP_FILL_VALUE,
      g_param_spec_uint ("fill-value", "Fill value",
          "Red, green and blue of the letterbox padding, one value for all "
          "three (before normalisation; sets fill-rgb, and reads its red)",
          0, 255, DEFAULT_FILL_VALUE, rw));
  g_object_class_install_property (gobject_class, PROP_FILL_RGB,
      triple_param_spec ("fill-rgb", "Fill RGB",
          "Red, green and blue of the letterbox padding, three whole numbers "
          "from 0 to 255 (before normalisation), e.g. \"<124, 116, 104>\" "
          "(default <0, 0, 0>; fill-value sets all three)"));
  g_object_class_install_property (gobject_class, PROP_CHANNEL_ORDER,
      g_param_spec_enum ("channel-order", "Channel order",
          "Order of a tensor's colour channels",
          GST_TYPE_CUDA_CACHE_CHANNEL_ORDER, DEFAULT_CHANNEL_ORDER, rw));
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Scale",
          "Tensors: factor applied to pixel values (0..255) before mean and "
          "std, e.g. 0.00392156862745098 for 0..1", -G_MAXFLOAT, G_MAXFLOAT,
          DEFAULT_SCALE, rw));
  g_object_class_install_property (gobject_class, PROP_MEAN,
      triple_param_spec ("mean", "Mean",
          "Tensors: per-channel value subtracted after scaling, in the "
          "tensor's channel order: three numbers, e.g. "
          "\"<0.485, 0.456, 0.406>\" (default <0, 0, 0>)"));
  g_object_class_install_property (gobject_class, PROP_STD,
      triple_param_spec ("std", "Standard deviation",
          "Tensors: per-channel divisor applied after the mean, in the "
          "tensor's channel order: three numbers above 0, e.g. "
          "\"<0.229, 0.224, 0.225>\" (default <1, 1, 1>)"));

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_change_state);
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA cache converter", "Filter/Converter/Video/Scaler/Hardware",
      "Converts, scales and packs frames into images or tensors, on the GPU "
      "for CUDA memory and on the CPU otherwise, into memory from the shared "
      "cache. Tensor dimensions are a string of 3 or 4 numbers, innermost "
      "first: W:H:3:1 for NCHW, 3:W:H:1 for NHWC, e.g. "
      "dimensions=(string)640:640:3:1", "gst-cuda-cache developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_query);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_transform_caps);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_fixate_caps);
  trans_class->accept_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_accept_caps);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_set_info);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_transform_size);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_generate_output);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_propose_allocation);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_set_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_transform);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CACHE_CHANNEL_ORDER, 0);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_cache_convert_debug, "cudacacheconvert", 0,
      "CUDA cache: converter element");
}

static void
gst_cuda_cache_convert_init (GstCudaCacheConvert * self)
{
  guint i;

  self->letterbox = DEFAULT_LETTERBOX;
  self->method = GST_CUDA_CACHE_CONVERTER_DEFAULT_METHOD;
  self->position = GST_CUDA_CACHE_CONVERTER_DEFAULT_LETTERBOX_POSITION;
  self->fill[0] = self->fill[1] = self->fill[2] = DEFAULT_FILL_VALUE;
  self->channel_order = DEFAULT_CHANNEL_ORDER;
  self->scale = DEFAULT_SCALE;
  for (i = 0; i < 3; i++) {
    self->mean[i] = DEFAULT_MEAN;
    self->std[i] = DEFAULT_STD;
  }
}

/* A property value refused, as GObject refuses one out of range, but as a
 * warning on the bus rather than a GLib warning (which
 * G_DEBUG=fatal-warnings turns into an abort). Without a bus yet
 * (gst_parse_launch () sets properties before it adds elements to the
 * pipeline) it is kept and posted when the element leaves NULL: posting
 * from set_bus would deadlock on the bin's lock, which adding holds.
 * Takes @text. */
static void
refuse_property (GstCudaCacheConvert * self, gchar * text)
{
  GST_WARNING_OBJECT (self, "%s", text);
  if (GST_ELEMENT_BUS (self)) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("%s", text), (NULL));
    g_free (text);
    return;
  }
  GST_OBJECT_LOCK (self);
  g_free (self->refusal);
  self->refusal = text;
  GST_OBJECT_UNLOCK (self);
}

static GstStateChangeReturn
gst_cuda_cache_convert_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (element);
  gchar *text = NULL;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    GST_OBJECT_LOCK (self);
    text = g_steal_pointer (&self->refusal);
    GST_OBJECT_UNLOCK (self);
  }
  if (text) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("%s", text), (NULL));
    g_free (text);
  }

  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static gboolean
get_triple (GstCudaCacheConvert * self, const GValue * value,
    const gchar * name, gdouble min, gdouble out[3])
{
  gdouble triple[3];
  guint i;

  if (gst_value_array_get_size (value) != 3)
    goto wrong_size;
  /* numbers of any type: "<1, 2, 3>" parses as integers, and Python's
   * Gst.ValueArray of ints holds ints */
  for (i = 0; i < 3; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    GValue d = G_VALUE_INIT;

    g_value_init (&d, G_TYPE_DOUBLE);
    if (!g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE) ||
        !g_value_transform (v, &d)) {
      g_value_unset (&d);
      goto not_numbers;
    }
    triple[i] = g_value_get_double (&d);
    g_value_unset (&d);
    if (!(triple[i] >= min && triple[i] <= G_MAXFLOAT))
      goto out_of_range;
  }
  for (i = 0; i < 3; i++)
    out[i] = triple[i];

  return TRUE;

  /* ERRORS */
wrong_size:
  {
    refuse_property (self, g_strdup_printf ("%s takes three values, one per "
            "channel, such as \"<0.5, 0.5, 0.5>\"; %u given: keeping the "
            "previous ones", name, gst_value_array_get_size (value)));
    return FALSE;
  }
not_numbers:
  {
    refuse_property (self, g_strdup_printf ("%s takes three numbers, such "
            "as \"<0.5, 0.5, 0.5>\"; a value of type %s given: keeping the "
            "previous ones", name,
            G_VALUE_TYPE_NAME (gst_value_array_get_value (value, i))));
    return FALSE;
  }
out_of_range:
  {
    refuse_property (self, g_strdup_printf ("%s takes three numbers%s up to "
            "%g; value %u is %g: keeping the previous ones", name, min > 0 ?
            " above 0" : " from -3.4e38", G_MAXFLOAT, i, triple[i]));
    return FALSE;
  }
}

/* fill-rgb: three whole numbers from 0 to 255 */
static gboolean
get_fill_rgb (GstCudaCacheConvert * self, const GValue * value, gdouble out[3])
{
  gdouble triple[3];
  guint i;

  if (!get_triple (self, value, "fill-rgb", 0, triple))
    return FALSE;
  for (i = 0; i < 3; i++) {
    if (triple[i] > 255 || triple[i] != floor (triple[i])) {
      refuse_property (self, g_strdup_printf ("fill-rgb takes three whole "
              "numbers from 0 to 255, such as \"<114, 114, 114>\"; value %u "
              "is %g: keeping the previous ones", i, triple[i]));
      return FALSE;
    }
    out[i] = triple[i];
  }

  return TRUE;
}

static void
set_triple (GValue * value, const gdouble in[3])
{
  guint i;

  for (i = 0; i < 3; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, in[i]);
    gst_value_array_append_and_take_value (value, &v);
  }
}

static void
gst_cuda_cache_convert_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (object);
  gdouble triple[3];
  gboolean valid = TRUE;

  /* parsed before the lock: a refusal is posted, which takes it */
  if (prop_id == PROP_MEAN || prop_id == PROP_STD)
    valid = prop_id == PROP_MEAN ?
        get_triple (self, value, "mean", -G_MAXFLOAT, triple) :
        get_triple (self, value, "std", 1e-12, triple);
  if (prop_id == PROP_FILL_RGB)
    valid = get_fill_rgb (self, value, triple);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LETTERBOX:
      self->letterbox = g_value_get_boolean (value);
      break;
    case PROP_METHOD:
      self->method = g_value_get_enum (value);
      break;
    case PROP_LETTERBOX_POSITION:
      self->position = g_value_get_enum (value);
      break;
    case PROP_FILL_VALUE:
      self->fill[0] = self->fill[1] = self->fill[2] = g_value_get_uint (value);
      break;
    case PROP_FILL_RGB:
      if (valid) {
        guint i;

        for (i = 0; i < 3; i++)
          self->fill[i] = (guint) triple[i];
      }
      break;
    case PROP_CHANNEL_ORDER:
      self->channel_order = g_value_get_enum (value);
      break;
    case PROP_SCALE:
      self->scale = g_value_get_double (value);
      break;
    case PROP_MEAN:
      if (valid)
        memcpy (self->mean, triple, sizeof (triple));
      break;
    case PROP_STD:
      if (valid)
        memcpy (self->std, triple, sizeof (triple));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  self->config_changed = TRUE;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_cache_convert_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LETTERBOX:
      g_value_set_boolean (value, self->letterbox);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, self->method);
      break;
    case PROP_LETTERBOX_POSITION:
      g_value_set_enum (value, self->position);
      break;
    case PROP_FILL_VALUE:
      g_value_set_uint (value, self->fill[0]);
      break;
    case PROP_FILL_RGB:{
      guint i;

      for (i = 0; i < 3; i++) {
        GValue v = G_VALUE_INIT;

        g_value_init (&v, G_TYPE_UINT);
        g_value_set_uint (&v, self->fill[i]);
        gst_value_array_append_and_take_value (value, &v);
      }
      break;
    }
    case PROP_CHANNEL_ORDER:
      g_value_set_enum (value, self->channel_order);
      break;
    case PROP_SCALE:
      g_value_set_double (value, self->scale);
      break;
    case PROP_MEAN:
      set_triple (value, self->mean);
      break;
    case PROP_STD:
      set_triple (value, self->std);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_cuda_cache_convert_stop (GstBaseTransform * trans)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);

  gst_clear_object (&self->converter);
  g_free (self->refusal);
  gst_clear_caps (&self->failed_in);
  gst_clear_caps (&self->failed_out);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
}

/* Which tensor field of @caps the template refuses, and what it takes:
 * GStreamer says only "not negotiated" for them. NULL if none. */
static gchar *
tensor_caps_refusal (GstCaps * caps)
{
  static const struct
  {
    const gchar *field;
    const gchar *takes;
  } fields[] = {
    {"format", "cudacacheconvert makes static tensors (format=static)"},
    {"num_tensors", "cudacacheconvert makes one tensor (num_tensors=1)"},
    {"types", "types must be float32, float16 or uint8"},
    {"layout", "layout must be NCHW or NHWC"},
  };
  GstStructure *templ = gst_structure_from_string (TENSOR_CAPS (""), NULL);
  gchar *why = NULL;
  guint i, k;

  for (i = 0; !why && i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);

    if (!gst_structure_has_name (s, GST_CUDA_CACHE_TENSOR_CAPS_NAME))
      continue;
    for (k = 0; !why && k < G_N_ELEMENTS (fields); k++) {
      const GValue *asked = gst_structure_get_value (s, fields[k].field);
      gchar *given;

      if (!asked || gst_value_intersect (NULL, asked,
              gst_structure_get_value (templ, fields[k].field)))
        continue;
      given = gst_value_serialize (asked);
      why = g_strdup_printf ("%s=%s is not supported: %s", fields[k].field,
          given ? given : "?", fields[k].takes);
      g_free (given);
    }
  }
  gst_structure_free (templ);

  return why;
}

/* @caps and, after them, each of their tensors with any format,
 * num_tensors, types and layout */
static GstCaps *
relax_tensor_fields (GstCaps * caps)
{
  GstCaps *relaxed = gst_caps_copy (caps);
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);

    if (!gst_structure_has_name (s, GST_CUDA_CACHE_TENSOR_CAPS_NAME))
      continue;
    s = gst_structure_copy (s);
    gst_structure_remove_fields (s, "format", "num_tensors", "types",
        "layout", NULL);
    gst_caps_append_structure_full (relaxed, s,
        gst_caps_features_copy (gst_caps_get_features (caps, i)));
  }

  return relaxed;
}

/* Tensor fields the element cannot make are said by name, once per
 * downstream caps, where GStreamer would say only "can't handle caps" or
 * "not negotiated". So the source pad answers an unfiltered caps query (a
 * link's check) with tensors of any format, num_tensors, types and layout
 * as well, and the link is made; when upstream then asks what the element
 * takes and nothing is left, the refused field is posted. */
static gboolean
gst_cuda_cache_convert_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans,
      direction, query);
  GstCaps *filter = NULL, *result = NULL, *downstream;
  gchar *why;

  if (!ret || GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
    return ret;
  gst_query_parse_caps (query, &filter);
  gst_query_parse_caps_result (query, &result);
  if (!result)
    return ret;
  if (direction == GST_PAD_SRC && !filter) {
    GstCaps *relaxed = relax_tensor_fields (result);

    gst_query_set_caps_result (query, relaxed);
    gst_caps_unref (relaxed);
    return ret;
  }
  if (direction != GST_PAD_SINK || !gst_caps_is_empty (result))
    return ret;

  downstream = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans),
      NULL);
  why = tensor_caps_refusal (downstream);
  if (why && gst_cuda_cache_base_transform_refuse_caps
      (GST_CUDA_CACHE_BASE_TRANSFORM (trans), downstream)) {
    GST_ELEMENT_ERROR (trans, CORE, NEGOTIATION,
        ("Cannot convert to these caps: %s", why),
        ("downstream takes %" GST_PTR_FORMAT, downstream));
  } else if (why) {
    GST_DEBUG_OBJECT (trans, "refused again: %s", why);
  }
  g_free (why);
  gst_caps_unref (downstream);

  return ret;
}

static GstCaps *
gst_cuda_cache_convert_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    const GValue *framerate = gst_structure_get_value (s, "framerate");
    gboolean cuda = features && gst_caps_features_contains (features,
        GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    /* 16-bit 4:2:0 and 4:2:2 come in only; GRAY8 in system memory only */
    GstStructure *video = gst_structure_from_string (direction ==
        GST_PAD_SINK ? (cuda ? "video/x-raw, format = (string) "
            CONVERT_CUDA_FORMATS : "video/x-raw, format = (string) "
            CONVERT_FORMATS) : (cuda ? "video/x-raw, format = (string) "
            CONVERT_CUDA_IN_FORMATS : "video/x-raw, format = (string) "
            CONVERT_IN_FORMATS), NULL);

    /* any size and pixel aspect ratio, any of our formats, in the same
     * memory */
    gst_structure_set (video, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
        "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, "pixel-aspect-ratio",
        GST_TYPE_FRACTION_RANGE, 1, G_MAXINT, G_MAXINT, 1, NULL);
    if (framerate)
      gst_structure_set_value (video, "framerate", framerate);
    gst_caps_append_structure_full (ret, video,
        features ? gst_caps_features_copy (features) : NULL);

    if (direction == GST_PAD_SINK) {
      GstStructure *tensor = gst_structure_from_string (TENSOR_CAPS (""), NULL);

      if (framerate)
        gst_structure_set_value (tensor, "framerate", framerate);
      gst_caps_append_structure_full (ret, tensor,
          features ? gst_caps_features_copy (features) : NULL);
    }
  }

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (ret);
    ret = tmp;
  }

  GST_LOG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);

  return ret;
}

/* An output frame's size and pixel aspect ratio, as videoscale fixates
 * them: the display aspect ratio kept. Downstream's fixed width or height
 * decides the other; with both free the input's height stays; the pixel
 * aspect ratio stays the input's unless downstream fixes both sizes, which
 * then take the ratio that keeps the picture's shape. Letterboxing keeps
 * the shape by bars instead: its pixel aspect ratio stays the input's. */
static void
fixate_video_size (const GstStructure * in, GstStructure * out,
    gboolean letterbox)
{
  gint in_w = 0, in_h = 0, from_n = 1, from_d = 1, to_n = 1, to_d = 1, w, h;
  gboolean w_fixed = gst_structure_get_int (out, "width", &w);
  gboolean h_fixed = gst_structure_get_int (out, "height", &h);
  gdouble dar;

  gst_structure_get_int (in, "width", &in_w);
  gst_structure_get_int (in, "height", &in_h);
  if (!gst_structure_get_fraction (in, "pixel-aspect-ratio", &from_n,
          &from_d) || from_n <= 0 || from_d <= 0)
    from_n = from_d = 1;
  if (in_w <= 0 || in_h <= 0) {
    gst_structure_fixate_field_nearest_int (out, "width", in_w);
    gst_structure_fixate_field_nearest_int (out, "height", in_h);
    return;
  }
  dar = (gdouble) in_w *from_n / ((gdouble) in_h * from_d);

  if (!gst_structure_has_field (out, "pixel-aspect-ratio"))
    gst_structure_set (out, "pixel-aspect-ratio", GST_TYPE_FRACTION, from_n,
        from_d, NULL);
  if (w_fixed && h_fixed && !letterbox) {
    gint n, d;

    /* the ratio that shows the picture at its shape in w x h */
    gst_util_double_to_fraction (dar * h / w, &n, &d);
    gst_structure_fixate_field_nearest_fraction (out, "pixel-aspect-ratio",
        n, d);
  } else {
    gst_structure_fixate_field_nearest_fraction (out, "pixel-aspect-ratio",
        from_n, from_d);
  }
  gst_structure_get_fraction (out, "pixel-aspect-ratio", &to_n, &to_d);
  if (to_n <= 0 || to_d <= 0)
    to_n = to_d = 1;

  if (!w_fixed && !h_fixed) {
    gst_structure_fixate_field_nearest_int (out, "height", in_h);
    gst_structure_get_int (out, "height", &h);
    h_fixed = TRUE;
  }
  if (h_fixed && !w_fixed) {
    gdouble want = rint (h * dar * to_d / to_n);

    gst_structure_fixate_field_nearest_int (out, "width",
        (gint) CLAMP (want, 1, G_MAXINT));
  } else if (w_fixed && !h_fixed) {
    gdouble want = rint (w * to_n / (to_d * dar));

    gst_structure_fixate_field_nearest_int (out, "height",
        (gint) CLAMP (want, 1, G_MAXINT));
  }
}

static GstCaps *
gst_cuda_cache_convert_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);
  GstStructure *in, *out;
  gint width = 0, height = 0;
  const gchar *format;

  othercaps = gst_caps_truncate (othercaps);
  othercaps = gst_caps_make_writable (othercaps);
  if (direction != GST_PAD_SINK)
    return gst_caps_fixate (othercaps);

  in = gst_caps_get_structure (caps, 0);
  out = gst_caps_get_structure (othercaps, 0);
  gst_structure_get_int (in, "width", &width);
  gst_structure_get_int (in, "height", &height);

  if (gst_structure_has_name (out, GST_CUDA_CACHE_TENSOR_CAPS_NAME)) {
    const gchar *layout;

    /* the layout first: it decides the order of the dimensions */
    if (!gst_structure_has_field (out, "layout"))
      gst_structure_set (out, "layout", G_TYPE_STRING, "NCHW", NULL);
    else
      gst_structure_fixate_field_string (out, "layout", "NCHW");
    layout = gst_structure_get_string (out, "layout");

    /* a tensor of the input's size unless downstream says otherwise,
     * innermost dimension first */
    if (!gst_structure_has_field (out, "dimensions")) {
      gchar *dims = layout && g_ascii_strcasecmp (layout, "NHWC") == 0 ?
          g_strdup_printf ("3:%d:%d:1", width, height) :
          g_strdup_printf ("%d:%d:3:1", width, height);

      gst_structure_set (out, "dimensions", G_TYPE_STRING, dims, NULL);
      g_free (dims);
    }
    gst_structure_fixate_field_string (out, "types", "float32");
  } else {
    gboolean letterbox;

    GST_OBJECT_LOCK (self);
    letterbox = self->letterbox;
    GST_OBJECT_UNLOCK (self);
    fixate_video_size (in, out, letterbox);
    format = gst_structure_get_string (in, "format");
    if (format)
      gst_structure_fixate_field_string (out, "format", format);
  }
  if (gst_structure_has_field (in, "framerate")) {
    gint n = 0, d = 1;

    gst_structure_get_fraction (in, "framerate", &n, &d);
    gst_structure_fixate_field_nearest_fraction (out, "framerate", n, d);
  }

  othercaps = gst_caps_fixate (othercaps);
  GST_DEBUG_OBJECT (self, "fixated to %" GST_PTR_FORMAT, othercaps);

  return othercaps;
}

static gboolean
gst_cuda_cache_convert_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps)
{
  gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->accept_caps (trans,
      direction, caps);

  if (!ret) {
    GST_WARNING_OBJECT (trans, "refusing %" GST_PTR_FORMAT " on the %s pad; "
        "it takes %s", caps, direction == GST_PAD_SINK ? "sink" : "src",
        direction == GST_PAD_SINK ? SINK_CAPS : SRC_CAPS);
  }

  return ret;
}

/* The converter's config from the properties; clears config_changed. */
static GstStructure *
gst_cuda_cache_convert_take_config (GstCudaCacheConvert * self)
{
  GstStructure *config;

  GST_OBJECT_LOCK (self);
  config = gst_cuda_cache_converter_build_config (self->letterbox,
      self->fill[0], self->channel_order, self->scale, self->mean, self->std);
  gst_structure_set (config, GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX_POSITION,
      GST_TYPE_CUDA_CACHE_LETTERBOX_POSITION, self->position,
      GST_CUDA_CACHE_CONVERTER_OPT_METHOD, GST_TYPE_CUDA_CACHE_RESIZE_METHOD,
      self->method, NULL);
  gst_cuda_cache_converter_config_set_fill (config, self->fill[0],
      self->fill[1], self->fill[2]);
  self->config_changed = FALSE;
  GST_OBJECT_UNLOCK (self);

  return config;
}

/* Posts the converter's refusal of caps once per pair of caps: base
 * transform tries again at every buffer and every reconfiguration. */
static void
gst_cuda_cache_convert_caps_refused (GstCudaCacheConvert * self,
    GstCaps * incaps, GstCaps * outcaps, GError * error)
{
  if (self->failed_in && self->failed_out &&
      gst_caps_is_equal (self->failed_in, incaps) &&
      gst_caps_is_equal (self->failed_out, outcaps)) {
    GST_DEBUG_OBJECT (self, "refused again: %s", error->message);
    return;
  }

  gst_caps_replace (&self->failed_in, incaps);
  gst_caps_replace (&self->failed_out, outcaps);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("Cannot convert to these caps: %s", error->message),
      ("input %" GST_PTR_FORMAT ", output %" GST_PTR_FORMAT, incaps, outcaps));
}

static gboolean
gst_cuda_cache_convert_set_info (GstCudaCacheBaseTransform * base,
    GstCaps * incaps, GstCaps * outcaps, GstCudaContext * context)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (base);
  GError *error = NULL;
  gboolean ok;

  /* one converter while the memory's context stays: a caps change keeps
   * its kernels and stream */
  if (self->converter &&
      gst_cuda_cache_converter_get_context (self->converter) != context)
    gst_clear_object (&self->converter);

  /* caps and properties applied at once: the conversion is set up once */
  if (self->converter) {
    ok = gst_cuda_cache_converter_reconfigure (self->converter, incaps,
        outcaps, gst_cuda_cache_convert_take_config (self), &error);
  } else {
    self->converter = gst_cuda_cache_converter_new (incaps, outcaps, context,
        gst_cuda_cache_convert_take_config (self), &error);
    ok = self->converter != NULL;
  }

  if (!ok) {
    gst_cuda_cache_convert_caps_refused (self, incaps, outcaps, error);
    g_clear_error (&error);
    return FALSE;
  }
  gst_clear_caps (&self->failed_in);
  gst_clear_caps (&self->failed_out);

  return TRUE;
}

static gboolean
gst_cuda_cache_convert_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstCudaCacheTensorInfo tensor;
  GstVideoInfo info;

  if (gst_cuda_cache_tensor_info_from_caps (&tensor, othercaps)) {
    *othersize = tensor.size;
    return TRUE;
  }
  if (gst_video_info_from_caps (&info, othercaps)) {
    *othersize = GST_VIDEO_INFO_SIZE (&info);
    return TRUE;
  }

  return FALSE;
}

/* Upstream may crop by meta (decoders' visible rectangle, videocrop): the
 * converter reads the region in place, no copy. Passed through, the
 * buffer and its meta go on as they are, so only downstream's answer
 * counts. */
static gboolean
gst_cuda_cache_convert_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  if (!gst_base_transform_is_passthrough (trans) &&
      !gst_query_find_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE,
          NULL))
    gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);

  return TRUE;
}

/* The input's frame, for the picture meta of buffers passed through:
 * worked out once per caps, not per buffer */
static gboolean
gst_cuda_cache_convert_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);
  GstVideoInfo info;

  self->passed.w = self->passed.h = 0;
  if (gst_video_info_from_caps (&info, incaps)) {
    self->passed.w = GST_VIDEO_INFO_WIDTH (&info);
    self->passed.h = GST_VIDEO_INFO_HEIGHT (&info);
  }

  return GST_BASE_TRANSFORM_CLASS (parent_class)->set_caps (trans, incaps,
      outcaps);
}

/* Buffers passed through (the same caps on both sides) are their own
 * picture: they get the meta too, on a copy of the buffer's metadata
 * where others hold it (the memory is shared, not copied). */
static GstFlowReturn
gst_cuda_cache_convert_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);
  GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans, outbuf);

  if (ret != GST_FLOW_OK || !*outbuf ||
      !gst_base_transform_is_passthrough (trans) || self->passed.w <= 0 ||
      gst_buffer_get_cuda_cache_picture_meta (*outbuf))
    return ret;

  *outbuf = gst_buffer_make_writable (*outbuf);
  gst_buffer_add_cuda_cache_picture_meta (*outbuf, &self->passed,
      &self->passed, self->passed.w, self->passed.h);

  return ret;
}

static GstFlowReturn
gst_cuda_cache_convert_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);
  GError *error = NULL;
  gboolean changed;

  GST_OBJECT_LOCK (self);
  changed = self->config_changed;
  GST_OBJECT_UNLOCK (self);

  /* properties changed while playing take effect from this buffer on */
  if (changed && !gst_cuda_cache_converter_set_config (self->converter,
          gst_cuda_cache_convert_take_config (self), &error)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Cannot apply the new properties: %s", error->message), (NULL));
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }

  /* on the element's stream; the frame is written when this returns, or
   * (1.24+, our own pool's memory) left flagged for its readers to wait */
  if (!gst_cuda_cache_converter_convert_buffer (self->converter, inbuf,
          outbuf, gst_cuda_cache_base_transform_get_stream
          (GST_CUDA_CACHE_BASE_TRANSFORM (self)), &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", error->message),
        ("converting %" GST_PTR_FORMAT, inbuf));
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }
  /* where the picture lies, for mapping detections back */
  if (!gst_cuda_cache_converter_add_picture_meta (self->converter, outbuf))
    GST_WARNING_OBJECT (self, "could not put the picture meta on %"
        GST_PTR_FORMAT, outbuf);

  return GST_FLOW_OK;
}

static void
gst_cuda_cache_convert_finalize (GObject * object)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (object);

  gst_clear_object (&self->converter);
  gst_clear_caps (&self->failed_in);
  gst_clear_caps (&self->failed_out);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}
