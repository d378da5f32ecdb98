extern "C" __global__ void empty () { }
extern "C" __global__ void flagk (unsigned *counter, volatile unsigned *hostflag, unsigned seq)
{
  __syncthreads ();
  if (threadIdx.x == 0) {
    __threadfence ();
    unsigned prev = atomicAdd (counter, 1);
    if (prev == gridDim.x - 1) {
      *counter = 0;
      __threadfence_system ();
      *hostflag = seq;
    }
  }
}
