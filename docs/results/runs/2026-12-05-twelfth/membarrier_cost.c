// How long membarrier(2) takes here: its query, the registration for PRIVATE_EXPEDITED, one
// PRIVATE_EXPEDITED fence and one GLOBAL fence, with N idle threads alive (as a CUDA process has).
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static int mb(int cmd) { return (int)syscall(__NR_membarrier, cmd, 0, 0); }
static double now_us(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static void* idle(void* p) { (void)p; pause(); return 0; }
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  for (int i = 0; i < n; ++i) { pthread_t t; pthread_create(&t, 0, idle, 0); }
  usleep(10000);
  double t0 = now_us(); int q = mb(MEMBARRIER_CMD_QUERY); double t1 = now_us();
  int r = mb(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED); double t2 = now_us();
  double best = 1e9, sum = 0;
  for (int i = 0; i < 100; ++i) { double a = now_us(); mb(MEMBARRIER_CMD_PRIVATE_EXPEDITED); double d = now_us() - a; sum += d; if (d < best) best = d; }
  double g0 = now_us(); int g = mb(MEMBARRIER_CMD_GLOBAL); double g1 = now_us();
  printf("threads=%d query=0x%x (%.1f us) register=%d (%.1f us) private_expedited min %.1f mean %.1f us global=%d (%.1f us)\n",
         n, q, t1 - t0, r, t2 - t1, best, sum / 100, g, g1 - g0);
  return 0;
}
