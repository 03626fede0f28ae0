#pragma once
// Harness shared by the GPU benchmark programs (each program is one translation unit).
//
// A workload builds its GPU work once, as `op`s: one or a few kernel launches plus the
// whole buffers they read and write. Per rep it hands sequences of ops ("stages") to an
// executor, which runs a stage as one of the variants:
//   serial         every op in order on the legacy default stream: the unmodified program;
//   annotated      the same launches, each op's footprint given to acs through
//                  include/acs/acs.h: per launch (acs_next_launch), per scope
//                  (acs_scope_begin/end) or per kernel rule (acs_register_kernel);
//   oracle         hand-scheduled on a pool of streams, with an event wait for every true
//                  dependency and no other (perfect knowledge of the footprints);
//   graph          the oracle captured into a CUDA graph once per distinct stage, then
//                  replayed; instantiation is timed apart from replay;
//   graph_rebuild  the oracle captured and instantiated for every stage it runs: what an
//                  input-dependent DAG costs as a graph.
// Between stages a workload may copy results to the host and choose the next stage from
// them: that is where a DAG depends on its input.
//
// Every rep starts from the same state and its outputs are compared, bit for bit, with a
// reference: the serial variant run with a device synchronisation after every launch, so
// that no scheduler (acs included) can reorder it.
#include <acs/acs.h>
#include <cuda_runtime.h>

#include "oracle_plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace acs_bench {

// ---------------------------------------------------------------------------------------
// Errors: every CUDA call is checked; a failure prints where and exits non-zero.

[[noreturn]] inline void die(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  std::fputs("acs-bench: error: ", stderr);
  std::vfprintf(stderr, fmt, args);
  std::fputc('\n', stderr);
  va_end(args);
  std::exit(1);
}

[[noreturn]] inline void cuda_die(cudaError_t e, const char* what, const char* file, int line) {
  std::fprintf(stderr, "acs-bench: CUDA error %s (%s) from %s at %s:%d\n", cudaGetErrorName(e),
               cudaGetErrorString(e), what, file, line);
  std::exit(2);
}

#define ACS_BENCH_CHECK(expr)                                                  \
  do {                                                                         \
    cudaError_t acs_bench_e_ = (expr);                                         \
    if (acs_bench_e_ != cudaSuccess)                                           \
      ::acs_bench::cuda_die(acs_bench_e_, #expr, __FILE__, __LINE__);          \
  } while (0)

inline double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// ---------------------------------------------------------------------------------------
// Device helpers used by the harness and by every workload.

__device__ __forceinline__ unsigned hash32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// Busy-waits `cycles` SM clock cycles: sets a kernel's length without changing its result.
__device__ __forceinline__ void spin_cycles(long long cycles) {
  if (cycles <= 0) return;
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

__global__ void fill_uniform_kernel(float* __restrict__ p, long long n, unsigned seed, float lo,
                                    float hi) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const unsigned h = hash32(seed * 0x9e3779b9u ^ hash32((unsigned)i) ^ (unsigned)(i >> 32));
    p[i] = lo + (hi - lo) * ((float)(h >> 8) * (1.0f / 16777216.0f));
  }
}

__global__ void spin_kernel(long long cycles) { spin_cycles(cycles); }

// Keeps the GPU busy for `ns` of wall time so that its clocks are up before timing.
__global__ void warm_kernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

inline int blocks_for(long long n, int threads = 128) {
  return (int)std::max<long long>(1, (n + threads - 1) / threads);
}

// "name3" or "name3.1": buffer and op names.
inline std::string label(const char* prefix, int i, int j = -1) {
  char buf[96];
  if (j < 0) std::snprintf(buf, sizeof buf, "%s%d", prefix, i);
  else std::snprintf(buf, sizeof buf, "%s%d.%d", prefix, i, j);
  return buf;
}

// ---------------------------------------------------------------------------------------
// Command line: `--key value`, `--key=value` or a bare flag. Workloads read their own keys;
// a key nobody reads is an error (a typo must not silently change a benchmark).

class options {
 public:
  void set(const std::string& key, const std::string& value) { values_[key] = {value, false}; }
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  std::string str(const std::string& key, const std::string& fallback) {
    auto it = values_.find(key);
    if (it == values_.end()) return fallback;
    it->second.used = true;
    return it->second.value;
  }
  long long integer(const std::string& key, long long fallback) {
    const std::string v = str(key, "");
    if (v.empty()) return fallback;
    char* end = nullptr;
    const long long r = std::strtoll(v.c_str(), &end, 10);
    if (*end != '\0') die("--%s expects an integer, got '%s'", key.c_str(), v.c_str());
    return r;
  }
  double real(const std::string& key, double fallback) {
    const std::string v = str(key, "");
    if (v.empty()) return fallback;
    char* end = nullptr;
    const double r = std::strtod(v.c_str(), &end);
    if (*end != '\0') die("--%s expects a number, got '%s'", key.c_str(), v.c_str());
    return r;
  }
  bool flag(const std::string& key) {
    const std::string v = str(key, "0");
    return v == "1" || v == "true" || v == "yes";
  }
  void check_all_used() const {
    for (const auto& [key, entry] : values_)
      if (!entry.used) die("unknown option --%s (see --help)", key.c_str());
  }

