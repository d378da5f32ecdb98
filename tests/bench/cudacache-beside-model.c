/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Beside a model: what a pipeline's frames cost while another stream of
 * the same process runs long kernels (docs/performance.md, "Beside a
 * model"). The method, cases, pipelines, counts and output of
 * tests/bench/beside-model.py, in C: that program needs PyGObject and
 * PyTorch, which only the GStreamer 1.22 bundle has; this one runs on 1.22
 * and 1.26 alike.
 *
 * A thread keeps a stream of the device's primary context (PyTorch's) busy
 * with kernels of --busy-ms each, one always queued behind the running one:
 * a kernel that spins on the GPU's clock for a number of cycles, as
 * torch.cuda._sleep does, calibrated first with CUDA events. The
 * application pushes one frame and pulls its answer before pushing the
 * next (request-response). Each case runs idle, then busy, in the same
 * process:
 *
 *   frame    push to pull, the application's view
 *   element  the frame (or its caps event, where caps changed) entering the
 *            element's sink pad to the frame leaving its source pad (pad
 *            probes): the element's own share, its set-up for new caps
 *            included
 *
 * Writes results.csv and report.md into --out, as the Python does.
 *
 * With --alloc-methods (GStreamer 1.24+) it compares the cache's two
 * allocation methods instead (docs/performance.md, "Stream-ordered
 * blocks"): the caps-changing case with alloc-method=malloc and with
 * alloc-method=stream-ordered, idle and busy, then the host time of a
 * cache miss with each method, idle and busy (misses.csv): each of --misses
 * misses of a shape is an acquisition after the block was cleared from the
 * cache, timed by the cache's own alloc-time (the pool's allocation
 * function, the driver's call and the wrapping); a stream-ordered miss then
 * takes the memory the cleared block gave back to the pool. Stream-ordered
 * runs twice: with the cache's own pool made at start by one small block
 * (as an element's first block or its warm-caps make it), then with a
 * reserve of RESERVE_BYTES set before that start, so that the first block
 * of each shape (its own column) shows what the reserve saves the first
 * frames.
 *
 *   cudacache-beside-model --out DIR [--frames N] [--warmup N] [--busy-ms MS]
 *       [--alloc-methods [--misses N]]
 *
 * Exits 77 where there is no CUDA device. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dlpack/dlpack.h>
#include <gmodule.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cudacache/cudacache.h>

#ifndef CUDAAPI
#define CUDAAPI
#endif

#define N_SIZES 6
static const gint sizes[N_SIZES][2] = {
  {1920, 1080}, {1280, 720}, {960, 540}, {640, 480}, {1600, 900}, {800, 600},
};

#define OUT_CAPS "video/x-raw(memory:CUDAMemory),format=RGBA,width=640," \
    "height=640"
#define CONVERT(props) "appsrc name=src format=time ! cudaupload ! " \
    "cudacacheconvert name=el " props " ! " OUT_CAPS \
    " ! appsink name=sink sync=false"
#define STOCK "appsrc name=src format=time ! cudaupload name=el ! " \
    "video/x-raw(memory:CUDAMemory) ! appsink name=sink sync=false"
#define ROIS "appsrc name=src format=time ! " \
    "cudacachebatch name=el mode=rois batch-size=8 ! " \
    "other/tensors(memory:CUDAMemory),format=static,num_tensors=1," \
    "types=float32,dimensions=(string)112:112:3:8,layout=NCHW ! " \
    "appsink name=sink sync=false"

/* torch.cuda._sleep's kernel: one thread spinning until @cycles of the
 * SM's clock have passed. PTX the driver compiles when loading it, for a
 * target every driver of CUDA 12 and later takes. */
#define SPIN_PTX \
    ".version 7.0\n" \
    ".target sm_52\n" \
    ".address_size 64\n" \
    "\n" \
    ".visible .entry spin (.param .s64 cycles)\n" \
    "{\n" \
    "  .reg .pred %p;\n" \
    "  .reg .s64 %r<4>;\n" \
    "\n" \
    "  ld.param.s64 %r0, [cycles];\n" \
    "  mov.u64 %r1, %clock64;\n" \
    "wait:\n" \
    "  mov.u64 %r2, %clock64;\n" \
    "  sub.s64 %r3, %r2, %r1;\n" \
    "  setp.lt.s64 %p, %r3, %r0;\n" \
    "  @%p bra wait;\n" \
    "  ret;\n" \
    "}\n"

static const gchar spin_ptx[] = SPIN_PTX;

/* The driver calls the busy thread and the regions' frame need, loaded
 * from libcuda.so.1 at run time as the library loads its own: 1.22's
 * gst-cuda exports no events and no primary context. */
typedef struct
{
  CUresult (CUDAAPI * GetErrorString) (CUresult error, const char **str);
  CUresult (CUDAAPI * DeviceGet) (CUdevice * device, int ordinal);
  CUresult (CUDAAPI * DeviceGetName) (char *name, int len, CUdevice device);
  CUresult (CUDAAPI * DevicePrimaryCtxRetain) (CUcontext * ctx,
      CUdevice device);
  CUresult (CUDAAPI * DevicePrimaryCtxRelease) (CUdevice device);
  CUresult (CUDAAPI * CtxPushCurrent) (CUcontext ctx);
  CUresult (CUDAAPI * CtxPopCurrent) (CUcontext * ctx);
  CUresult (CUDAAPI * StreamCreate) (CUstream * stream, unsigned int flags);
  CUresult (CUDAAPI * StreamDestroy) (CUstream stream);
  CUresult (CUDAAPI * StreamSynchronize) (CUstream stream);
  CUresult (CUDAAPI * ModuleLoadData) (CUmodule * module, const void *image);
  CUresult (CUDAAPI * ModuleGetFunction) (CUfunction * func, CUmodule module,
      const char *name);
  CUresult (CUDAAPI * ModuleUnload) (CUmodule module);
  CUresult (CUDAAPI * LaunchKernel) (CUfunction f, unsigned int grid_x,
      unsigned int grid_y, unsigned int grid_z, unsigned int block_x,
      unsigned int block_y, unsigned int block_z, unsigned int shared_bytes,
      CUstream stream, void **params, void **extra);
  CUresult (CUDAAPI * EventCreate) (CUevent * event, unsigned int flags);
  CUresult (CUDAAPI * EventRecord) (CUevent event, CUstream stream);
  CUresult (CUDAAPI * EventSynchronize) (CUevent event);
  CUresult (CUDAAPI * EventElapsedTime) (float *ms, CUevent start, CUevent end);
  CUresult (CUDAAPI * EventDestroy) (CUevent event);
  CUresult (CUDAAPI * MemAlloc) (CUdeviceptr * ptr, size_t bytes);
  CUresult (CUDAAPI * MemFree) (CUdeviceptr ptr);
  CUresult (CUDAAPI * MemsetD8) (CUdeviceptr ptr, unsigned char value,
      size_t n);
} Driver;

static Driver cu;

/* A thread that keeps a stream of its own in the primary context running
 * kernels of a calibrated length, one always queued behind the running
 * one (tests/python/gpu_torch.py's Busy). */
typedef struct
{
  CUdevice device;
  CUcontext context;            /* the primary context, retained */
  CUstream stream;
  CUmodule module;
  CUfunction spin;
  gint64 cycles;
  gint running;                 /* atomic */
  GThread *thread;
} Busy;

/* appsrc name=src ! ... ! appsink name=sink, frames pushed one at a time;
 * the element "el"'s pads time each frame's passage. Times in ms, NAN for
 * none (Python's None). */
typedef struct
{
  GstElement *pipeline;
  GstElement *src;
  GstElement *sink;
  gchar *caps;
  gdouble entered;
  gdouble element_ms;
} Timed;

typedef enum
{
  MAKE_STEADY,
  MAKE_CHURN,
  MAKE_REGIONS,
} Make;

/* What the frames are made of: one NV12 frame of each size, and the CUDA
 * RGBA frame the regions are cut from. */
typedef struct
{
  GstBuffer *nv12[N_SIZES];
  gchar *nv12_caps[N_SIZES];
  GstBuffer *roi_base;
  gchar *roi_caps;
} Frames;

typedef struct
{
  gdouble median, p99, max;     /* NAN: no value */
} Summary;

static gboolean
check (CUresult res, const gchar * what)
{
  const char *text = NULL;

  if (res == CUDA_SUCCESS)
    return TRUE;
  if (!cu.GetErrorString || cu.GetErrorString (res, &text) != CUDA_SUCCESS)
    text = "unknown error";
  g_printerr ("cudacache-beside-model: %s failed: %s (%d)\n", what, text,
      (gint) res);
  return FALSE;
}

static gboolean
driver_load (void)
{
  GModule *module = g_module_open ("libcuda.so.1", G_MODULE_BIND_LAZY);

  if (!module) {
    g_printerr ("cudacache-beside-model: no CUDA driver: %s\n",
        g_module_error ());
    return FALSE;
  }
  g_module_make_resident (module);

  /* cuEventElapsedTime_v2 where the driver has it (12.8 and later) */
  if (!g_module_symbol (module, "cuEventElapsedTime_v2",
          (gpointer *) & cu.EventElapsedTime) &&
      !g_module_symbol (module, "cuEventElapsedTime",
          (gpointer *) & cu.EventElapsedTime))
    goto missing;
  if (!g_module_symbol (module, "cuGetErrorString",
          (gpointer *) & cu.GetErrorString) ||
      !g_module_symbol (module, "cuDeviceGet", (gpointer *) & cu.DeviceGet) ||
      !g_module_symbol (module, "cuDeviceGetName",
          (gpointer *) & cu.DeviceGetName) ||
      !g_module_symbol (module, "cuDevicePrimaryCtxRetain",
          (gpointer *) & cu.DevicePrimaryCtxRetain) ||
      !g_module_symbol (module, "cuDevicePrimaryCtxRelease_v2",
          (gpointer *) & cu.DevicePrimaryCtxRelease) ||
      !g_module_symbol (module, "cuCtxPushCurrent_v2",
          (gpointer *) & cu.CtxPushCurrent) ||
      !g_module_symbol (module, "cuCtxPopCurrent_v2",
          (gpointer *) & cu.CtxPopCurrent) ||
      !g_module_symbol (module, "cuStreamCreate",
          (gpointer *) & cu.StreamCreate) ||
      !g_module_symbol (module, "cuStreamDestroy_v2",
          (gpointer *) & cu.StreamDestroy) ||
      !g_module_symbol (module, "cuStreamSynchronize",
          (gpointer *) & cu.StreamSynchronize) ||
      !g_module_symbol (module, "cuModuleLoadData",
          (gpointer *) & cu.ModuleLoadData) ||
      !g_module_symbol (module, "cuModuleGetFunction",
          (gpointer *) & cu.ModuleGetFunction) ||
      !g_module_symbol (module, "cuModuleUnload",
          (gpointer *) & cu.ModuleUnload) ||
      !g_module_symbol (module, "cuLaunchKernel",
          (gpointer *) & cu.LaunchKernel) ||
      !g_module_symbol (module, "cuEventCreate",
          (gpointer *) & cu.EventCreate) ||
      !g_module_symbol (module, "cuEventRecord",
          (gpointer *) & cu.EventRecord) ||
      !g_module_symbol (module, "cuEventSynchronize",
          (gpointer *) & cu.EventSynchronize) ||
      !g_module_symbol (module, "cuEventDestroy_v2",
          (gpointer *) & cu.EventDestroy) ||
      !g_module_symbol (module, "cuMemAlloc_v2", (gpointer *) & cu.MemAlloc) ||
      !g_module_symbol (module, "cuMemFree_v2", (gpointer *) & cu.MemFree) ||
      !g_module_symbol (module, "cuMemsetD8_v2", (gpointer *) & cu.MemsetD8))
    goto missing;

  return TRUE;

missing:
  g_printerr ("cudacache-beside-model: the CUDA driver lacks a needed "
      "symbol: %s\n", g_module_error ());
  return FALSE;
}

static gdouble
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ((gint64) ts.tv_sec * 1000000000 + ts.tv_nsec) / 1e6;
}

/* ------------------------------------------------------------------------ */

static gboolean
busy_launch (Busy * busy, gint64 cycles)
{
  void *params[] = { &cycles };

  return check (cu.LaunchKernel (busy->spin, 1, 1, 1, 1, 1, 1, 0,
          busy->stream, params, NULL), "launching the spin kernel");
}

/* The cycles of @ms milliseconds: 10,000,000 of them timed by CUDA events
 * after one warm-up launch, as Busy.calibrate () does */
static gboolean
busy_calibrate (Busy * busy, gdouble ms)
{
  const gint64 cycles = 10000000;
  CUevent start = NULL, end = NULL;
  gfloat elapsed = 0;
  gboolean ok;

  ok = busy_launch (busy, cycles) &&
      check (cu.StreamSynchronize (busy->stream), "the warm-up kernel") &&
      check (cu.EventCreate (&start, CU_EVENT_DEFAULT), "an event") &&
      check (cu.EventCreate (&end, CU_EVENT_DEFAULT), "an event") &&
      check (cu.EventRecord (start, busy->stream), "recording an event");
  if (ok) {
    ok = busy_launch (busy, cycles) &&
        check (cu.EventRecord (end, busy->stream), "recording an event") &&
        check (cu.EventSynchronize (end), "the calibration kernel") &&
        check (cu.EventElapsedTime (&elapsed, start, end), "timing events");
  }
  if (start)
    cu.EventDestroy (start);
  if (end)
    cu.EventDestroy (end);
  if (!ok || elapsed <= 0)
    return FALSE;

  busy->cycles = (gint64) (cycles / (gdouble) elapsed * ms);
  return TRUE;
}

static void
busy_free (Busy * busy)
{
  if (busy->context && check (cu.CtxPushCurrent (busy->context),
          "making the primary context current")) {
    if (busy->stream)
      cu.StreamDestroy (busy->stream);
    if (busy->module)
      cu.ModuleUnload (busy->module);
    cu.CtxPopCurrent (NULL);
  }
  if (busy->context)
    cu.DevicePrimaryCtxRelease (busy->device);
  g_free (busy);
}

/* In device 0's primary context, the one the elements take by default: a
 * non-blocking stream of its own, as PyTorch's streams are */
static Busy *
busy_new (gdouble ms)
{
  Busy *busy = g_new0 (Busy, 1);
  gboolean ok;

  if (!check (cu.DeviceGet (&busy->device, 0), "getting device 0") ||
      !check (cu.DevicePrimaryCtxRetain (&busy->context, busy->device),
          "retaining the primary context")) {
    busy->context = NULL;
    busy_free (busy);
    return NULL;
  }
  if (!check (cu.CtxPushCurrent (busy->context),
          "making the primary context current")) {
    busy_free (busy);
    return NULL;
  }
  ok = check (cu.StreamCreate (&busy->stream, CU_STREAM_NON_BLOCKING),
      "creating a stream") &&
      check (cu.ModuleLoadData (&busy->module, spin_ptx),
      "loading the spin kernel's PTX") &&
      check (cu.ModuleGetFunction (&busy->spin, busy->module, "spin"),
      "finding the spin kernel") && busy_calibrate (busy, ms);
  cu.CtxPopCurrent (NULL);
  if (!ok) {
    busy_free (busy);
    return NULL;
  }

  return busy;
}

static gpointer
busy_loop (gpointer data)
{
  Busy *busy = data;
  CUevent previous = NULL, event;

  if (!check (cu.CtxPushCurrent (busy->context),
          "making the primary context current"))
    return NULL;
  while (g_atomic_int_get (&busy->running)) {
    if (!busy_launch (busy, busy->cycles) ||
        !check (cu.EventCreate (&event, CU_EVENT_DISABLE_TIMING), "an event"))
      break;
    cu.EventRecord (event, busy->stream);
    /* the kernel before this one is done: one runs, one waits */
    if (previous) {
      cu.EventSynchronize (previous);
      cu.EventDestroy (previous);
    }
    previous = event;
  }
  if (previous)
    cu.EventDestroy (previous);
  cu.StreamSynchronize (busy->stream);
  cu.CtxPopCurrent (NULL);

  return NULL;
}

static void
busy_start (Busy * busy)
{
  g_atomic_int_set (&busy->running, 1);
  busy->thread = g_thread_new ("busy", busy_loop, busy);
  g_usleep (50000);
}

static void
busy_stop (Busy * busy)
{
  g_atomic_int_set (&busy->running, 0);
  g_thread_join (busy->thread);
  busy->thread = NULL;
}

/* ------------------------------------------------------------------------ */

/* A frame's caps event, where its caps changed, or else the frame: the
 * element's set-up for new caps is its share too */
static GstPadProbeReturn
on_enter (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Timed *timed = user_data;
  GstEvent *event = NULL;

  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM)
    event = GST_PAD_PROBE_INFO_EVENT (info);
  if (isnan (timed->entered) && (!event ||
          GST_EVENT_TYPE (event) == GST_EVENT_CAPS))
    timed->entered = now_ms ();

  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_leave (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Timed *timed = user_data;

  if (!isnan (timed->entered))
    timed->element_ms = now_ms () - timed->entered;

  return GST_PAD_PROBE_OK;
}

static Timed *
timed_new (const gchar * description, GstCudaContext * context, GError ** error)
{
  Timed *timed;
  GstElement *pipeline, *el;
  GstPad *sinkpad, *srcpad;

  pipeline = gst_parse_launch (description, error);
  if (!pipeline)
    return NULL;

  timed = g_new0 (Timed, 1);
  timed->pipeline = pipeline;
  timed->entered = NAN;
  timed->element_ms = NAN;
  if (context) {
    GstContext *ctx = gst_context_new_cuda_context (context);

    gst_element_set_context (pipeline, ctx);
    gst_context_unref (ctx);
  }
  timed->src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  timed->sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

  el = gst_bin_get_by_name (GST_BIN (pipeline), "el");
  /* cudacachebatch's sink pad is a request pad, sink_0 */
  sinkpad = gst_element_get_static_pad (el, "sink");
  if (!sinkpad)
    sinkpad = gst_element_get_static_pad (el, "sink_0");
  srcpad = gst_element_get_static_pad (el, "src");
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_enter, timed, NULL);
  gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_BUFFER, on_leave, timed, NULL);
  gst_object_unref (sinkpad);
  gst_object_unref (srcpad);
  gst_object_unref (el);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  return timed;
}

