#include "src/support/guard.hpp"

#include "src/support/log.hpp"

namespace acs {

void internal_failure(const char* where) noexcept {
  log::print_once(log_level::warn, where, "acs failed internally in {}; it degrades to pass-through", where);
}

}  // namespace acs
