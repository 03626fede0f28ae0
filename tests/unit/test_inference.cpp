// Footprint inference from kernel arguments, with a synthetic parameter layout,
// allocation map and pointer probe: no driver involved.
#include <gtest/gtest.h>

#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <map>
#include <set>
#include <vector>

#include "annotations/inferred/inference.hpp"
#include "annotations/inferred/inference_memo.hpp"
#include "annotations/inferred/suballocations.hpp"
#include "annotations/inferred/loaded_code.hpp"
#include "annotations/inferred/ptx_writes.hpp"

namespace acs::inference {
namespace {

constexpr address alloc_a = 0x7f10'0000'0000;  // 1 MiB
constexpr address alloc_b = 0x7f10'0020'0000;  // 4 KiB
constexpr byte_range range_a{alloc_a, alloc_a + (1 << 20) - 1};
constexpr byte_range range_b{alloc_b, alloc_b + 4095};

class fake_probe final : public pointer_probe {
 public:
  std::set<address> device;  // device memory the map does not know
  int calls = 0;
  bool is_device_pointer(address v) noexcept override {
    ++calls;
    return device.count(v) != 0;
  }
};

class inference_test : public testing::Test {
 protected:
  inference_test() {
    map.insert(alloc_a, 1 << 20);
    map.insert(alloc_b, 4096);
  }
  inference_result run(const param_layout* layout, void* const* params, void* const* extra = nullptr) {
    return infer(layout, params, extra, map, probe, out);
  }
  static bool is_everything(const access_set& s) {
    return s.reads.empty() && s.writes.size() == 1 && s.writes[0] == whole_address_space;
  }

  allocation_map map;
  fake_probe probe;
  access_set out;
};

// saxpy-like: (float* x, float* y, int n)
const param_layout two_pointers_and_int{{0, 8}, {8, 8}, {16, 4}};

TEST_F(inference_test, pointer_arguments_make_their_whole_allocations_written) {
  address x = alloc_a, y = alloc_b + 100;  // y points into the middle of b
  int n = 1000;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(run(&two_pointers_and_int, params), inference_result::inferred);
  EXPECT_TRUE(out.reads.empty());  // written, which covers reading (add_allocation)
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
  EXPECT_EQ(probe.calls, 0);
}

// What the kernel's PTX showed (param_info::written_words): x never written through.
TEST_F(inference_test, words_the_ptx_never_writes_through_make_allocations_read_only) {
  param_layout layout{{0, 8}, {8, 8}, {16, 4}};
  layout[0].written_words = 0;
  address x = alloc_a, y = alloc_b;
  int n = 1;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(run(&layout, params), inference_result::inferred);
  EXPECT_EQ(out.reads, (std::vector<byte_range>{range_a}));
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_b}));
  // The same allocation reached through a written word as well: written.
  y = alloc_a + 64;
  ASSERT_EQ(run(&layout, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
}

TEST_F(inference_test, written_words_are_per_word_inside_struct_parameters) {
  // struct { float* out; const float* in; } as one 16-byte parameter: only word 0 written.
  param_layout layout{{0, 16}};
  layout[0].written_words = 0b01;
  address words[2] = {alloc_b, alloc_a};
  void* params[] = {words};
  ASSERT_EQ(run(&layout, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_b}));
  EXPECT_EQ(out.reads, (std::vector<byte_range>{range_a}));
  layout[0].written_words = 0b10;
  ASSERT_EQ(run(&layout, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
}

TEST_F(inference_test, nothing_written_through_arguments_or_device_variables_written_is_everything) {
  param_layout layout{{0, 8}, {8, 8}};
  layout[0].written_words = layout[1].written_words = 0;
  address x = alloc_a, y = alloc_b;
  void* params[] = {&x, &y};
  EXPECT_EQ(run(&layout, params), inference_result::no_allocation);
  EXPECT_TRUE(is_everything(out));
  layout[1].written_words = 1;
  layout.code_read = true;
  layout.writes_globals = true;
  EXPECT_EQ(run(&layout, params), inference_result::global_writes);
  EXPECT_TRUE(is_everything(out));
}

// axpy-like with a signature: (float const* x, float* y, int n)
const param_layout const_then_mutable{{0, 8, param_kind::const_pointer}, {8, 8, param_kind::pointer}, {16, 4}};

TEST_F(inference_test, pointer_to_const_is_read_only_when_trusted) {
  address x = alloc_a, y = alloc_b;
  int n = 1;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(infer(&const_then_mutable, params, nullptr, map, probe, out, {.trust_const = true}), inference_result::inferred);
  EXPECT_EQ(out.reads, (std::vector<byte_range>{range_a}));
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_b}));
}

