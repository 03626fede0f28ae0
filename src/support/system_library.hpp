#pragma once
// Functions of system libraries that acs looks up itself, without ever binding to its own
// exported dlsym (a call to `dlsym` from inside libacs.so would reach that hook).
namespace acs::system {

using dlsym_fn = void* (*)(void* handle, const char* symbol);

/// @brief glibc's own dlsym, found by symbol version (GLIBC_2.34, else the older defaults) so
/// that it is never libacs's export; nullptr when the C library is not glibc. Called from inside
/// libacs, its RTLD_NEXT look-ups are relative to libacs.
dlsym_fn libc_dlsym() noexcept;

/// @brief `symbol` of the shared library `library` (loaded if needed, kept loaded), or nullptr,
/// with dlerror() cleared: the application must not read acs's failed look-ups.
void* function(const char* library, const char* symbol) noexcept;

}  // namespace acs::system
