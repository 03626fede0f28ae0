// acs sample: a batch of independent kernel chains on ONE stream, run once
// natively (serial, as CUDA executes one stream) and once under
// LD_PRELOAD=libacs.so, with the two timings, their ratio and whether the
// outputs are identical.
//
//   acs_sample [--lib=PATH/libacs.so] [--chains=16] [--length=8] [--target-us=40]
//              [--runs=9] [--warmup=2] [--ctest]
//
// The parent process calibrates the kernel to about --target-us on this GPU,
// then runs the workload in child processes (the same binary with --child):
//   native          no preload: the serial baseline
//   acs             LD_PRELOAD=libacs.so ACS_STATS=1
//   acs disabled    LD_PRELOAD=libacs.so ACS_DISABLE=1: the cost of the hooks alone
// Each child warms up, then times --runs runs with CUDA events and reports the
// median, plus a checksum of every output buffer.
//
// The workload, per run: `chains` chains of `length` kernels, issued breadth
// first (step 0 of every chain, then step 1...), each kernel updating its
// chain's buffer from the previous step; then one fan-in kernel that reads
// every chain. Kernels are small (8 blocks), so one alone leaves most of the
// GPU idle: the room acs fills with independent kernels.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

constexpr int max_chains = 64;
constexpr int grid = 8, block = 256;
constexpr int elems = grid * block * 4;  // 8192 floats per chain buffer

#define SAMPLE_CHECK(expr)                                                                                 \
  do {                                                                                                     \
    const cudaError_t e_ = (expr);                                                                         \
    if (e_ != cudaSuccess) {                                                                               \
      std::fprintf(stderr, "acs_sample: %s failed: %s (%s:%d)\n", #expr, cudaGetErrorString(e_), __FILE__, \
                   __LINE__);                                                                              \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)

// One step of a chain: x <- logistic map iterated `iters` times from a blend of
// x and the chain's parameters. Chaotic: any race changes the output bits.
__global__ void step_kernel(float* x, const float* params, int step, int iters) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < elems; i += gridDim.x * blockDim.x) {
    const float r = 3.7f + 0.25f * params[(i + step) % elems];
    float v = 0.5f * (x[i] + params[i]);
    for (int k = 0; k < iters; ++k) v = r * v * (1.0f - v);
    x[i] = v;
  }
}

struct fan_in_args {
  const float* in[max_chains];
  int count;
};

__global__ void fan_in_kernel(float* out, fan_in_args a) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < elems; i += gridDim.x * blockDim.x) {
    float s = 0.0f;
    for (int c = 0; c < a.count; ++c) s += a.in[c][i];
    out[i] = s;
  }
}

struct options {
  std::string lib;
  int chains = 16, length = 8, runs = 9, warmup = 2, iters = 0;
  double target_us = 40;
  bool child = false, ctest = false;
};

options parse(int argc, char** argv) {
  options o;
#ifdef ACS_SAMPLE_DEFAULT_LIB
  o.lib = ACS_SAMPLE_DEFAULT_LIB;
#endif
  if (const char* env = std::getenv("ACS_LIB")) o.lib = env;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* key) -> const char* {
      const std::string k = std::string(key) + "=";
      return a.rfind(k, 0) == 0 ? argv[i] + k.size() : nullptr;
    };
    if (a == "--child")
      o.child = true;
    else if (a == "--ctest")
      o.ctest = true;
    else if (const char* v = value("--lib"))
      o.lib = v;
    else if (const char* v = value("--chains"))
      o.chains = std::clamp(std::atoi(v), 1, max_chains);
    else if (const char* v = value("--length"))
      o.length = std::max(1, std::atoi(v));
    else if (const char* v = value("--runs"))
      o.runs = std::max(1, std::atoi(v));
    else if (const char* v = value("--warmup"))
      o.warmup = std::max(0, std::atoi(v));
    else if (const char* v = value("--iters"))
      o.iters = std::max(1, std::atoi(v));
    else if (const char* v = value("--target-us"))
      o.target_us = std::max(1.0, std::atof(v));
    else {
      std::fprintf(stderr, "acs_sample: unknown argument %s\n", argv[i]);
      std::exit(2);
    }
  }
  return o;
}

