// A dependency of probe_local, which main opens with RTLD_LOCAL: not in the global scope.
extern "C" const char* probe_local_only() { return "dep"; }