 private:
  struct entry {
    std::string value;
    bool used = false;
  };
  std::map<std::string, entry> values_;
};

// Set once at start-up: SM cycles per microsecond (for spin lengths), and whether --quick.
struct globals {
  double cycles_per_us = 0;
  bool quick = false;
};
inline globals& global() {
  static globals g;
  return g;
}

// ---------------------------------------------------------------------------------------
// Device buffers: each its own cudaMalloc, as a plain CUDA program allocates its arrays
// (acs's ACS_INFER=alloc maps a pointer argument to the allocation that holds it, so
// separate allocations are what lets inference tell independent kernels apart).

class buffers {
 public:
  buffers() = default;
  buffers(const buffers&) = delete;
  buffers& operator=(const buffers&) = delete;
  ~buffers() {
    for (auto& b : bufs_) (void)cudaFree(b.ptr);  // teardown: errors do not matter here
  }

  // A float buffer of n elements filled with uniform values in [lo, hi]. A `state` buffer is
  // refilled before every rep; the others (weights, inputs) only once.
  float* make(const std::string& name, size_t n, float lo, float hi, bool state) {
    if (sealed_) die("buffer %s made after setup: it would never be initialised", name.c_str());
    float* p = nullptr;
    ACS_BENCH_CHECK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(float)));
    index_[p] = (int)bufs_.size();
    bufs_.push_back({p, n, lo, hi, (unsigned)bufs_.size() + 1, state, name});
    bytes_ += n * sizeof(float);
    return p;
  }
  float* state(const std::string& name, size_t n, float lo = 0, float hi = 0) {
    return make(name, n, lo, hi, true);
  }
  float* constant(const std::string& name, size_t n, float lo, float hi) {
    return make(name, n, lo, hi, false);
  }

  // After setup: no more buffers (they would miss the initial fill).
  void seal() { sealed_ = true; }

  void fill(cudaStream_t s, bool state_only) {
    for (const auto& b : bufs_) {
      if (state_only && !b.state) continue;
      fill_uniform_kernel<<<std::min(blocks_for((long long)b.n, 256), 1024), 256, 0, s>>>(
          b.ptr, (long long)b.n, b.seed, b.lo, b.hi);
      ACS_BENCH_CHECK(cudaGetLastError());
    }
  }

  // Index of a whole buffer; the oracle tracks dependencies per buffer.
  int id_of(const void* p) const {
    auto it = index_.find(p);
    if (it == index_.end()) die("a declared range does not start a buffer of this workload");
    return it->second;
  }
  size_t bytes_of(const void* p) const { return bufs_[(size_t)id_of(p)].n * sizeof(float); }
  size_t count() const { return bufs_.size(); }
  size_t total_bytes() const { return bytes_; }

 private:
  struct buf {
    float* ptr;
    size_t n;
    float lo, hi;
    unsigned seed;
    bool state;
    std::string name;
  };
  std::vector<buf> bufs_;
  std::unordered_map<const void*, int> index_;
  size_t bytes_ = 0;
  bool sealed_ = false;
};

// ---------------------------------------------------------------------------------------
// Launching. Workloads launch with ACS_BENCH_LAUNCH so that every launch is checked and,
// in the reference pass, serialised and timed on its own.

class launcher {
 public:
  cudaStream_t stream() const { return stream_; }
  void before() {
    if (profile_) profile_before();
  }
  void after(const char* kernel) {
    ++launches_;
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) cuda_die(e, kernel, __FILE__, __LINE__);
    if (profile_) profile_after();
  }

 private:
  friend class executor;
  // A blocker kernel first, so that the GPU is busy while the host enqueues the timed
  // launch: the event pair then measures the kernel, not the host's launch time.
  void profile_before() {
    spin_kernel<<<1, 32, 0, stream_>>>(blocker_cycles_);
    ACS_BENCH_CHECK(cudaGetLastError());
    ACS_BENCH_CHECK(cudaEventRecord(a_, stream_));
  }
  void profile_after() {
    ACS_BENCH_CHECK(cudaEventRecord(b_, stream_));
    ACS_BENCH_CHECK(cudaDeviceSynchronize());
    float ms = 0;
    ACS_BENCH_CHECK(cudaEventElapsedTime(&ms, a_, b_));
    kernel_ms_.push_back(ms);
  }

  cudaStream_t stream_ = nullptr;
  bool profile_ = false;
  long long launches_ = 0;
  long long blocker_cycles_ = 0;
  cudaEvent_t a_ = nullptr, b_ = nullptr;
  std::vector<float> kernel_ms_;
};

