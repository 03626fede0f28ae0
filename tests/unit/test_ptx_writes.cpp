// Tests of the PTX write analysis (annotations/inferred/ptx_writes.cpp). Most modules are real
// nvcc output (CUDA 13.0, `nvcc -ptx -arch=sm_90`) of the CUDA sources beside them in
// tests/data/ptx/; a few hand-written modules (hand.ptx, each accepted by `ptxas -arch=sm_90`)
// reach shapes nvcc rarely emits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "annotations/inferred/ptx_writes.hpp"

namespace acs::inference {
namespace {

// The fixtures, read once: nvcc output and hand-written modules (tests/data/ptx/README.md).
const std::string& fixture(const std::string& name) {
  static std::map<std::string, std::string> loaded;
  auto [it, fresh] = loaded.try_emplace(name);
  if (fresh) {
    std::ifstream in(std::string(ACS_TEST_DATA_DIR) + "/ptx/" + name, std::ios::binary);
    EXPECT_TRUE(in.good()) << name;
    it->second.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return it->second;
}

// kernels.cu's kernels (nvcc -ptx -arch=sm_90), tma.cu's (-arch=sm_90a), and hand.ptx.
const std::string& kernels_ptx() { return fixture("kernels.ptx"); }
const std::string& tma_ptx() { return fixture("tma.ptx"); }
const std::string& hand_ptx() { return fixture("hand.ptx"); }
// tables.cu (pointer tables, gathers) and textures.cu (textures and surfaces).
const std::string& tables_ptx() { return fixture("tables.ptx"); }
const std::string& textures_ptx() { return fixture("textures.ptx"); }

const std::vector<kernel_writes>& kernels() {
  static const std::vector<kernel_writes> all = analyse_ptx(kernels_ptx());
  return all;
}

std::optional<kernel_writes> find(const std::vector<kernel_writes>& all, std::string_view name) {
  for (const auto& k : all)
    if (k.name == name) return k;
  return std::nullopt;
}

bool written(const kernel_writes& k, std::uint32_t param, std::uint32_t word) {
  return std::binary_search(k.written_words.begin(), k.written_words.end(),
                            std::pair<std::uint32_t, std::uint32_t>{param, word});
}

// Every word of every listed parameter written, and no word of any other.
std::vector<std::pair<std::uint32_t, std::uint32_t>> words_of(const kernel_writes& k,
                                                              std::vector<std::uint32_t> params) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (auto p : params)
    for (std::uint32_t w = 0; w < (k.param_bytes[p] + 7) / 8; ++w) out.emplace_back(p, w);
  return out;
}

using words = std::vector<std::pair<std::uint32_t, std::uint32_t>>;
using names = std::vector<std::string>;

TEST(ptx_writes, every_entry_of_a_module_in_order) {
  std::vector<std::string> got;
  for (const auto& k : kernels()) got.push_back(k.name);
  EXPECT_EQ(got, (names{"axpy", "by_struct", "choose", "int_as_pointer", "atomics", "via_shared",
                        "scatter", "through_memory", "asm_store", "write_global", "calls", "dynamic_index",
                        "param_address", "grid_constant", "textures", "async_copy", "rotate",
                        "prints_value", "prints_pointer", "asserts", "_Z5scaleIfEvPKT_PS0_S0_",
                        "_Z5scaleIdEvPKT_PS0_S0_"}));
}

TEST(ptx_writes, axpy_reads_x_and_writes_y) {
  auto k = find(kernels(), "axpy");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->param_bytes, (std::vector<std::uint32_t>{8, 8, 4, 4}));
  EXPECT_FALSE(written(*k, 0, 0));  // const float* x
  EXPECT_TRUE(written(*k, 1, 0));   // float* y
  EXPECT_FALSE(k->writes_indirect);
  EXPECT_FALSE(k->writes_globals);
}

TEST(ptx_writes, struct_parameter_words_are_separate) {
  // {float* out; const float* in; int n;}: only the word holding out is written through.
  auto k = find(kernels(), "by_struct");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->param_bytes, std::vector<std::uint32_t>{24});
  EXPECT_EQ(k->written_words, (words{{0, 0}}));
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, selp_between_two_parameters_writes_both) {
  auto k = find(kernels(), "choose");
  ASSERT_TRUE(k);
  EXPECT_TRUE(written(*k, 0, 0));
  EXPECT_TRUE(written(*k, 1, 0));
  EXPECT_FALSE(written(*k, 2, 0));  // const float* c
}