TEST_F(inference_test, pointer_to_const_is_still_written_by_default) {
  address x = alloc_a, y = alloc_b;
  int n = 1;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(run(&const_then_mutable, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
}

TEST_F(inference_test, an_allocation_also_reached_through_a_mutable_pointer_is_written) {
  address x = alloc_a, y = alloc_a + 64;
  int n = 1;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(infer(&const_then_mutable, params, nullptr, map, probe, out, {.trust_const = true}), inference_result::inferred);
  EXPECT_TRUE(out.reads.empty());
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
}

TEST_F(inference_test, only_const_pointers_means_invisible_writes) {
  const param_layout two_const{{0, 8, param_kind::const_pointer}, {8, 8, param_kind::const_pointer}};
  address x = alloc_a, y = alloc_b;
  void* params[] = {&x, &y};
  EXPECT_EQ(infer(&two_const, params, nullptr, map, probe, out, {.trust_const = true}), inference_result::no_allocation);
  EXPECT_TRUE(is_everything(out));
}

TEST_F(inference_test, pointers_to_pointers_conflict_with_everything) {
  // (float** tables, float* y): what `tables` points to is out of sight.
  const param_layout indirect_first{{0, 8, param_kind::indirect}, {8, 8, param_kind::pointer}};
  address tables = alloc_a, y = alloc_b;
  void* params[] = {&tables, &y};
  EXPECT_EQ(run(&indirect_first, params), inference_result::indirect);
  EXPECT_TRUE(is_everything(out));
}

TEST_F(inference_test, an_allocation_named_twice_appears_once) {
  address x = alloc_a, y = alloc_a + 4096;
  int n = 1;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(run(&two_pointers_and_int, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
  EXPECT_TRUE(out.reads.empty());
}

TEST_F(inference_test, output_is_cleared_before_use) {
  out.read_write(0x1000, 16);
  address x = alloc_b, y = alloc_b;
  int n = 1;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(run(&two_pointers_and_int, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_b}));
}

TEST_F(inference_test, kernel_with_only_scalars_conflicts_with_everything) {
  // (size_t n, int k): nothing points into a known allocation; whatever it
  // writes (a __device__ variable, say) is invisible.
  const param_layout layout{{0, 8}, {8, 4}};
  std::uint64_t n = 1 << 20;
  int k = 3;
  void* params[] = {&n, &k};
  EXPECT_EQ(run(&layout, params), inference_result::no_allocation);
  EXPECT_TRUE(is_everything(out));
}

TEST_F(inference_test, null_pointer_argument_alone_conflicts_with_everything) {
  address x = 0, y = 0;
  int n = 0;
  void* params[] = {&x, &y, &n};
  EXPECT_EQ(run(&two_pointers_and_int, params), inference_result::no_allocation);
  EXPECT_TRUE(is_everything(out));
  EXPECT_EQ(probe.calls, 0);  // 0 is not a plausible address
}

TEST_F(inference_test, pointer_into_unseen_device_memory_conflicts_with_everything) {
  address x = alloc_a, y = 0x7f20'0000'0000;
  probe.device.insert(y);
  int n = 1;
  void* params[] = {&x, &y, &n};
  EXPECT_EQ(run(&two_pointers_and_int, params), inference_result::unknown_pointer);
  EXPECT_TRUE(is_everything(out));
  EXPECT_EQ(probe.calls, 1);
}

// ---- What a kernel's code says beyond its arguments (docs/design.md rule 9) [pointer_table].

class inference_pointer_table : public inference_test {};

// (const Params* p, float* dst), as the PTX analysis would leave it.
param_layout code_read_layout() {
  param_layout layout{{0, 8}, {8, 8}};
  layout.code_read = true;
  layout[0].written_words = 0;  // p is only read
  return layout;
}

TEST_F(inference_pointer_table, reading_through_loaded_pointers_reads_everything_and_writes_what_it_names) {
  param_layout layout = code_read_layout();
  layout.reads_anywhere = true;
  address p = alloc_a, dst = alloc_b;
  void* params[] = {&p, &dst};
  ASSERT_EQ(run(&layout, params), inference_result::inferred);
  EXPECT_EQ(out.reads, (std::vector<byte_range>{whole_address_space}));
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_b}));
  // It conflicts with any writer, before or after it, and not with a reader.
  access_set writer, reader;
  writer.write(0x7f30'0000'0000, 64);
  reader.read(0x7f30'0000'0000, 64);
  EXPECT_TRUE(conflicts(writer, out));
  EXPECT_TRUE(conflicts(out, writer));
  EXPECT_FALSE(conflicts(reader, out));
}

TEST_F(inference_pointer_table, writing_through_loaded_pointers_is_everything) {
  param_layout layout = code_read_layout();
  layout.writes_anywhere = true;
  address p = alloc_a, dst = alloc_b;
  void* params[] = {&p, &dst};
  EXPECT_EQ(run(&layout, params), inference_result::writes_anywhere);
  EXPECT_TRUE(is_everything(out));
}

TEST_F(inference_pointer_table, the_arguments_of_a_kernel_whose_code_was_not_read_are_not_read_when_code_is_required) {
  const param_layout unread{{0, 8}};  // no PTX: code_read stays false
  address unseen = alloc_a + (address{1} << 32);  // plausible, in no allocation: the walk asks the probe
  void* params[] = {&unseen};
  EXPECT_EQ(infer(&unread, params, nullptr, map, probe, out, {.code_required = true}), inference_result::no_code);
  EXPECT_TRUE(is_everything(out));
  EXPECT_EQ(probe.calls, 0);
  // ACS_NO_PTX=arguments reads them.
  EXPECT_EQ(infer(&unread, params, nullptr, map, probe, out, {.code_required = false}), inference_result::no_allocation);
  EXPECT_EQ(probe.calls, 1);
}

TEST_F(inference_pointer_table, a_kernel_whose_code_was_not_read_is_everything_when_code_is_required) {
  const param_layout unread{{0, 8}, {8, 8}};  // no PTX: code_read stays false
  address x = alloc_a, y = alloc_b;
  void* params[] = {&x, &y};
  // ACS_NO_PTX=everything (the default).
  EXPECT_EQ(infer(&unread, params, nullptr, map, probe, out, {.code_required = true}), inference_result::no_code);
  EXPECT_TRUE(is_everything(out));
  // Without a layout either (an `extra` buffer scanned whole).
  address words[2] = {alloc_a, alloc_b};
  std::size_t size = sizeof words;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, words, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  EXPECT_EQ(infer(nullptr, nullptr, extra, map, probe, out, {.code_required = true}), inference_result::no_code);
  EXPECT_TRUE(is_everything(out));
  // ACS_NO_PTX=arguments: each pointer argument's allocation read and written.
  ASSERT_EQ(infer(&unread, params, nullptr, map, probe, out, {.code_required = false}), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
  // Code read: its arguments show everything it touches.
  const param_layout read = code_read_layout();
  ASSERT_EQ(infer(&read, params, nullptr, map, probe, out, {.code_required = true}), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_b}));
}

