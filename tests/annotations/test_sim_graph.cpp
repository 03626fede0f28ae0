// What each annotation style does to the dependency graph, on the simulated
// device. Launches go through take() exactly as the runtime's launch path does:
// a pending barrier first, then the declared footprint, or, when nothing is
// declared, the footprint inferred from the arguments (whole allocations).
// Every run is also checked against serial execution, with the simulator's
// race checker over what the kernels really touch.
#include "scenario.hpp"
#include "support.hpp"

namespace acs::testing {
namespace {

using sim::address_of;
using sim::cell;
using sim::cells;
using sim::long_kernel;

// Three allocations over the simulated cells: [0, 32), [32, 48), [48, 64).
constexpr cell big = 0;
constexpr cell small = 32;
constexpr cell other = 48;

acs_range cell_range(cell first, std::uint32_t count) { return range(address_of(first), count); }

// One simulated device and scheduler, and the runtime's launch path in front of it.
class annotated_device {
 public:
  annotated_device() {
    view.allocations.insert(address_of(big), 32);
    view.allocations.insert(address_of(small), 16);
    view.allocations.insert(address_of(other), 16);
    for (int id = 0; id < 8; ++id) view.word_params(function_handle(id), 3);
  }

  // A kernel (out, in, n): writes `n` cells from `out`, really reads `reads`
  // (what the simulator runs), and gets `in` as its pointer argument.
  struct launch {
    const sim::kernel* k;
    CUfunction f;
    launch_args args;
  };
  launch make(cell out, std::uint32_t n, cell in, std::vector<cell> reads, int id = 0) {
    const sim::kernel& k = s.make_kernel(long_kernel, std::move(reads), cells(out, n));
    return {&k, function_handle(id), launch_args({address_of(out), address_of(in), n})};
  }

  // As the runtime does it.
  backend_status run(launch& l) {
    declared::launch_footprint fp;
    annotations::take(l.f, l.args.get(), nullptr, fp, view);
    if (fp.barrier_before) s.acs.barrier(vs);
    access_set access = fp.access;
    if (!fp.declared) {
      no_probe probe;
      const auto layout = view.layouts.find(l.f);
      inference::infer(layout == view.layouts.end() ? nullptr : &layout->second, l.args.get(), nullptr,
                       view.allocations, probe, access, options);
    } else if (options.order_host_mapped) {
      inference::order_host_memory(view.allocations, access);
    }
    return s.launch(vs, *l.k, access, fp.group);
  }

  sim::op_span span(const launch& l) const { return s.span(*l.k); }

  fake_view view;
  inference::inference_options options;  // as the runtime's settings give them (footprint.cpp)
  sim::scenario s{{}, sim::roomy};
  virtual_stream vs = s.stream(stream_kind::non_blocking);
};

bool after(const sim::op_span& later, const sim::op_span& earlier) { return later.start >= earlier.end; }

class sim_graph : public annotation_test {
 protected:
  using launch = annotated_device::launch;
  launch make(cell out, std::uint32_t n, cell in, std::vector<cell> reads) {
    return d.make(out, n, in, std::move(reads));
  }
  backend_status run(launch& l) { return d.run(l); }
  sim::op_span span(const launch& l) const { return d.span(l); }