TEST(ptx_writes, an_integer_used_as_a_pointer_is_written) {
  // The analysis follows values, not types: pointer arithmetic on an integer parameter.
  auto k = find(kernels(), "int_as_pointer");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{1, 0}}));
}

TEST(ptx_writes, atomics_write_through_their_address) {
  auto k = find(kernels(), "atomics");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{0, 0}}));
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, pointer_stored_to_shared_memory_and_loaded_back_is_written) {
  auto k = find(kernels(), "via_shared");
  ASSERT_TRUE(k);
  EXPECT_TRUE(written(*k, 0, 0));
  EXPECT_FALSE(written(*k, 1, 0));  // q only decides whether to store
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, scatter_through_an_index_read_from_memory_is_unknown) {
  // out[idx[i]] = in[i]: an offset read from memory may lead anywhere, into in's allocation too.
  auto k = find(kernels(), "scatter");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->writes_indirect);
  EXPECT_EQ(k->written_words, (words{{0, 0}, {1, 0}, {2, 0}}));
}

TEST(ptx_writes, pointer_loaded_from_global_memory_makes_everything_written) {
  // tbl[1][i] = in[i]: tbl[1] may point into in's allocation.
  auto k = find(kernels(), "through_memory");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->writes_indirect);
  EXPECT_TRUE(k->writes_globals);
  EXPECT_EQ(k->written_words, (words{{0, 0}, {1, 0}}));
}

TEST(ptx_writes, inline_asm_store_in_a_nested_block) {
  auto k = find(kernels(), "asm_store");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{0, 0}}));
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, device_variable_written) {
  auto k = find(kernels(), "write_global");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->writes_globals);
  EXPECT_EQ(k->written_globals, names{"g_out"});
  EXPECT_TRUE(k->written_words.empty());
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, noinline_call_writes_everything) {
  auto k = find(kernels(), "calls");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->writes_indirect);
  EXPECT_TRUE(k->writes_globals);
  EXPECT_EQ(k->written_words, (words{{0, 0}, {1, 0}}));
}

TEST(ptx_writes, struct_copied_to_local_memory_escapes_what_is_stored) {
  // nvcc copies the 64-byte struct to the stack to index it: every stored word escapes.
  auto k = find(kernels(), "dynamic_index");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, words_of(*k, {0}));
  EXPECT_FALSE(written(*k, 1, 0));
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, parameter_whose_address_is_taken_is_written_whole) {
  // mov.b64 %rd1, param_address_param_0; ld.param.u64 %rd9, [%rd8]: any word may be loaded.
  auto k = find(kernels(), "param_address");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->param_bytes, (std::vector<std::uint32_t>{160, 8}));
  EXPECT_EQ(k->written_words, words_of(*k, {0}));
  EXPECT_FALSE(k->writes_indirect);  // the pointer loaded came from the parameter space
}

TEST(ptx_writes, grid_constant_address_stored_to_a_global) {
  auto k = find(kernels(), "grid_constant");
  ASSERT_TRUE(k);
  words expected = words_of(*k, {0, 1});
  EXPECT_EQ(k->written_words, expected);
  EXPECT_EQ(k->written_globals, names{"g_sink"});
}

TEST(ptx_writes, texture_read_surface_written) {
  auto k = find(kernels(), "textures");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{1, 0}, {2, 0}}));
  EXPECT_FALSE(k->writes_indirect);
  EXPECT_TRUE(k->uses_textures);  // the memory behind both objects is no argument's
}

