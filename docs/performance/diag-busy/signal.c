/* dev only (docs/performance/diag-busy/README.md, section 7): ways for a
 * thread to wait for the kernel it launched, N threads on one context, each
 * on its own non-blocking stream: the stream's or an event's synchronise, a
 * spin on cuEventQuery, cuStreamWriteValue32 into pinned host memory and a
 * spin on it, and a kernel whose last block writes that memory itself
 * (signal-kernels.cu), alone or after an empty kernel, spinning or
 * yielding. Build: nvcc -cubin -arch=sm_90 -o k.cubin signal-kernels.cu;
 * gcc -O2 signal.c -I/usr/local/cuda/include
 * -L/usr/local/cuda/lib64/stubs -lcuda -lpthread; ./a.out k.cubin */
#include <cuda.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static CUcontext ctx;
static CUfunction fn, ffn;
static volatile int stop;
static int mode;
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_; cuGetErrorString (r_, &s_); fprintf (stderr, "%s: %s\n", #x, s_); exit (1);} } while (0)
typedef struct
{
  long n;
  pthread_t t;
} T;
static void
spin (volatile unsigned *f, unsigned seq)
{
  while (*f != seq);
}

static void *
run (void *d)
{
  T *t = d;
  CUstream s;
  CUevent ev;
  unsigned *hf;
  CUdeviceptr dhf, cnt;
  unsigned seq = 0;
  CK (cuCtxPushCurrent (ctx));
  CK (cuStreamCreate (&s, CU_STREAM_NON_BLOCKING));
  CK (cuEventCreate (&ev, CU_EVENT_DISABLE_TIMING));
  CK (cuMemHostAlloc ((void **) &hf, 64,
          CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
  *hf = 0;
  CK (cuMemHostGetDevicePointer (&dhf, hf, 0));
  CK (cuMemAlloc (&cnt, 4));
  CK (cuMemsetD32 (cnt, 0, 1));
  CK (cuCtxPopCurrent (NULL));
  while (!stop) {
    seq++;
    CK (cuCtxPushCurrent (ctx));
    if (mode == 4 || mode == 6) {
      void *args[] = { &cnt, &dhf, &seq };
      CK (cuLaunchKernel (ffn, 800, 1, 1, 128, 1, 1, 0, s, args, NULL));
    } else
      CK (cuLaunchKernel (fn, 800, 1, 1, 128, 1, 1, 0, s, NULL, NULL));
    if (mode == 0)
      CK (cuStreamSynchronize (s));
    else if (mode == 1) {
      CK (cuEventRecord (ev, s));
      CK (cuEventSynchronize (ev));
    } else if (mode == 2) {
      CK (cuEventRecord (ev, s));
      CK (cuCtxPopCurrent (NULL));
      while (cuEventQuery (ev) == CUDA_ERROR_NOT_READY);
      CK (cuCtxPushCurrent (ctx));
    } else if (mode == 3) {
      CK (cuStreamWriteValue32 (s, dhf, seq, 0));
      CK (cuCtxPopCurrent (NULL));
      spin (hf, seq);
      CK (cuCtxPushCurrent (ctx));
    } else if (mode == 4) {
      CK (cuCtxPopCurrent (NULL));
      spin (hf, seq);
      CK (cuCtxPushCurrent (ctx));
    } else if (mode == 5) {
      void *args[] = { &cnt, &dhf, &seq };
      CK (cuLaunchKernel (ffn, 1, 1, 1, 32, 1, 1, 0, s, args, NULL));
      CK (cuCtxPopCurrent (NULL));
      spin (hf, seq);
      CK (cuCtxPushCurrent (ctx));
    } else if (mode == 6) {
      CK (cuCtxPopCurrent (NULL));
      int k = 0;
      while (*(volatile unsigned *) hf != seq)
        if (++k > 200)
          sched_yield ();
      CK (cuCtxPushCurrent (ctx));
    }
    CK (cuCtxPopCurrent (NULL));
    t->n++;
  }
  return NULL;
}

int
main (int argc, char **argv)
{
  CUdevice dev;
  CUmodule mod;
  int v = 0;
  CK (cuInit (0));
  CK (cuDeviceGet (&dev, 0));
  cuDeviceGetAttribute (&v, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1, dev);
  printf ("stream mem ops: %d\n", v);
  CK (cuCtxCreate (&ctx, NULL, 0, dev));
  CK (cuModuleLoad (&mod, argc > 1 ? argv[1] : "k.cubin"));
  CK (cuModuleGetFunction (&fn, mod, "empty"));
  CK (cuModuleGetFunction (&ffn, mod, "flagk"));
  CK (cuCtxPopCurrent (NULL));
  const char *names[] =
      { "launch, stream sync", "launch, event sync", "launch, event query spin",
    "launch, write value, spin", "flag kernel, spin",
    "empty + 1-block flag, spin", "flag kernel, spin+yield"
  };
  for (int rep = 0; rep < 3; rep++)
    for (mode = (rep ? 4 : 0); mode < 7; mode++)
      for (int n = 1; n <= 8; n *= 2) {
        T t[8];
        stop = 0;
        for (int i = 0; i < n; i++) {
          t[i].n = 0;
          pthread_create (&t[i].t, NULL, run, &t[i]);
        }
        struct timespec ts = { 0, 100000000 };
        nanosleep (&ts, NULL);
        long a = 0, b = 0;
        for (int i = 0; i < n; i++)
          a += t[i].n;
        ts.tv_nsec = 400000000;
        nanosleep (&ts, NULL);
        for (int i = 0; i < n; i++)
          b += t[i].n;
        stop = 1;
        for (int i = 0; i < n; i++)
          pthread_join (t[i].t, NULL);
        printf ("%-28s N=%d: %.0f per second\n", names[mode], n, (b - a) / 0.4);
      }
  return 0;
}