#define ACS_BENCH_LAUNCH(L, kernel, grid, block, ...)                     \
  do {                                                                    \
    (L).before();                                                         \
    kernel<<<(grid), (block), 0, (L).stream()>>>(__VA_ARGS__);           \
    (L).after(#kernel);                                                   \
  } while (0)

// How the annotated variant hands an op's footprint to acs.
enum class annot : std::uint8_t {
  next_launch,  // acs_next_launch before its single launch
  scope,        // acs_scope_begin / acs_scope_end around its launches (one acs task)
  rule,         // nothing at the call site: a rule registered for the kernel derives it
};

// One unit of GPU work: built once, run any number of times.
struct op {
  std::string name;
  std::function<void(launcher&)> launch;
  std::vector<acs_range> reads, writes;  // whole buffers; a buffer both read and written is in both
  std::vector<int> read_ids, write_ids;  // the same buffers, as indices for the oracle
  int lane = -1;                         // the oracle's stream for it; -1: chosen on the fly
  annot how = annot::next_launch;
};
using stage = std::vector<const op*>;

// Registers a footprint rule for a kernel (the ACS paper's get_addresses), under both
// handles a launch of it may present to acs: the CUfunction and the CUkernel.
inline void register_rule(const void* kernel_symbol, acs_kernel_rule rule, const char* name) {
  cudaFunction_t fn = nullptr;
  cudaKernel_t kernel = nullptr;
  ACS_BENCH_CHECK(cudaGetFuncBySymbol(&fn, kernel_symbol));
  ACS_BENCH_CHECK(cudaGetKernel(&kernel, kernel_symbol));
  for (const void* handle : {reinterpret_cast<const void*>(fn), reinterpret_cast<const void*>(kernel)}) {
    const acs_status st = acs_register_kernel(handle, rule, nullptr, ACS_EXACT);
    if (st != ACS_OK && st != ACS_NOT_LOADED)
      std::fprintf(stderr, "acs-bench: warning: acs_register_kernel(%s) returned %d\n", name,
                   (int)st);
  }
}

// ---------------------------------------------------------------------------------------
// Variants.

enum class variant : std::uint8_t { serial, annotated, oracle, graph, graph_rebuild };

inline const char* name_of(variant v) {
  switch (v) {
    case variant::serial: return "serial";
    case variant::annotated: return "annotated";
    case variant::oracle: return "oracle";
    case variant::graph: return "graph";
    case variant::graph_rebuild: return "graph_rebuild";
  }
  return "?";
}

class executor {
 public:
  explicit executor(int n_streams) : n_streams_(std::max(1, n_streams)) {
    ACS_BENCH_CHECK(cudaEventCreate(&launcher_.a_));
    ACS_BENCH_CHECK(cudaEventCreate(&launcher_.b_));
  }
  executor(const executor&) = delete;
  executor& operator=(const executor&) = delete;
  ~executor() {
    // Teardown: the process is about to exit, errors do not matter.
    for (auto& [key, list] : graphs_)
      for (auto& g : list) (void)cudaGraphExecDestroy(g.exec);
    for (cudaEvent_t e : task_events_) (void)cudaEventDestroy(e);
    for (cudaEvent_t e : join_events_) (void)cudaEventDestroy(e);
    if (fork_event_) (void)cudaEventDestroy(fork_event_);
    for (cudaStream_t s : streams_) (void)cudaStreamDestroy(s);
    if (capture_stream_) (void)cudaStreamDestroy(capture_stream_);
    if (profile_stream_) (void)cudaStreamDestroy(profile_stream_);
    (void)cudaEventDestroy(launcher_.a_);
    (void)cudaEventDestroy(launcher_.b_);
  }

  // The program's own stream: the legacy default stream, as in a plain CUDA program.
  static cudaStream_t main_stream() { return nullptr; }

  void set_variant(variant v, bool reference) {
    variant_ = v;
    launcher_.profile_ = reference;
    // The reference pass runs on a stream of its own (blocking: ordered with the legacy stream
    // as the program's own work is). It launches a blocker and a sync around every kernel, and
    // under the preload acs would learn that serialised pattern on the program's stream and
    // step aside from it (docs/design.md, "Never slower"), measuring a phase the program lacks.
    if (reference && profile_stream_ == nullptr) ACS_BENCH_CHECK(cudaStreamCreate(&profile_stream_));
    launcher_.blocker_cycles_ = (long long)(30.0 * std::max(global().cycles_per_us, 100.0));
  }

  void run(const stage& s) {
    switch (variant_) {
      case variant::serial: run_serial(s); break;
      case variant::annotated: run_annotated(s); break;
      case variant::oracle: run_oracle(s, main_stream()); break;
      case variant::graph: run_graph(s, true); break;
      case variant::graph_rebuild: run_graph(s, false); break;
    }
  }

  // A synchronising copy to the host: the point where the workload looks at its data.
  void readback(void* host, const void* device, size_t bytes) {
    ACS_BENCH_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, main_stream()));
    ACS_BENCH_CHECK(cudaStreamSynchronize(main_stream()));
  }

  long long launches() const { return launcher_.launches_; }
  void reset_counters() {
    launcher_.launches_ = 0;
    launcher_.kernel_ms_.clear();
    graphs_built_ = 0;
    capture_us_ = instantiate_us_ = 0;
  }
  const std::vector<float>& kernel_ms() const { return launcher_.kernel_ms_; }
  long long graphs_built() const { return graphs_built_; }
  double capture_us() const { return capture_us_; }
  double instantiate_us() const { return instantiate_us_; }

 private:
  void run_serial(const stage& s) {
    launcher_.stream_ = launcher_.profile_ ? profile_stream_ : main_stream();
    for (const op* o : s) o->launch(launcher_);
  }

  // The three annotation styles of include/acs/acs.h. Without the preload each call is a
  // no-op returning ACS_NOT_LOADED.
  void run_annotated(const stage& s) {
    launcher_.stream_ = main_stream();
    for (const op* o : s) {
      switch (o->how) {
        case annot::next_launch:
          note(acs_next_launch(o->reads.data(), o->reads.size(), o->writes.data(),
                               o->writes.size(), ACS_EXACT),
               "acs_next_launch");
          o->launch(launcher_);
          break;
        case annot::scope:
          note(acs_scope_begin(o->reads.data(), o->reads.size(), o->writes.data(),
                               o->writes.size(), ACS_EXACT),
               "acs_scope_begin");
          o->launch(launcher_);
          note(acs_scope_end(), "acs_scope_end");
          break;
        case annot::rule: o->launch(launcher_); break;
      }
    }
  }

  void note(acs_status st, const char* call) {
    if (st == ACS_OK || st == ACS_NOT_LOADED || warned_) return;
    warned_ = true;
    std::fprintf(stderr, "acs-bench: warning: %s returned %d (reported once)\n", call, (int)st);
  }

  void ensure_streams() {
    if (!streams_.empty()) return;
    streams_.resize((size_t)n_streams_);
    for (auto& st : streams_) ACS_BENCH_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    ACS_BENCH_CHECK(cudaStreamCreateWithFlags(&capture_stream_, cudaStreamNonBlocking));
    ACS_BENCH_CHECK(cudaEventCreateWithFlags(&fork_event_, cudaEventDisableTiming));
    join_events_.resize((size_t)n_streams_);
    for (auto& e : join_events_) ACS_BENCH_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }

  // Runs a stage on the stream pool as oracle_plan schedules it, forked from and joined back
  // into `origin`.
  void run_oracle(const stage& s, cudaStream_t origin) {
    ensure_streams();
    plan_inputs_.clear();
    for (const op* o : s) plan_inputs_.push_back({&o->read_ids, &o->write_ids, o->lane});
    plan_.build(plan_inputs_, n_streams_);
    const auto& steps = plan_.steps();
    const auto& waits = plan_.waits();
    const size_t n = s.size();
    while (task_events_.size() < n) {
      cudaEvent_t e = nullptr;
      ACS_BENCH_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      task_events_.push_back(e);
    }
    forked_.assign(streams_.size(), 0);
    ACS_BENCH_CHECK(cudaEventRecord(fork_event_, origin));
    for (size_t i = 0; i < n; ++i) {
      const size_t si = (size_t)steps[i].stream;
      cudaStream_t st = streams_[si];
      if (steps[i].first_on_stream) {
        ACS_BENCH_CHECK(cudaStreamWaitEvent(st, fork_event_, 0));
        forked_[si] = 1;
      }
      for (size_t k = steps[i].wait_begin; k < steps[i].wait_end; ++k)
        ACS_BENCH_CHECK(cudaStreamWaitEvent(st, task_events_[(size_t)waits[k]], 0));
      launcher_.stream_ = st;
      s[i]->launch(launcher_);
      if (steps[i].record) ACS_BENCH_CHECK(cudaEventRecord(task_events_[i], st));
    }
    for (size_t si = 0; si < streams_.size(); ++si) {
      if (!forked_[si]) continue;
      ACS_BENCH_CHECK(cudaEventRecord(join_events_[si], streams_[si]));
      ACS_BENCH_CHECK(cudaStreamWaitEvent(origin, join_events_[si], 0));
    }
  }

  struct cached_graph {
    stage ops;
    cudaGraphExec_t exec;
  };

  cudaGraphExec_t build_graph(const stage& s) {
    ensure_streams();
    const double t0 = now_us();
    ACS_BENCH_CHECK(cudaStreamBeginCapture(capture_stream_, cudaStreamCaptureModeThreadLocal));
    run_oracle(s, capture_stream_);
    cudaGraph_t g = nullptr;
    ACS_BENCH_CHECK(cudaStreamEndCapture(capture_stream_, &g));
    const double t1 = now_us();
    cudaGraphExec_t exec = nullptr;
    ACS_BENCH_CHECK(cudaGraphInstantiate(&exec, g, 0));
    const double t2 = now_us();
    ACS_BENCH_CHECK(cudaGraphDestroy(g));
    ++graphs_built_;
    capture_us_ += t1 - t0;
    instantiate_us_ += t2 - t1;
    return exec;
  }

  void run_graph(const stage& s, bool cached) {
    if (!cached) {
      cudaGraphExec_t exec = build_graph(s);
      ACS_BENCH_CHECK(cudaGraphLaunch(exec, main_stream()));
      ACS_BENCH_CHECK(cudaGraphExecDestroy(exec));  // freed once the launch completes
      return;
    }
    std::uint64_t key = 1469598103934665603ull;
    for (const op* o : s) key = (key ^ reinterpret_cast<std::uintptr_t>(o)) * 1099511628211ull;
    auto& list = graphs_[key];
    for (const auto& g : list) {
      if (g.ops == s) {
        ACS_BENCH_CHECK(cudaGraphLaunch(g.exec, main_stream()));
        return;
      }
    }
    list.push_back({s, build_graph(s)});
    ACS_BENCH_CHECK(cudaGraphLaunch(list.back().exec, main_stream()));
  }

  const int n_streams_;
  variant variant_ = variant::serial;
  launcher launcher_;
  bool warned_ = false;

  // oracle
  std::vector<cudaStream_t> streams_;
  cudaStream_t capture_stream_ = nullptr;
  cudaStream_t profile_stream_ = nullptr;  // the reference pass's (set_variant)
  cudaEvent_t fork_event_ = nullptr;
  std::vector<cudaEvent_t> join_events_, task_events_;
  std::vector<plan_input> plan_inputs_;
  oracle_plan plan_;
  std::vector<char> forked_;

  // graphs
  std::unordered_map<std::uint64_t, std::vector<cached_graph>> graphs_;
  long long graphs_built_ = 0;
  double capture_us_ = 0, instantiate_us_ = 0;
};