/* Pushes @buf (with caps @caps) and pulls its answer: the frame's and the
 * element's milliseconds */
static gboolean
timed_frame (Timed * timed, GstBuffer * buf, const gchar * caps,
    GstClockTime pts, gdouble * frame_ms, gdouble * element_ms, gchar ** why)
{
  GstFlowReturn ret = GST_FLOW_ERROR;
  GstSample *sample = NULL;
  gdouble start;

  if (g_strcmp0 (caps, timed->caps) != 0) {
    GstCaps *c = gst_caps_from_string (caps);

    g_object_set (timed->src, "caps", c, NULL);
    gst_caps_unref (c);
    g_free (timed->caps);
    timed->caps = g_strdup (caps);
  }
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  timed->element_ms = NAN;
  timed->entered = NAN;
  start = now_ms ();
  /* the action signals, as the Python emits them: the caller keeps its
   * reference to @buf */
  g_signal_emit_by_name (timed->src, "push-buffer", buf, &ret);
  if (ret != GST_FLOW_OK) {
    *why = g_strdup ("push refused");
    return FALSE;
  }
  g_signal_emit_by_name (timed->sink, "try-pull-sample", 5 * GST_SECOND,
      &sample);
  *frame_ms = now_ms () - start;
  if (!sample) {
    GstBus *bus = gst_element_get_bus (timed->pipeline);
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    GError *err = NULL;

    if (msg)
      gst_message_parse_error (msg, &err, NULL);
    *why = g_strdup_printf ("no answer%s%s", err ? ": " : "",
        err ? err->message : "");
    g_clear_error (&err);
    gst_clear_message (&msg);
    gst_object_unref (bus);
    return FALSE;
  }
  gst_sample_unref (sample);
  *element_ms = timed->element_ms;

  return TRUE;
}

