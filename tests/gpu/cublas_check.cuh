#pragma once
// CUBLAS_CHECK(expr): the cuBLAS call must succeed, or the test program fails with its status.
#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

#define CUBLAS_CHECK(expr)                                                                                 \
  do {                                                                                                     \
    const cublasStatus_t st_ = (expr);                                                                     \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                                                    \
      std::fprintf(stderr, "FAILED: %s returned %s at %s:%d\n", #expr, cublasGetStatusName(st_), __FILE__, \
                   __LINE__);                                                                              \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)