TEST(ptx_writes, async_copy_source_is_only_read) {
  auto k = find(kernels(), "async_copy");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{1, 0}}));
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, pointer_carried_around_a_loop) {
  auto k = find(kernels(), "rotate");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{0, 0}}));
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, printf_only_reads_its_arguments) {
  auto value = find(kernels(), "prints_value");
  ASSERT_TRUE(value);
  EXPECT_TRUE(value->written_words.empty());
  EXPECT_FALSE(value->writes_globals);  // the format string is a .global the call only reads
  EXPECT_FALSE(value->writes_indirect);
  // A pointer printed is stored to the argument buffer: it escapes.
  auto pointer = find(kernels(), "prints_pointer");
  ASSERT_TRUE(pointer);
  EXPECT_EQ(pointer->written_words, (words{{0, 0}}));
  EXPECT_FALSE(pointer->writes_indirect);
}

TEST(ptx_writes, assert_only_reads_its_arguments) {
  auto k = find(kernels(), "asserts");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{1, 0}}));
  EXPECT_FALSE(k->writes_indirect);
  EXPECT_FALSE(k->writes_globals);  // __assertfail reads the message, file and function strings
}

TEST(ptx_writes, mangled_template_entries) {
  auto f = find(kernels(), "_Z5scaleIfEvPKT_PS0_S0_");
  auto d = find(kernels(), "_Z5scaleIdEvPKT_PS0_S0_");
  ASSERT_TRUE(f && d);
  EXPECT_EQ(d->param_bytes, (std::vector<std::uint32_t>{8, 8, 8}));
  // The scale factor is a stored value's source: it escapes too (sound, if imprecise).
  EXPECT_EQ(f->written_words, (words{{1, 0}, {2, 0}}));
  EXPECT_EQ(d->written_words, (words{{1, 0}, {2, 0}}));
}

TEST(ptx_writes, tma_store_through_a_parameter_map_or_a_map_in_memory) {
  const auto all = analyse_ptx(tma_ptx());
  auto param_maps = find(all, "tma_copy");
  ASSERT_TRUE(param_maps);
  // Both maps' addresses are taken (so their global addresses count as written); scale is read.
  EXPECT_EQ(param_maps->written_words, words_of(*param_maps, {0, 1}));
  EXPECT_FALSE(param_maps->writes_indirect);
  // A map in global memory names memory the analysis cannot see.
  auto memory_map = find(all, "tma_map_in_memory");
  ASSERT_TRUE(memory_map);
  EXPECT_TRUE(memory_map->writes_indirect);
  EXPECT_EQ(memory_map->written_words, (words{{0, 0}, {1, 0}}));
}

const std::vector<kernel_writes>& hand() {
  static const std::vector<kernel_writes> all = analyse_ptx(hand_ptx());
  return all;
}

TEST(ptx_writes, fixpoint_reaches_an_address_defined_after_its_use) {
  auto k = find(hand(), "backward_chain");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{0, 0}}));
  EXPECT_EQ(k->written_globals, names{"table"});
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, carry_flag_links_add_cc_and_addc) {
  auto k = find(hand(), "carry_chain");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{0, 0}, {2, 0}}));
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, vector_parameter_load_covers_its_words) {
  auto k = find(hand(), "vector_param");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{0, 1}, {0, 2}}));
}

TEST(ptx_writes, parameter_declarations_and_global_offsets) {
  auto k = find(hand(), "declarations");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->param_bytes, (std::vector<std::uint32_t>{8, 8, 40, 2}));
  EXPECT_EQ(k->written_words, (words{{2, 4}}));  // the value stored
  EXPECT_EQ(k->written_globals, names{"table"});
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_writes, generic_roundtrip_through_local_memory) {
  auto param = find(hand(), "local_roundtrip");
  ASSERT_TRUE(param);
  EXPECT_EQ(param->written_words, (words{{0, 0}}));
  EXPECT_FALSE(param->writes_indirect);
  auto loaded = find(hand(), "loaded_roundtrip");
  ASSERT_TRUE(loaded);
  EXPECT_TRUE(loaded->writes_indirect);
  EXPECT_EQ(loaded->written_words, (words{{0, 0}, {1, 0}}));
}