static void
timed_free (Timed * timed)
{
  gst_element_set_state (timed->pipeline, GST_STATE_NULL);
  gst_object_unref (timed->src);
  gst_object_unref (timed->sink);
  gst_object_unref (timed->pipeline);
  g_free (timed->caps);
  g_free (timed);
}

/* ------------------------------------------------------------------------ */

typedef struct
{
  DLManagedTensor managed;
  int64_t shape[3];
  int64_t strides[3];
  CUcontext context;
} DeviceTensor;

static void
device_tensor_free (DLManagedTensor * managed)
{
  DeviceTensor *t = managed->manager_ctx;

  if (check (cu.CtxPushCurrent (t->context),
          "making the primary context current")) {
    cu.MemFree ((CUdeviceptr) managed->dl_tensor.data);
    cu.CtxPopCurrent (NULL);
  }
  g_free (t);
}

/* What torch.full ((1080, 1920, 4), 90, dtype=torch.uint8, device="cuda")
 * is, through gstcudacache.to_buffer (): memory of the primary context,
 * handed to gst_cuda_cache_dlpack_import () with @primary */
static gboolean
roi_base_new (Frames * frames, Busy * busy, GstCudaContext * primary)
{
  DeviceTensor *t = g_new0 (DeviceTensor, 1);
  DLTensor *dl = &t->managed.dl_tensor;
  const gsize bytes = 1080 * 1920 * 4;
  CUdeviceptr ptr = 0;
  GstCaps *caps = NULL;
  GError *err = NULL;
  gboolean ok;

  if (!check (cu.CtxPushCurrent (busy->context),
          "making the primary context current")) {
    g_free (t);
    return FALSE;
  }
  ok = check (cu.MemAlloc (&ptr, bytes), "allocating the regions' frame") &&
      check (cu.MemsetD8 (ptr, 90, bytes), "filling the regions' frame") &&
      check (cu.StreamSynchronize (NULL), "filling the regions' frame");
  if (!ok && ptr)
    cu.MemFree (ptr);
  cu.CtxPopCurrent (NULL);
  if (!ok) {
    g_free (t);
    return FALSE;
  }

  t->context = busy->context;
  t->shape[0] = 1080;
  t->shape[1] = 1920;
  t->shape[2] = 4;
  t->strides[0] = 1920 * 4;
  t->strides[1] = 4;
  t->strides[2] = 1;
  dl->data = (void *) ptr;
  dl->device.device_type = kDLCUDA;
  dl->device.device_id = 0;
  dl->ndim = 3;
  dl->dtype.code = kDLUInt;
  dl->dtype.bits = 8;
  dl->dtype.lanes = 1;
  dl->shape = t->shape;
  dl->strides = t->strides;
  dl->byte_offset = 0;
  t->managed.manager_ctx = t;
  t->managed.deleter = device_tensor_free;

  frames->roi_base = gst_cuda_cache_dlpack_import (&t->managed, primary,
      &caps, &err);
  if (!frames->roi_base) {
    g_printerr ("cudacache-beside-model: the regions' frame: %s\n",
        err->message);
    g_clear_error (&err);
    return FALSE;
  }
  frames->roi_caps = gst_caps_to_string (caps);
  gst_caps_unref (caps);

  return TRUE;
}