class inference_texture_object : public inference_test {};

TEST_F(inference_texture_object, a_kernel_using_textures_or_surfaces_is_everything) {
  param_layout layout = code_read_layout();
  layout.textures = true;
  address tex = 1, y = alloc_b;  // a texture object is a small handle, in no allocation
  void* params[] = {&tex, &y};
  EXPECT_EQ(run(&layout, params), inference_result::textures);
  EXPECT_TRUE(is_everything(out));
}

// ---- Kernels on pinned host memory keep their order (docs/design.md rule 11) [host_mapped].

class inference_host_mapped : public inference_test {
 protected:
  static constexpr address host_a = 0x7f80'0000'0000, host_b = 0x7f80'0010'0000;
  inference_host_mapped() {
    map.insert(host_a, 4096, memory_kind::host);
    map.insert(host_b, 4096, memory_kind::host);
  }
  static bool writes_token(const access_set& s) {
    return std::find(s.writes.begin(), s.writes.end(), host_order_token) != s.writes.end();
  }
};

TEST_F(inference_host_mapped, a_kernel_on_pinned_host_memory_writes_the_host_order_token) {
  address results = host_a, in = alloc_a;
  int n = 8;
  void* params[] = {&results, &in, &n};
  ASSERT_EQ(infer(&two_pointers_and_int, params, nullptr, map, probe, out, {.order_host_mapped = true}),
            inference_result::inferred);
  EXPECT_TRUE(writes_token(out));
  const access_set results_kernel = out;
  // A flag kernel on other host memory: they conflict through the token alone.
  address flag = host_b, in2 = alloc_b;
  void* params2[] = {&flag, &in2, &n};
  ASSERT_EQ(infer(&two_pointers_and_int, params2, nullptr, map, probe, out, {.order_host_mapped = true}),
            inference_result::inferred);
  EXPECT_TRUE(writes_token(out));
  EXPECT_TRUE(conflicts(results_kernel, out));
  // With ACS_HOST_MAPPED=free, nothing ties them.
  access_set free_results, free_flag;
  ASSERT_EQ(infer(&two_pointers_and_int, params, nullptr, map, probe, free_results, {}), inference_result::inferred);
  ASSERT_EQ(infer(&two_pointers_and_int, params2, nullptr, map, probe, free_flag, {}), inference_result::inferred);
  EXPECT_FALSE(writes_token(free_results));
  EXPECT_FALSE(conflicts(free_results, free_flag));
}

TEST_F(inference_host_mapped, kernels_on_device_memory_do_not_write_it_and_stay_free_of_host_kernels) {
  address x = alloc_a, y = alloc_b;
  int n = 8;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(infer(&two_pointers_and_int, params, nullptr, map, probe, out, {.order_host_mapped = true}),
            inference_result::inferred);
  EXPECT_FALSE(writes_token(out));
  access_set host_kernel;
  address h = host_a, z = alloc_a + 64;  // host memory and alloc_a
  void* params2[] = {&h, &z, &n};
  ASSERT_EQ(infer(&two_pointers_and_int, params2, nullptr, map, probe, host_kernel, {.order_host_mapped = true}),
            inference_result::inferred);
  access_set device_only;
  address u = alloc_b + 8;
  void* params3[] = {&u, &u, &n};
  ASSERT_EQ(infer(&two_pointers_and_int, params3, nullptr, map, probe, device_only, {.order_host_mapped = true}),
            inference_result::inferred);
  EXPECT_FALSE(conflicts(host_kernel, device_only));
}

TEST_F(inference_host_mapped, a_pointer_just_past_host_memory_counts_as_touching_it) {
  address end = host_a + 4096;  // one past the end: pointer arithmetic around it
  int n = 8;
  address in = alloc_a;
  void* params[] = {&end, &in, &n};
  ASSERT_EQ(infer(&two_pointers_and_int, params, nullptr, map, probe, out, {.order_host_mapped = true}),
            inference_result::inferred);
  EXPECT_TRUE(writes_token(out));
}

TEST_F(inference_host_mapped, declared_footprints_on_host_memory_get_the_token_once) {
  access_set declared;
  declared.read(host_b + 16, 4);
  declared.write(alloc_a, 64);
  order_host_memory(map, declared);
  EXPECT_TRUE(writes_token(declared));
  const std::size_t writes = declared.writes.size();
  order_host_memory(map, declared);
  EXPECT_EQ(declared.writes.size(), writes);
  access_set device_only;
  device_only.write(alloc_a, 64);
  order_host_memory(map, device_only);
  EXPECT_FALSE(writes_token(device_only));
  access_set everything = access_set::everything();
  order_host_memory(map, everything);
  EXPECT_EQ(everything.writes.size(), 1u);  // conflicts with the token already
}

TEST_F(inference_host_mapped, the_token_lies_where_no_allocation_can) {
  EXPECT_LT(host_order_token.last, min_pointer);
  EXPECT_TRUE(overlaps(host_order_token, whole_address_space));
}

// ---- A reservation's mappings are one allocation (docs/design.md rule 10) [vmm_reservation].

