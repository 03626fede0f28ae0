#pragma once
// What a kernel's C++ signature says about its pointer parameters, read from
// its mangled name through the C++ runtime's demangler. Used by inference to
//  * find parameters that reach memory through device-side pointers (T**):
//    the footprint is then unknown, whatever the argument values;
//  * with ACS_INFER=const, treat pointer-to-const parameters (const T*) as
//    read only. C++ allows a kernel to cast const away and write, so this is
//    a mode the user opts into, not the default.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace acs::inference {

enum class param_kind : std::uint8_t {
  value,          // not a pointer (scalars, structs: their words are still scanned)
  const_pointer,  // T const*: reads only, through this parameter
  pointer,        // T*
  indirect,       // a pointer to pointers (T**, T* const*...): memory reached is unknown
};

/// @brief The kinds of a demangled parameter list such as "float const*, float*, int".
std::vector<param_kind> classify_parameters(std::string_view demangled_params);

/// @brief The parameter kinds of a kernel from its mangled name; nullopt when the
/// name is not a mangled C++ function (extern "C" kernels) or cannot be demangled.
std::optional<std::vector<param_kind>> kernel_parameters(const char* mangled_name);

/// @brief The text between the outermost parentheses of a demangled function name.
std::optional<std::string> parameter_list(std::string_view demangled);

}  // namespace acs::inference
