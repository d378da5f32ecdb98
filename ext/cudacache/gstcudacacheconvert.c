/* SPDX-License-Identifier: LGPL-2.1-or-later */

/**
 * SECTION:element-cudacacheconvert
 * @title: cudacacheconvert
 *
 * Converts, scales (bilinear) and packs frames: NV12, I420, RGBA, BGRA,
 * RGBx, BGRx, RGB and BGR in; the same formats out, or a packed tensor
 * (`other/tensors`: uint8, float16 or float32; NCHW or NHWC; RGB or BGR
 * channel order) normalised as `value * scale / std - mean / std` per
 * channel. With `letterbox` the picture keeps its aspect ratio and the rest
 * of the output is `fill-value`.
 *
 * CUDA memory is converted on the device by kernels built into the plugin;
 * system memory on the CPU with #GstVideoConverter. Output buffers come from
 * the shared cache: caps seen before reuse their memory.
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
#include <gst/cuda/gstcudamemory.h>

#include "gstcudacacheconvert.h"
#include <gst/cudacache/gstcudacachekernels-private.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_convert_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_convert_debug

enum
{
  PROP_0,
  PROP_LETTERBOX,
  PROP_FILL_VALUE,
  PROP_CHANNEL_ORDER,
  PROP_SCALE,
  PROP_MEAN,
  PROP_STD,
};

#define DEFAULT_LETTERBOX FALSE
#define DEFAULT_FILL_VALUE 0
#define DEFAULT_CHANNEL_ORDER GST_CUDA_CACHE_CHANNEL_ORDER_RGB
#define DEFAULT_SCALE 1.0
#define DEFAULT_MEAN 0.0
#define DEFAULT_STD 1.0

#define CONVERT_FORMATS "{ NV12, I420, RGBA, BGRA, RGBx, BGRx, RGB, BGR }"
#define CONVERT_TYPES "{ float32, float16, uint8 }"

#define SINK_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      CONVERT_FORMATS) "; " \
  GST_VIDEO_CAPS_MAKE (CONVERT_FORMATS)

#define TENSOR_CAPS(features) \
  GST_CUDA_CACHE_TENSOR_CAPS_NAME features ", format = (string) static, " \
      "num_tensors = (int) 1, types = (string) " CONVERT_TYPES

#define SRC_CAPS SINK_CAPS "; " \
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
  gboolean letterbox;
  guint fill_value;
  GstCudaCacheChannelOrder channel_order;
  gdouble scale;
  gdouble mean[3];
  gdouble std[3];

  /* negotiated, streaming thread only */
  GstVideoInfo in_info;
  GstVideoInfo out_info;        /* video output */
  gboolean tensor_out;
  GstCudaCacheTensorInfo tensor;        /* tensor output */
  GstCudaCacheConvertParams params;
  GstVideoConverter *converter; /* system memory */
  GstVideoInfo rgb_info;        /* system memory, tensor output: RGB frame */
  GstBuffer *rgb_buffer;
  GstCudaCacheKernels *kernels; /* CUDA memory */
};

GType
gst_cuda_cache_channel_order_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_CACHE_CHANNEL_ORDER_RGB, "Red, green, blue", "rgb"},
    {GST_CUDA_CACHE_CHANNEL_ORDER_BGR, "Blue, green, red", "bgr"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaCacheChannelOrder", values);
    g_once_init_leave (&type, t);
  }

  return type;
}

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
static gboolean gst_cuda_cache_convert_stop (GstBaseTransform * trans);
static GstCaps *gst_cuda_cache_convert_transform_caps (GstBaseTransform *
    trans, GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static GstCaps *gst_cuda_cache_convert_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
static gboolean gst_cuda_cache_convert_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps);
static gboolean gst_cuda_cache_convert_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cuda_cache_convert_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static gboolean gst_cuda_cache_convert_decide_allocation (GstBaseTransform *
    trans, GstQuery * query);
static gboolean gst_cuda_cache_convert_transform_size (GstBaseTransform *
    trans, GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize);
static GstFlowReturn gst_cuda_cache_convert_transform (GstBaseTransform *
    trans, GstBuffer * inbuf, GstBuffer * outbuf);