// ---------------------------------------------------------------------------------------
// Workloads.

class workload {
 public:
  virtual ~workload() = default;
  // Allocates buffers and builds ops. Buffers are filled by the harness afterwards.
  virtual void setup() = 0;
  // One rep: every stage of every input, with the readbacks between them.
  virtual void run(executor& ex) = 0;
  // What is compared bit for bit after each rep.
  virtual std::vector<acs_range> outputs() const = 0;
  // Parameters, for the CSV (e.g. "nodes=128 width=8").
  virtual std::string describe() const = 0;
  // Registers kernel rules for the annotated variant (annot::rule ops).
  virtual void register_rules() {}
  // Whether the DAG depends on the data (then graph_rebuild is measured too).
  virtual bool dynamic() const { return false; }

  buffers& mem() { return mem_; }

 protected:
  // An op over whole buffers of this workload. A buffer both read and written goes in both.
  op& add_op(std::string name, std::initializer_list<const float*> reads,
             std::initializer_list<const float*> writes, int lane, annot how,
             std::function<void(launcher&)> fn) {
    return add_op(std::move(name), std::vector<const float*>(reads),
                  std::vector<const float*>(writes), lane, how, std::move(fn));
  }
  op& add_op(std::string name, const std::vector<const float*>& reads,
             const std::vector<const float*>& writes, int lane, annot how,
             std::function<void(launcher&)> fn) {
    auto o = std::make_unique<op>();
    o->name = std::move(name);
    o->launch = std::move(fn);
    o->lane = lane;
    o->how = how;
    for (const float* p : reads) {
      if (!p) continue;
      o->reads.push_back({p, mem_.bytes_of(p)});
      o->read_ids.push_back(mem_.id_of(p));
    }
    for (const float* p : writes) {
      if (!p) continue;
      o->writes.push_back({p, mem_.bytes_of(p)});
      o->write_ids.push_back(mem_.id_of(p));
    }
    ops_.push_back(std::move(o));
    return *ops_.back();
  }

