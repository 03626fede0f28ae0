// Loaded code images (loaded_code.hpp): recording, analysing on demand, and how an
// analysis narrows a parameter layout. Uses the fatbins of tests/data/fatbin
// (kernels.cu there): axpy(const float* x, float* y, float a, int n),
// copy_pair({float* out; const float* in; int n}), count(const float* x, int n)
// which increments a __device__ counter.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <iterator>
#include <stdexcept>
#include <thread>
#include <string>
#include <vector>

#include "annotations/inferred/fatbin.hpp"
#include "annotations/inferred/loaded_code.hpp"

namespace acs::inference {
namespace {

constexpr const char* axpy = "_Z4axpyPKfPffi";
constexpr const char* copy_pair = "_Z9copy_pair9pair_args";
constexpr const char* count = "_Z5countPKfi";

std::vector<char> data_file(const std::string& name) {
  std::ifstream in(std::string(ACS_TEST_DATA_DIR) + "/fatbin/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.push_back('\0');  // PTX text images are NUL-terminated
  return bytes;
}

int module_a, module_b, library_a;  // stand-ins for handles

TEST(loaded_code, a_heap_image_is_copied_and_analysed_on_demand) {
  loaded_code code;
  {
    auto image = data_file("sm90.fatbin");
    code.loaded(&module_a, code_handle_kind::module, image.data());
    std::memset(image.data(), 0, image.size());  // the application may free its image once loaded
  }
  ASSERT_EQ(code.owner_of_module(&module_a), &module_a);
  const auto w = code.writes(&module_a, axpy, 90);
  ASSERT_NE(w, nullptr);
  EXPECT_FALSE(w->may_write(0, 0));  // x
  EXPECT_TRUE(w->may_write(1, 0));   // y
  EXPECT_FALSE(w->writes_globals);
  const auto pair = code.writes(&module_a, copy_pair, 90);
  ASSERT_NE(pair, nullptr);
  EXPECT_TRUE(pair->may_write(0, 0));   // out
  EXPECT_FALSE(pair->may_write(0, 8));  // in
  const auto c = code.writes(&module_a, count, 90);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->writes_globals);
  EXPECT_EQ(code.writes(&module_a, "_Z7missingv", 90), nullptr);
}

TEST(loaded_code, no_ptx_for_the_device_means_no_analysis) {
  loaded_code code;
  const auto image = data_file("sm90.fatbin");
  code.loaded(&module_a, code_handle_kind::module, image.data());
  EXPECT_EQ(code.writes(&module_a, axpy, 75), nullptr);
  EXPECT_NE(code.writes(&module_a, axpy, 90), nullptr);
}

TEST(loaded_code, ptx_text_images_and_unloads) {
  loaded_code code;
  const auto ptx = data_file("sm90.ptx");
  code.loaded(&module_b, code_handle_kind::module, ptx.data());
  ASSERT_NE(code.writes(&module_b, axpy, 90), nullptr);
  code.unloaded(&module_b);
  EXPECT_EQ(code.owner_of_module(&module_b), nullptr);
  EXPECT_EQ(code.writes(&module_b, axpy, 90), nullptr);
}

TEST(loaded_code, a_cubin_replaces_an_older_image_under_the_same_handle) {
  loaded_code code;
  const auto ptx = data_file("sm90.ptx");
  code.loaded(&module_a, code_handle_kind::module, ptx.data());
  const char cubin[] = "\x7f" "ELF\x02\x01\x01\x41";
  code.loaded(&module_a, code_handle_kind::module, cubin);
  EXPECT_EQ(code.owner_of_module(&module_a), nullptr);
}

TEST(loaded_code, modules_found_in_a_library_resolve_until_it_is_unloaded) {
  loaded_code code;
  const auto ptx = data_file("sm90.ptx");
  code.loaded(&library_a, code_handle_kind::library, ptx.data());
  EXPECT_EQ(code.owner_of_module(&module_a), nullptr);
  code.found_in(&module_a, &library_a);
  EXPECT_EQ(code.owner_of_module(&module_a), &library_a);
  EXPECT_EQ(code.owner_of_module(&library_a), &library_a);
  code.unloaded(&library_a);
  EXPECT_EQ(code.owner_of_module(&module_a), nullptr);
  code.found_in(&module_a, &library_a);  // not a recorded library: ignored
  EXPECT_EQ(code.owner_of_module(&module_a), nullptr);
}

TEST(loaded_code, libraries_newest_first) {
  loaded_code code;
  const auto ptx = data_file("sm90.ptx");
  code.loaded(&library_a, code_handle_kind::library, ptx.data());
  code.loaded(&module_a, code_handle_kind::module, ptx.data());
  code.loaded(&module_b, code_handle_kind::library, ptx.data());
  EXPECT_EQ(code.libraries(), (std::vector<const void*>{&module_b, &library_a}));
}

// What the runtime reads ahead once a footprint is needed: every recorded image, modules and
// libraries, oldest first; an unloaded one is gone.
TEST(loaded_code, handles_are_every_recorded_image_in_load_order) {
  loaded_code code;
  const auto ptx = data_file("sm90.ptx");
  static const int gone = 0;
  code.loaded(&module_b, code_handle_kind::module, ptx.data());
  code.loaded(&gone, code_handle_kind::module, ptx.data());
  code.loaded(&library_a, code_handle_kind::library, ptx.data());
  code.loaded(&module_a, code_handle_kind::module, ptx.data());
  code.unloaded(&gone);
  EXPECT_EQ(code.handles(), (std::vector<const void*>{&module_b, &library_a, &module_a}));
}

TEST(loaded_code, an_analysis_narrows_a_matching_layout_only) {
  kernel_writes w;
  w.name = axpy;
  w.param_bytes = {8, 8, 4, 4};
  w.written_words = {{1, 0}};
  param_layout layout{{0, 8}, {8, 8}, {16, 4}, {20, 4}};
  ASSERT_TRUE(apply_writes(w, layout));
  EXPECT_FALSE(layout[0].may_write_at(0));
  EXPECT_TRUE(layout[1].may_write_at(8));
  EXPECT_FALSE(layout.writes_globals);
  param_layout other{{0, 8}, {8, 8}, {16, 8}};
  EXPECT_FALSE(apply_writes(w, other));
  EXPECT_TRUE(other[0].may_write_at(0));
  // Words past the 64 a mask holds always count as written.
  kernel_writes big;
  big.param_bytes = {1024};
  param_layout large{{0, 1024}};
  ASSERT_TRUE(apply_writes(big, large));
  EXPECT_FALSE(large[0].may_write_at(8 * 63));
  EXPECT_TRUE(large[0].may_write_at(8 * 64));
}

TEST(loaded_code, device_variables_written_by_name_make_the_kernel_write_unseen_memory) {
  kernel_writes w;
  w.param_bytes = {8};
  w.writes_globals = true;
  w.written_globals = {"counter"};
  param_layout layout{{0, 8}};
  ASSERT_TRUE(apply_writes(w, layout));
  EXPECT_TRUE(layout.writes_globals);
  // Writes through pointers read from memory: every word written, as without the PTX.
  kernel_writes indirect;
  indirect.param_bytes = {8};
  indirect.written_words = {{0, 0}};
  indirect.writes_globals = indirect.writes_indirect = true;
  param_layout other{{0, 8}};
  ASSERT_TRUE(apply_writes(indirect, other));
  EXPECT_FALSE(other.writes_globals);
  EXPECT_TRUE(other[0].may_write_at(0));
  EXPECT_TRUE(other.writes_anywhere);  // and memory no argument shows: inference makes it everything
}

TEST(loaded_code_pointer_table, an_analysis_records_what_the_code_reaches_beyond_its_arguments) {
  kernel_writes w;
  w.param_bytes = {8, 8};
  w.written_words = {{1, 0}};
  param_layout layout{{0, 8}, {8, 8}};
  EXPECT_FALSE(layout.code_read);  // a layout without an analysis: nothing known of its code
  ASSERT_TRUE(apply_writes(w, layout));
  EXPECT_TRUE(layout.code_read);
  EXPECT_FALSE(layout.reads_anywhere || layout.writes_anywhere || layout.textures || layout.writes_globals);
  w.reads_indirect = true;
  ASSERT_TRUE(apply_writes(w, layout));
  EXPECT_TRUE(layout.reads_anywhere);
  EXPECT_FALSE(layout.writes_anywhere);
  w.writes_indirect = true;
  ASSERT_TRUE(apply_writes(w, layout));
  EXPECT_TRUE(layout.writes_anywhere);
  // An analysis that does not match leaves the layout unread.
  param_layout other{{0, 8}};
  EXPECT_FALSE(apply_writes(w, other));
  EXPECT_FALSE(other.code_read);
}

TEST(loaded_code_texture_object, an_analysis_records_texture_use) {
  kernel_writes w;
  w.param_bytes = {8};
  w.uses_textures = true;
  param_layout layout{{0, 8}};
  ASSERT_TRUE(apply_writes(w, layout));
  EXPECT_TRUE(layout.textures);
}

TEST(loaded_code, merging_two_analyses_keeps_every_write) {
  kernel_writes a, b;
  a.param_bytes = b.param_bytes = {8, 8};
  a.written_words = {{0, 0}};
  b.written_words = {{1, 0}};
  b.writes_globals = true;
  const auto m = merge_writes(a, b);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->written_words, (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 0}, {1, 0}}));
  EXPECT_TRUE(m->writes_globals);
  b.param_bytes = {8};
  EXPECT_EQ(merge_writes(a, b), nullptr);
}

