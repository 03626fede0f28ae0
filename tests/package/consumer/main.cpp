// The C++ side of the installed header, linked with acs::headers only.
#include <acs/acs.h>

#include <cstdio>

static_assert(ACS_VERSION_MAJOR >= 0 && ACS_VERSION_MINOR >= 0 && ACS_VERSION_PATCH >= 0);

int main() {
  float data[4] = {};
  const acs_status s = acs::next_launch(acs::reads(acs::elements(data, 4)), acs::writes(acs::elements(data, 4)));
  std::printf("acs %s\n", s == ACS_NOT_LOADED ? "not loaded" : "loaded");
  return 0;
}
