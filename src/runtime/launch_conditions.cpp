#include "src/runtime/launch_conditions.hpp"

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>

#include "src/runtime/devices.hpp"
#include "src/support/guard.hpp"
#include "src/support/log.hpp"
#include "src/support/stats.hpp"

namespace acs::launch_conditions {

namespace {

std::atomic<std::uint64_t> current_generation{1};
std::atomic<unsigned> changes_running{0};
std::atomic<int> context_failure{0};  // the first context failure seen, 0 for none

// What the last successful set of each remembered (function, attribute) gave it. Held across the
// real call, so that the table always says what the last completed set through it left.
// `device`: -1 for a function (cuFuncSetAttribute, cudaFuncSetAttribute), the device for a
// CUkernel (cuKernelSetAttribute), whose value is per device.
struct attribute_key {
  const void* function;
  int attribute;
  int device;
  bool operator==(const attribute_key&) const = default;
};
struct attribute_key_hash {
  std::size_t operator()(const attribute_key& k) const noexcept {
    return std::hash<const void*>{}(k.function) ^ (static_cast<std::size_t>(k.attribute) << 1) ^
           (static_cast<std::size_t>(k.device + 1) << 8);
  }
};
struct attribute_table {
  std::mutex mutex;
  std::unordered_map<attribute_key, int, attribute_key_hash> values;  // guarded by mutex
};
// Never destroyed: the runtime's own teardown unloads code at exit, through the hooks.
attribute_table& attributes() {
  static auto* table = new attribute_table;
  return *table;
}
constexpr std::size_t max_attribute_values = 4096;  // a program setting more: forgotten, set again

// The attributes remembered: every one a program may set, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
// (8) to _CLUSTER_SCHEDULING_POLICY_PREFERENCE (15), the cluster attributes among them (cuBLAS and
// cuDNN set NON_PORTABLE_CLUSTER_SIZE_ALLOWED before their cluster kernels), and the runtime's of
// the same numbers (hooks_handlers.hpp). A set leaves the value it names whatever was there before,
// so setting the value the last set left changes nothing. Attributes added to CUDA later are not
// known to behave so: each of their sets is a change.
bool remembers_attribute(int attribute) noexcept { return attribute >= 8 && attribute <= 15; }

}  // namespace

std::uint64_t generation() noexcept { return current_generation.load(std::memory_order_acquire); }

bool deferral_allowed() noexcept {
  return changes_running.load(std::memory_order_seq_cst) == 0 &&
         context_failure.load(std::memory_order_relaxed) == 0;
}

// Every launch is decided under its device's scheduler lock (detach and enqueue alike). Taking
// that lock after raising the counter means: a launch that saw the counter at 0 has finished its
// enqueue (the drain then issues it), and any later one sees the counter raised.
void change_begins() noexcept {
  changes_running.fetch_add(1, std::memory_order_seq_cst);
  stats::count_condition_change();
  guarded("launch_conditions::change_begins", [] {
    for (device_runtime* rt : all_runtimes()) {
      (void)rt->sched.in_flight();  // takes and releases the scheduler's lock
      rt->sched.drain();
    }
  });
}

void change_ends() noexcept {
  current_generation.fetch_add(1, std::memory_order_acq_rel);
  changes_running.fetch_sub(1, std::memory_order_seq_cst);
}

int set_function_attribute(const void* function, int attribute, int value, int (*set)(void* context),
                           void* context, int device) noexcept {
  if (function == nullptr || !remembers_attribute(attribute)) {
    log::debug("{} {} attribute {} set to {}: a change of the launch conditions ({})",
               device < 0 ? "function" : "kernel", function, attribute, value,
               function == nullptr ? "the function not known" : "an attribute not remembered");
    change_begins();
    const int status = set(context);
    forget_attribute_values();
    change_ends();
    return status;
  }
  const attribute_key key{function, attribute, device < 0 ? -1 : device};
  attribute_table& t = attributes();
  const std::lock_guard lock(t.mutex);
  auto& attribute_values = t.values;
  const auto known = attribute_values.find(key);
  if (known != attribute_values.end() && known->second == value) {
    stats::count_condition_repeat();
    const int status = set(context);  // changes nothing: no launch can fail for it
    if (status != 0) attribute_values.erase(known);  // what it holds now is not known
    return status;
  }
  // Which name, and whether a value was known: what tells a new value from one that a set through
  // the other name, or an unload, forgot.
  log::debug("{} {} attribute {} set to {} (before: {}): a change of the launch conditions",
             key.device < 0 ? "function" : "kernel", function, attribute, value,
             known != attribute_values.end() ? std::to_string(known->second) : "not known");
  change_begins();
  const int status = set(context);
  try {
    // A kernel's value and its functions' values are one state reached by two names (a function's
    // own set overrides its kernel's, and the runtime's set may be either): a change through one
    // name forgets every value remembered through the other.
    std::erase_if(attribute_values, [&](const auto& entry) { return (entry.first.device < 0) != (key.device < 0); });
    if (status != 0) {
      attribute_values.erase(key);
    } else {
      if (attribute_values.size() >= max_attribute_values) attribute_values.clear();
      attribute_values[key] = value;
    }
  } catch (...) {  // out of memory: nothing remembered, every later set a change
    attribute_values.clear();
  }
  change_ends();
  return status;
}

int unload_code(const void* handle, bool library, int (*unload)(void* context), void* context,
                const code_owners& owners) noexcept {
  attribute_table& t = attributes();
  const std::lock_guard lock(t.mutex);
  // Asked before the unload: afterwards the handles may name nothing, or other code.
  std::erase_if(t.values, [&](const auto& entry) {
    const void* owner = nullptr;
    if (entry.first.device >= 0)
      return !owners.library_of_kernel(entry.first.function, &owner) || owner == nullptr || (library && owner == handle);
    return library || !owners.module_of_function(entry.first.function, &owner) || owner == nullptr ||
           owner == handle;
  });
  return unload(context);
}

void forget_attribute_values() noexcept {
  attribute_table& t = attributes();
  const std::lock_guard lock(t.mutex);
  t.values.clear();
}

bool is_context_failure(int status) noexcept {
  switch (status) {
    case 226:  // CUDA_ERROR_CONTAINED
    case 700:  // CUDA_ERROR_ILLEGAL_ADDRESS
    case 702:  // CUDA_ERROR_LAUNCH_TIMEOUT
    case 710:  // CUDA_ERROR_ASSERT
    case 714:  // CUDA_ERROR_HARDWARE_STACK_ERROR
    case 715:  // CUDA_ERROR_ILLEGAL_INSTRUCTION
    case 716:  // CUDA_ERROR_MISALIGNED_ADDRESS
    case 717:  // CUDA_ERROR_INVALID_ADDRESS_SPACE
    case 718:  // CUDA_ERROR_INVALID_PC
    case 719:  // CUDA_ERROR_LAUNCH_FAILED
    case 721:  // CUDA_ERROR_TENSOR_MEMORY_LEAK
    case 810:  // cudaErrorMpsClientTerminated
    case 911:  // CUDA_ERROR_EXTERNAL_DEVICE
      return true;
    default:
      return false;
  }
}

bool call_failed(int status) noexcept {
  if (!is_context_failure(status)) return false;
  int none = 0;
  if (context_failure.compare_exchange_strong(none, status, std::memory_order_relaxed))
    log::print_once(log_level::info, "launch_conditions:failure",
                    "the CUDA context failed (error {}): acs issues every later launch at once, which "
                    "returns the error as it would without acs",
                    status);
  return true;
}

void stop_deferral(int status) noexcept {
  int none = 0;
  context_failure.compare_exchange_strong(none, status == 0 ? -1 : status, std::memory_order_relaxed);
}

void reset_for_testing() noexcept { context_failure.store(0, std::memory_order_relaxed); }

}  // namespace acs::launch_conditions
