// Synthetic DAGs of kernels with a set kernel length and DAG width: the kernel-length sweep
// behind docs/design.md §7 (launch-bound below ~5 us, parallelism-bound at 15-60 us).
//
// Shapes (N nodes, width W):
//   random   node i reads 1-3 distinct nodes drawn from the 2W nodes before it (the first W
//            read the input); a different DAG for every input, so a graph is rebuilt per
//            input (graph_rebuild);
//   layered  N/W layers of W nodes; node j of a layer reads nodes j and a random other of the
//            layer before;
//   chain    node i reads node i-1: no parallelism, measures pure overhead;
//   wide     W independent chains of N/W nodes, each starting from its own input buffer
//            (nothing shared, so nothing to serialise but the launches).
// Every node also reads and rewrites its own buffer (out = 0.5 out + 0.5 tanh(inputs)), so
// buffers carry values from input to input and a lost RAW, WAR or WAW dependency changes
// the result. A node is a few blocks (a fraction of the GPU) that spin on clock64 for the
// target length: deterministic output whatever the timing.
//
// Annotation style shown here: a kernel rule (acs_register_kernel), derived from the
// kernel's arguments as in the ACS paper's get_addresses.
#include "harness.cuh"

#include <random>

namespace acs_bench {
namespace {

__global__ void synth_node(const float* __restrict__ a, const float* __restrict__ b,
                           const float* __restrict__ c, float* __restrict__ out, int n, int nin,
                           long long spin, float salt) {
  spin_cycles(spin);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = a[i];
  if (nin > 1) v += 0.5f * b[i];
  if (nin > 2) v += 0.25f * c[i];
  out[i] = 0.5f * out[i] + 0.5f * tanhf(v + salt);
}

// Footprint of one synth_node launch, from its arguments.
void synth_node_rule(acs_footprint* fp, void* const* args, void*) {
  const int n = *static_cast<const int*>(args[4]);
  const int nin = *static_cast<const int*>(args[5]);
  const size_t bytes = (size_t)n * sizeof(float);
  for (int k = 0; k < nin && k < 3; ++k)
    acs_footprint_read(fp, *static_cast<const float* const*>(args[k]), bytes);
  float* out = *static_cast<float* const*>(args[3]);
  acs_footprint_read(fp, out, bytes);
  acs_footprint_write(fp, out, bytes);
}

enum class shape { random, layered, chain, wide };

class synth final : public workload {
 public:
  synth(options& o, shape s) : shape_(s) {
    const bool q = global().quick;
    nodes_ = (int)o.integer("nodes", q ? 48 : 128);
    width_ = (int)o.integer("width", 8);
    kernel_us_ = o.real("kernel-us", 30);
    blocks_ = (int)o.integer("blocks", 4);
    inputs_ = (int)o.integer("inputs", q ? 2 : 4);
    seed_ = (unsigned)o.integer("seed", 1);
    if (nodes_ < 1 || width_ < 1 || blocks_ < 1 || inputs_ < 1 || kernel_us_ < 0)
      die("synth: --nodes, --width, --blocks, --inputs must be >= 1, --kernel-us >= 0");
    if (shape_ == shape::layered || shape_ == shape::wide) nodes_ = (nodes_ / width_) * width_;
    if (nodes_ < 1) die("synth: --nodes must be at least --width");
  }

  std::string describe() const override {
    char buf[160];
    std::snprintf(buf, sizeof buf, "nodes=%d width=%d kernel_us=%g blocks=%d inputs=%d", nodes_,
                  width_, kernel_us_, blocks_, inputs_);
    return buf;
  }
  bool dynamic() const override { return shape_ == shape::random; }
  // Inputs change the ops of random (a new DAG) and wide (per-chain input buffers).
  bool per_input_dag() const { return shape_ == shape::random || shape_ == shape::wide; }

  void setup() override {
    n_ = blocks_ * 128;
    spin_ = (long long)(kernel_us_ * global().cycles_per_us);
    for (int k = 0; k < inputs_; ++k)
      sources_.push_back(mem_.constant(label("x", k), (size_t)n_, -1, 1));
    x_ = mem_.state("x", (size_t)n_, -1, 1);
    for (int i = 0; i < nodes_; ++i)
      out_.push_back(mem_.state(label("node", i), (size_t)n_, -1, 1));
    for (int k = 0; k < inputs_; ++k) loads_.push_back(&node_op({sources_[(size_t)k]}, x_, 0, 0.0f));
    if (shape_ == shape::wide)
      for (int k = 0; k < inputs_; ++k)
        for (int c = 0; c < width_; ++c)
          chain_sources_.push_back(mem_.constant(label("x", k, c), (size_t)n_, -1, 1));
    const int dags = per_input_dag() ? inputs_ : 1;
    dags_.resize((size_t)dags);
    for (int d = 0; d < dags; ++d) build_dag(d);
  }