static void
frames_init (Frames * frames)
{
  guint i;

  for (i = 0; i < N_SIZES; i++) {
    gsize size = sizes[i][0] * sizes[i][1] * 3 / 2;
    guint8 *data = g_malloc (size);

    memset (data, 16 + 20 * i, size);
    frames->nv12[i] = gst_buffer_new_wrapped (data, size);
    frames->nv12_caps[i] = g_strdup_printf ("video/x-raw,format=NV12,"
        "width=%d,height=%d,framerate=30/1", sizes[i][0], sizes[i][1]);
  }
}

static void
frames_clear (Frames * frames)
{
  guint i;

  for (i = 0; i < N_SIZES; i++) {
    gst_clear_buffer (&frames->nv12[i]);
    g_clear_pointer (&frames->nv12_caps[i], g_free);
  }
  gst_clear_buffer (&frames->roi_base);
  g_clear_pointer (&frames->roi_caps, g_free);
}

/* Frame @i of a case and its caps (transfer none) */
static GstBuffer *
make_frame (Frames * frames, Make make, guint i, const gchar ** caps)
{
  GstBuffer *buf;
  guint k, r;

  switch (make) {
    case MAKE_STEADY:
      *caps = frames->nv12_caps[0];
      return gst_buffer_copy (frames->nv12[0]);
    case MAKE_CHURN:
      k = i % N_SIZES;
      *caps = frames->nv12_caps[k];
      return gst_buffer_copy (frames->nv12[k]);
    case MAKE_REGIONS:
      /* the frame's memory and metas, with 8 regions that move and change
       * size from frame to frame */
      buf = gst_buffer_new ();
      gst_buffer_copy_into (buf, frames->roi_base, GST_BUFFER_COPY_MEMORY |
          GST_BUFFER_COPY_META, 0, gst_buffer_get_size (frames->roi_base));
      for (r = 0; r < 8; r++) {
        guint w = 64 + (i * 7 + r * 13) % 200;
        guint h = 64 + (i * 11 + r * 5) % 150;
        guint x = (i * 17 + r * 211) % (1920 - w);
        guint y = (i * 23 + r * 113) % (1080 - h);

        gst_buffer_add_video_region_of_interest_meta (buf, "face", x, y, w, h);
      }
      *caps = frames->roi_caps;
      return buf;
  }
  g_assert_not_reached ();
  return NULL;
}