TEST(ptx_writes, pointer_copied_into_shared_memory_by_cp_async_is_unknown) {
  auto k = find(hand(), "shared_from_global");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->writes_indirect);
}

// A module with one kernel: `body` between the braces, parameters as declared.
std::string module(std::string_view params, std::string_view body) {
  std::string m = ".version 8.0\n.target sm_90\n.address_size 64\n.global .align 4 .b8 g[16];\n"
                  ".shared .align 8 .b8 sh[16];\n";
  m += ".visible .entry k(" + std::string(params) + ")\n{\n" + std::string(body) + "\n}\n";
  return m;
}

constexpr std::string_view two_pointers = ".param .u64 k_param_0, .param .u64 k_param_1";
constexpr std::string_view copy_body = R"(
  .reg .f32 %f<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [k_param_0];
  ld.param.u64 %rd2, [k_param_1];
  ld.global.f32 %f1, [%rd2];
  st.global.f32 [%rd1], %f1;)";

TEST(ptx_writes, baseline_of_the_small_modules) {
  const auto all = analyse_ptx(module(two_pointers, copy_body));
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].written_words, (words{{0, 0}}));
}

TEST(ptx_writes, unknown_instruction_writes_everything) {
  const auto all = analyse_ptx(module(two_pointers, std::string(copy_body) + "\n  frobnicate.b64 %rd1, %rd2;"));
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].writes_indirect);
  EXPECT_EQ(all[0].written_words, (words{{0, 0}, {1, 0}}));
}

TEST(ptx_writes, entries_not_understood_are_left_out) {
  const std::string good = module(two_pointers, copy_body);
  auto left_out = [&](std::string_view params, std::string_view body) {
    return analyse_ptx(module(params, body)).empty();
  };
  EXPECT_TRUE(left_out(two_pointers, std::string(copy_body) + "\n  .frob 1;"));                 // directive
  EXPECT_TRUE(left_out(two_pointers, std::string(copy_body) + "\n  mov.u64 %rd1, nowhere;"));   // name
  EXPECT_TRUE(left_out(".param .b8 k_param_0[]", "ret;"));                                       // size
  EXPECT_TRUE(left_out(".param .u32 k_param_0", ".reg .b64 %rd1;\n ld.param.u64 %rd1, [k_param_0];"));  // past it
  EXPECT_TRUE(left_out(two_pointers, std::string(copy_body) + "\n  st.global.f32 [%rd1], %f1"));  // no ';'
  EXPECT_TRUE(left_out(two_pointers, std::string(copy_body) + "\n  }"));                          // extra '}'
  EXPECT_TRUE(left_out(two_pointers, std::string(copy_body) + "\n  ld.param.u64 %rd1, [k_param_0+-8];"));
  // A body that never closes: the entry, and anything after it, is left out; what came before stays.
  std::string open_body = good + ".visible .entry k2(.param .u64 k2_param_0)\n{\n ret;\n{\n" + good;
  const auto partial = analyse_ptx(open_body);
  ASSERT_EQ(partial.size(), 1u);
  EXPECT_EQ(partial[0].name, "k");
}