TEST_F(inference_test, vmm_reservation_arguments_on_either_side_of_a_seam_name_one_allocation) {
  constexpr address reserved = 0x7f40'0000'0000;
  constexpr std::uint64_t chunk = 2 << 20;
  map.reserve(reserved, 2 * chunk);
  map.insert(reserved, chunk);
  map.insert(reserved + chunk, chunk);
  address first = reserved + chunk - 256, second = reserved + chunk + 256;
  int n = 8;
  void* params[] = {&first, &first, &n};
  ASSERT_EQ(run(&two_pointers_and_int, params), inference_result::inferred);
  const access_set writer = out;
  void* params2[] = {&second, &second, &n};
  ASSERT_EQ(run(&two_pointers_and_int, params2), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{{reserved, reserved + 2 * chunk - 1}}));
  EXPECT_TRUE(conflicts(writer, out));
}

// The analysis of real kernels (tests/data/ptx/tables.cu, textures.cu), applied to their layouts.
class inference_from_ptx : public inference_test {
 protected:
  static constexpr address alloc_c = 0x7f10'0040'0000;
  static constexpr byte_range range_c{alloc_c, alloc_c + 4095};
  inference_from_ptx() { map.insert(alloc_c, 4096); }

  static param_layout layout_of(const std::string& file, const std::string& kernel, param_layout layout) {
    std::ifstream in(std::string(ACS_TEST_DATA_DIR) + "/ptx/" + file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const kernel_writes& k : analyse_ptx(text)) {
      if (k.name == kernel) {
        EXPECT_TRUE(apply_writes(k, layout)) << kernel;
      }
    }
    EXPECT_TRUE(layout.code_read) << kernel << " not found in " << file;
    return layout;
  }
  inference_result run_required(const param_layout& layout, void* const* params) {
    return infer(&layout, params, nullptr, map, probe, out, {.code_required = true});
  }
};

TEST_F(inference_from_ptx, read_via_table_pointer_table_reads_everything) {
  // read_via_table(const Params* p, float* dst): dst[i] = p->in[i], B in no argument.
  const param_layout layout = layout_of("tables.ptx", "read_via_table", {{0, 8}, {8, 8}});
  address p = alloc_a, dst = alloc_b;
  void* params[] = {&p, &dst};
  ASSERT_EQ(run_required(layout, params), inference_result::inferred);
  EXPECT_EQ(out.reads, (std::vector<byte_range>{whole_address_space}));
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_b}));
}

TEST_F(inference_from_ptx, write_via_table_pointer_table_is_everything) {
  // write_via_table(const uint64_t* tab, const float* x, int n): tab[0][i] = x[i].
  const param_layout layout = layout_of("tables.ptx", "write_via_table", {{0, 8}, {8, 8}, {16, 4}});
  address tab = alloc_a, x = alloc_b;
  int n = 64;
  void* params[] = {&tab, &x, &n};
  EXPECT_EQ(run_required(layout, params), inference_result::writes_anywhere);
  EXPECT_TRUE(is_everything(out));
}

TEST_F(inference_from_ptx, a_gather_through_32_bit_indices_is_precise) {
  // gather(const float* in, const int* idx, float* out, int n): out[i] = in[idx[i]].
  const param_layout layout = layout_of("tables.ptx", "gather", {{0, 8}, {8, 8}, {16, 8}, {24, 4}});
  address in = alloc_a, idx = alloc_b, o = alloc_c;
  int n = 64;
  void* params[] = {&in, &idx, &o, &n};
  ASSERT_EQ(run_required(layout, params), inference_result::inferred);
  EXPECT_EQ(out.reads, (std::vector<byte_range>{range_a, range_b}));
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_c}));
}

TEST_F(inference_from_ptx, tex_linear_texture_object_is_everything) {
  const param_layout layout = layout_of("textures.ptx", "tex_linear", {{0, 8}, {8, 8}, {16, 4}});
  address tex = 1, y = alloc_b;
  int n = 64;
  void* params[] = {&tex, &y, &n};
  EXPECT_EQ(run_required(layout, params), inference_result::textures);
  EXPECT_TRUE(is_everything(out));
}

