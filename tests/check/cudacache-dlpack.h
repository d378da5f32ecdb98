/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* DLPack tensors over the tests' own memory, for
 * gst_cuda_cache_dlpack_import (). */

#ifndef __CUDACACHE_DLPACK_H__
#define __CUDACACHE_DLPACK_H__

#include <gst/gst.h>
#include <dlpack/dlpack.h>

/* A DLManagedTensor of @ndim dimensions over @data, whose deleter counts
 * its calls in *@deleted (the struct is freed by it) */
typedef struct
{
  DLManagedTensor managed;
  int64_t shape[4];
  int64_t strides[4];
  gint *deleted;
} TestTensor;

static void
test_tensor_deleter (DLManagedTensor * managed)
{
  TestTensor *t = (TestTensor *) managed;

  (*t->deleted)++;
  g_free (t);
}

static DLManagedTensor *
test_tensor_new (gpointer data, guint8 code, guint8 bits, gint ndim,
    const int64_t * shape, const int64_t * strides, gint * deleted)
{
  TestTensor *t = g_new0 (TestTensor, 1);
  gint i;

  for (i = 0; i < ndim; i++) {
    t->shape[i] = shape[i];
    if (strides)
      t->strides[i] = strides[i];
  }
  t->managed.dl_tensor.data = data;
  t->managed.dl_tensor.device.device_type = kDLCPU;
  t->managed.dl_tensor.ndim = ndim;
  t->managed.dl_tensor.dtype.code = code;
  t->managed.dl_tensor.dtype.bits = bits;
  t->managed.dl_tensor.dtype.lanes = 1;
  t->managed.dl_tensor.shape = t->shape;
  t->managed.dl_tensor.strides = strides ? t->strides : NULL;
  t->managed.deleter = test_tensor_deleter;
  t->deleted = deleted;
  return &t->managed;
}

#endif /* __CUDACACHE_DLPACK_H__ */
