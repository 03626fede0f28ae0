#pragma once
// acs's threads are named (acs-issue0, acs-background, ...), so that `top -H`, a profiler or
// /proc/PID/task/*/comm tells them from the program's. Linux keeps 15 characters.
#include <pthread.h>

namespace acs {

inline void name_this_thread(const char* name) noexcept { (void)pthread_setname_np(pthread_self(), name); }

}  // namespace acs