  buffers mem_;
  std::vector<std::unique_ptr<op>> ops_;
};

// ---------------------------------------------------------------------------------------
// The program: parse, measure, check, report.

struct workload_entry {
  const char* name;
  const char* about;
  std::function<std::unique_ptr<workload>(options&)> make;
};

inline std::string cudart_kind() {
  // Which runtime this binary uses: the same source is linked both ways.
  std::FILE* f = std::fopen("/proc/self/maps", "r");
  if (!f) return "unknown";
  char line[1024];
  bool shared = false;
  while (std::fgets(line, sizeof line, f))
    if (std::strstr(line, "libcudart.so")) shared = true;
  std::fclose(f);
  return shared ? "shared" : "static";
}

inline double measure_cycles_per_us() {
  cudaEvent_t a, b;
  ACS_BENCH_CHECK(cudaEventCreate(&a));
  ACS_BENCH_CHECK(cudaEventCreate(&b));
  auto time_spin = [&](long long cycles) {
    ACS_BENCH_CHECK(cudaEventRecord(a, nullptr));
    spin_kernel<<<1, 32>>>(cycles);
    ACS_BENCH_CHECK(cudaGetLastError());
    ACS_BENCH_CHECK(cudaEventRecord(b, nullptr));
    ACS_BENCH_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    ACS_BENCH_CHECK(cudaEventElapsedTime(&ms, a, b));
    return (double)ms * 1000.0;
  };
  // The difference of two lengths cancels the launch's fixed cost; best of three each.
  const long long c1 = 400000, c2 = 2400000;
  double t1 = 1e30, t2 = 1e30;
  for (int i = 0; i < 3; ++i) {
    t1 = std::min(t1, time_spin(c1));
    t2 = std::min(t2, time_spin(c2));
  }
  ACS_BENCH_CHECK(cudaEventDestroy(a));
  ACS_BENCH_CHECK(cudaEventDestroy(b));
  if (t2 <= t1) die("clock calibration failed (%.1f us, %.1f us)", t1, t2);
  return (double)(c2 - c1) / (t2 - t1);
}

struct outcome {
  std::vector<double> gpu_ms, host_ms, issue_ms;
  bool match = true;
  std::string checksum;
};

inline std::string fnv_hex(const std::vector<unsigned char>& bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
  return buf;
}

