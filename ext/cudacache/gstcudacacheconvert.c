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
 * (`64:48`) as a flagset. Caps queries answer only the tensors the
 * element makes; caps refused in negotiation for a field it cannot make
 * (`types`, `num_tensors`, `layout`, `format`) are one error that names
 * the field.
 *
 * The conversion itself is the library's #GstCudaCacheConverter: CUDA
 * memory is converted on the device by its kernels, on a non-blocking
 * stream of the element's own, and system memory on the CPU by the same
 * definition in C (the kernels' taps and arithmetic, on all cores). The
 * element negotiates, configures the converter and calls it. Properties
 * changed while playing apply from the next buffer; `letterbox`, which
 * decides the output's pixel aspect ratio, renegotiates the output.
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
#include "gstcudacacheconvertoptions.h"
#include "gstcudacacheelementprops.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_cache_convert_debug);
#define GST_CAT_DEFAULT gst_cuda_cache_convert_debug

enum
{
  PROP_0,
  PROP_TENSOR_META,
  PROP_FIRST_OPTION,
};

#define SRC_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
      GST_CUDA_CACHE_CONVERTER_CUDA_OUTPUT_FORMATS) "; " \
  GST_VIDEO_CAPS_MAKE (GST_CUDA_CACHE_CONVERTER_OUTPUT_FORMATS) "; " \
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
  GstCudaCacheConvertOptions options;
  gint tensor_meta;             /* atomic: read for each buffer */

  /* streaming thread only */
  GstCudaCacheConverter *converter;
  gboolean tensor_out;
  GstCudaCacheTensorInfo out_tensor;    /* where tensor_out */
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
static GstCaps *gst_cuda_cache_convert_transform_caps (GstBaseTransform *
    trans, GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_cuda_cache_convert_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn gst_cuda_cache_convert_submit_input_buffer
    (GstBaseTransform * trans, gboolean is_discont, GstBuffer * input);
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

static void
gst_cuda_cache_convert_class_init (GstCudaCacheConvertClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaCacheBaseTransformClass *base_class =
      GST_CUDA_CACHE_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cuda_cache_convert_set_property;
  gobject_class->get_property = gst_cuda_cache_convert_get_property;
  gobject_class->finalize = gst_cuda_cache_convert_finalize;

  gst_cuda_cache_convert_options_install (gobject_class, PROP_FIRST_OPTION);
  g_object_class_install_property (gobject_class, PROP_TENSOR_META,
      gst_cuda_cache_param_spec_tensor_meta ());

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
      "dimensions=(string)640:640:3:1", "the gst-cuda-cache authors");

  trans_class->passthrough_on_same_caps = TRUE;
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_transform_caps);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_fixate_caps);
  trans_class->accept_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_accept_caps);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_sink_event);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_cache_convert_submit_input_buffer);
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
  gst_cuda_cache_convert_options_init (&self->options);
  self->tensor_meta = TRUE;
}

static GstStateChangeReturn
gst_cuda_cache_convert_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (element);

  if (transition == GST_STATE_CHANGE_NULL_TO_READY)
    gst_cuda_cache_convert_options_post_refusal (&self->options, element);

  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

static void
gst_cuda_cache_convert_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (object);

  if (prop_id >= PROP_FIRST_OPTION &&
      prop_id < PROP_FIRST_OPTION + GST_CUDA_CACHE_CONVERT_N_OPTIONS) {
    gst_cuda_cache_convert_options_set (&self->options, GST_ELEMENT (self),
        prop_id - PROP_FIRST_OPTION, value);
    /* letterbox decides the output's pixel aspect ratio (fixate_caps) */
    if (prop_id - PROP_FIRST_OPTION == GST_CUDA_CACHE_CONVERT_OPTION_LETTERBOX)
      gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
  } else if (prop_id == PROP_TENSOR_META)
    g_atomic_int_set (&self->tensor_meta, g_value_get_boolean (value));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_cuda_cache_convert_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (object);

  if (prop_id >= PROP_FIRST_OPTION &&
      prop_id < PROP_FIRST_OPTION + GST_CUDA_CACHE_CONVERT_N_OPTIONS)
    gst_cuda_cache_convert_options_get (&self->options, GST_ELEMENT (self),
        prop_id - PROP_FIRST_OPTION, value);
  else if (prop_id == PROP_TENSOR_META)
    g_value_set_boolean (value, g_atomic_int_get (&self->tensor_meta));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static gboolean
gst_cuda_cache_convert_stop (GstBaseTransform * trans)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);

  gst_clear_object (&self->converter);
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
            GST_CUDA_CACHE_CONVERTER_CUDA_OUTPUT_FORMATS :
            "video/x-raw, format = (string) "
            GST_CUDA_CACHE_CONVERTER_OUTPUT_FORMATS) : (cuda ?
            "video/x-raw, format = (string) "
            GST_CUDA_CACHE_CONVERTER_CUDA_INPUT_FORMATS :
            "video/x-raw, format = (string) "
            GST_CUDA_CACHE_CONVERTER_INPUT_FORMATS), NULL);

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

/* Negotiation that failed for want of any output downstream takes, where
 * downstream asks for a tensor field the element cannot make: said by
 * name, once per downstream caps, where GStreamer would say only "not
 * negotiated". Caps queries answer only what the element makes and post
 * nothing (autopluggers ask them freely): a link to such caps fails as
 * any link does, and this explains the refusal of caps that reach the
 * element anyway (pushed without asking, or downstream changing). */
