/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* For suites that need a CUDA device: they skip, with the reason, where
 * there is none, and run for real where there is one. */

#ifndef __CUDACACHE_CHECK_GPU_H__
#define __CUDACACHE_CHECK_GPU_H__

#include "cudacache-check.h"
#include <gst/cudacache/cudacache.h>

/* A context on device 0 for each case (tcase_add_checked_fixture with
 * cudacache_gpu_setup and cudacache_gpu_teardown). */
static GstCudaContext *context;

static void
cudacache_gpu_setup (void)
{
  context = gst_cuda_cache_device_open_context (0);
  fail_unless (context != NULL, "no CUDA context on device 0");
}

/* The device's cache lives as long as the process and frees what pools
 * drop on its reaper thread: a case waits for those frees, so that
 * compute-sanitizer's leak check at exit sees none pending. */
static void
cudacache_gpu_teardown (void)
{
  if (context) {
    GstCudaCache *cache = gst_cuda_cache_device_get_cache (context);

    gst_cuda_cache_drain (cache);
    gst_object_unref (cache);
  }
  gst_clear_object (&context);
}

/* meson's exit code for a skipped test */
#define CUDACACHE_CHECK_SKIP 77

/* Like GST_CHECK_MAIN, but exits as skipped where there is no device. The
 * cases run in one process: CUDA does not survive fork() once initialised,
 * and looking for a device initialises it. */
#define CUDACACHE_CHECK_GPU_MAIN(name)                                    \
int main (int argc, char **argv)                                          \
{                                                                         \
  Suite *s;                                                               \
  gst_check_init (&argc, &argv);                                          \
  if (gst_cuda_cache_device_get_count () == 0) {                          \
    g_print ("SKIP: no CUDA device or driver on this machine; the "       \
        #name " suite runs on a machine with one\n");                     \
    return CUDACACHE_CHECK_SKIP;                                          \
  }                                                                       \
  g_setenv ("CK_FORK", "no", TRUE);                                       \
  s = name ## _suite ();                                                  \
  return gst_check_run_suite (s, # name, __FILE__);                       \
}

#endif /* __CUDACACHE_CHECK_GPU_H__ */