  annotated_device d;
  sim::scenario& s = d.s;
};

TEST_F(sim_graph, disjoint_halves_of_one_allocation_run_concurrently_when_declared) {
  auto first = make(big, 16, small, {small});
  auto second = make(big + 16, 16, small + 1, {small + 1});
  const acs_range r1[] = {cell_range(small, 1)}, w1[] = {cell_range(big, 16)};
  const acs_range r2[] = {cell_range(small + 1, 1)}, w2[] = {cell_range(big + 16, 16)};
  ASSERT_EQ(acs_v1_next_launch(r1, 1, w1, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(first), 0);
  ASSERT_EQ(acs_v1_next_launch(r2, 1, w2, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(second), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(sim::overlap(span(first), span(second)));
}

TEST_F(sim_graph, disjoint_halves_of_one_allocation_are_serialized_by_inference) {
  auto first = make(big, 16, small, {small});
  auto second = make(big + 16, 16, small + 1, {small + 1});
  ASSERT_EQ(run(first), 0);
  ASSERT_EQ(run(second), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(after(span(second), span(first))) << "inference sees one allocation written twice";
}

TEST_F(sim_graph, a_scope_covers_all_its_launches) {
  auto k1 = make(big, 8, small, {small});
  auto k2 = make(big + 8, 8, small + 1, {small + 1});
  auto k3 = make(big + 16, 8, small + 2, {small + 2});
  const sim::kernel& overwrite = s.make_kernel(long_kernel, {}, {small + 2});  // after the scope
  const acs_range sr[] = {cell_range(small, 3)}, sw[] = {cell_range(big, 24)};
  ASSERT_EQ(acs_v1_scope_begin(sr, 1, sw, 1, ACS_EXACT), ACS_OK);
  for (launch* l : {&k1, &k2, &k3}) ASSERT_EQ(run(*l), 0);
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  const acs_range ow[] = {cell_range(small + 2, 1)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, ow, 1, ACS_EXACT), ACS_OK);
  launch last{&overwrite, function_handle(1), launch_args({address_of(small + 2), address_of(small + 2), 1})};
  ASSERT_EQ(run(last), 0);
  EXPECT_TRUE(s.matches_serial());
  // Only k3 really reads small + 2, but every launch of the scope declares it.
  EXPECT_TRUE(after(span(last), span(k1)));
  EXPECT_TRUE(after(span(last), span(k2)));
  EXPECT_TRUE(after(span(last), span(k3)));
}

TEST_F(sim_graph, a_scope_keeps_its_launches_in_order_even_when_declared_disjoint) {
  // Each launch inside declares its own disjoint ranges: only the scope's task
  // (the scheduler group) orders them.
  auto k1 = make(big, 8, small, {small});
  auto k2 = make(big + 8, 8, small + 1, {small + 1});
  auto k3 = make(big + 16, 8, small + 2, {small + 2});
  const acs_range sr[] = {cell_range(small, 3)}, sw[] = {cell_range(big, 24)};
  ASSERT_EQ(acs_v1_scope_begin(sr, 1, sw, 1, ACS_EXACT), ACS_OK);
  cell c = 0;
  for (launch* l : {&k1, &k2, &k3}) {
    const acs_range r[] = {cell_range(small + c, 1)}, w[] = {cell_range(big + 8 * c, 8)};
    ASSERT_EQ(acs_v1_next_launch(r, 1, w, 1, ACS_EXACT), ACS_OK);
    ASSERT_EQ(run(*l), 0);
    ++c;
  }
  ASSERT_EQ(acs_v1_scope_end(), ACS_OK);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(after(span(k2), span(k1)));
  EXPECT_TRUE(after(span(k3), span(k2)));
}

TEST_F(sim_graph, the_same_launches_declared_one_by_one_run_concurrently) {
  // The control for the previous test: without the scope they overlap.
  auto k1 = make(big, 8, small, {small});
  auto k2 = make(big + 8, 8, small + 1, {small + 1});
  auto k3 = make(big + 16, 8, small + 2, {small + 2});
  cell c = 0;
  for (launch* l : {&k1, &k2, &k3}) {
    const acs_range r[] = {cell_range(small + c, 1)}, w[] = {cell_range(big + 8 * c, 8)};
    ASSERT_EQ(acs_v1_next_launch(r, 1, w, 1, ACS_EXACT), ACS_OK);
    ASSERT_EQ(run(*l), 0);
    ++c;
  }
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(sim::overlap(span(k1), span(k2)));
  EXPECT_TRUE(sim::overlap(span(k2), span(k3)));
}

void copy_rule(acs_footprint* fp, void* const* args, void*) {
  const auto out = *static_cast<const std::uint64_t*>(args[0]);
  const auto in = *static_cast<const std::uint64_t*>(args[1]);
  const auto n = *static_cast<const std::uint64_t*>(args[2]);
  acs_v1_footprint_read(fp, ptr(in), 1);
  acs_v1_footprint_write(fp, ptr(out), n);
}

// Writes of 8 cells into `big` and `other`, each reading one cell that an
// earlier one may write: a small DAG with chains and an independent pair.
std::vector<annotated_device::launch> program(annotated_device& d) {
  std::vector<annotated_device::launch> ls;
  ls.push_back(d.make(big, 8, small, {small}));
  ls.push_back(d.make(big + 8, 8, small + 1, {small + 1}));
  ls.push_back(d.make(other, 8, big + 3, {big + 3}));         // after #0
  ls.push_back(d.make(big + 16, 8, other + 2, {other + 2}));  // after #2
  ls.push_back(d.make(small, 1, big + 20, {big + 20}));       // after #3; #0 read `small`
  return ls;
}

// Runs it, each launch declared per launch or by the rule; the kernels' spans.
std::vector<sim::op_span> run_program(annotated_device& d, bool by_rule) {
  auto ls = program(d);
  for (auto& l : ls) {
    if (!by_rule) {
      const auto out = l.args.words[0], in = l.args.words[1], n = l.args.words[2];
      const acs_range r[] = {range(in, 1)}, w[] = {range(out, n)};
      EXPECT_EQ(acs_v1_next_launch(r, 1, w, 1, ACS_EXACT), ACS_OK);
    }
    EXPECT_EQ(d.run(l), 0);
  }
  EXPECT_TRUE(d.s.matches_serial());
  std::vector<sim::op_span> out;
  for (const auto& l : ls) out.push_back(d.span(l));
  return out;
}

TEST_F(sim_graph, a_rule_gives_the_same_graph_as_per_launch_declarations) {
  const auto by_declaration = run_program(d, false);
  annotated_device fresh;
  ASSERT_EQ(acs_v1_register_kernel(function_handle(0), copy_rule, nullptr, ACS_EXACT), ACS_OK);
  const auto by_rule = run_program(fresh, true);
  EXPECT_EQ(acs_v1_register_kernel(function_handle(0), nullptr, nullptr, 0), ACS_OK);

  ASSERT_EQ(by_rule.size(), by_declaration.size());
  for (std::size_t i = 0; i < by_rule.size(); ++i) {
    EXPECT_EQ(by_rule[i].start, by_declaration[i].start) << "kernel " << i;
    EXPECT_EQ(by_rule[i].end, by_declaration[i].end) << "kernel " << i;
  }
  // The graph has both parallelism and chains, so the comparison means something.
  EXPECT_TRUE(sim::overlap(by_rule[0], by_rule[1]));
  EXPECT_TRUE(after(by_rule[2], by_rule[0]));
  EXPECT_TRUE(after(by_rule[3], by_rule[2]));
  EXPECT_TRUE(after(by_rule[4], by_rule[3]));
}

TEST_F(sim_graph, without_exact_an_undeclared_argument_keeps_its_allocation_ordered) {
  // The first kernel really reads `other` through its second argument, but its
  // declaration forgot it; the overwrite must still wait for it.
  auto reader = make(big, 8, other, {other});
  const sim::kernel& overwrite = s.make_kernel(long_kernel, {}, {other});
  const acs_range w[] = {cell_range(big, 8)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, w, 1, ACS_DEFAULT), ACS_OK);
  ASSERT_EQ(run(reader), 0);
  const acs_range ow[] = {cell_range(other, 1)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, ow, 1, ACS_EXACT), ACS_OK);
  launch last{&overwrite, function_handle(1), launch_args({address_of(other), address_of(other), 1})};
  ASSERT_EQ(run(last), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(after(span(last), span(reader)));
}

TEST_F(sim_graph, with_exact_an_undeclared_argument_adds_nothing) {
  // Same launches, but the first kernel never dereferences its second argument,
  // and says so with ACS_EXACT: the overwrite runs alongside.
  auto reader = make(big, 8, other, {});
  const sim::kernel& overwrite = s.make_kernel(long_kernel, {}, {other});
  const acs_range w[] = {cell_range(big, 8)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, w, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(reader), 0);
  const acs_range ow[] = {cell_range(other, 1)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, ow, 1, ACS_EXACT), ACS_OK);
  launch last{&overwrite, function_handle(1), launch_args({address_of(other), address_of(other), 1})};
  ASSERT_EQ(run(last), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(sim::overlap(span(last), span(reader)));
}

TEST_F(sim_graph, a_barrier_orders_the_next_launch_after_all_earlier_ones) {
  auto k1 = make(big, 8, small, {small});
  auto k2 = make(big + 8, 8, small + 1, {small + 1});
  const acs_range r1[] = {cell_range(small, 1)}, w1[] = {cell_range(big, 8)};
  const acs_range r2[] = {cell_range(small + 1, 1)}, w2[] = {cell_range(big + 8, 8)};
  ASSERT_EQ(acs_v1_next_launch(r1, 1, w1, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(k1), 0);
  ASSERT_EQ(acs_v1_barrier(), ACS_OK);
  ASSERT_EQ(acs_v1_next_launch(r2, 1, w2, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(k2), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(after(span(k2), span(k1))) << "independent by their ranges, ordered by the barrier";
}

TEST_F(sim_graph, a_null_range_orders_the_launch_after_and_before_everything) {
  auto k1 = make(big, 8, small, {small});
  auto k2 = make(big + 8, 8, small + 1, {small + 1});
  auto k3 = make(big + 16, 8, small + 2, {small + 2});
  const acs_range w1[] = {cell_range(big, 8)};
  const acs_range bad[] = {{nullptr, 8}};
  const acs_range w3[] = {cell_range(big + 16, 8)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, w1, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(k1), 0);
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, bad, 1, ACS_EXACT), ACS_INVALID);
  ASSERT_EQ(run(k2), 0);
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, w3, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(k3), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(after(span(k2), span(k1)));
  EXPECT_TRUE(after(span(k3), span(k2)));
}

TEST_F(sim_graph, inference_off_adds_nothing_to_a_non_exact_declaration) {
  annotations::override_options({.enabled = true, .infer_alloc = false, .check = false});
  auto reader = make(big, 8, other, {});
  const sim::kernel& overwrite = s.make_kernel(long_kernel, {}, {other});
  const acs_range w[] = {cell_range(big, 8)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, w, 1, ACS_DEFAULT), ACS_OK);
  ASSERT_EQ(run(reader), 0);
  const acs_range ow[] = {cell_range(other, 1)};
  ASSERT_EQ(acs_v1_next_launch(nullptr, 0, ow, 1, ACS_EXACT), ACS_OK);
  launch last{&overwrite, function_handle(1), launch_args({address_of(other), address_of(other), 1})};
  ASSERT_EQ(run(last), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(sim::overlap(span(last), span(reader)));
}

// ---- Declarations take precedence over what a kernel's code shows (docs/design.md §4) [pointer_table].

TEST_F(sim_graph, pointer_table_kernels_declared_disjoint_overlap_though_their_code_writes_anywhere) {
  // Both kernels write through pointers read from memory, as far as their PTX tells.
  for (int id : {2, 3}) d.view.layouts[function_handle(id)].writes_anywhere = true;
  for (int id : {2, 3}) d.view.layouts[function_handle(id)].code_read = true;
  d.options.code_required = true;
  auto first = d.make(big, 8, small, {small}, 2);
  auto second = d.make(other, 8, small + 1, {small + 1}, 3);
  const acs_range r1[] = {cell_range(small, 1)}, w1[] = {cell_range(big, 8)};
  const acs_range r2[] = {cell_range(small + 1, 1)}, w2[] = {cell_range(other, 8)};
  ASSERT_EQ(acs_v1_next_launch(r1, 1, w1, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(first), 0);
  ASSERT_EQ(acs_v1_next_launch(r2, 1, w2, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(second), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(sim::overlap(span(first), span(second)));
}

TEST_F(sim_graph, pointer_table_undeclared_kernels_that_write_anywhere_are_ordered) {
  for (int id : {2, 3}) d.view.layouts[function_handle(id)].writes_anywhere = true;
  for (int id : {2, 3}) d.view.layouts[function_handle(id)].code_read = true;
  auto first = d.make(big, 8, small, {small}, 2);
  auto second = d.make(other, 8, small + 1, {small + 1}, 3);
  ASSERT_EQ(run(first), 0);
  ASSERT_EQ(run(second), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(after(span(second), span(first)));
}

// ---- A tensor across the seam of two mapped chunks of one reservation (docs/design.md rule 10)
// [vmm_reservation]. Cells [0, 32) are a reservation; chunks [0, 16) and [16, 32) are mapped into it.

class sim_vmm_reservation : public sim_graph {
 protected:
  // A writer of cells 8..23 (its pointer argument in the first chunk) and a reader of cell 20
  // (its pointer in the second): they share only memory across the seam. Whether the run matched
  // serial execution, and whether the reader ran after the writer.
  std::pair<bool, bool> run_across_the_seam() {
    auto writer = make(big + 8, 16, small, {small});
    auto reader = make(other, 1, big + 20, {big + 20});
    EXPECT_EQ(run(writer), 0);
    EXPECT_EQ(run(reader), 0);
    const bool serial = static_cast<bool>(s.matches_serial());
    return {serial, after(span(reader), span(writer))};
  }
};

TEST_F(sim_vmm_reservation, kernels_across_the_seam_of_two_mapped_chunks_are_ordered) {
  d.view.allocations.reserve(address_of(big), 32);
  d.view.allocations.insert(address_of(big), 16);  // cuMemMap of each chunk
  d.view.allocations.insert(address_of(big + 16), 16);
  const auto [serial, ordered] = run_across_the_seam();
  EXPECT_TRUE(serial);
  EXPECT_TRUE(ordered);
}

TEST_F(sim_vmm_reservation, chunks_recorded_as_two_allocations_race_at_the_seam) {
  // What the reservation prevents: each mapping its own allocation, the two kernels independent.
  d.view.allocations.insert(address_of(big), 16);
  d.view.allocations.insert(address_of(big + 16), 16);
  const auto [serial, ordered] = run_across_the_seam();
  EXPECT_FALSE(serial);
  EXPECT_FALSE(ordered);
}

// ---- Results, then a flag, in pinned host memory that the host polls (docs/design.md rule 11)
// [host_mapped]. Cells [48, 56) and [56, 64) are two pinned host allocations.

class sim_host_mapped : public sim_graph {
 protected:
  sim_host_mapped() {
    d.view.allocations.insert(address_of(other), 8, memory_kind::host);
    d.view.allocations.insert(address_of(other + 8), 8, memory_kind::host);
  }
  // Results to host memory (reading `big`), then a flag to other host memory (reading `small`):
  // nothing shared, so only the host order can keep the flag after the results.
  bool flag_after_results() {
    auto results = make(other, 8, big, {big});
    auto flag = make(other + 8, 1, small, {small});
    EXPECT_EQ(run(results), 0);
    EXPECT_EQ(run(flag), 0);
    EXPECT_TRUE(s.matches_serial());
    return after(span(flag), span(results));
  }
};

TEST_F(sim_host_mapped, a_flag_set_after_results_in_host_memory_is_set_after_them) {
  d.options.order_host_mapped = true;  // ACS_HOST_MAPPED=ordered, the default
  EXPECT_TRUE(flag_after_results());
}

TEST_F(sim_host_mapped, with_host_mapped_free_they_run_side_by_side) {
  d.options.order_host_mapped = false;  // ACS_HOST_MAPPED=free
  EXPECT_FALSE(flag_after_results());
}

TEST_F(sim_host_mapped, declared_footprints_on_host_memory_keep_their_order_too) {
  d.options.order_host_mapped = true;
  auto results = make(other, 8, big, {big});
  auto flag = make(other + 8, 1, small, {small});
  const acs_range r1[] = {cell_range(big, 1)}, w1[] = {cell_range(other, 8)};
  const acs_range r2[] = {cell_range(small, 1)}, w2[] = {cell_range(other + 8, 1)};
  ASSERT_EQ(acs_v1_next_launch(r1, 1, w1, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(results), 0);
  ASSERT_EQ(acs_v1_next_launch(r2, 1, w2, 1, ACS_EXACT), ACS_OK);
  ASSERT_EQ(run(flag), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(after(span(flag), span(results)));
}

TEST_F(sim_host_mapped, kernels_on_device_memory_stay_free) {
  d.options.order_host_mapped = true;
  auto first = make(big, 8, big + 8, {big + 8});
  auto second = make(small, 8, small + 8, {small + 8});
  ASSERT_EQ(run(first), 0);
  ASSERT_EQ(run(second), 0);
  EXPECT_TRUE(s.matches_serial());
  EXPECT_TRUE(sim::overlap(span(first), span(second)));
}

}  // namespace
}  // namespace acs::testing