TEST(loaded_code_pointer_table, merging_two_analyses_keeps_indirect_reads_and_textures) {
  kernel_writes a, b;
  a.param_bytes = b.param_bytes = {8};
  a.reads_indirect = true;
  b.uses_textures = true;
  const auto m = merge_writes(a, b);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->reads_indirect);
  EXPECT_TRUE(m->uses_textures);
  const auto n = merge_writes(b, a);
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(n->reads_indirect);
  EXPECT_TRUE(n->uses_textures);
}

// Analysis ahead of the first launch (analyse_ahead, on acs's background thread): the same
// answers as analysing on demand, and a launch that comes meanwhile waits for them.
TEST(loaded_code_ahead, gives_the_answers_analysis_on_demand_gives) {
  const auto image = data_file("sm90.fatbin");
  loaded_code on_demand, ahead;
  on_demand.loaded(&module_a, code_handle_kind::module, image.data());
  ahead.loaded(&module_a, code_handle_kind::module, image.data());
  ahead.analyse_ahead(&module_a, 90);
  for (const char* kernel : {axpy, copy_pair, count}) {
    const auto a = on_demand.writes(&module_a, kernel, 90);
    const auto b = ahead.writes(&module_a, kernel, 90);
    ASSERT_NE(a, nullptr) << kernel;
    ASSERT_NE(b, nullptr) << kernel;
    EXPECT_EQ(a->written_words, b->written_words) << kernel;
    EXPECT_EQ(a->writes_globals, b->writes_globals) << kernel;
  }
}

