// Prints interpose/hooks_table.inc as `<api> <symbol> <kind>` lines, for check_hook_table.py
// and check_exports.py.
#include <cstdio>

#include "interpose/hooks_kind.hpp"
#include "interpose/hooks_table.inc"

int main() {
  using acs::hooks::hook_kind;
#define ACS_DUMP(api)                                                                    \
  [](const char* symbol, hook_kind kind) {                                               \
    std::printf("%s %s %.*s\n", api, symbol, static_cast<int>(acs::hooks::kind_name(kind).size()), \
                acs::hooks::kind_name(kind).data());                                     \
  }
  const auto driver = ACS_DUMP("driver");
  const auto runtime = ACS_DUMP("runtime");
#define ACS_DUMP_DRIVER(symbol, kind) driver(#symbol, hook_kind::kind);
#define ACS_DUMP_RUNTIME(symbol, kind) runtime(#symbol, hook_kind::kind);
  ACS_DRIVER_HOOKS(ACS_DUMP_DRIVER)
  ACS_RUNTIME_HOOKS(ACS_DUMP_RUNTIME)
  return 0;
}