TEST(ptx_writes, malformed_text_does_not_crash) {
  EXPECT_TRUE(analyse_ptx("").empty());
  EXPECT_TRUE(analyse_ptx("hello world {{{ ; } ) ] \"unterminated").empty());
  EXPECT_TRUE(analyse_ptx(".entry").empty());
  EXPECT_TRUE(analyse_ptx(".visible .entry k(.param .u64 k_param_0").empty());
  EXPECT_TRUE(analyse_ptx("/* unterminated comment .entry k() { ret; }").empty());
  const std::string& whole = kernels_ptx();
  for (std::size_t cut = 0; cut < whole.size(); cut += 997) {  // truncated anywhere: no crash
    const auto some = analyse_ptx(std::string_view(whole).substr(0, cut));
    EXPECT_LE(some.size(), kernels().size());
    for (std::size_t i = 0; i < some.size(); ++i) EXPECT_EQ(some[i].written_words, kernels()[i].written_words);
  }
}

TEST(ptx_writes, large_sets_collapse_soundly) {
  // 300 parameters summed into one address (past the set-size limit), and one read-only.
  std::string params, body = ".reg .b64 %rd<400>;\n.reg .f32 %f1;\nmov.u64 %rd0, 0;\n";
  for (int i = 0; i < 301; ++i) {
    params += std::string(i ? ", " : "") + ".param .u64 k_param_" + std::to_string(i);
    body += "ld.param.u64 %rd" + std::to_string(i + 1) + ", [k_param_" + std::to_string(i) + "];\n";
    if (i < 300) body += "add.s64 %rd0, %rd0, %rd" + std::to_string(i + 1) + ";\n";
  }
  body += "ld.global.f32 %f1, [%rd301];\nst.global.f32 [%rd0], %f1;";
  const auto all = analyse_ptx(module(params, body));
  ASSERT_EQ(all.size(), 1u);
  std::vector<std::uint32_t> first(300);
  for (std::uint32_t i = 0; i < 300; ++i) first[i] = i;
  EXPECT_EQ(all[0].written_words, words_of(all[0], first));
  EXPECT_FALSE(all[0].writes_indirect);
}

TEST(ptx_writes, large_module) {
  // A few MB of PTX: 200 copies of the kernels module, analysed as one.
  std::string big;
  for (int i = 0; i < 200; ++i) big += kernels_ptx();
  const auto all = analyse_ptx(big);
  ASSERT_EQ(all.size(), 200 * kernels().size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& k = kernels()[i % kernels().size()];
    EXPECT_EQ(all[i].name, k.name);
    EXPECT_EQ(all[i].written_words, k.written_words);
  }
}

TEST(ptx_writes, may_write_by_byte) {
  auto k = find(kernels(), "by_struct");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->may_write(0, 0));
  EXPECT_TRUE(k->may_write(0, 7));
  EXPECT_FALSE(k->may_write(0, 8));   // in
  EXPECT_FALSE(k->may_write(0, 20));  // n
  EXPECT_TRUE(k->may_write(0, 24));   // past the parameter
  EXPECT_TRUE(k->may_write(1, 0));    // no such parameter
  kernel_writes none;
  EXPECT_TRUE(none.may_write(0, 0));
}

// ---- Reads and writes through pointers loaded from memory (docs/design.md rule 9) [pointer_table].

const std::vector<kernel_writes>& tables() {
  static const std::vector<kernel_writes> all = analyse_ptx(tables_ptx());
  return all;
}

TEST(ptx_pointer_table, every_entry_of_the_tables_module_is_analysed) {
  std::vector<std::string> got;
  for (const auto& k : tables()) got.push_back(k.name);
  EXPECT_EQ(got, (names{"read_via_table", "write_via_table", "batched_axpy", "gather", "read_via_device_pointer",
                        "async_copy_via_table", "constant_lookup", "plain_copy", "read_via_split_pointer",
                        "read_via_packed_pointer", "read_via_shared_halves", "gather64", "csr_spmv"}));
}

TEST(ptx_pointer_table, a_read_through_a_pointer_loaded_from_a_struct_reads_anything) {
  // dst[i] = p->in[i]: the buffer read is named by no argument.
  auto k = find(tables(), "read_via_table");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->reads_indirect);
  EXPECT_FALSE(k->writes_indirect);
  EXPECT_EQ(k->written_words, (words{{1, 0}}));  // dst only
}

