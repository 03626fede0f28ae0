/* Built against an installed acs only (find_package or pkg-config): the
 * installed header must carry the release and compile without warnings. */
#include <acs/acs.h>
#include <stdio.h>

#ifndef ACS_VERSION
#error "<acs/acs.h> has no ACS_VERSION: <acs/version.h> was not installed beside it"
#endif
#if ACS_VERSION != ACS_VERSION_MAJOR * 10000 + ACS_VERSION_MINOR * 100 + ACS_VERSION_PATCH
#error "ACS_VERSION does not match ACS_VERSION_MAJOR/MINOR/PATCH"
#endif

int main(void) {
  /* Without the preload every call is a no-op returning ACS_NOT_LOADED. */
  acs_status s = acs_barrier();
  printf("version %d.%d.%d %s\n", ACS_VERSION_MAJOR, ACS_VERSION_MINOR, ACS_VERSION_PATCH, ACS_VERSION_STRING);
  printf("acs %s\n", s == ACS_NOT_LOADED ? "not loaded" : "loaded");
  return 0;
}