static GParamSpec *
triple_param_spec (const gchar * name, const gchar * nick, const gchar * blurb,
    gdouble min, gdouble default_value)
{
  return gst_param_spec_array (name, nick, blurb,
      g_param_spec_double ("value", "Value", "One channel's value", min,
          G_MAXFLOAT, default_value, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS),
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
}

static void
gst_cuda_cache_convert_class_init (GstCudaCacheConvertClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  gobject_class->set_property = gst_cuda_cache_convert_set_property;
  gobject_class->get_property = gst_cuda_cache_convert_get_property;
  gobject_class->finalize = gst_cuda_cache_convert_finalize;

  g_object_class_install_property (gobject_class, PROP_LETTERBOX,
      g_param_spec_boolean ("letterbox", "Letterbox",
          "Keep the picture's aspect ratio, centred, and fill the rest of "
          "the output with fill-value", DEFAULT_LETTERBOX, rw));
  g_object_class_install_property (gobject_class, PROP_FILL_VALUE,
      g_param_spec_uint ("fill-value", "Fill value",
          "Red, green and blue of the letterbox padding (before "
          "normalisation)", 0, 255, DEFAULT_FILL_VALUE, rw));
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
          "tensor's channel order, e.g. \"<0.485, 0.456, 0.406>\"", -G_MAXFLOAT,
          DEFAULT_MEAN));
  g_object_class_install_property (gobject_class, PROP_STD,
      triple_param_spec ("std", "Standard deviation",
          "Tensors: per-channel divisor applied after the mean, in the "
          "tensor's channel order, e.g. \"<0.229, 0.224, 0.225>\" (each "
          "above 0)", 1e-12, DEFAULT_STD));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA cache converter", "Filter/Converter/Video/Scaler/Hardware",
      "Converts, scales and packs frames into images or tensors, on the GPU "
      "for CUDA memory and on the CPU otherwise, into memory from the shared "
      "cache", "gst-cuda-cache developers");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_transform_caps);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_fixate_caps);
  trans_class->accept_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_accept_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_set_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_decide_allocation);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_transform_size);
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
  self->fill_value = DEFAULT_FILL_VALUE;
  self->channel_order = DEFAULT_CHANNEL_ORDER;
  self->scale = DEFAULT_SCALE;
  for (i = 0; i < 3; i++) {
    self->mean[i] = DEFAULT_MEAN;
    self->std[i] = DEFAULT_STD;
  }
}