inline std::vector<unsigned char> read_outputs(workload& w) {
  std::vector<unsigned char> bytes;
  for (const acs_range& r : w.outputs()) {
    const size_t at = bytes.size();
    bytes.resize(at + r.bytes);
    ACS_BENCH_CHECK(cudaMemcpy(bytes.data() + at, r.ptr, r.bytes, cudaMemcpyDeviceToHost));
  }
  return bytes;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

struct run_config {
  int reps = 5;
  int warmup = 1;
};

// One rep's times, ms: on the GPU (between two events), on the host (until the sync returned), and
// the host's issuing alone (until the workload's last call returned): issue close to gpu means the
// launch rate bounds the rep, issue far below it that the GPU does.
struct rep_times {
  double gpu, host, issue;
};

// One rep from the initial state: reset (untimed), then run between two CUDA events on the
// program's stream.
inline rep_times timed_rep(workload& w, executor& ex, cudaEvent_t start, cudaEvent_t stop) {
  w.mem().fill(executor::main_stream(), true);
  ACS_BENCH_CHECK(cudaDeviceSynchronize());
  const double h0 = now_us();
  ACS_BENCH_CHECK(cudaEventRecord(start, executor::main_stream()));
  w.run(ex);
  const double issued = now_us();
  ACS_BENCH_CHECK(cudaEventRecord(stop, executor::main_stream()));
  ACS_BENCH_CHECK(cudaEventSynchronize(stop));
  const double h1 = now_us();
  float ms = 0;
  ACS_BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return {(double)ms, (h1 - h0) / 1000.0, (issued - h0) / 1000.0};
}

// Bit-for-bit comparison; prints the first difference.
inline bool same_bytes(const std::vector<unsigned char>& ref, const std::vector<unsigned char>& got,
                       const char* what) {
  if (ref.size() == got.size() && std::memcmp(ref.data(), got.data(), ref.size()) == 0) return true;
  size_t i = 0;
  while (i < std::min(ref.size(), got.size()) && ref[i] == got[i]) ++i;
  const size_t f = i / sizeof(float);
  float a = 0, b = 0;
  if ((f + 1) * sizeof(float) <= std::min(ref.size(), got.size())) {
    std::memcpy(&a, ref.data() + f * sizeof(float), sizeof(float));
    std::memcpy(&b, got.data() + f * sizeof(float), sizeof(float));
  }
  size_t diff = 0;
  for (size_t k = 0; k + sizeof(float) <= std::min(ref.size(), got.size()); k += sizeof(float))
    if (std::memcmp(ref.data() + k, got.data() + k, sizeof(float)) != 0) ++diff;
  std::fprintf(stderr,
               "acs-bench: MISMATCH in %s: %zu of %zu floats differ; first at float %zu: "
               "reference %.9g, got %.9g\n",
               what, diff, ref.size() / sizeof(float), f, (double)a, (double)b);
  return false;
}

struct reference_info {
  std::vector<unsigned char> bytes;
  long long kernels = 0;
  double kernel_us_mean = 0, kernel_us_median = 0, kernel_us_min = 0, kernel_us_max = 0;
};

// The serial program with a device synchronisation after every launch; each launch timed.
inline reference_info reference_pass(workload& w, executor& ex) {
  reference_info info;
  w.mem().fill(executor::main_stream(), true);
  ACS_BENCH_CHECK(cudaDeviceSynchronize());
  ex.set_variant(variant::serial, true);
  ex.reset_counters();
  w.run(ex);
  ACS_BENCH_CHECK(cudaDeviceSynchronize());
  info.kernels = ex.launches();
  std::vector<double> us;
  for (float ms : ex.kernel_ms()) us.push_back(ms * 1000.0);
  double sum = 0;
  for (double u : us) sum += u;
  info.kernel_us_mean = us.empty() ? 0 : sum / (double)us.size();
  info.kernel_us_median = median(us);
  if (!us.empty()) {
    info.kernel_us_min = *std::min_element(us.begin(), us.end());
    info.kernel_us_max = *std::max_element(us.begin(), us.end());
  }
  info.bytes = read_outputs(w);
  // An all-zero or non-finite output would make the comparison meaningless.
  size_t good = 0;
  const size_t n = info.bytes.size() / sizeof(float);
  for (size_t i = 0; i < n; ++i) {
    float v;
    std::memcpy(&v, info.bytes.data() + i * sizeof(float), sizeof v);
    if (std::isfinite(v) && v != 0.0f) ++good;
  }
  if (n == 0 || good * 10 < n)
    die("degenerate reference output: %zu of %zu floats finite and non-zero", good, n);
  ex.set_variant(variant::serial, false);
  return info;
}

inline void print_help(const char* prog, const std::vector<workload_entry>& entries) {
  std::printf(
      "usage: %s --workload NAME [options] [workload options]\n"
      "  --variants LIST     comma list of serial,annotated,oracle,graph (default: all);\n"
      "                      graph also measures graph_rebuild for input-dependent DAGs\n"
      "  --reps N            timed reps per variant, median reported (default 5)\n"
      "  --warmup N          untimed reps first (default 1)\n"
      "  --quick             small sizes and 2 reps: a smoke run\n"
      "  --csv FILE          append result rows to FILE (header if new)\n"
      "  --mode NAME         label for the CSV (plain, acs_infer, acs_annot, ...)\n"
      "  --config NAME       configuration name for the CSV (default FAMILY-WORKLOAD)\n"
      "  --streams N         oracle/graph stream pool (default 32)\n"
      "  --cycles-per-us X   SM clock for spin kernels (default: measured)\n"
      "  --warm-ms N         GPU warm-up before measuring (default 100)\n"
      "  --print-clock       print the measured SM cycles per microsecond and exit\n"
      "  --calibrate-us T    print the --work giving a mean kernel of T us and exit\n"
      "                      (workloads with a --work option)\n"
      "  --list              list workloads\n"
      "Exit: 0 ok, 1 output mismatch or bad input, 2 CUDA error, 77 no GPU.\n"
      "workloads:\n",
      prog);
  for (const auto& e : entries) std::printf("  %-12s %s\n", e.name, e.about);
}

inline std::vector<variant> parse_variants(const std::string& list) {
  std::vector<variant> out;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const std::string v = list.substr(at, comma - at);
    if (v == "serial") out.push_back(variant::serial);
    else if (v == "annotated") out.push_back(variant::annotated);
    else if (v == "oracle") out.push_back(variant::oracle);
    else if (v == "graph") out.push_back(variant::graph);
    else if (v == "graph_rebuild") out.push_back(variant::graph_rebuild);
    else if (!v.empty()) die("unknown variant '%s'", v.c_str());
    at = comma + 1;
  }
  if (out.empty()) die("--variants is empty");
  return out;
}