TEST_F(inference_test, plausible_scalar_the_driver_rejects_is_not_a_pointer) {
  address x = alloc_a;
  std::uint64_t count = 5'000'000;  // in pointer range, but not memory
  int n = 1;
  void* params[] = {&x, &count, &n};
  EXPECT_EQ(run(&two_pointers_and_int, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
  EXPECT_EQ(probe.calls, 1);
}

TEST_F(inference_test, values_outside_user_space_are_never_probed) {
  // (float* x, double alpha, std::uint64_t seed, std::uint64_t small)
  const param_layout layout{{0, 8}, {8, 8}, {16, 8}, {24, 8}};
  address x = alloc_b;
  double alpha = 1.0;                     // 0x3ff0... : above 2^57
  std::uint64_t seed = 0xdeadbeefcafef00d;  // above 2^57
  std::uint64_t small = 4096;             // below 64 KiB
  void* params[] = {&x, &alpha, &seed, &small};
  EXPECT_EQ(run(&layout, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_b}));
  EXPECT_EQ(probe.calls, 0);
}

TEST_F(inference_test, four_byte_parameters_are_not_pointers) {
  // (int lo, int hi, float* x): lo and hi together would spell alloc_b, but are separate.
  const param_layout layout{{0, 4}, {4, 4}, {8, 8}};
  auto lo = static_cast<std::uint32_t>(alloc_b), hi = static_cast<std::uint32_t>(alloc_b >> 32);
  address x = alloc_a;
  void* params[] = {&lo, &hi, &x};
  EXPECT_EQ(run(&layout, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
}

TEST_F(inference_test, pointers_inside_struct_parameters_are_found) {
  struct args {
    int n;
    float* in;
    float* out;
    double scale;
  };
  static_assert(sizeof(args) == 32);
  const param_layout layout{{0, 32}};
  args a{};
  a.n = 7;
  a.in = reinterpret_cast<float*>(alloc_a + 64);
  a.out = reinterpret_cast<float*>(alloc_b);
  a.scale = 2.0;
  void* params[] = {&a};
  EXPECT_EQ(run(&layout, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
}

TEST_F(inference_test, parameters_off_8_byte_alignment_cannot_hold_pointers) {
  // (int n, int3 v, float* x): v sits at offset 4; its bytes 4..11 spell alloc_b
  // but a 4-byte-aligned parameter cannot contain an aligned pointer.
  const param_layout layout{{0, 4}, {4, 12}, {16, 8}};
  int n = 1;
  unsigned char v[12] = {};
  const address b = alloc_b;
  std::memcpy(v + 4, &b, 8);
  address x = alloc_a;
  void* params[] = {&n, v, &x};
  EXPECT_EQ(run(&layout, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
}

TEST_F(inference_test, pointer_just_outside_an_allocation_adds_it) {
  // Fortran-style base `a - 1` and an end pointer one past b.
  address before_a = alloc_a - 4, past_b = alloc_b + 4096;
  int n = 1;
  void* params[] = {&before_a, &past_b, &n};
  EXPECT_EQ(run(&two_pointers_and_int, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
  EXPECT_EQ(probe.calls, 2);  // the driver is still asked: the word may be unseen memory
}

TEST_F(inference_test, unknown_layout_conflicts_with_everything) {
  address x = alloc_a;
  void* params[] = {&x};
  EXPECT_EQ(run(nullptr, params), inference_result::no_layout);
  EXPECT_TRUE(is_everything(out));
}

TEST_F(inference_test, null_parameter_pointer_is_unreadable) {
  address x = alloc_a;
  int n = 0;
  void* params[] = {&x, nullptr, &n};
  EXPECT_EQ(run(&two_pointers_and_int, params), inference_result::unreadable);
  EXPECT_TRUE(is_everything(out));
}

TEST_F(inference_test, params_and_extra_together_are_unreadable) {
  address x = alloc_a, y = alloc_b;
  int n = 0;
  void* params[] = {&x, &y, &n};
  void* extra[] = {CU_LAUNCH_PARAM_END};
  EXPECT_EQ(run(&two_pointers_and_int, params, extra), inference_result::unreadable);
  EXPECT_TRUE(is_everything(out));
}

TEST_F(inference_test, no_arguments_at_all_needs_an_empty_layout) {
  EXPECT_EQ(run(nullptr, nullptr), inference_result::no_layout);
  EXPECT_EQ(run(&two_pointers_and_int, nullptr), inference_result::unreadable);
  const param_layout none;
  EXPECT_EQ(run(&none, nullptr), inference_result::no_allocation);
  EXPECT_TRUE(is_everything(out));
}

// The `extra` form: one buffer in device layout.
struct packed_args {
  alignas(8) unsigned char bytes[24] = {};
  std::size_t size = sizeof bytes;
  void put(std::size_t offset, address v) { std::memcpy(bytes + offset, &v, 8); }
};

TEST_F(inference_test, extra_buffer_is_read_through_the_layout) {
  packed_args buf;
  buf.put(0, alloc_a);
  buf.put(8, alloc_b);
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf.bytes, CU_LAUNCH_PARAM_BUFFER_SIZE, &buf.size,
                   CU_LAUNCH_PARAM_END};
  EXPECT_EQ(run(&two_pointers_and_int, nullptr, extra), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
}

TEST_F(inference_test, extra_buffer_without_layout_is_scanned_whole) {
  packed_args buf;
  buf.put(16, alloc_b);
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_SIZE, &buf.size, CU_LAUNCH_PARAM_BUFFER_POINTER, buf.bytes,
                   CU_LAUNCH_PARAM_END};
  EXPECT_EQ(run(nullptr, nullptr, extra), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_b}));
}

TEST_F(inference_test, extra_that_cannot_be_parsed_conflicts_with_everything) {
  packed_args buf;
  buf.put(0, alloc_a);
  void* unknown_key[] = {reinterpret_cast<void*>(0x7), buf.bytes, CU_LAUNCH_PARAM_END};
  EXPECT_EQ(run(&two_pointers_and_int, nullptr, unknown_key), inference_result::bad_extra);
  EXPECT_TRUE(is_everything(out));
  void* no_size[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf.bytes, CU_LAUNCH_PARAM_END};
  EXPECT_EQ(run(&two_pointers_and_int, nullptr, no_size), inference_result::bad_extra);
  std::size_t short_size = 8;  // the layout needs 20 bytes
  void* too_short[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf.bytes, CU_LAUNCH_PARAM_BUFFER_SIZE, &short_size,
                       CU_LAUNCH_PARAM_END};
  EXPECT_EQ(run(&two_pointers_and_int, nullptr, too_short), inference_result::bad_extra);
  EXPECT_TRUE(is_everything(out));
}

TEST_F(inference_test, argument_words_report_parameter_and_device_offset) {
  const param_layout layout{{0, 4}, {8, 24}};
  int n = 0;
  std::uint64_t s[3] = {11, 22, 33};
  void* params[] = {&n, s};
  std::vector<argument_word> words;
  ASSERT_EQ(argument_words(&layout, params, nullptr, words), words_status::ok);
  ASSERT_EQ(words.size(), 3u);
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(words[i].param, 1u);
    EXPECT_EQ(words[i].offset, 8 + 8 * i);
    EXPECT_EQ(words[i].value, s[i]);
  }
}

TEST_F(inference_test, pointer_arguments_list_what_may_be_pointers) {
  const param_layout layout{{0, 8}, {8, 8}, {16, 8}, {24, 8}};
  address inside = alloc_a + 8, near = alloc_b + 4100, unseen = 0x7f30'0000'0000;
  std::uint64_t scalar = 12;
  probe.device.insert(unseen);
  void* params[] = {&inside, &near, &unseen, &scalar};
  std::vector<pointer_argument> args;
  ASSERT_EQ(pointer_arguments(&layout, params, nullptr, map, probe, args), words_status::ok);
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0].word.param, 0u);
  EXPECT_EQ(args[0].allocation, range_a);
  EXPECT_TRUE(args[0].inside);
  EXPECT_FALSE(args[0].unseen);
  EXPECT_EQ(args[1].word.param, 1u);
  EXPECT_EQ(args[1].allocation, range_b);
  EXPECT_FALSE(args[1].inside);
  EXPECT_EQ(args[2].word.param, 2u);
  EXPECT_FALSE(args[2].allocation.has_value());
  EXPECT_TRUE(args[2].unseen);
}

// The per-thread memo of footprints (inference_memo.hpp): the same launch again is the same
// footprint, from the memo; anything inference reads that changed makes it infer again.
class inference_memo_test : public inference_test {
 protected:
  inference_result remembered(const param_layout* layout, void* const* params, const inference_options& o = {},
                              void* const* extra = nullptr) {
    return memo.infer(layout, params, extra, map, probe, out, o);
  }
  inference_memo memo;
};

TEST_F(inference_memo_test, the_same_launch_again_has_inferences_footprint_from_the_memo) {
  address x = alloc_a, y = alloc_b + 100;
  int n = 1000;
  void* params[] = {&x, &y, &n};
  const address unseen = 0x7f30'0000'0000;  // plausible, not device memory: the probe is asked
  const param_layout with_word{{0, 8}, {8, 8}, {16, 4}, {24, 8}};
  void* params4[] = {&x, &y, &n, const_cast<address*>(&unseen)};
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(remembered(&with_word, params4), inference_result::inferred);
    EXPECT_TRUE(out.reads.empty());
    EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
  }
  EXPECT_EQ(memo.misses(), 1u);
  EXPECT_EQ(memo.hits(), 2u);
  EXPECT_EQ(probe.calls, 1) << "the probe answered once: the memo the other times";
  // A scalar that inference does not read (4 bytes: no pointer fits) changes nothing: a hit.
  n = 7;
  ASSERT_EQ(remembered(&with_word, params4), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
  EXPECT_EQ(memo.misses(), 1u);
  EXPECT_EQ(memo.hits(), 3u);
  // Another word that inference reads: inferred again.
  y = alloc_a + 8;
  ASSERT_EQ(remembered(&with_word, params4), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
  EXPECT_EQ(memo.misses(), 2u);
  ASSERT_EQ(remembered(&two_pointers_and_int, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
  EXPECT_EQ(memo.misses(), 3u);
}

// The memo against inference itself, launch by launch: random layouts (parameters of 1-24 bytes,
// some at offsets that are not 8-byte aligned, whose words inference does not read), arguments
// drawn from a few values (pointers into either allocation or just past it, unseen device memory,
// small integers), so that launches repeat, nearly repeat and differ in bytes inference reads or
// not. Every result and footprint must be inference's; a memo that skipped a byte inference reads
// would give some launch another launch's footprint.
TEST_F(inference_memo_test, agrees_with_inference_on_random_launches) {
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  const auto next = [&state](std::uint64_t n) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state % n;
  };
  const address unseen = 0x7f30'0000'0000;
  probe.device.insert(unseen);
  const address values[] = {alloc_a, alloc_a + 64, alloc_b, alloc_b + 4096, unseen, 0, 7, 1u << 20};
  std::vector<param_layout> layouts(6);
  for (param_layout& l : layouts) {
    std::uint32_t offset = 0;
    for (std::uint64_t i = 0, n = 1 + next(4); i < n; ++i) {
      const std::uint32_t sizes[] = {1, 4, 8, 8, 12, 16, 24};
      const std::uint32_t size = sizes[next(std::size(sizes))];
      offset = (offset + (size >= 8 ? 8 : size) - 1) / (size >= 8 ? 8 : size) * (size >= 8 ? 8 : size);
      if (size == 4 && next(2) == 0) offset += 4;  // a scalar that leaves the next word unaligned
      l.push_back(param_info{offset, size});
      offset += size;
    }
  }
  std::vector<std::vector<unsigned char>> args(64, std::vector<unsigned char>(128));
  for (auto& a : args)
    for (std::size_t w = 0; w < a.size() / 8; ++w) {
      const address v = values[next(std::size(values))];
      std::memcpy(a.data() + 8 * w, &v, 8);
    }
  access_set direct;
  int hits_checked = 0;
  for (int launch = 0; launch < 20000; ++launch) {
    const param_layout& l = layouts[next(layouts.size())];
    std::vector<unsigned char>& a = args[next(args.size())];
    if (next(4) == 0) a[next(a.size())] ^= static_cast<unsigned char>(1 + next(255));  // a byte changes
    void* params[8] = {};
    for (std::size_t i = 0; i < l.size(); ++i) params[i] = a.data() + l[i].offset;
    const std::uint64_t hits = memo.hits();
    const inference_result r = remembered(&l, params);
    const inference_result expected = infer(&l, params, nullptr, map, probe, direct);
    ASSERT_EQ(r, expected) << "launch " << launch;
    ASSERT_EQ(out.reads, direct.reads) << "launch " << launch;
    ASSERT_EQ(out.writes, direct.writes) << "launch " << launch;
    hits_checked += memo.hits() > hits ? 1 : 0;
  }
  EXPECT_GT(hits_checked, 5000) << "the memo must be used for the comparison to mean anything";
  EXPECT_GT(memo.misses(), 500u);
}

// A loop: each launch is found as the one that followed the previous launch last time, without
// the hash; a launch that differs from that prediction (another pointer, or a map changed) is
// inferred or looked up as before, never given the predicted entry's footprint.
TEST_F(inference_memo_test, a_loop_finds_each_launch_as_the_one_that_followed_the_previous) {
  address a1 = alloc_a, b1 = alloc_b, a2 = alloc_a + 64, b2 = alloc_b + 8, a3 = alloc_a + 128, b3 = alloc_a + 256;
  int n = 3;
  void* first[] = {&a1, &b1, &n};
  void* second[] = {&a2, &b2, &n};
  void* third[] = {&a3, &b3, &n};
  // The four argument sets below, each in a slot of its own (the slots move with the layout's
  // address from run to run: a shared one would evict an entry, about one run in 60): the second
  // launch's first pointer and the third's moved within their allocation, footprints unchanged.
  const auto slot = [&](void** params) { return inference_memo::slot_of(&two_pointers_and_int, params); };
  const auto second_slots = [&] {
    std::set<std::size_t> s{slot(first), slot(second)};
    b2 = alloc_a + 8;  // the pointer the test changes later
    s.insert(slot(second));
    b2 = alloc_b + 8;
    return s;
  };
  while (second_slots().size() < 3) a2 += 8;
  std::set<std::size_t> taken = second_slots();
  b2 = alloc_a + 8;
  taken.insert(slot(second));
  b2 = alloc_b + 8;
  while (taken.count(slot(third)) != 0) a3 += 8;
  ASSERT_LT(a2, alloc_a + 128);
  ASSERT_LT(a3, alloc_a + 256);
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(remembered(&two_pointers_and_int, first), inference_result::inferred);
    ASSERT_EQ(remembered(&two_pointers_and_int, second), inference_result::inferred);
    ASSERT_EQ(remembered(&two_pointers_and_int, third), inference_result::inferred);
    EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a})) << "round " << round;
  }
  EXPECT_EQ(memo.misses(), 3u);
  EXPECT_EQ(memo.hits(), 6u);
  // Round two: the first launch is looked up by its hash (the third had no successor yet), the
  // other two predicted; round three: all three.
  EXPECT_EQ(memo.predicted(), 5u);
  // The second launch with another pointer: predicted wrongly, so inferred.
  b2 = alloc_a + 8;
  ASSERT_EQ(remembered(&two_pointers_and_int, first), inference_result::inferred);
  ASSERT_EQ(remembered(&two_pointers_and_int, second), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
  EXPECT_EQ(memo.misses(), 4u);
  b2 = alloc_b + 8;
  ASSERT_EQ(remembered(&two_pointers_and_int, second), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b})) << "its own entry, by the hash";
  // A map changed: the predicted entry is not used.
  const std::uint64_t predicted = memo.predicted();
  map.insert(0x7f20'0000'0000, 4096);
  ASSERT_EQ(remembered(&two_pointers_and_int, third), inference_result::inferred);
  EXPECT_EQ(memo.predicted(), predicted);
  EXPECT_EQ(memo.misses(), 5u);
}

