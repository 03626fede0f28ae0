/* A stand-in for libacs.so that records the annotation calls it receives, for the tests of
 * acs.torch (tests/torch/test_torch_integration.py): load it with RTLD_GLOBAL (or preload it)
 * before acs.torch, then read what the integration declared with acs_recorder_text().
 * Every call succeeds; acs_v1_active() is 1. One line per call:
 *   begin R=ptr:bytes,... W=ptr:bytes,... F=flags   (acs_v1_scope_begin)
 *   end                                              (acs_v1_scope_end)
 *   next R=... W=... F=flags                         (acs_v1_next_launch)
 *   sub ptr bytes in_use                             (acs_v1_suballocation)
 *   barrier */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acs/acs.h"

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char* text;
static size_t used, capacity;

static void append(const char* fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = (int)sizeof line - 1;
  if (used + (size_t)n + 1 > capacity) {
    size_t want = capacity ? capacity * 2 : 4096;
    while (want < used + (size_t)n + 1) want *= 2;
    char* bigger = realloc(text, want);
    if (!bigger) return;
    text = bigger;
    capacity = want;
  }
  memcpy(text + used, line, (size_t)n);
  used += (size_t)n;
  text[used] = '\0';
}

static void ranges(const char* tag, const acs_range* r, size_t n) {
  append(" %s=", tag);
  for (size_t i = 0; i < n; ++i) append("%s%p:%zu", i ? "," : "", r[i].ptr, r[i].bytes);
}

/* ACS_RECORDER_COUNT_ONLY=1: count calls and record nothing (benchmarks/torch/op_overhead.py). */
static int count_only = -1;
static unsigned long calls;

static int counting(void) {
  if (count_only < 0) {
    const char* v = getenv("ACS_RECORDER_COUNT_ONLY");
    count_only = v && v[0] == '1';
  }
  if (count_only) __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
  return count_only;
}

static acs_status declaration(const char* what, const acs_range* reads, size_t n_reads, const acs_range* writes,
                              size_t n_writes, unsigned flags) {
  if (counting()) return ACS_OK;
  pthread_mutex_lock(&lock);
  append("%s", what);
  ranges("R", reads, n_reads);
  ranges("W", writes, n_writes);
  append(" F=%u\n", flags);
  pthread_mutex_unlock(&lock);
  return ACS_OK;
}

EXPORT acs_status acs_v1_scope_begin(const acs_range* r, size_t nr, const acs_range* w, size_t nw, unsigned f) {
  return declaration("begin", r, nr, w, nw, f);
}
EXPORT acs_status acs_v1_next_launch(const acs_range* r, size_t nr, const acs_range* w, size_t nw, unsigned f) {
  return declaration("next", r, nr, w, nw, f);
}
EXPORT acs_status acs_v1_scope_end(void) {
  if (counting()) return ACS_OK;
  pthread_mutex_lock(&lock);
  append("end\n");
  pthread_mutex_unlock(&lock);
  return ACS_OK;
}
EXPORT acs_status acs_v1_suballocation(const void* base, size_t bytes, int in_use) {
  pthread_mutex_lock(&lock);
  append("sub %p %zu %d\n", base, bytes, in_use);
  pthread_mutex_unlock(&lock);
  return ACS_OK;
}
EXPORT acs_status acs_v1_barrier(void) {
  pthread_mutex_lock(&lock);
  append("barrier\n");
  pthread_mutex_unlock(&lock);
  return ACS_OK;
}
EXPORT acs_status acs_v1_register_kernel(const void* f, acs_kernel_rule r, void* u, unsigned fl) {
  (void)f, (void)r, (void)u, (void)fl;
  return ACS_OK;
}
EXPORT void acs_v1_footprint_read(acs_footprint* fp, const void* p, size_t n) { (void)fp, (void)p, (void)n; }
EXPORT void acs_v1_footprint_write(acs_footprint* fp, const void* p, size_t n) { (void)fp, (void)p, (void)n; }
EXPORT int acs_v1_active(void) { return 1; }

/* What was recorded since the last clear (a copy the caller frees with acs_recorder_free). */
EXPORT char* acs_recorder_text(void) {
  pthread_mutex_lock(&lock);
  char* copy = strdup(text ? text : "");
  pthread_mutex_unlock(&lock);
  return copy;
}
EXPORT void acs_recorder_free(char* p) { free(p); }
EXPORT void acs_recorder_clear(void) {
  pthread_mutex_lock(&lock);
  used = 0;
  if (text) text[0] = '\0';
  pthread_mutex_unlock(&lock);
}