/* @frames request-responses after @warmup of warm-up; per frame the
 * frame's and the element's milliseconds */
static gboolean
run_frames (Timed * timed, Frames * frames, Make make, guint warmup,
    guint n_frames, gdouble * frame_ms, gdouble * element_ms, gchar ** why)
{
  guint i;

  for (i = 0; i < warmup + n_frames; i++) {
    const gchar *caps;
    GstBuffer *buf = make_frame (frames, make, i, &caps);
    gdouble f = NAN, e = NAN;
    gboolean ok;

    ok = timed_frame (timed, buf, caps, i * (GST_SECOND / 30), &f, &e, why);
    gst_buffer_unref (buf);
    if (!ok)
      return FALSE;
    if (i >= warmup) {
      frame_ms[i - warmup] = f;
      element_ms[i - warmup] = e;
    }
  }

  return TRUE;
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Median (statistics.median), p99 (the value at round (0.99 (n - 1)),
 * rounding half to even as Python does) and maximum of what is not NAN */
static Summary
summarize (const gdouble * values, guint n)
{
  Summary s = { NAN, NAN, NAN };
  gdouble *sorted = g_new (gdouble, MAX (n, 1));
  guint i, count = 0;

  for (i = 0; i < n; i++)
    if (!isnan (values[i]))
      sorted[count++] = values[i];
  if (count > 0) {
    qsort (sorted, count, sizeof (gdouble), compare_doubles);
    s.median = count % 2 ? sorted[count / 2] :
        (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
    s.p99 = sorted[MIN (count - 1, (guint) nearbyint (0.99 * (count - 1)))];
    s.max = sorted[count - 1];
  }
  g_free (sorted);

  return s;
}

/* @v as Python's repr () writes a float: the shortest digits that read
 * back as @v, in positional notation for exponents from -4 to 15 */
static void
append_float (GString * s, gdouble v, const gchar * none)
{
  gchar buf[64];
  gint digits, exponent;

  if (isnan (v)) {
    g_string_append (s, none);
    return;
  }
  for (digits = 1; digits < 17; digits++) {
    g_snprintf (buf, sizeof (buf), "%.*e", digits - 1, v);
    if (g_ascii_strtod (buf, NULL) == v)
      break;
  }
  g_snprintf (buf, sizeof (buf), "%.*e", digits - 1, v);
  exponent = atoi (strchr (buf, 'e') + 1);
  if (exponent < -4 || exponent >= 16) {
    g_string_append (s, buf);
    return;
  }
  g_snprintf (buf, sizeof (buf), "%.*f", MAX (digits - 1 - exponent, 0), v);
  g_string_append (s, buf);
  if (!strchr (buf, '.'))
    g_string_append (s, ".0");
}

/* A field of Python's csv module: quoted where it holds a comma, a quote
 * or a line break */
static void
append_csv_field (GString * s, const gchar * field)
{
  const gchar *c;

  if (!strpbrk (field, ",\"\r\n")) {
    g_string_append (s, field);
    return;
  }
  g_string_append_c (s, '"');
  for (c = field; *c; c++) {
    if (*c == '"')
      g_string_append_c (s, '"');
    g_string_append_c (s, *c);
  }
  g_string_append_c (s, '"');
}

static void
append_summary_tuple (GString * s, const Summary * sum)
{
  g_string_append_c (s, '(');
  append_float (s, sum->median, "None");
  g_string_append (s, ", ");
  append_float (s, sum->p99, "None");
  g_string_append (s, ", ");
  append_float (s, sum->max, "None");
  g_string_append_c (s, ')');
}

/* @text into @dir/@name; FALSE, with the reason printed, where it cannot */
static gboolean
write_out (const gchar * dir, const gchar * name, const GString * text)
{
  gchar *path = g_build_filename (dir, name, NULL);
  GError *err = NULL;
  gboolean ok = g_file_set_contents (path, text->str, text->len, &err);

  if (!ok) {
    g_printerr ("cudacache-beside-model: %s\n", err->message);
    g_error_free (err);
  }
  g_free (path);
  return ok;
}

static void
append_ms (GString * s, gdouble v)
{
  if (isnan (v))
    g_string_append (s, "-");
  else
    g_string_append_printf (s, "%.3f", v);
}

typedef struct
{
  const gchar *name;
  const gchar *description;
  Make make;
  gboolean own_context;
} Scenario;

/* The shapes of the misses timed: an NV12 1080p decode, a 640x640 float32
 * tensor, an RGBA 1080p image and a 24.9 MB one (the sizes) */
static const struct
{
  const gchar *name;
  const gchar *caps;
} miss_shapes[] = {
  {"NV12 1920x1080", "video/x-raw(memory:CUDAMemory),format=NV12,"
        "width=1920,height=1080"},
  {"float32 3x640x640", "other/tensors(memory:CUDAMemory),format=static,"
        "num_tensors=1,types=float32,layout=NCHW,dimensions=640:640:3:1"},
  {"RGBA 1920x1080", "video/x-raw(memory:CUDAMemory),format=RGBA,"
        "width=1920,height=1080"},
  {"RGBA 3840x1620", "video/x-raw(memory:CUDAMemory),format=RGBA,"
        "width=3840,height=1620"},
};

/* The reserve of the third miss run: the four shapes' blocks fit in it */
#define RESERVE_BYTES (1ULL << 30)

/* The host time of @n misses of each shape made by a cache of @method
 * (stream-ordered: with a reserve of @reserve bytes), in microseconds, one
 * row of misses.csv each; the first miss of a shape (the pool's first
 * block of it) is its own column */
static gboolean
time_misses (GstCudaContext * context, GstCudaCacheAllocMethod method,
    guint64 reserve, const gchar * state, gint n, GString * csv,
    GString * report)
{
  GstCudaCache *cache = gst_cuda_cache_new (1ULL << 36,
      GST_CUDA_CACHE_FLAG_ASYNC_FREE);
  const gchar *method_name = method == GST_CUDA_CACHE_ALLOC_METHOD_MALLOC ?
      "malloc" : reserve ? "stream-ordered, reserve 1 GiB" : "stream-ordered";
  gdouble *us = g_new (gdouble, n);
  GError *error = NULL;
  gboolean ok = TRUE;
  guint s;

  gst_cuda_cache_set_limit (cache, 4ULL << 30);
  gst_cuda_cache_set_reserve (cache, reserve);
  if (!gst_cuda_cache_set_alloc_method (cache, method, &error)) {
    g_printerr ("cudacache-beside-model: %s: %s\n", method_name,
        error->message);
    g_clear_error (&error);
    ok = FALSE;
  }
  /* the start: the cache's own pool made (and its reserve filled) by one
   * small block, which goes back to it */
  if (ok && method == GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED) {
    GstCaps *start = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),"
        "format=NV12,width=64,height=64");

    ok = gst_cuda_cache_warm (cache, context, start, 1, &error);
    gst_caps_unref (start);
    if (!ok) {
      g_printerr ("cudacache-beside-model: %s: %s\n", method_name,
          error->message);
      g_clear_error (&error);
    }
    gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_THREAD);
    gst_cuda_cache_drain (cache);
  }
  for (s = 0; ok && s < G_N_ELEMENTS (miss_shapes); s++) {
    GstBufferPool *pool = gst_cuda_cache_pool_new (context);
    GstCaps *caps = gst_caps_from_string (miss_shapes[s].caps);
    GstStructure *config = gst_buffer_pool_get_config (pool);
    GstCudaCacheStats before, after;
    gdouble cold;
    Summary sum;
    gint i;

    gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &before);
    gst_buffer_pool_config_set_params (config, caps, 0, 1, 0);
    gst_buffer_pool_config_set_cuda_cache (config, cache);
    gst_caps_unref (caps);
    /* the first block: configuring learns the size from it */
    ok = gst_buffer_pool_set_config (pool, config);
    gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &after);
    cold = (after.alloc_time - before.alloc_time) / 1e3;
    for (i = 0; ok && i < n; i++) {
      GstBuffer *buf = NULL;

      /* the block out of the cache (a stream-ordered one into its pool) */
      gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_THREAD);
      gst_cuda_cache_drain (cache);
      gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &before);
      ok = gst_buffer_pool_set_active (pool, TRUE) &&
          gst_buffer_pool_acquire_buffer (pool, &buf, NULL) == GST_FLOW_OK;
      gst_cuda_cache_get_stats (cache, GST_CUDA_CACHE_SCOPE_GLOBAL, &after);
      if (buf)
        gst_buffer_unref (buf);
      ok = gst_buffer_pool_set_active (pool, FALSE) && ok &&
          after.misses == before.misses + 1;
      us[i] = (after.alloc_time - before.alloc_time) / 1e3;
    }
    gst_object_unref (pool);
    if (!ok) {
      g_printerr ("cudacache-beside-model: %s misses of %s failed\n",
          method_name, miss_shapes[s].name);
      break;
    }
    sum = summarize (us, n);
    g_string_append_printf (csv, "%s,%s,%s,%d,", method_name, state,
        miss_shapes[s].name, n);
    append_float (csv, sum.median, "");
    g_string_append_c (csv, ',');
    append_float (csv, sum.p99, "");
    g_string_append_c (csv, ',');
    append_float (csv, sum.max, "");
    g_string_append_c (csv, ',');
    append_float (csv, cold, "");
    g_string_append (csv, "\r\n");
    g_string_append_printf (report, "| %s | %s | %s | %.1f | %.1f | %.1f | "
        "%.1f |\n", miss_shapes[s].name, method_name, state, sum.median,
        sum.p99, sum.max, cold);
  }
  gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
  gst_object_unref (cache);
  g_free (us);
  return ok;
}

