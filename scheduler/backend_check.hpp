#pragma once
// The scheduler's one idiom for a backend call that may fail: propagate its status.
//
//   ACS_BACKEND_CHECK(gpu.record_event(e, stream));
//
// evaluates the expression once and, when it is not 0, returns that status from the enclosing
// function (which returns backend_status). Cleanup that must happen on failure is done before
// the check, on the status held in a variable:
//
//   const backend_status st = gpu.wait_event(target, e);
//   if (temporary) events.release(e);
//   ACS_BACKEND_CHECK(st);
#include "scheduler/backend.hpp"

#define ACS_BACKEND_CHECK(expr)                                            \
  do {                                                                     \
    if (const ::acs::backend_status acs_check_status_ = (expr);            \
        acs_check_status_ != 0)                                            \
      return acs_check_status_;                                            \
  } while (false)