static gboolean
get_triple (GstCudaCacheConvert * self, const GValue * value,
    const gchar * name, gdouble out[3])
{
  guint i;

  if (gst_value_array_get_size (value) != 3) {
    g_warning ("cudacacheconvert: %s takes three values, one per channel, "
        "such as \"<0.5, 0.5, 0.5>\"; keeping the previous ones", name);
    return FALSE;
  }
  for (i = 0; i < 3; i++)
    out[i] = g_value_get_double (gst_value_array_get_value (value, i));

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

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LETTERBOX:
      self->letterbox = g_value_get_boolean (value);
      break;
    case PROP_FILL_VALUE:
      self->fill_value = g_value_get_uint (value);
      break;
    case PROP_CHANNEL_ORDER:
      self->channel_order = g_value_get_enum (value);
      break;
    case PROP_SCALE:
      self->scale = g_value_get_double (value);
      break;
    case PROP_MEAN:
      if (get_triple (self, value, "mean", triple))
        memcpy (self->mean, triple, sizeof (triple));
      break;
    case PROP_STD:
      if (get_triple (self, value, "std", triple))
        memcpy (self->std, triple, sizeof (triple));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
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
    case PROP_FILL_VALUE:
      g_value_set_uint (value, self->fill_value);
      break;
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

/* What set_caps makes for one pair of caps. The kernels stay loaded across
 * caps changes: they depend only on the context. */
static void
gst_cuda_cache_convert_clear (GstCudaCacheConvert * self)
{
  g_clear_pointer (&self->converter, gst_video_converter_free);
  gst_clear_buffer (&self->rgb_buffer);
}

static gboolean
gst_cuda_cache_convert_stop (GstBaseTransform * trans)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);

  gst_cuda_cache_convert_clear (self);
  g_clear_pointer (&self->kernels, gst_cuda_cache_kernels_free);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
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
    GstStructure *video = gst_structure_from_string ("video/x-raw, format = "
        "(string) " CONVERT_FORMATS, NULL);

    /* any size, any of our formats, in the same memory */
    gst_structure_set (video, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
        "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
    if (framerate)
      gst_structure_set_value (video, "framerate", framerate);
    gst_caps_append_structure_full (ret, video,
        features ? gst_caps_features_copy (features) : NULL);

    if (direction == GST_PAD_SINK) {
      GstStructure *tensor =
          gst_structure_from_string (GST_CUDA_CACHE_TENSOR_CAPS_NAME
          ", format = (string) static, num_tensors = (int) 1, "
          "types = (string) " CONVERT_TYPES, NULL);

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
    /* a tensor of the input's size unless downstream says otherwise */
    if (!gst_structure_has_field (out, "dimensions")) {
      gchar *dims = g_strdup_printf ("%d:%d:3:1", width, height);

      gst_structure_set (out, "dimensions", G_TYPE_STRING, dims, NULL);
      g_free (dims);
    }
    if (!gst_structure_has_field (out, "layout"))
      gst_structure_set (out, "layout", G_TYPE_STRING, "NCHW", NULL);
    gst_structure_fixate_field_string (out, "types", "float32");
  } else {
    gst_structure_fixate_field_nearest_int (out, "width", width);
    gst_structure_fixate_field_nearest_int (out, "height", height);
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

/* A YUV info's colorimetry: luma weights, and the 8-bit offset of Y and
 * the ranges of Y and of U, V. */
static void
color_coefficients (const GstVideoInfo * info, gdouble * kr, gdouble * kb,
    gdouble * oy, gdouble * sy, gdouble * suv)
{
  gint offset[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];

  if (!gst_video_color_matrix_get_Kr_Kb (info->colorimetry.matrix, kr, kb)) {
    *kr = 0.299;
    *kb = 0.114;
  }
  gst_video_color_range_offsets (info->colorimetry.range, info->finfo, offset,
      scale);
  *oy = offset[0];
  *sy = scale[0];
  *suv = scale[1];
}

/* gstcudacachekernels.h's yuv_to_rgb for a YUV input: 8-bit Y'CbCr to
 * R'G'B' on the 0..255 scale. */
static void
yuv_to_rgb_matrix (const GstVideoInfo * info, gfloat m[12])
{
  gdouble kr, kb, kg, oy, sy, suv;
  gdouble to_rgb[3][3];
  guint c;

  color_coefficients (info, &kr, &kb, &oy, &sy, &suv);
  kg = 1.0 - kr - kb;

  /* R'G'B' (0..1) from Y' (0..1) and Pb, Pr (-0.5..0.5) */
  to_rgb[0][0] = 1.0;
  to_rgb[0][1] = 0.0;
  to_rgb[0][2] = 2.0 * (1.0 - kr);
  to_rgb[2][0] = 1.0;
  to_rgb[2][1] = 2.0 * (1.0 - kb);
  to_rgb[2][2] = 0.0;
  to_rgb[1][0] = 1.0;
  to_rgb[1][1] = -kb * to_rgb[2][1] / kg;
  to_rgb[1][2] = -kr * to_rgb[0][2] / kg;

  for (c = 0; c < 3; c++) {
    gdouble my = 255.0 * to_rgb[c][0] / sy;
    gdouble mu = 255.0 * to_rgb[c][1] / suv;
    gdouble mv = 255.0 * to_rgb[c][2] / suv;

    m[4 * c] = my;
    m[4 * c + 1] = mu;
    m[4 * c + 2] = mv;
    m[4 * c + 3] = -my * oy - (mu + mv) * 128.0;
  }
}

/* gstcudacachekernels.h's rgb_to_yuv for a YUV output:
 * Y = oy + sy * Y'; U = 128 + suv * Pb; V = 128 + suv * Pr. */
static void
rgb_to_yuv_matrix (const GstVideoInfo * info, gfloat m[12])
{
  gdouble kr, kb, kg, oy, sy, suv;

  color_coefficients (info, &kr, &kb, &oy, &sy, &suv);
  kg = 1.0 - kr - kb;

  m[0] = sy * kr / 255.0;
  m[1] = sy * kg / 255.0;
  m[2] = sy * kb / 255.0;
  m[3] = oy;
  m[4] = suv * -kr / (2.0 * (1.0 - kb)) / 255.0;
  m[5] = suv * -kg / (2.0 * (1.0 - kb)) / 255.0;
  m[6] = suv * 0.5 / 255.0;
  m[7] = 128.0;
  m[8] = suv * 0.5 / 255.0;
  m[9] = suv * -kg / (2.0 * (1.0 - kr)) / 255.0;
  m[10] = suv * -kb / (2.0 * (1.0 - kr)) / 255.0;
  m[11] = 128.0;
}

static gboolean
gst_cuda_cache_convert_setup_converter (GstCudaCacheConvert * self,
    const GstVideoInfo * out_info)
{
  const GstCudaCacheConvertParams *p = &self->params;
  guint fill = p->fill[0];
  GstStructure *options;

  options = gst_structure_new ("options",
      GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD,
      GST_VIDEO_RESAMPLER_METHOD_LINEAR,
      GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD,
      GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR,
      GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD,
      GST_VIDEO_DITHER_NONE,
      GST_VIDEO_CONVERTER_OPT_DEST_X, G_TYPE_INT, p->dest_x,
      GST_VIDEO_CONVERTER_OPT_DEST_Y, G_TYPE_INT, p->dest_y,
      GST_VIDEO_CONVERTER_OPT_DEST_WIDTH, G_TYPE_INT, p->dest_width,
      GST_VIDEO_CONVERTER_OPT_DEST_HEIGHT, G_TYPE_INT, p->dest_height,
      GST_VIDEO_CONVERTER_OPT_FILL_BORDER, G_TYPE_BOOLEAN, TRUE,
      GST_VIDEO_CONVERTER_OPT_BORDER_ARGB, G_TYPE_UINT,
      (0xffu << 24) | (fill << 16) | (fill << 8) | fill,
      GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT,
      MIN (g_get_num_processors (), 8), NULL);

  self->converter = gst_video_converter_new (&self->in_info,
      (GstVideoInfo *) out_info, options);

  return self->converter != NULL;
}

static gboolean
gst_cuda_cache_convert_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);
  GstCudaCacheBaseTransform *base = GST_CUDA_CACHE_BASE_TRANSFORM (trans);
  GstCudaCacheConvertParams *p = &self->params;
  gint out_w, out_h;
  gdouble scale, mean[3], std[3];
  gboolean letterbox, bgr;
  guint i, fill;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->set_caps (trans, incaps,
          outcaps))
    return FALSE;

  gst_cuda_cache_convert_clear (self);
  memset (p, 0, sizeof (*p));

  if (!gst_video_info_from_caps (&self->in_info, incaps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("invalid input caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }

  self->tensor_out = gst_structure_has_name (gst_caps_get_structure (outcaps,
          0), GST_CUDA_CACHE_TENSOR_CAPS_NAME);
  if (self->tensor_out) {
    if (!gst_cuda_cache_tensor_info_from_caps (&self->tensor, outcaps) ||
        gst_cuda_cache_tensor_info_get_channels (&self->tensor) != 3 ||
        gst_cuda_cache_tensor_info_get_batch (&self->tensor) != 1) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("cudacacheconvert makes 3-channel tensors of batch 1 (dimensions "
              "W:H:3:1 for NCHW, 3:W:H:1 for NHWC) of uint8, float16 or "
              "float32"), ("output caps %" GST_PTR_FORMAT, outcaps));
      return FALSE;
    }
    out_w = gst_cuda_cache_tensor_info_get_width (&self->tensor);
    out_h = gst_cuda_cache_tensor_info_get_height (&self->tensor);
    p->out_format = GST_VIDEO_FORMAT_UNKNOWN;
  } else {
    if (!gst_video_info_from_caps (&self->out_info, outcaps)) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
          ("invalid output caps %" GST_PTR_FORMAT, outcaps));
      return FALSE;
    }
    out_w = GST_VIDEO_INFO_WIDTH (&self->out_info);
    out_h = GST_VIDEO_INFO_HEIGHT (&self->out_info);
    p->out_format = GST_VIDEO_INFO_FORMAT (&self->out_info);
  }

  GST_OBJECT_LOCK (self);
  letterbox = self->letterbox;
  fill = self->fill_value;
  bgr = self->channel_order == GST_CUDA_CACHE_CHANNEL_ORDER_BGR;
  scale = self->scale;
  memcpy (mean, self->mean, sizeof (mean));
  memcpy (std, self->std, sizeof (std));
  GST_OBJECT_UNLOCK (self);

  /* geometry */
  p->in_format = GST_VIDEO_INFO_FORMAT (&self->in_info);
  p->in_width = GST_VIDEO_INFO_WIDTH (&self->in_info);
  p->in_height = GST_VIDEO_INFO_HEIGHT (&self->in_info);
  p->in_chroma_site = GST_VIDEO_INFO_CHROMA_SITE (&self->in_info);
  p->out_width = out_w;
  p->out_height = out_h;
  p->dest_width = out_w;
  p->dest_height = out_h;
  if (letterbox) {
    gdouble r = MIN ((gdouble) out_w / p->in_width,
        (gdouble) out_h / p->in_height);

    p->dest_width = CLAMP ((gint) round (p->in_width * r), 1, out_w);
    p->dest_height = CLAMP ((gint) round (p->in_height * r), 1, out_h);
    p->dest_x = (out_w - p->dest_width) / 2;
    p->dest_y = (out_h - p->dest_height) / 2;
  }
  for (i = 0; i < 3; i++)
    p->fill[i] = fill;

  /* the kernels read each matrix only for YUV on its side */
  if (GST_VIDEO_INFO_IS_YUV (&self->in_info))
    yuv_to_rgb_matrix (&self->in_info, p->yuv_to_rgb);
  if (!self->tensor_out && GST_VIDEO_INFO_IS_YUV (&self->out_info))
    rgb_to_yuv_matrix (&self->out_info, p->rgb_to_yuv);

  /* tensor values: v * scale / std - mean / std */
  p->dtype = self->tensor.dtype;
  p->layout = self->tensor.layout;
  p->bgr = bgr;
  for (i = 0; i < 3; i++) {
    p->mul[i] = scale / std[i];
    p->add[i] = -mean[i] / std[i];
  }

  GST_DEBUG_OBJECT (self, "%dx%d %s -> %dx%d %s, picture at %d,%d %dx%d",
      p->in_width, p->in_height, GST_VIDEO_INFO_NAME (&self->in_info), out_w,
      out_h, self->tensor_out ? "tensor" :
      GST_VIDEO_INFO_NAME (&self->out_info), p->dest_x, p->dest_y,
      p->dest_width, p->dest_height);

  if (gst_base_transform_is_passthrough (trans))
    return TRUE;

  if (base->cuda_memory) {
    if (self->kernels &&
        gst_cuda_cache_kernels_get_context (self->kernels) != base->context)
      g_clear_pointer (&self->kernels, gst_cuda_cache_kernels_free);
    if (!self->kernels)
      self->kernels = gst_cuda_cache_kernels_new (base->context);
    if (!self->kernels) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Cannot convert CUDA memory: %s",
              gst_cuda_cache_kernels_built ()?
              "the plugin's kernels do not load on this device" :
              "the plugin was built without its CUDA kernels (no nvcc)"),
          ("convert in system memory (cudadownload before this element) or "
              "rebuild with a CUDA Toolkit"));
      return FALSE;
    }
    return TRUE;
  }

  if (self->tensor_out) {
    gst_video_info_set_format (&self->rgb_info, GST_VIDEO_FORMAT_RGB, out_w,
        out_h);
    /* GstVideoConverter converts pictures, not frame rates */
    GST_VIDEO_INFO_FPS_N (&self->rgb_info) =
        GST_VIDEO_INFO_FPS_N (&self->in_info);
    GST_VIDEO_INFO_FPS_D (&self->rgb_info) =
        GST_VIDEO_INFO_FPS_D (&self->in_info);
    self->rgb_buffer =
        gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&self->rgb_info),
        NULL);
    return gst_cuda_cache_convert_setup_converter (self, &self->rgb_info);
  }

  return gst_cuda_cache_convert_setup_converter (self, &self->out_info);
}