std::uint64_t fnv1a(const void* p, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ------------------------------------------------------------------ child

struct workload {
  const options& o;
  cudaStream_t s = nullptr;
  // One parameter set per chain. Without annotations acs infers what a kernel
  // touches from its pointer arguments and cannot tell a read-only one: a set
  // shared by every chain would order all the chains one after another.
  std::vector<float*> params;
  float* pristine = nullptr;  // the starting state of every chain
  std::vector<float*> x;
  float* out = nullptr;

  explicit workload(const options& opt) : o(opt) {
    SAMPLE_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<float> h(elems);
    for (int c = 0; c < o.chains; ++c) {
      for (int i = 0; i < elems; ++i) h[i] = static_cast<float>((i * 7919 + c * 31) % 1000) / 1000.0f;
      params.push_back(alloc());
      SAMPLE_CHECK(cudaMemcpy(params.back(), h.data(), bytes(), cudaMemcpyHostToDevice));
    }
    pristine = alloc();
    for (int i = 0; i < elems; ++i) h[i] = 0.05f + 0.9f * static_cast<float>((i * 104729) % 997) / 997.0f;
    SAMPLE_CHECK(cudaMemcpy(pristine, h.data(), bytes(), cudaMemcpyHostToDevice));
    for (int c = 0; c < o.chains; ++c) x.push_back(alloc());
    out = alloc();
    SAMPLE_CHECK(cudaDeviceSynchronize());  // the uploads are not ordered with the stream
  }

  static std::size_t bytes() { return elems * sizeof(float); }
  static float* alloc() {
    void* p = nullptr;
    SAMPLE_CHECK(cudaMalloc(&p, bytes()));
    return static_cast<float*>(p);
  }

  void reset() {
    for (int c = 0; c < o.chains; ++c)
      SAMPLE_CHECK(cudaMemcpyAsync(x[c], pristine, bytes(), cudaMemcpyDeviceToDevice, s));
  }

  void issue() {
    for (int step = 0; step < o.length; ++step)
      for (int c = 0; c < o.chains; ++c) step_kernel<<<grid, block, 0, s>>>(x[c], params[c], step, o.iters);
    fan_in_args a{};
    for (int c = 0; c < o.chains; ++c) a.in[c] = x[c];
    a.count = o.chains;
    fan_in_kernel<<<grid, block, 0, s>>>(out, a);
    SAMPLE_CHECK(cudaGetLastError());
  }

  std::uint64_t checksum() {
    SAMPLE_CHECK(cudaStreamSynchronize(s));
    std::vector<float> h(elems);
    std::uint64_t sum = 0xcbf29ce484222325ull;
    for (int c = 0; c <= o.chains; ++c) {
      SAMPLE_CHECK(cudaMemcpy(h.data(), c < o.chains ? x[c] : out, bytes(), cudaMemcpyDeviceToHost));
      sum = fnv1a(h.data(), bytes(), sum);
    }
    return sum;
  }
};

int run_child(const options& o) {
  SAMPLE_CHECK(cudaSetDevice(0));
  workload w(o);
  cudaEvent_t start, stop;
  SAMPLE_CHECK(cudaEventCreate(&start));
  SAMPLE_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < o.warmup; ++i) {
    w.reset();
    w.issue();
  }
  SAMPLE_CHECK(cudaDeviceSynchronize());
  std::vector<double> gpu_ms, wall_ms;
  std::uint64_t first = 0;
  bool consistent = true;
  for (int r = 0; r < o.runs; ++r) {
    w.reset();
    SAMPLE_CHECK(cudaStreamSynchronize(w.s));
    const auto t0 = std::chrono::steady_clock::now();
    SAMPLE_CHECK(cudaEventRecord(start, w.s));
    w.issue();
    SAMPLE_CHECK(cudaEventRecord(stop, w.s));
    SAMPLE_CHECK(cudaEventSynchronize(stop));
    const auto t1 = std::chrono::steady_clock::now();
    float ms = 0;
    SAMPLE_CHECK(cudaEventElapsedTime(&ms, start, stop));
    gpu_ms.push_back(ms);
    wall_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    const std::uint64_t sum = w.checksum();
    if (r == 0) first = sum;
    consistent = consistent && sum == first;
  }
  std::printf(
      "sample-result: median_ms=%.4f min_ms=%.4f wall_median_ms=%.4f checksum=%016llx consistent=%d "
      "kernels=%d\n",
      median(gpu_ms), *std::min_element(gpu_ms.begin(), gpu_ms.end()), median(wall_ms),
      static_cast<unsigned long long>(first), consistent ? 1 : 0, o.chains * o.length + 1);
  return 0;
}