TEST(ptx_pointer_table, a_write_through_a_pointer_loaded_from_a_table_writes_anything) {
  auto k = find(tables(), "write_via_table");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->writes_indirect);
  EXPECT_TRUE(k->writes_globals);
}

TEST(ptx_pointer_table, device_side_pointer_arrays_are_read_and_written_anywhere) {
  // As a batched GEMM takes its matrices: xs[b], ys[b].
  auto k = find(tables(), "batched_axpy");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->reads_indirect);
  EXPECT_TRUE(k->writes_indirect);
}

TEST(ptx_pointer_table, a_read_through_a_device_pointer_variable_reads_anything) {
  auto k = find(tables(), "read_via_device_pointer");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->reads_indirect);
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_pointer_table, an_async_copy_from_a_loaded_pointer_reads_anything) {
  auto k = find(tables(), "async_copy_via_table");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->reads_indirect);
}

TEST(ptx_pointer_table, a_pointer_put_together_from_narrow_pieces_is_a_loaded_pointer) {
  // Two 32-bit halves joined in registers, eight bytes of a packed struct, halves joined in shared memory.
  for (const char* name : {"read_via_split_pointer", "read_via_packed_pointer", "read_via_shared_halves"}) {
    auto k = find(tables(), name);
    ASSERT_TRUE(k) << name;
    EXPECT_TRUE(k->reads_indirect) << name;
  }
}

TEST(ptx_pointer_table, gathers_through_32_bit_indices_stay_in_the_named_allocation) {
  // in[idx[i]], vals[j] * x[cols[j]]: an index read from memory, added to a parameter's pointer,
  // moves within that pointer's allocation (pointer arithmetic stays within its object).
  for (const char* name : {"gather", "csr_spmv"}) {
    auto k = find(tables(), name);
    ASSERT_TRUE(k) << name;
    EXPECT_FALSE(k->reads_indirect) << name;
    EXPECT_FALSE(k->writes_indirect) << name;
  }
  // A 64-bit value read from memory may be a whole pointer: in[idx[i]] with long long indices.
  auto wide = find(tables(), "gather64");
  ASSERT_TRUE(wide);
  EXPECT_TRUE(wide->reads_indirect);
}

TEST(ptx_pointer_table, constant_memory_indexed_by_loaded_values_reads_nothing_kernels_write) {
  auto k = find(tables(), "constant_lookup");
  ASSERT_TRUE(k);
  EXPECT_FALSE(k->reads_indirect);
}

TEST(ptx_pointer_table, kernels_that_read_through_their_arguments_read_nothing_else) {
  auto plain = find(tables(), "plain_copy");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->reads_indirect);
  // Of the kernels module, only the one calling a function acs does not analyse.
  for (const auto& k : kernels()) EXPECT_EQ(k.reads_indirect, k.name == "calls") << k.name;
}

TEST(ptx_pointer_table, writes_through_indices_read_from_memory_stay_unattributed) {
  // The write side keeps its rule: out[idx[i]] may land anywhere, 32-bit indices too.
  const auto all = analyse_ptx(module(".param .u64 k_param_0, .param .u64 k_param_1", R"(
  .reg .f32 %f<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [k_param_0];
  ld.param.u64 %rd2, [k_param_1];
  ld.global.u32 %r1, [%rd2];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.f32 [%rd4], %f1;)"));
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].writes_indirect);
  EXPECT_FALSE(all[0].reads_indirect);
}