static void
gst_cuda_cache_convert_explain_refusal (GstCudaCacheConvert * self,
    GstCaps * incaps)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstCaps *downstream, *possible;
  gchar *why = NULL;

  if (!incaps)
    return;
  downstream = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (trans),
      NULL);
  possible = gst_cuda_cache_convert_transform_caps (trans, GST_PAD_SINK,
      incaps, NULL);
  /* where an output was possible, the converter refused it and said why */
  if (!gst_caps_can_intersect (possible, downstream))
    why = tensor_caps_refusal (downstream);
  if (why && gst_cuda_cache_base_transform_refuse_caps
      (GST_CUDA_CACHE_BASE_TRANSFORM (self), downstream)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot convert to these caps: %s", why),
        ("input %" GST_PTR_FORMAT ", downstream takes %" GST_PTR_FORMAT,
            incaps, downstream));
  } else if (why) {
    GST_DEBUG_OBJECT (self, "refused again: %s", why);
  }
  g_free (why);
  gst_caps_unref (possible);
  gst_caps_unref (downstream);
}

/* caps from upstream that no output can be negotiated for */
static gboolean
gst_cuda_cache_convert_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCaps *incaps = NULL;
  gboolean ret;

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    gst_event_parse_caps (event, &incaps);
    gst_caps_ref (incaps);
  }
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
  if (incaps && !ret)
    gst_cuda_cache_convert_explain_refusal (GST_CUDA_CACHE_CONVERT (trans),
        incaps);
  gst_clear_caps (&incaps);

  return ret;
}

/* downstream's new caps that no output can be negotiated for (a
 * reconfiguration before this buffer) */
static GstFlowReturn
gst_cuda_cache_convert_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans,
      is_discont, input);

  if (ret == GST_FLOW_NOT_NEGOTIATED) {
    GstCaps *incaps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD
        (trans));

    gst_cuda_cache_convert_explain_refusal (GST_CUDA_CACHE_CONVERT (trans),
        incaps);
    gst_clear_caps (&incaps);
  }

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
    gst_structure_get_boolean (self->options.config,
        GST_CUDA_CACHE_CONVERTER_OPT_LETTERBOX, &letterbox);
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

/* The converter's config from the properties; clears options.changed. */
static GstStructure *
gst_cuda_cache_convert_take_config (GstCudaCacheConvert * self)
{
  return gst_cuda_cache_convert_options_take_config (&self->options,
      GST_ELEMENT (self));
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
  self->tensor_out = gst_cuda_cache_tensor_info_from_caps (&self->out_tensor,
      outcaps);
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
 * where others hold it (the memory is shared, not copied). As for a
 * conversion, the source frame is the one downstream of a crop meta sees:
 * the crop's size where the buffer has one. */
static GstFlowReturn
gst_cuda_cache_convert_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);
  GstFlowReturn ret =
      GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans, outbuf);
  GstVideoRectangle frame = self->passed;
  GstCudaCachePictureGeometry geometry;
  GstVideoCropMeta *crop;

  if (ret != GST_FLOW_OK || !*outbuf ||
      !gst_base_transform_is_passthrough (trans) || self->passed.w <= 0 ||
      gst_buffer_get_cuda_cache_picture_meta (*outbuf))
    return ret;

  crop = gst_buffer_get_video_crop_meta (*outbuf);
  if (crop && crop->width > 0 && crop->height > 0) {
    frame.w = (gint) MIN (crop->width, G_MAXINT);
    frame.h = (gint) MIN (crop->height, G_MAXINT);
  }
  geometry.picture = geometry.source = frame;
  geometry.source_width = frame.w;
  geometry.source_height = frame.h;
  geometry.scale_x = geometry.scale_y = 1.0;

  *outbuf = gst_buffer_make_writable (*outbuf);
  gst_buffer_add_cuda_cache_picture_meta (*outbuf, &geometry);

  return ret;
}

static GstFlowReturn
gst_cuda_cache_convert_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (trans);
  GstCudaCachePictureGeometry geometry;
  GError *error = NULL;
  gboolean changed;

  GST_OBJECT_LOCK (self);
  changed = self->options.changed;
  GST_OBJECT_UNLOCK (self);

  /* properties changed while playing take effect from this buffer on */
  if (changed && !gst_cuda_cache_converter_reconfigure (self->converter,
          NULL, NULL, gst_cuda_cache_convert_take_config (self), &error)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Cannot apply the new properties: %s", error->message), (NULL));
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }

  /* on the element's stream; the frame is written when this returns, or
   * (1.24+, input and output both of the element's stream) left flagged
   * for its readers to wait */
  if (!gst_cuda_cache_converter_convert_buffer (self->converter, inbuf,
          outbuf, gst_cuda_cache_base_transform_get_stream
          (GST_CUDA_CACHE_BASE_TRANSFORM (self)), &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("%s", error->message),
        ("converting %" GST_PTR_FORMAT, inbuf));
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }
  /* where the picture lies, for mapping detections back: of this buffer's
   * conversion, which its crop meta took part in */
  if (!gst_cuda_cache_converter_get_geometry (self->converter, inbuf,
          &geometry, NULL) ||
      !gst_buffer_add_cuda_cache_picture_meta (outbuf, &geometry))
    GST_WARNING_OBJECT (self, "could not put the picture meta on %"
        GST_PTR_FORMAT, outbuf);
  /* and GStreamer's own description of the tensor (1.26+) */
  if (self->tensor_out && g_atomic_int_get (&self->tensor_meta))
    gst_buffer_add_cuda_cache_analytics_tensor_meta (outbuf, &self->out_tensor);

  return GST_FLOW_OK;
}

static void
gst_cuda_cache_convert_finalize (GObject * object)
{
  GstCudaCacheConvert *self = GST_CUDA_CACHE_CONVERT (object);

  gst_clear_object (&self->converter);
  gst_clear_caps (&self->failed_in);
  gst_clear_caps (&self->failed_out);
  gst_cuda_cache_convert_options_clear (&self->options);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}