TEST_F(inference_memo_test, an_allocation_made_or_freed_makes_it_infer_again) {
  address x = alloc_a + 16, y = alloc_b;
  int n = 1;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(remembered(&two_pointers_and_int, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
  // alloc_a freed and its addresses allocated again, larger: the same arguments, another footprint.
  ASSERT_TRUE(map.erase(alloc_a));
  map.insert(alloc_a, 2 << 20);
  ASSERT_EQ(remembered(&two_pointers_and_int, params), inference_result::inferred);
  const byte_range larger{alloc_a, alloc_a + (2 << 20) - 1};
  EXPECT_EQ(out.writes, (std::vector<byte_range>{larger, range_b}));
  EXPECT_EQ(memo.hits(), 0u);
  // Freed: now unknown, and the probe says device memory.
  ASSERT_TRUE(map.erase(alloc_a));
  probe.device.insert(x);
  EXPECT_EQ(remembered(&two_pointers_and_int, params), inference_result::unknown_pointer);
  EXPECT_TRUE(is_everything(out));
  EXPECT_EQ(memo.hits(), 0u);
}

TEST_F(inference_memo_test, a_sub_allocation_registered_or_dropped_makes_it_infer_again) {
  address x = alloc_a + 16, y = alloc_b;
  int n = 1;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(remembered(&two_pointers_and_int, params), inference_result::inferred);
  suballocation_map& subs = device_suballocations();
  subs.insert(alloc_a, 256);  // a caching allocator's block: its own unit
  ASSERT_EQ(remembered(&two_pointers_and_int, params), inference_result::inferred);
  const byte_range block{alloc_a, alloc_a + 255};
  EXPECT_EQ(out.writes, (std::vector<byte_range>{block, range_b}));
  subs.erase(alloc_a, 0);
  ASSERT_EQ(remembered(&two_pointers_and_int, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
  subs.clear();
  EXPECT_EQ(memo.hits(), 0u);
}

TEST_F(inference_memo_test, other_options_make_it_infer_again) {
  address x = alloc_a, y = alloc_b;
  int n = 1;
  void* params[] = {&x, &y, &n};
  ASSERT_EQ(remembered(&const_then_mutable, params), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
  ASSERT_EQ(remembered(&const_then_mutable, params, {.trust_const = true}), inference_result::inferred);
  EXPECT_EQ(out.writes, (std::vector<byte_range>{range_b}));
  EXPECT_EQ(memo.hits(), 0u);
}

TEST_F(inference_memo_test, packed_unknown_or_oversized_arguments_are_inferred_every_time) {
  packed_args buf;
  buf.put(0, alloc_a);
  buf.put(8, alloc_b);
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf.bytes, CU_LAUNCH_PARAM_BUFFER_SIZE, &buf.size,
                   CU_LAUNCH_PARAM_END};
  const param_layout big{{0, 8}, {8, inference_memo::max_bytes}};
  std::vector<unsigned char> blob(inference_memo::max_bytes, 0);
  address x = alloc_a;
  void* params[] = {&x, blob.data()};
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(remembered(&two_pointers_and_int, nullptr, {}, extra), inference_result::inferred);
    EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a, range_b}));
    EXPECT_EQ(remembered(nullptr, params), inference_result::no_layout);
    EXPECT_EQ(remembered(&big, params), inference_result::inferred);
    EXPECT_EQ(out.writes, (std::vector<byte_range>{range_a}));
  }
  EXPECT_EQ(memo.hits(), 0u);
  EXPECT_EQ(memo.misses(), 0u);
}