static gboolean
gst_cuda_cache_convert_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
      decide_query, query);

  return gst_cuda_cache_base_transform_propose_pool
      (GST_CUDA_CACHE_BASE_TRANSFORM (trans), query);
}

/* Output buffers from the shared cache: downstream's pool when it is one
 * of ours for this memory, a new one over the cache otherwise. */
static gboolean
gst_cuda_cache_convert_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstBufferPool *pool;
  guint size, min_buffers, max_buffers;
  gboolean from_downstream;

  pool = gst_cuda_cache_base_transform_query_pool
      (GST_CUDA_CACHE_BASE_TRANSFORM (trans), query, &size, &min_buffers,
      &max_buffers, &from_downstream);
  if (!pool) {
    GST_ELEMENT_ERROR (trans, RESOURCE, SETTINGS, (NULL),
        ("no cache pool for output: %" GST_PTR_FORMAT, query));
    return FALSE;
  }

  GST_DEBUG_OBJECT (trans, "output from %" GST_PTR_FORMAT, pool);
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min_buffers,
        max_buffers);
  else
    gst_query_add_allocation_pool (query, pool, size, min_buffers, max_buffers);
  gst_object_unref (pool);

  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
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

/* IEEE half from float, round to nearest even. */
static guint16
float_to_half (gfloat f)
{
  union
  {
    gfloat f;
    guint32 u;
  } v = {.f = f };
  guint32 sign = (v.u >> 16) & 0x8000;
  gint32 exp = ((v.u >> 23) & 0xff) - 127 + 15;
  guint32 mant = v.u & 0x7fffff;

  if (((v.u >> 23) & 0xff) == 0xff)     /* inf, nan */
    return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 31)
    return sign | 0x7c00;
  if (exp <= 0) {
    guint32 shift;
    guint32 half, rest;

    if (exp < -10)
      return sign;
    mant |= 0x800000;
    shift = 14 - exp;
    half = mant >> shift;
    rest = mant & ((1u << shift) - 1);
    if (rest > (1u << (shift - 1)) ||
        (rest == (1u << (shift - 1)) && (half & 1)))
      half++;
    return sign | half;
  } else {
    guint32 half = sign | (exp << 10) | (mant >> 13);
    guint32 rest = mant & 0x1fff;

    if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
      half++;                   /* may carry into the exponent: correct */
    return half;
  }
}