TEST(ptx_pointer_table, two_indices_joined_into_64_bits_or_shifted_high_are_a_pointer) {
  // Two 32-bit values read from memory (%rd3, %rd4), joined into %rd5, read at an offset given as
  // an argument (%rd7): the offset's word names the address, so only the joining can make it a
  // pointer read from memory.
  const std::string prologue = R"(
  .reg .pred %p<2>;
  .reg .f32 %f<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [k_param_0];
  ld.param.u64 %rd2, [k_param_1];
  ld.param.u32 %r3, [k_param_2];
  cvt.u64.u32 %rd7, %r3;
  ld.global.u32 %r1, [%rd2];
  ld.global.u32 %r2, [%rd2+4];
  cvt.u64.u32 %rd3, %r1;
  cvt.u64.u32 %rd4, %r2;
)";
  auto reads_anything = [&](const std::string& join) {
    const auto all = analyse_ptx(module(".param .u64 k_param_0, .param .u64 k_param_1, .param .u32 k_param_2",
                                        prologue + join +
                                            "\n  add.s64 %rd9, %rd5, %rd7;\n  ld.global.f32 %f1, [%rd9];"
                                            "\n  st.global.f32 [%rd1], %f1;"));
    EXPECT_EQ(all.size(), 1u) << join;
    return !all.empty() && all[0].reads_indirect;
  };
  EXPECT_TRUE(reads_anything("  mov.b64 %rd5, {%r1, %r2};"));
  EXPECT_TRUE(reads_anything("  shl.b64 %rd6, %rd4, 32;\n  or.b64 %rd5, %rd6, %rd3;"));
  EXPECT_TRUE(reads_anything("  shl.b64 %rd5, %rd4, 32;"));
  EXPECT_TRUE(reads_anything("  add.s64 %rd5, %rd3, %rd4;"));
  EXPECT_TRUE(reads_anything("  st.shared.u32 [sh], %r1;\n  st.shared.u32 [sh+4], %r2;\n  ld.shared.u64 %rd5, [sh];"));
  // One index, scaled and added to a parameter's pointer: an element of it.
  EXPECT_FALSE(reads_anything("  shl.b64 %rd6, %rd3, 2;\n  add.s64 %rd5, %rd1, %rd6;"));
  // 32-bit arithmetic on two indices is still an index.
  EXPECT_FALSE(reads_anything("  xor.b32 %r1, %r1, %r2;\n  mul.wide.u32 %rd6, %r1, 4;\n  add.s64 %rd5, %rd1, %rd6;"));
  // A selector picks, it adds no bits: an index chosen by a comparison of two is still an index.
  EXPECT_FALSE(reads_anything("  setp.lt.u32 %p1, %r1, %r2;\n  selp.b64 %rd6, %rd3, 0, %p1;\n  shl.b64 %rd6, %rd6, 2;"
                              "\n  add.s64 %rd5, %rd1, %rd6;"));
  EXPECT_FALSE(reads_anything("  setp.lt.s64 %p1, %rd3, %rd4;\n  selp.b64 %rd6, %rd3, 0, %p1;\n  shl.b64 %rd6, %rd6, 2;"
                              "\n  add.s64 %rd5, %rd1, %rd6;"));
  // Two values to choose from count as two pieces: the analysis does not tell choosing from joining.
  EXPECT_TRUE(reads_anything("  setp.lt.u32 %p1, %r1, %r2;\n  selp.b64 %rd5, %rd3, %rd4, %p1;"));
  // So are 32-bit values stored to shared memory and read back one by one.
  EXPECT_FALSE(reads_anything("  st.shared.u32 [sh], %r1;\n  ld.shared.u32 %r1, [sh];\n  mul.wide.u32 %rd6, %r1, 4;"
                              "\n  add.s64 %rd5, %rd1, %rd6;"));
}

TEST(ptx_pointer_table, an_index_read_from_memory_alone_names_no_memory) {
  const auto all = analyse_ptx(module(two_pointers, R"(
  .reg .f32 %f<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [k_param_0];
  ld.param.u64 %rd2, [k_param_1];
  ld.global.u32 %r1, [%rd2];
  cvt.u64.u32 %rd3, %r1;
  ld.global.f32 %f1, [%rd3];
  st.global.f32 [%rd1], %f1;)"));
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].reads_indirect);
}

