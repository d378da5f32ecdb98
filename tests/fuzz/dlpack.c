/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 the gst-cuda-cache authors */

/* Fuzz target: gst_cuda_cache_dlpack_import over a DLPack tensor as another
 * library gives one: any rank, dtype, shape, strides and byte offset, in
 * CPU memory exactly as large as the tensor claims (an allocation of its
 * own, so AddressSanitizer sees any read past it). The input is bytes:
 * ndim, dtype code, bits, lanes, flags (1: strides given, 2: the device
 * type from the next byte), device type, byte offset, then each
 * dimension's shape and (where given) stride as 32-bit signed numbers.
 * A buffer made is mapped and read whole; the deleter must be called
 * exactly once, after the buffer is gone. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cudacache/gstcudacachedlpack.h>
#include <dlpack/dlpack.h>

#include "fuzz-common.h"

/* More than this is not allocated: the tensor is given 64 bytes instead,
 * and a buffer made of it is not read. A claim that overflows 64 bits
 * must be refused. */
#define MAX_BYTES (16 << 20)

typedef struct
{
  DLManagedTensor managed;
  int64_t shape[8];
  int64_t strides[8];
  gpointer memory;
  gint deleted;
} FuzzTensor;

static void
fuzz_tensor_deleter (DLManagedTensor * managed)
{
  FuzzTensor *t = managed->manager_ctx;

  t->deleted++;
}

static gint32
read_i32 (const uint8_t ** data, size_t *size)
{
  guint32 v = 0;
  guint i;

  for (i = 0; i < 4 && *size > 0; i++, (*data)++, (*size)--)
    v |= (guint32) ** data << (8 * i);
  return (gint32) v;
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  FuzzTensor t;
  DLTensor *dl = &t.managed.dl_tensor;
  GstBuffer *buf;
  GstCaps *caps = NULL;
  GError *error = NULL;
  guint8 head[7] = { 0, };
  gint64 lowest = 0, highest = 0;
  gsize elem, bytes = 0;
  gboolean fits, overflow;
  gint i;

  fuzz_init ();
  for (i = 0; i < 7 && size > 0; i++, data++, size--)
    head[i] = *data;

  memset (&t, 0, sizeof (t));
  dl->ndim = (gint8) head[0] % 9;
  dl->dtype.code = head[1];
  dl->dtype.bits = head[2];
  dl->dtype.lanes = head[3] ? head[3] : 1;
  dl->device.device_type = (head[4] & 2) ? (DLDeviceType) head[5] : kDLCPU;
  dl->byte_offset = head[6];
  dl->shape = t.shape;
  dl->strides = (head[4] & 1) ? t.strides : NULL;
  for (i = 0; i < MAX (dl->ndim, 0); i++) {
    t.shape[i] = read_i32 (&data, &size);
    if (head[4] & 1)
      t.strides[i] = read_i32 (&data, &size);
  }
  if (dl->ndim < 0)
    dl->shape = NULL;
  t.managed.manager_ctx = &t;
  t.managed.deleter = fuzz_tensor_deleter;

  /* exactly the bytes the tensor claims, from the allocation's start */
  elem = ((gsize) dl->dtype.bits * dl->dtype.lanes + 7) / 8;
  overflow = dl->ndim >= 0 && (!fuzz_tensor_extent (dl, &lowest, &highest,
          NULL) ||
      __builtin_mul_overflow ((guint64) (highest - lowest + 1), elem, &bytes));
  fits = dl->ndim >= 0 && !overflow && bytes + dl->byte_offset <= MAX_BYTES;
  if (!fits)
    bytes = 64;
  else
    bytes += dl->byte_offset;
  t.memory = g_malloc (MAX (bytes, 1));
  memset (t.memory, 0x5a, bytes);
  dl->data = (guint8 *) t.memory - (fits ? lowest * (gint64) elem : 0);

  buf = gst_cuda_cache_dlpack_import (&t.managed, NULL, &caps, &error);
  if (buf == NULL) {
    fuzz_expect_error (&error, "gst_cuda_cache_dlpack_import");
    if (t.deleted != 1)
      g_error ("a refused tensor's deleter was called %d times", t.deleted);
  } else {
    GstMapInfo map;
    guint sum = 0;
    gsize k;

    if (caps == NULL)
      g_error ("a buffer without caps");
    if (t.deleted != 0)
      g_error ("the deleter was called while the buffer lives");
    if (overflow)
      g_error ("a tensor whose size overflows was taken");
    if (fits && gst_buffer_map (buf, &map, GST_MAP_READ)) {
      for (k = 0; k < map.size; k++)
        sum += map.data[k];
      gst_buffer_unmap (buf, &map);
    }
    gst_buffer_unref (buf);
    if (t.deleted != 1)
      g_error ("the deleter was called %d times, not once", t.deleted);
    (void) sum;
  }
  gst_clear_caps (&caps);
  g_free (t.memory);
  return 0;
}