/* The tensor from an RGB frame: the project's own small loop. */
static void
pack_tensor (const GstCudaCacheConvertParams * p, const GstVideoInfo * rgb,
    const guint8 * src, guint8 * dst)
{
  gint w = p->out_width, h = p->out_height, x, y, k;
  gint stride = GST_VIDEO_INFO_PLANE_STRIDE (rgb, 0);

  for (y = 0; y < h; y++) {
    const guint8 *row = src + y * stride;

    for (x = 0; x < w; x++) {
      for (k = 0; k < 3; k++) {
        gfloat v = row[3 * x + (p->bgr ? 2 - k : k)] * p->mul[k] + p->add[k];
        gsize i = p->layout == GST_CUDA_CACHE_TENSOR_LAYOUT_NCHW ?
            ((gsize) k * h + y) * w + x : ((gsize) y * w + x) * 3 + k;

        switch (p->dtype) {
          case GST_CUDA_CACHE_TENSOR_DTYPE_U8:
            dst[i] = (guint8) CLAMP (lrintf (v), 0, 255);
            break;
          case GST_CUDA_CACHE_TENSOR_DTYPE_F16:
            ((guint16 *) dst)[i] = float_to_half (v);
            break;
          case GST_CUDA_CACHE_TENSOR_DTYPE_F32:
            ((gfloat *) dst)[i] = v;
            break;
        }
      }
    }
  }
}