int
main (int argc, char **argv)
{
  static const Scenario beside_model[] = {
    {"steady, default context", CONVERT (""), MAKE_STEADY, FALSE},
    {"steady, a context of its own", CONVERT (""), MAKE_STEADY, TRUE},
    {"caps change every frame, default context, default method",
        CONVERT (""), MAKE_CHURN, FALSE},
    {"caps change every frame, default context, method=bilinear",
        CONVERT ("method=bilinear"), MAKE_CHURN, FALSE},
    {"caps change every frame, a context of its own", CONVERT (""),
        MAKE_CHURN, TRUE},
    {"mode=rois, 8 moving regions a frame, default context", ROIS,
        MAKE_REGIONS, FALSE},
    {"stock cudaupload alone, caps change every frame", STOCK, MAKE_CHURN,
        FALSE},
  };
  static const Scenario alloc_methods[] = {
    {"caps change every frame, alloc-method=malloc",
        CONVERT ("alloc-method=malloc"), MAKE_CHURN, FALSE},
    {"caps change every frame, alloc-method=stream-ordered",
        CONVERT ("alloc-method=stream-ordered"), MAKE_CHURN, FALSE},
  };
  const Scenario *scenarios = beside_model;
  guint n_scenarios = G_N_ELEMENTS (beside_model);
  gboolean methods = FALSE;
  gint n_misses = 100;
  static const gchar *elements[] = {
    "appsrc", "appsink", "cudaupload", "cudacacheconvert", "cudacachebatch",
  };
  gchar *out = NULL;
  gint n_frames = 120, warmup = 12;
  gdouble busy_ms = 10.0;
  GOptionEntry entries[] = {
    {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
        "Folder for results.csv and report.md (required)", "DIR"},
    {"frames", 0, 0, G_OPTION_ARG_INT, &n_frames,
        "Request-responses measured a case and state (default: 120)", "N"},
    {"warmup", 0, 0, G_OPTION_ARG_INT, &warmup,
        "Request-responses before them, not measured (default: 12)", "N"},
    {"busy-ms", 0, 0, G_OPTION_ARG_DOUBLE, &busy_ms,
        "Length of the busy stream's kernels in ms (default: 10)", "MS"},
    {"alloc-methods", 0, 0, G_OPTION_ARG_NONE, &methods,
          "Compare the cache's allocation methods instead (GStreamer 1.24+)",
        NULL},
    {"misses", 0, 0, G_OPTION_ARG_INT, &n_misses,
        "With --alloc-methods, misses timed a shape, method and state "
          "(default: 100)", "N"},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  GstCudaContext *primary = NULL, *own = NULL;
  Frames frames = { {NULL}, };
  Busy *busy = NULL;
  Summary sums[G_N_ELEMENTS (beside_model)][2][2];      /* state, frame/element */
  gdouble *frame_ms = NULL, *element_ms = NULL;
  gchar device_name[256] = "";
  GString *csv = NULL, *report = NULL;
  gchar *gst;
  gint ret = 1;
  guint i, j;

  ctx = g_option_context_new ("- a pipeline's frames beside a busy CUDA "
      "stream of the same process");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (!out) {
    g_printerr ("cudacache-beside-model: --out DIR is required\n");
    return 2;
  }
  if (n_frames < 1 || warmup < 0 || !(busy_ms > 0) || n_misses < 1) {
    g_printerr ("cudacache-beside-model: --frames and --misses take 1 or "
        "more, --warmup 0 or more, --busy-ms a positive length\n");
    return 2;
  }
  if (methods) {
    scenarios = alloc_methods;
    n_scenarios = G_N_ELEMENTS (alloc_methods);
  }

  if (gst_cuda_cache_device_get_count () == 0) {
    g_print ("skipped: no CUDA device\n");
    return 77;
  }
  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElementFactory *f = gst_element_factory_find (elements[i]);

    if (!f) {
      g_printerr ("cudacache-beside-model: no element %s (%s)\n",
          elements[i], g_str_has_prefix (elements[i], "cudacache") ?
          "is GST_PLUGIN_PATH_1_0 the build's ext/cudacache?" :
          g_str_has_prefix (elements[i], "cuda") ? "GStreamer's nvcodec "
          "plugin registers it where a CUDA device answers" :
          "GStreamer's app plugin");
      return 1;
    }
    gst_object_unref (f);
  }
  if (!driver_load ())
    return 1;

  busy = busy_new (busy_ms);
  if (!busy)
    goto done;
  {
    CUdevice device;

    if (cu.DeviceGet (&device, 0) == CUDA_SUCCESS)
      cu.DeviceGetName (device_name, sizeof (device_name), device);
  }

  frames_init (&frames);
  /* held for the whole run, as the Python holds it: the elements' default
   * context is this object */
  primary = gst_cuda_cache_device_get_primary_context (0);
  if (!primary || !roi_base_new (&frames, busy, primary))
    goto done;
  own = gst_cuda_cache_device_open_context (0);
  if (!own) {
    g_printerr ("cudacache-beside-model: no context of its own for "
        "device 0\n");
    goto done;
  }

  frame_ms = g_new (gdouble, n_frames);
  element_ms = g_new (gdouble, n_frames);
  for (i = 0; i < n_scenarios; i++) {
    GString *line = g_string_new (NULL);

    for (j = 0; j < 2; j++) {
      Timed *timed;
      gchar *why = NULL;
      gboolean ok;

      timed = timed_new (scenarios[i].description,
          scenarios[i].own_context ? own : NULL, &err);
      if (!timed) {
        g_printerr ("cudacache-beside-model: %s: %s\n", scenarios[i].name,
            err->message);
        g_clear_error (&err);
        g_string_free (line, TRUE);
        goto done;
      }
      if (j == 1)
        busy_start (busy);
      ok = run_frames (timed, &frames, scenarios[i].make, warmup, n_frames,
          frame_ms, element_ms, &why);
      if (j == 1)
        busy_stop (busy);
      timed_free (timed);
      /* the device's cache is shared: an alloc-method written goes */
      if (methods) {
        GstCudaCache *cache = gst_cuda_cache_device_get_cache (primary);

        gst_cuda_cache_set_alloc_method (cache,
            GST_CUDA_CACHE_ALLOC_METHOD_MALLOC, NULL);
        gst_cuda_cache_clear (cache, GST_CUDA_CACHE_SCOPE_GLOBAL);
        gst_object_unref (cache);
      }
      if (!ok) {
        g_printerr ("cudacache-beside-model: %s, %s: %s\n", scenarios[i].name,
            j ? "busy" : "idle", why);
        g_free (why);
        g_string_free (line, TRUE);
        goto done;
      }
      sums[i][j][0] = summarize (frame_ms, n_frames);
      sums[i][j][1] = summarize (element_ms, n_frames);
    }
    for (j = 0; j < 2; j++) {
      g_string_printf (line, "%s %s ", scenarios[i].name, j ? "busy" : "idle");
      append_summary_tuple (line, &sums[i][j][0]);
      g_string_append_c (line, ' ');
      append_summary_tuple (line, &sums[i][j][1]);
      g_print ("%s\n", line->str);
    }
    g_string_free (line, TRUE);
  }

  g_mkdir_with_parents (out, 0755);
  csv = g_string_new ("scenario,state,frame_median_ms,frame_p99_ms,"
      "frame_max_ms,element_median_ms,element_p99_ms,element_max_ms\r\n");
  for (i = 0; i < n_scenarios; i++) {
    for (j = 0; j < 2; j++) {
      const Summary *f = &sums[i][j][0], *e = &sums[i][j][1];

      const gdouble values[] = { f->median, f->p99, f->max, e->median,
        e->p99, e->max
      };
      guint k;

      append_csv_field (csv, scenarios[i].name);
      g_string_append (csv, j ? ",busy" : ",idle");
      for (k = 0; k < G_N_ELEMENTS (values); k++) {
        g_string_append_c (csv, ',');
        append_float (csv, values[k], "");
      }
      g_string_append (csv, "\r\n");
    }
  }
  if (!write_out (out, "results.csv", csv))
    goto done;

  gst = gst_version_string ();
  report = g_string_new (NULL);
  g_string_append_printf (report, "Busy: a CUDA stream of the primary "
      "context running %g ms kernels (cudacache-beside-model); %d "
      "request-responses a case after %d of warm-up; %s, %s.\n\n",
      busy_ms, n_frames, warmup, device_name, gst);
  g_free (gst);
  g_string_append (report, "| scenario | element idle | element busy | "
      "element busy - idle | frame idle | frame busy | frame busy - idle | "
      "frame p99 busy |\n|---|---|---|---|---|---|---|---|\n");
  for (i = 0; i < n_scenarios; i++) {
    const Summary *fi = &sums[i][0][0], *ei = &sums[i][0][1];
    const Summary *fb = &sums[i][1][0], *eb = &sums[i][1][1];
    const gdouble cells[] = { ei->median, eb->median,
      eb->median - ei->median, fi->median, fb->median,
      fb->median - fi->median, fb->p99
    };
    guint k;

    g_string_append_printf (report, "| %s |", scenarios[i].name);
    for (k = 0; k < G_N_ELEMENTS (cells); k++) {
      g_string_append_c (report, ' ');
      append_ms (report, cells[k]);
      g_string_append (report, " |");
    }
    g_string_append_c (report, '\n');
  }
  if (methods) {
    GString *misses = g_string_new ("method,state,shape,misses,median_us,"
        "p99_us,max_us,first_us\r\n");
    gboolean ok;

    g_string_append (report, "\nHost time of a cache miss, us (alloc-time "
        "per miss; first: the shape's first block):\n\n| shape | method | "
        "state | median | p99 | max | first |\n|---|---|---|---|---|---|---|"
        "\n");
    ok = time_misses (primary, GST_CUDA_CACHE_ALLOC_METHOD_MALLOC, 0, "idle",
        n_misses, misses, report) &&
        time_misses (primary, GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED, 0,
        "idle", n_misses, misses, report) &&
        time_misses (primary, GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED,
        RESERVE_BYTES, "idle", n_misses, misses, report);
    if (ok) {
      busy_start (busy);
      ok = time_misses (primary, GST_CUDA_CACHE_ALLOC_METHOD_MALLOC, 0,
          "busy", n_misses, misses, report) &&
          time_misses (primary, GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED, 0,
          "busy", n_misses, misses, report) &&
          time_misses (primary, GST_CUDA_CACHE_ALLOC_METHOD_STREAM_ORDERED,
          RESERVE_BYTES, "busy", n_misses, misses, report);
      busy_stop (busy);
    }
    ok = ok && write_out (out, "misses.csv", misses);
    g_string_free (misses, TRUE);
    if (!ok)
      goto done;
  }
  if (!write_out (out, "report.md", report))
    goto done;
  g_print ("%s", report->str);
  ret = 0;

done:
  if (csv)
    g_string_free (csv, TRUE);
  if (report)
    g_string_free (report, TRUE);
  g_free (frame_ms);
  g_free (element_ms);
  frames_clear (&frames);
  gst_clear_object (&own);
  gst_clear_object (&primary);
  if (busy)
    busy_free (busy);
  g_free (out);

  return ret;
}