// ------------------------------------------------------------------ parent

// Picks the iteration count that makes one step kernel last about target_us.
int calibrate(double target_us, double* measured_us) {
  options o;
  o.chains = 1;
  o.length = 1;
  o.iters = 1000;
  workload w(o);
  cudaEvent_t a, b;
  SAMPLE_CHECK(cudaEventCreate(&a));
  SAMPLE_CHECK(cudaEventCreate(&b));
  auto time_us = [&](int iters, int reps) {
    w.reset();
    step_kernel<<<grid, block, 0, w.s>>>(w.x[0], w.params[0], 0, iters);  // warm-up
    SAMPLE_CHECK(cudaEventRecord(a, w.s));
    for (int i = 0; i < reps; ++i) step_kernel<<<grid, block, 0, w.s>>>(w.x[0], w.params[0], i, iters);
    SAMPLE_CHECK(cudaEventRecord(b, w.s));
    SAMPLE_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SAMPLE_CHECK(cudaEventElapsedTime(&ms, a, b));
    return 1000.0 * ms / reps;
  };
  const double us = time_us(o.iters, 20);
  const int iters = std::clamp(static_cast<int>(o.iters * target_us / std::max(us, 0.1)), 10, 10'000'000);
  *measured_us = time_us(iters, 20);
  return iters;
}

struct child_result {
  bool ok = false;
  std::map<std::string, std::string> result, stats;
  std::string error_text;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void parse_pairs(const std::string& line, std::map<std::string, std::string>& into) {
  std::istringstream in(line.substr(line.find(':') + 1));
  std::string tok;
  while (in >> tok)
    if (const auto eq = tok.find('='); eq != std::string::npos) into[tok.substr(0, eq)] = tok.substr(eq + 1);
}

child_result spawn_child(const options& o, const std::vector<std::string>& env_add, bool keep_acs_env) {
  child_result r;
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (kv.rfind("LD_PRELOAD=", 0) == 0) continue;
    if (!keep_acs_env && kv.rfind("ACS_", 0) == 0) continue;
    if (kv.rfind("ACS_STATS=", 0) == 0 || kv.rfind("ACS_DISABLE=", 0) == 0) continue;
    env.push_back(kv);
  }
  env.insert(env.end(), env_add.begin(), env_add.end());
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0) {
    r.error_text = "cannot find this program's path";
    return r;
  }
  std::vector<std::string> args = {self,
                                   "--child",
                                   "--chains=" + std::to_string(o.chains),
                                   "--length=" + std::to_string(o.length),
                                   "--runs=" + std::to_string(o.runs),
                                   "--warmup=" + std::to_string(o.warmup),
                                   "--iters=" + std::to_string(o.iters)};
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  char out_path[] = "/tmp/acs_sample_out_XXXXXX", err_path[] = "/tmp/acs_sample_err_XXXXXX";
  const int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
  if (out_fd < 0 || err_fd < 0) {
    r.error_text = "cannot create temporary files";
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self, &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  if (rc == 0) waitpid(pid, &status, 0);
  close(out_fd);
  close(err_fd);
  const std::string out = slurp(out_path), err = slurp(err_path);
  unlink(out_path);
  unlink(err_path);
  if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.error_text = "child failed (" +
                   std::string(rc != 0 ? "spawn error" : "exit status " + std::to_string(WEXITSTATUS(status))) +
                   ")\n" + out + err;
    return r;
  }
  std::istringstream lines(out + err);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("sample-result:", 0) == 0)
      parse_pairs(line, r.result);
    else if (line.rfind("acs-stats:", 0) == 0)
      parse_pairs(line, r.stats);
    else if (line.rfind("[acs]", 0) == 0 && line.find("stats:") != std::string::npos)
      continue;
    else if (!line.empty())
      r.error_text += line + "\n";  // warnings: shown, not fatal
  }
  r.ok = r.result.count("median_ms") && r.result.count("checksum");
  if (!r.ok) r.error_text += "no sample-result line\n";
  return r;
}