static GstFlowReturn
gst_cuda_cache_convert_transform_system (GstCudaCacheConvert * self,
    GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstVideoFrame in_frame, out_frame;
  GstMapInfo map;

  if (!gst_video_frame_map (&in_frame, &self->in_info, inbuf, GST_MAP_READ))
    goto map_failed;

  if (!self->tensor_out) {
    if (!gst_video_frame_map (&out_frame, &self->out_info, outbuf,
            GST_MAP_WRITE)) {
      gst_video_frame_unmap (&in_frame);
      goto map_failed;
    }
    gst_video_converter_frame (self->converter, &in_frame, &out_frame);
    gst_video_frame_unmap (&out_frame);
    gst_video_frame_unmap (&in_frame);
    return GST_FLOW_OK;
  }

  if (!gst_buffer_map (outbuf, &map, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in_frame);
    goto map_failed;
  }
  if (map.size < self->tensor.size) {
    gst_buffer_unmap (outbuf, &map);
    gst_video_frame_unmap (&in_frame);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("output buffer of %" G_GSIZE_FORMAT " bytes for a tensor of %"
            G_GSIZE_FORMAT, map.size, self->tensor.size));
    return GST_FLOW_ERROR;
  }
  if (!gst_video_frame_map (&out_frame, &self->rgb_info, self->rgb_buffer,
          GST_MAP_READWRITE)) {
    gst_buffer_unmap (outbuf, &map);
    gst_video_frame_unmap (&in_frame);
    goto map_failed;
  }
  gst_video_converter_frame (self->converter, &in_frame, &out_frame);
  pack_tensor (&self->params, &self->rgb_info,
      GST_VIDEO_FRAME_PLANE_DATA (&out_frame, 0), map.data);
  gst_video_frame_unmap (&out_frame);
  gst_buffer_unmap (outbuf, &map);
  gst_video_frame_unmap (&in_frame);

  return GST_FLOW_OK;

