#include "interpose/hooks_guard.hpp"

namespace acs::hooks {

constinit thread_local int hook_depth [[gnu::tls_model("initial-exec")]] = 0;

}  // namespace acs::hooks