// ACS_NO_PTX=everything and no code read: inference answers without reading the arguments, so
// the memo does not hash them either.
TEST_F(inference_memo_test, arguments_inference_does_not_read_are_not_hashed) {
  address x = alloc_a, y = alloc_b;
  int n = 1;
  void* params[] = {&x, &y, &n};
  param_layout unread = two_pointers_and_int;
  unread.code_read = false;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(remembered(&unread, params, {.code_required = true}), inference_result::no_code);
    EXPECT_TRUE(is_everything(out));
  }
  EXPECT_EQ(memo.hits() + memo.misses(), 0u);
  // Without code_required the same arguments are read, and memoized.
  for (int i = 0; i < 2; ++i) EXPECT_EQ(remembered(&unread, params), inference_result::inferred);
  EXPECT_EQ(memo.hits(), 1u);
}

TEST(param_layout, plausibility) {
  EXPECT_TRUE(plausible_layout({{0, 8}, {8, 4}}));
  EXPECT_TRUE(plausible_layout({{0, 4}, {8, 8}}));  // padding between
  EXPECT_FALSE(plausible_layout({}));
  EXPECT_FALSE(plausible_layout({{0, 0}}));
  EXPECT_FALSE(plausible_layout({{0, 8}, {4, 8}}));  // overlap
  EXPECT_FALSE(plausible_layout({{8, 8}, {0, 8}}));  // out of order
  EXPECT_FALSE(plausible_layout({{max_param_bytes - 4, 8}}));
}