map_failed:
  GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
      ("could not map a %s buffer", self->tensor_out ? "tensor" : "video"));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_cuda_cache_convert_transform_cuda (GstCudaCacheConvert * self,
    GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaCacheConvertParams *p = &self->params;
  GstVideoFrame in_frame, out_frame;
  GstMapInfo map;
  gboolean ok;
  guint i;

  if (!gst_is_cuda_memory (gst_buffer_peek_memory (inbuf, 0)) ||
      !gst_is_cuda_memory (gst_buffer_peek_memory (outbuf, 0))) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("CUDA memory caps, but a buffer in other memory"));
    return GST_FLOW_ERROR;
  }

  if (!gst_video_frame_map (&in_frame, &self->in_info, inbuf,
          GST_MAP_READ | GST_MAP_CUDA))
    goto map_failed;
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (&in_frame); i++) {
    p->in_data[i] = (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&in_frame, i);
    p->in_stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, i);
  }

  if (self->tensor_out) {
    if (!gst_buffer_map (outbuf, &map, GST_MAP_WRITE | GST_MAP_CUDA)) {
      gst_video_frame_unmap (&in_frame);
      goto map_failed;
    }
    p->out_data[0] = (guintptr) map.data;
  } else {
    if (!gst_video_frame_map (&out_frame, &self->out_info, outbuf,
            GST_MAP_WRITE | GST_MAP_CUDA)) {
      gst_video_frame_unmap (&in_frame);
      goto map_failed;
    }
    for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (&out_frame); i++) {
      p->out_data[i] = (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&out_frame, i);
      p->out_stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, i);
    }
  }

  ok = gst_cuda_cache_kernels_convert (self->kernels, p, NULL);

  if (self->tensor_out)
    gst_buffer_unmap (outbuf, &map);
  else
    gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);

  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("CUDA conversion failed"),
        ("%dx%d %s to %dx%d %s (%" G_GSIZE_FORMAT " bytes out)",
            p->in_width, p->in_height, GST_VIDEO_INFO_NAME (&self->in_info),
            p->out_width, p->out_height, self->tensor_out ? "tensor" :
            GST_VIDEO_INFO_NAME (&self->out_info),
            gst_buffer_get_size (outbuf)));
    return GST_FLOW_ERROR;
  }

  return GST_FLOW_OK;

map_failed:
  GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
      ("could not map CUDA memory for the conversion"));
  return GST_FLOW_ERROR;
}

static GstFlowReturn
gst_cuda_cache_convert_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);

  if (GST_CUDA_CACHE_BASE_TRANSFORM (trans)->cuda_memory)
    return gst_cuda_cache_convert_transform_cuda (self, inbuf, outbuf);

  return gst_cuda_cache_convert_transform_system (self, inbuf, outbuf);
}

static void
gst_cuda_cache_convert_finalize (GObject * object)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (object);

  gst_cuda_cache_convert_clear (self);
  g_clear_pointer (&self->kernels, gst_cuda_cache_kernels_free);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}