  void register_rules() override {
    register_rule(reinterpret_cast<const void*>(synth_node), synth_node_rule, "synth_node");
  }

  void run(executor& ex) override {
    for (int k = 0; k < inputs_; ++k) {
      stage_.clear();
      if (shape_ != shape::wide) stage_.push_back(loads_[(size_t)k]);
      for (const op* o : dags_[(size_t)k % dags_.size()]) stage_.push_back(o);
      ex.run(stage_);
    }
  }

  std::vector<acs_range> outputs() const override {
    std::vector<acs_range> r;
    r.push_back({x_, (size_t)n_ * sizeof(float)});
    for (float* p : out_) r.push_back({p, (size_t)n_ * sizeof(float)});
    return r;
  }

 private:
  const op& node_op(std::vector<const float*> in, float* out, long long spin, float salt) {
    const float* a = in.size() > 0 ? in[0] : nullptr;
    const float* b = in.size() > 1 ? in[1] : nullptr;
    const float* c = in.size() > 2 ? in[2] : nullptr;
    const int nin = (int)in.size();
    std::vector<const float*> reads = in;
    reads.push_back(out);
    const int n = n_, blocks = blocks_;
    return add_op("node", reads, {out}, -1, annot::rule, [=](launcher& l) {
      ACS_BENCH_LAUNCH(l, synth_node, blocks, 128, a, b, c, out, n, nin, spin, salt);
    });
  }

  void build_dag(int d) {
    std::mt19937_64 rng(seed_ * 1000003ull + (unsigned)d);
    auto pick = [&](int lo, int hi) { return lo + (int)(rng() % (std::uint64_t)(hi - lo)); };
    std::vector<std::vector<int>> preds((size_t)nodes_);
    for (int i = 0; i < nodes_; ++i) {
      auto& p = preds[(size_t)i];
      switch (shape_) {
        case shape::random:
          if (i >= width_) {
            const int lo = std::max(0, i - 2 * width_);
            const int want = 1 + (int)(rng() % 3);
            for (int t = 0; t < 8 && (int)p.size() < want; ++t) {
              const int j = pick(lo, i);
              if (std::find(p.begin(), p.end(), j) == p.end()) p.push_back(j);
            }
          }
          break;
        case shape::layered:
          if (i >= width_) {
            const int layer_start = (i / width_ - 1) * width_, j = i % width_;
            p.push_back(layer_start + j);
            if (width_ > 1) p.push_back(layer_start + (j + 1 + pick(0, width_ - 1)) % width_);
          }
          break;
        case shape::chain:
          if (i > 0) p.push_back(i - 1);
          break;
        case shape::wide:
          if (i >= width_) p.push_back(i - width_);
          break;
      }
    }
    for (int i = 0; i < nodes_; ++i) {
      std::vector<const float*> in;
      for (int j : preds[(size_t)i]) in.push_back(out_[(size_t)j]);
      if (in.empty())
        in.push_back(shape_ == shape::wide ? chain_sources_[(size_t)(d * width_ + i)] : x_);
      dags_[(size_t)d].push_back(
          &node_op(in, out_[(size_t)i], spin_, 0.01f * (float)((i * 7 + d) % 17)));
    }
  }

  shape shape_;
  int nodes_, width_, blocks_, inputs_;
  double kernel_us_;
  unsigned seed_;
  int n_ = 0;
  long long spin_ = 0;
  float* x_ = nullptr;
  std::vector<float*> sources_, chain_sources_, out_;
  std::vector<const op*> loads_;
  std::vector<std::vector<const op*>> dags_;
  stage stage_;
};

}  // namespace
}  // namespace acs_bench

int main(int argc, char** argv) {
  using namespace acs_bench;
  auto make = [](shape s) {
    return [s](options& o) -> std::unique_ptr<workload> { return std::make_unique<synth>(o, s); };
  };
  return run_main(argc, argv, "synth",
                  {
                      {"random", "random DAG, a new one per input (--nodes --width --kernel-us --blocks --inputs)", make(shape::random)},
                      {"layered", "layers of --width nodes, two inputs each from the layer before", make(shape::layered)},
                      {"chain", "a dependent chain: overhead only", make(shape::chain)},
                      {"wide", "--width independent chains", make(shape::wide)},
                  });
}