int run_parent(options o) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device found: nothing to measure\n");
    return o.ctest ? 77 : 0;
  }
  if (o.lib.empty() || access(o.lib.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "acs_sample: libacs.so not found ('%s'): pass --lib=PATH or build target acs\n",
                 o.lib.c_str());
    return 2;
  }
  SAMPLE_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  SAMPLE_CHECK(cudaGetDeviceProperties(&prop, 0));
  double kernel_us = 0;
  if (o.iters == 0) o.iters = calibrate(o.target_us, &kernel_us);
  const int kernels = o.chains * o.length + 1;
  std::printf("acs sample on %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
  std::printf(
      "workload: %d independent chains x %d kernels + 1 fan-in = %d kernels on one stream, "
      "%d blocks each, ~%.0f us per kernel (iters=%d)\n",
      o.chains, o.length, kernels, grid, kernel_us, o.iters);
  std::printf("timing: CUDA events, %d warm-up runs, median of %d runs, each mode in its own process\n\n",
              o.warmup, o.runs);
  std::fflush(stdout);

  struct mode {
    const char* name;
    std::vector<std::string> env;
    child_result r;
  };
  std::vector<mode> modes = {
      {"native (serial)", {}, {}},
      {"acs", {"LD_PRELOAD=" + o.lib, "ACS_STATS=1"}, {}},
      {"acs, ACS_DISABLE=1", {"LD_PRELOAD=" + o.lib, "ACS_DISABLE=1"}, {}},
  };
  for (std::size_t i = 0; i < modes.size(); ++i) modes[i].r = spawn_child(o, modes[i].env, i != 0);

  std::printf("%-22s %10s %10s %12s %14s  %s\n", "mode", "median ms", "min ms", "wall ms", "us per kernel",
              "checksum");
  bool all_ok = true;
  for (const mode& m : modes) {
    if (!m.r.ok) {
      std::printf("%-22s FAILED\n%s", m.name, m.r.error_text.c_str());
      all_ok = false;
      continue;
    }
    const double med = std::atof(m.r.result.at("median_ms").c_str());
    std::printf("%-22s %10.3f %10.3f %12.3f %14.2f  %s%s\n", m.name, med,
                std::atof(m.r.result.at("min_ms").c_str()), std::atof(m.r.result.at("wall_median_ms").c_str()),
                1000.0 * med / kernels, m.r.result.at("checksum").c_str(),
                m.r.result.count("consistent") && m.r.result.at("consistent") == "1" ? "" : " (runs differ!)");
    if (!m.r.error_text.empty()) std::printf("%s", m.r.error_text.c_str());
  }
  if (!all_ok) return 1;

  const double native = std::atof(modes[0].r.result.at("median_ms").c_str());
  const double acs = std::atof(modes[1].r.result.at("median_ms").c_str());
  const double disabled = std::atof(modes[2].r.result.at("median_ms").c_str());
  const bool identical = modes[0].r.result.at("checksum") == modes[1].r.result.at("checksum") &&
                         modes[0].r.result.at("checksum") == modes[2].r.result.at("checksum");
  const bool consistent = std::all_of(modes.begin(), modes.end(), [](const mode& m) {
    return m.r.result.count("consistent") && m.r.result.at("consistent") == "1";
  });
  std::printf("\nspeedup, native / acs: %.2fx\n", acs > 0 ? native / acs : 0.0);
  std::printf("hooks alone, native / acs disabled: %.2fx\n", disabled > 0 ? native / disabled : 0.0);
  std::printf("outputs identical: %s\n", identical && consistent ? "yes" : "NO");
  const auto& st = modes[1].r.stats;
  if (st.empty()) {
    std::printf("acs stats: none printed (was libacs.so loaded?)\n");
  } else {
    auto get = [&](const char* k) { return st.count(k) ? st.at(k) : std::string("?"); };
    std::printf(
        "acs stats (all runs, warm-up included): dispatched=%s independent=%s same_stream=%s "
        "dependency_waits=%s barriers=%s passed=%s\n",
        get("dispatched").c_str(), get("independent").c_str(), get("same_stream").c_str(),
        get("dependency_waits").c_str(), get("barriers").c_str(), get("passed").c_str());
  }
  return identical && consistent ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  if (o.child) return run_child(o);
  return run_parent(o);
}