inline std::string csv_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

inline int run_main(int argc, char** argv, const char* family,
                    const std::vector<workload_entry>& entries) {
  // The oracle and the graph get the 32 hardware queues acs asks for (docs/design.md §7).
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);

  options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) die("unexpected argument '%s'", a.c_str());
    a = a.substr(2);
    const size_t eq = a.find('=');
    if (eq != std::string::npos) {
      opt.set(a.substr(0, eq), a.substr(eq + 1));
    } else if (a == "quick" || a == "list" || a == "help" || a == "print-clock") {
      opt.set(a, "1");
    } else {
      if (i + 1 >= argc) die("--%s needs a value", a.c_str());
      opt.set(a, argv[++i]);
    }
  }
  if (opt.flag("help") || opt.flag("list")) {
    print_help(argv[0], entries);
    return 0;
  }
  global().quick = opt.flag("quick");
  run_config rc;
  rc.reps = (int)opt.integer("reps", global().quick ? 2 : 5);
  rc.warmup = (int)opt.integer("warmup", 1);
  if (rc.reps < 1 || rc.warmup < 0) die("--reps must be >= 1 and --warmup >= 0");
  const std::string csv = opt.str("csv", "");
  const std::string mode = opt.str("mode", "plain");
  const std::string config = opt.str("config", "");
  const int n_streams = (int)opt.integer("streams", 32);
  const double warm_ms = opt.real("warm-ms", 100);
  const bool print_clock = opt.flag("print-clock");
  const double calibrate_us = opt.real("calibrate-us", 0);
  std::vector<variant> variants = parse_variants(opt.str("variants", "serial,annotated,oracle,graph"));

  const std::string name = opt.str("workload", print_clock ? "-" : "");
  const workload_entry* entry = nullptr;
  for (const auto& e : entries)
    if (name == e.name) entry = &e;
  if (!entry && !print_clock) die("--workload must be one of the workloads listed by --list");

  int devices = 0;
  const cudaError_t de = cudaGetDeviceCount(&devices);
  if (de != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "acs-bench: no CUDA device (%s): skipped\n",
                 de != cudaSuccess ? cudaGetErrorString(de) : "none found");
    return 77;
  }
  ACS_BENCH_CHECK(cudaSetDevice(0));
  ACS_BENCH_CHECK(cudaFree(nullptr));
  if (warm_ms > 0) {
    warm_kernel<<<264, 128>>>((unsigned long long)(warm_ms * 1e6));
    ACS_BENCH_CHECK(cudaGetLastError());
    ACS_BENCH_CHECK(cudaDeviceSynchronize());
  }
  global().cycles_per_us = opt.real("cycles-per-us", 0);
  if (global().cycles_per_us <= 0) global().cycles_per_us = measure_cycles_per_us();
  if (print_clock) {
    opt.check_all_used();
    std::printf("%.1f\n", global().cycles_per_us);
    return 0;
  }

  executor ex(n_streams);

  if (calibrate_us > 0) {
    // Mean kernel time is affine in --work: two points, then one check.
    auto measure = [&](long long work) {
      options o = opt;
      o.set("work", std::to_string(work));
      auto w = entry->make(o);
      o.check_all_used();
      w->setup();
      w->mem().seal();
      w->mem().fill(executor::main_stream(), false);
      return reference_pass(*w, ex).kernel_us_mean;
    };
    const long long w0 = 4, w1 = 64;
    const double k0 = measure(w0), k1 = measure(w1);
    const double slope = (k1 - k0) / (double)(w1 - w0);
    long long work = slope > 0 ? std::llround((double)w0 + (calibrate_us - k0) / slope) : 1;
    work = std::clamp<long long>(work, 1, 1000000);
    const double got = measure(work);
    std::fprintf(stderr, "acs-bench: calibrate %s: work %lld -> %.2f us, %lld -> %.2f us; work=%lld gives %.2f us\n",
                 name.c_str(), w0, k0, w1, k1, work, got);
    std::printf("%lld\n", work);
    return 0;
  }

  std::unique_ptr<workload> w = entry->make(opt);
  opt.check_all_used();
  w->setup();
  w->mem().seal();
  w->mem().fill(executor::main_stream(), false);
  ACS_BENCH_CHECK(cudaDeviceSynchronize());

  const reference_info ref = reference_pass(*w, ex);
  const std::string ref_sum = fnv_hex(ref.bytes);
  const std::string params = w->describe();
  const std::string cudart = cudart_kind();
  std::fprintf(stderr,
               "acs-bench: %s/%s [%s] cudart=%s mode=%s: %lld kernels per rep, kernel %.2f us "
               "mean (median %.2f, min %.2f, max %.2f), %zu buffers %.1f MB, reference checksum %s\n",
               family, name.c_str(), params.c_str(), cudart.c_str(), mode.c_str(), ref.kernels,
               ref.kernel_us_mean, ref.kernel_us_median, ref.kernel_us_min, ref.kernel_us_max,
               w->mem().count(),
               (double)w->mem().total_bytes() / 1e6, ref_sum.c_str());

  if (std::find(variants.begin(), variants.end(), variant::graph) != variants.end() &&
      w->dynamic() &&
      std::find(variants.begin(), variants.end(), variant::graph_rebuild) == variants.end())
    variants.push_back(variant::graph_rebuild);

  std::FILE* out = nullptr;
  if (!csv.empty()) {
    out = std::fopen(csv.c_str(), "a+");
    if (!out) die("cannot open %s", csv.c_str());
    std::fseek(out, 0, SEEK_END);
    if (std::ftell(out) == 0)
      std::fprintf(out,
                   "config,family,workload,params,cudart,mode,variant,kernels,kernel_us,reps,median_ms,"
                   "min_ms,max_ms,host_ms,graphs,capture_us,instantiate_us,checksum,check\n");
  }

  cudaEvent_t start, stop;
  ACS_BENCH_CHECK(cudaEventCreate(&start));
  ACS_BENCH_CHECK(cudaEventCreate(&stop));
  bool all_match = true;
  bool rules_registered = false;
  double serial_ms = 0;
  for (variant v : variants) {
    if (v == variant::annotated && !rules_registered) {
      w->register_rules();
      rules_registered = true;
    }
    ex.set_variant(v, false);
    outcome oc;
    oc.checksum = ref_sum;
    long long graphs = 0;
    double capture = 0, instantiate = 0;
    for (int r = -rc.warmup; r < rc.reps; ++r) {
      ex.reset_counters();
      const auto [gpu, host, issue] = timed_rep(*w, ex, start, stop);
      const std::vector<unsigned char> got = read_outputs(*w);
      if (!same_bytes(ref.bytes, got, name_of(v))) {
        oc.match = false;
        oc.checksum = fnv_hex(got);
      }
      if (ex.graphs_built() > 0) {
        graphs = ex.graphs_built();
        capture = ex.capture_us() / (double)graphs;
        instantiate = ex.instantiate_us() / (double)graphs;
      }
      if (r < 0) continue;
      oc.gpu_ms.push_back(gpu);
      oc.host_ms.push_back(host);
      oc.issue_ms.push_back(issue);
    }
    all_match = all_match && oc.match;
    const double med = median(oc.gpu_ms);
    if (v == variant::serial) serial_ms = med;
    const auto [mn, mx] = std::minmax_element(oc.gpu_ms.begin(), oc.gpu_ms.end());
    std::printf("%-8s %-10s %-14s %-9s median %9.3f ms  min %9.3f  max %9.3f  host %9.3f ms  issue %9.3f ms",
                family, name.c_str(), name_of(v), mode.c_str(), med, *mn, *mx,
                median(oc.host_ms), median(oc.issue_ms));
    if (serial_ms > 0 && v != variant::serial) std::printf("  x%.2f vs serial", serial_ms / med);
    if (graphs > 0)
      std::printf("  [%lld graphs, capture %.1f us, instantiate %.1f us each]", graphs, capture,
                  instantiate);
    std::printf("  %s\n", oc.match ? "ok" : "MISMATCH");
    std::fflush(stdout);
    if (out) {
      std::fprintf(out, "%s,%s,%s,%s,%s,%s,%s,%lld,%.3f,%d,%.4f,%.4f,%.4f,%.4f,%lld,%.2f,%.2f,%s,%s\n",
                   csv_quote(config.empty() ? family + std::string("-") + name : config).c_str(),
                   family, name.c_str(), csv_quote(params).c_str(), cudart.c_str(), mode.c_str(),
                   name_of(v), ref.kernels, ref.kernel_us_mean, rc.reps, med, *mn, *mx,
                   median(oc.host_ms), graphs, capture, instantiate, oc.checksum.c_str(),
                   oc.match ? "ok" : "MISMATCH");
      std::fflush(out);
    }
  }
  if (out) std::fclose(out);
  ACS_BENCH_CHECK(cudaEventDestroy(start));
  ACS_BENCH_CHECK(cudaEventDestroy(stop));
  if (!all_match) {
    std::fprintf(stderr, "acs-bench: %s/%s: output MISMATCH against the reference\n", family,
                 name.c_str());
    return 1;
  }
  return 0;
}

}  // namespace acs_bench