TEST(loaded_code_ahead, launches_during_the_analysis_get_the_same_answer) {
  const auto image = data_file("sm90.fatbin");
  for (int round = 0; round < 20; ++round) {
    loaded_code code;
    code.loaded(&module_a, code_handle_kind::module, image.data());
    std::thread worker([&] { code.analyse_ahead(&module_a, 90); });
    const auto w = code.writes(&module_a, axpy, 90);  // before, during or after: the same answer
    worker.join();
    ASSERT_NE(w, nullptr);
    EXPECT_TRUE(w->may_write(1, 0));
    EXPECT_FALSE(w->may_write(0, 0));
  }
}

TEST(loaded_code_ahead, an_unload_during_the_analysis_leaves_nothing_behind) {
  const auto image = data_file("sm90.fatbin");
  for (int round = 0; round < 20; ++round) {
    loaded_code code;
    code.loaded(&module_a, code_handle_kind::module, image.data());
    std::thread worker([&] { code.analyse_ahead(&module_a, 90); });
    code.unloaded(&module_a);
    worker.join();
    EXPECT_EQ(code.writes(&module_a, axpy, 90), nullptr);
  }
}

// No analysis holds the registry's lock (a library's took up to 125 ms: cuSPARSE): while one
// launch's analysis on demand runs, the program's own loads and look-ups of other images go on.
// The analyser here stays inside until the main thread's calls returned; holding the lock it
// would never let them return, and the test fails after its 5 s instead of hanging.
TEST(loaded_code, an_analysis_on_demand_lets_other_loads_and_look_ups_go_on) {
  std::promise<void> entered, others_done;
  std::shared_future<void> done = others_done.get_future().share();
  std::atomic<int> calls{0};
  loaded_code code([&entered, &calls, done](const void*, std::uint32_t) {
    calls.fetch_add(1);
    entered.set_value();
    done.wait();
    loaded_code::kernel_map found;
    kernel_writes k;
    k.name = axpy;
    k.param_bytes = {8, 8, 4, 4};
    found.emplace(axpy, std::make_shared<const kernel_writes>(std::move(k)));
    return found;
  });
  const auto image = data_file("sm90.fatbin");
  code.loaded(&module_a, code_handle_kind::module, image.data());
  auto launch = std::async(std::launch::async, [&] { return code.writes(&module_a, axpy, 90); });
  entered.get_future().wait();  // the launch's analysis is running now
  auto others = std::async(std::launch::async, [&] {
    code.loaded(&module_b, code_handle_kind::module, image.data());
    code.found_in(&library_a, &module_b);
    return code.owner_of_module(&module_b) == &module_b && code.handles().size() == 2;
  });
  const bool returned = others.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  others_done.set_value();  // lets the analysis end either way
  EXPECT_TRUE(returned) << "a load or look-up waited for another image's analysis";
  if (returned) {
    EXPECT_TRUE(others.get());
  }
  const auto w = launch.get();
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->param_bytes, (std::vector<std::uint32_t>{8, 8, 4, 4}));
  // Stored: a second look-up hands back the same entry without analysing again.
  EXPECT_EQ(code.writes(&module_a, axpy, 90), w);
  EXPECT_EQ(calls.load(), 1);
}

