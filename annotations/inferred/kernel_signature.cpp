#include "annotations/inferred/kernel_signature.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace acs::inference {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

param_kind classify(std::string_view p) {
  p = trim(p);
  // Top-level pointers: '*' outside template arguments and parentheses.
  int depth = 0;
  int stars = 0;
  bool fn = false;
  for (char c : p) {
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == '(') fn = true;
    if (c == '*' && depth == 0) ++stars;
  }
  // Function pointers (their '*' sits inside parentheses) reach code, not data.
  if (fn || p.find('[') != std::string_view::npos) return stars > 0 ? param_kind::indirect : param_kind::value;
  if (stars == 0) return p.find('&') != std::string_view::npos ? param_kind::indirect : param_kind::value;
  if (stars > 1) return param_kind::indirect;
  // One pointer: const when the pointee is, i.e. "const" stands before the '*'
  // ("float const*" as the demangler writes it, or "const float*").
  const std::string_view pointee = trim(p.substr(0, p.rfind('*')));
  const bool pointee_const = pointee.starts_with("const ") || pointee.ends_with(" const");
  return pointee_const ? param_kind::const_pointer : param_kind::pointer;
}

}  // namespace

std::vector<param_kind> classify_parameters(std::string_view params) {
  std::vector<param_kind> kinds;
  params = trim(params);
  if (params.empty() || params == "void") return kinds;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= params.size(); ++i) {
    const char c = i < params.size() ? params[i] : ',';
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      kinds.push_back(classify(params.substr(start, i - start)));
      start = i + 1;
    }
  }
  return kinds;
}

std::optional<std::string> parameter_list(std::string_view demangled) {
  // The parameter list is the last top-level parenthesised group: template
  // arguments may hold parentheses of their own, before it.
  if (demangled.empty() || demangled.back() != ')') return std::nullopt;
  int depth = 0;
  for (std::size_t i = demangled.size(); i-- > 0;) {
    if (demangled[i] == ')') ++depth;
    if (demangled[i] == '(' && --depth == 0)
      return std::string(demangled.substr(i + 1, demangled.size() - i - 2));
  }
  return std::nullopt;
}

std::optional<std::vector<param_kind>> kernel_parameters(const char* mangled_name) {
  if (mangled_name == nullptr || std::string_view(mangled_name).substr(0, 2) != "_Z") return std::nullopt;
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled_name, nullptr, nullptr, &status), std::free);
  if (status != 0 || !demangled) return std::nullopt;
  const std::optional<std::string> params = parameter_list(demangled.get());
  if (!params) return std::nullopt;
  return classify_parameters(*params);
}

}  // namespace acs::inference
