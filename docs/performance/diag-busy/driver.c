/* dev only (docs/performance/diag-busy/README.md, section 6): how the CUDA
 * driver's per-frame calls scale with threads on one context: push, [launch
 * an empty kernel], synchronise the thread's own stream, pop. Build: gcc -O2
 * driver.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
 * -lpthread */
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static CUcontext ctx;
static CUfunction fn;
static volatile int stop;
static int mode;
static const char *ptx =
    ".version 7.0\n.target sm_50\n.address_size 64\n"
    ".visible .entry empty() { ret; }\n";
typedef struct
{
  long n;
  pthread_t t;
} T;
static void *
run (void *d)
{
  T *t = d;
  CUstream s;
  cuCtxPushCurrent (ctx);
  cuStreamCreate (&s, CU_STREAM_NON_BLOCKING);
  cuCtxPopCurrent (NULL);
  while (!stop) {
    cuCtxPushCurrent (ctx);
    if (mode >= 1)
      cuLaunchKernel (fn, 800, 1, 1, 128, 1, 1, 0, s, NULL, NULL);
    if (mode != 2)
      cuStreamSynchronize (s);
    cuCtxPopCurrent (NULL);
    if (mode == 2) {
      cuCtxPushCurrent (ctx);
      cuStreamSynchronize (s);
      cuCtxPopCurrent (NULL);
    }
    t->n++;
  }
  return NULL;
}

int
main (void)
{
  CUdevice dev;
  CUmodule mod;
  cuInit (0);
  cuDeviceGet (&dev, 0);
  cuCtxCreate (&ctx, NULL, 0, dev);
  if (cuModuleLoadData (&mod, ptx) != CUDA_SUCCESS) {
    printf ("no module\n");
    return 1;
  }
  cuModuleGetFunction (&fn, mod, "empty");
  cuCtxPopCurrent (NULL);
  const char *names[] =
      { "push, sync idle stream, pop", "push, launch, sync, pop",
    "push, launch, pop, push, sync, pop"
  };
  for (int rep = 0; rep < 3; rep++)
    for (mode = 0; mode < 3; mode++)
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
        printf ("%-36s N=%d: %.0f per second\n", names[mode], n, (b - a) / 0.4);
      }
  return 0;
}
