#pragma once
// Test support for the annotation API: a launch view over the test's own
// allocations and parameter layouts, fake kernels with pointer arguments, and
// a fixture that pins the options and checks that each test leaves its
// thread's annotation state empty.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "acs/acs.h"
#include "annotations/inferred/allocation_map.hpp"
#include "annotations/declared/declared.hpp"
#include "annotations/inferred/inference.hpp"
#include "annotations/declared/launch_view.hpp"
#include "annotations/declared/options.hpp"
#include "annotations/declared/thread_state.hpp"
#include "annotations/declared/warnings.hpp"

// The implementation's own entry points (c_api.cpp), called directly, as ctypes would.
extern "C" {
acs_status acs_v1_next_launch(const acs_range*, size_t, const acs_range*, size_t, unsigned) noexcept;
acs_status acs_v1_scope_begin(const acs_range*, size_t, const acs_range*, size_t, unsigned) noexcept;
acs_status acs_v1_scope_end(void) noexcept;
acs_status acs_v1_register_kernel(const void*, acs_kernel_rule, void*, unsigned) noexcept;
void acs_v1_footprint_read(acs_footprint*, const void*, size_t) noexcept;
void acs_v1_footprint_write(acs_footprint*, const void*, size_t) noexcept;
acs_status acs_v1_barrier(void) noexcept;
int acs_v1_active(void) noexcept;
}

namespace acs::testing {

class no_probe final : public inference::pointer_probe {
 public:
  bool is_device_pointer(address) noexcept override { return false; }
};

// Kernels of the tests take word-sized parameters: layouts are registered per function.
class fake_view final : public annotations::launch_view {
 public:
  allocation_map allocations;
  std::map<const void*, inference::param_layout> layouts;
  std::map<const void*, std::string> names;

  void word_params(CUfunction f, std::uint32_t count) {
    inference::param_layout l;
    for (std::uint32_t i = 0; i < count; ++i) l.push_back({i * 8, 8});
    layouts[f] = l;
  }

  bool pointer_arguments(CUfunction f, void* const* params, void* const* extra,
                         std::vector<inference::pointer_argument>& out) noexcept override {
    const auto it = layouts.find(f);
    if (it == layouts.end()) return false;
    no_probe probe;
    return inference::pointer_arguments(&it->second, params, extra, allocations, probe, out) ==
           inference::words_status::ok;
  }
  bool allocated(const byte_range& r) noexcept override {
    const auto a = allocations.find(r.first);
    return a && r.last <= a->last;
  }
  std::string kernel_name(CUfunction f) noexcept override {
    const auto it = names.find(f);
    return annotations::describe_kernel(f, it == names.end() ? nullptr : it->second.c_str());
  }
};

// The arguments of one launch: word-sized values, and the params array pointing at them.
struct launch_args {
  std::vector<std::uint64_t> words;
  std::vector<void*> params;

  explicit launch_args(std::vector<std::uint64_t> w) : words(std::move(w)), params(words.size()) {
    for (std::size_t i = 0; i < words.size(); ++i) params[i] = &words[i];
  }
  void** get() { return params.data(); }
};

// A distinct fake function handle per name.
inline CUfunction function_handle(int id) {
  return reinterpret_cast<CUfunction>(static_cast<std::uintptr_t>(0x5000'0000ULL + 0x100ULL * id));
}

inline const void* ptr(address a) { return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(a)); }
inline acs_range range(address a, std::size_t bytes) { return {ptr(a), bytes}; }

// Capture state the services report, switched by tests.
inline bool& capture_flag() {
  static bool flag = false;
  return flag;
}

class annotation_test : public ::testing::Test {
 protected:
  void SetUp() override {
    annotations::override_options({.enabled = true, .infer_alloc = true, .check = false});
    annotations::forget_reports();  // each test sees its own first warnings
    capture_flag() = false;
    declared::connect(
        {.capture_in_progress = []() noexcept { return capture_flag(); }, .kernel_name = nullptr});
  }
  void TearDown() override {
    annotations::thread_state* ts = annotations::this_thread();
    ASSERT_NE(ts, nullptr);
    EXPECT_FALSE(ts->pending.has_value()) << "the test left a pending declaration";
    EXPECT_FALSE(ts->barrier) << "the test left a pending barrier";
    EXPECT_EQ(ts->depth(), 0u) << "the test left scopes open";
    ts->pending.reset();
    ts->barrier = false;
    while (ts->close()) {
    }
    capture_flag() = false;
    annotations::override_options({});
  }

  // take() with the test's view.
  declared::launch_footprint take(CUfunction f, void** params = nullptr) {
    declared::launch_footprint out;
    annotations::take(f, params, nullptr, out, view);
    return out;
  }

  fake_view view;
};

// Counts occurrences of `needle` in `hay`.
inline std::size_t occurrences(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

}  // namespace acs::testing
