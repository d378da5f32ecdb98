/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* The kernels' fatbins as the library embeds them (kernels/embed.py),
 * against the files nvcc wrote in the build: what the loader hands to
 * cuModuleLoadData () is nvcc's output byte for byte, one per family of
 * kernels/kernel-list.h, aligned as the driver reads it. No device: links
 * the library's objects, the embedded fatbins among them. Built only where
 * nvcc built the kernels. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "../cudacache-check.h"
#include <gst/cudacache/gstcudacacheplan-private.h>

/* the families' names, in the order of their ids */
#define FAMILY_NAME(FAMILY, family) #family,
static const gchar *family_names[] = {
  GST_CUDA_CACHE_KERNEL_FAMILIES (FAMILY_NAME)
};

#undef FAMILY_NAME

GST_START_TEST (test_fatbins_are_nvccs)
{
  guint i;

  fail_unless_equals_int (G_N_ELEMENTS (family_names),
      GST_CUDA_CACHE_N_KERNEL_FAMILIES);

  for (i = 0; i < GST_CUDA_CACHE_N_KERNEL_FAMILIES; i++) {
    const GstCudaCacheKernelFatbin *f = &gst_cuda_cache_kernel_fatbins[i];
    g_autofree gchar *path = NULL;
    g_autofree gchar *nvccs = NULL;
    gsize nvccs_size = 0;
    GError *error = NULL;

    path = g_strdup_printf ("%s/gstcudacachekernels-%s.fatbin",
        GST_CUDA_CACHE_KERNELS_BUILD_DIR, family_names[i]);
    fail_unless (g_file_get_contents (path, &nvccs, &nvccs_size, &error),
        "%s: %s", path, error ? error->message : "");

    fail_unless_equals_string (f->name, family_names[i]);
    fail_unless_equals_uint64 (f->size, nvccs_size);
    fail_unless (memcmp (f->data, nvccs, nvccs_size) == 0,
        "the %s fatbin the library embeds is not %s", f->name, path);
    /* the driver reads the fatbin's header as 64-bit words */
    fail_unless_equals_uint64 (GPOINTER_TO_SIZE (f->data) % 16, 0);
  }
}

GST_END_TEST;

static Suite *
fatbins_suite (void)
{
  Suite *s = suite_create ("fatbins");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fatbins_are_nvccs);

  return s;
}

GST_CHECK_MAIN (fatbins);