TEST(ptx_pointer_table, instructions_and_calls_not_analysed_may_read_anything) {
  const auto all = analyse_ptx(module(two_pointers, std::string(copy_body) + "\n  frobnicate.b64 %rd1, %rd2;"));
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].reads_indirect);
  auto k = find(kernels(), "calls");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->reads_indirect);
}

// ---- Texture and surface instructions (docs/design.md rule 9) [texture_object].

const std::vector<kernel_writes>& textures() {
  static const std::vector<kernel_writes> all = analyse_ptx(textures_ptx());
  return all;
}

TEST(ptx_texture_object, fetches_gathers_and_surface_accesses_use_textures) {
  const names expected{"tex_linear", "tex_array", "tex_gather", "surf_writer", "surf_reader"};
  names got;
  for (const auto& k : textures()) {
    got.push_back(k.name);
    EXPECT_TRUE(k.uses_textures) << k.name;
  }
  EXPECT_EQ(got, expected);
}

TEST(ptx_texture_object, the_surface_writer_writes_only_through_the_handle_that_no_allocation_holds) {
  // Why the flag is needed: the write's address is the surface object, a parameter word that
  // points into no allocation, so argument inference alone would see nothing written.
  auto k = find(textures(), "surf_writer");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->written_words, (words{{0, 0}}));
  EXPECT_FALSE(k->writes_indirect);
}

TEST(ptx_texture_object, kernels_without_texture_instructions_and_queries_alone_do_not) {
  for (const auto& k : kernels()) EXPECT_EQ(k.uses_textures, k.name == "textures") << k.name;
  for (const auto& k : tables()) EXPECT_FALSE(k.uses_textures) << k.name;
  // txq and suq read an object's attributes, not memory.
  const auto query = analyse_ptx(module(two_pointers, std::string(copy_body) +
                                                          "\n  .reg .b32 %q<3>;\n  txq.width.b32 %q1, [%rd2];"
                                                          "\n  suq.width.b32 %q2, [%rd2];"));
  ASSERT_EQ(query.size(), 1u);
  EXPECT_FALSE(query[0].uses_textures);
  EXPECT_FALSE(query[0].reads_indirect);
}

// acs's background thread may analyse PTX while the process exits (src/runtime/background.hpp):
// whatever the analysis keeps in statics must outlive their destructors. An exit handler
// registered before the first analysis runs after the destructors of what that analysis
// constructed, and must get the same answer (seen on the H200 before the opcode tables were made
// immortal: cuda-samples' reduction crashed at exit).
struct exit_check {
  std::string text;
  std::vector<std::string> summary;  // of the analysis made before exit began
};
exit_check* at_exit = nullptr;  // never destroyed

std::vector<std::string> summarise(const std::vector<kernel_writes>& all) {
  std::vector<std::string> out;
  for (const kernel_writes& k : all) {
    std::string line = k.name;
    for (const auto& [param, word] : k.written_words) line += " " + std::to_string(param) + ":" + std::to_string(word);
    line += k.writes_globals ? " G" : "";
    line += k.writes_indirect ? " W" : "";
    line += k.reads_indirect ? " R" : "";
    line += k.uses_textures ? " T" : "";
    out.push_back(std::move(line));
  }
  return out;
}

void analyse_during_exit() {
  const bool same = summarise(analyse_ptx(at_exit->text)) == at_exit->summary;
  std::_Exit(same ? 0 : 3);
}

TEST(ptx_writes_exit, an_analysis_during_exit_gives_the_same_answer) {
  at_exit = new exit_check{fixture("kernels.ptx"), {}};
  EXPECT_EXIT(
      {
        std::atexit(analyse_during_exit);  // before the analysis constructs anything of its own
        at_exit->summary = summarise(analyse_ptx(at_exit->text));
        if (at_exit->summary.empty()) std::_Exit(2);
        std::exit(0);
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace acs::inference