class fake_reader final : public layout_reader {
 public:
  std::map<const void*, param_layout> layouts;
  int reads = 0;
  bool read(const void* function, param_layout& out) override {
    ++reads;
    const auto it = layouts.find(function);
    if (it == layouts.end()) return false;
    out = it->second;
    return true;
  }
};

const void* const kernel_1 = reinterpret_cast<const void*>(0x5000'1000);
const void* const kernel_2 = reinterpret_cast<const void*>(0x5000'2000);

TEST(layout_cache, reads_each_function_once) {
  fake_reader reader;
  reader.layouts[kernel_1] = two_pointers_and_int;
  layout_cache cache(reader);
  const param_layout* first = cache.find(kernel_1);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(*first, two_pointers_and_int);
  EXPECT_EQ(cache.find(kernel_1), first);
  EXPECT_EQ(reader.reads, 1);
  EXPECT_EQ(cache.reads(), 1u);
}

TEST(layout_cache, failures_are_cached_too) {
  fake_reader reader;
  layout_cache cache(reader);
  EXPECT_EQ(cache.find(kernel_2), nullptr);
  EXPECT_EQ(cache.find(kernel_2), nullptr);
  EXPECT_EQ(reader.reads, 1);
}

TEST(layout_cache, implausible_layouts_count_as_unknown) {
  fake_reader reader;
  reader.layouts[kernel_1] = {{0, 8}, {4, 8}};
  layout_cache cache(reader);
  EXPECT_EQ(cache.find(kernel_1), nullptr);
}

TEST(layout_cache, clear_forgets_reused_handles) {
  fake_reader reader;
  reader.layouts[kernel_1] = two_pointers_and_int;
  layout_cache cache(reader);
  const param_layout* before = cache.find(kernel_1);
  ASSERT_NE(before, nullptr);
  // The module is unloaded and another kernel loaded at the same handle.
  reader.layouts[kernel_1] = {{0, 8}};
  cache.clear();
  const param_layout* after = cache.find(kernel_1);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(*after, (param_layout{{0, 8}}));
  EXPECT_EQ(reader.reads, 2);
  EXPECT_EQ(*before, two_pointers_and_int);  // still valid for a thread that held it
}

TEST(layout_cache, caches_do_not_share_answers) {
  fake_reader reader_1, reader_2;
  reader_1.layouts[kernel_1] = two_pointers_and_int;
  reader_2.layouts[kernel_1] = {{0, 8}};
  layout_cache cache_1(reader_1), cache_2(reader_2);
  ASSERT_NE(cache_1.find(kernel_1), nullptr);
  ASSERT_NE(cache_2.find(kernel_1), nullptr);
  EXPECT_EQ(*cache_1.find(kernel_1), two_pointers_and_int);
  EXPECT_EQ(*cache_2.find(kernel_1), (param_layout{{0, 8}}));
}

}  // namespace
}  // namespace acs::inference