// A second launch of an image under analysis waits for that analysis and gets its answer; an
// analysis that fails leaves the image to be analysed again by the next launch.
TEST(loaded_code, a_launch_waits_for_an_analysis_in_progress_and_a_failed_one_is_retried) {
  std::promise<void> entered, release;
  std::shared_future<void> go = release.get_future().share();
  std::atomic<int> calls{0};
  loaded_code code([&](const void* bytes, std::uint32_t) -> loaded_code::kernel_map {
    if (calls.fetch_add(1) == 0) {
      entered.set_value();
      go.wait();
      throw std::runtime_error("unreadable");
    }
    loaded_code::kernel_map found;
    kernel_writes k;
    k.name = axpy;
    k.param_bytes = {static_cast<std::uint32_t>(bytes != nullptr ? 8 : 0)};
    found.emplace(axpy, std::make_shared<const kernel_writes>(std::move(k)));
    return found;
  });
  const auto image = data_file("sm90.fatbin");
  code.loaded(&module_a, code_handle_kind::module, image.data());
  auto first = std::async(std::launch::async, [&] { return code.writes(&module_a, axpy, 90); });
  entered.get_future().wait();
  auto second = std::async(std::launch::async, [&] { return code.writes(&module_a, axpy, 90); });
  EXPECT_EQ(second.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout) << "did not wait";
  release.set_value();
  EXPECT_THROW(first.get(), std::runtime_error);  // as the analysis under the lock threw
  const auto w = second.get();  // analysed again, by the second launch
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->param_bytes, (std::vector<std::uint32_t>{8}));
  EXPECT_EQ(calls.load(), 2);
}

}  // namespace
}  // namespace acs::inference
