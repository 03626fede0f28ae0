// Dynamic neural networks at batch size 1, where each input takes its own path:
//   instanas   modelled on InstaNAS (Cheng et al., 2018): a controller looks at the input and
//              picks, per layer, a subset of 5 MobileNetV2-style modules (1x1 expand,
//              depthwise kxk, 1x1 project; expansion 1/3/6, k 3/5); the chosen modules run
//              side by side and their outputs are summed with the residual.
//   routing    modelled on dynamic routing for segmentation (Li et al., CVPR 2020): a grid of
//              layers x 4 scales (1/4 .. 1/32 of the input, channels doubling); each active
//              cell sums its inputs, applies a separable conv and a gate max(0, tanh(fc(gap)))
//              that opens or closes its up, same and down paths to the next layer. The host
//              reads the gates after every layer, so each input's path is its own DAG.
//   condconv   modelled on CondConv (Yang et al., 2019) in its mixture-of-experts form: per
//              layer, 8 expert 3x3 convolutions and a routing function sigmoid(fc(gap(x)))
//              run side by side, then out = sum_e r_e * expert_e(x) (equal, by linearity, to
//              one convolution with the per-input kernel sum_e r_e W_e). The DAG is static;
//              what depends on the input is the mixing weights.
// A rep runs --inputs inputs one after another; each input's result is folded into an
// accumulator, the checked output.
//
// Annotation styles shown here: scopes (an InstaNAS module, a routing cell: several
// launches as one acs task) and acs_next_launch (everything else).
#include "nn_kernels.cuh"

#include <array>

namespace acs_bench {
namespace {

class instanas final : public nn_workload {
 public:
  explicit instanas(options& o) {
    const bool q = global().quick;
    layers_ = (int)o.integer("layers", q ? 4 : 10);
    c_ = (int)o.integer("channels", 32);
    hw_ = (int)o.integer("hw", 16);
    inputs_ = (int)o.integer("inputs", q ? 2 : 8);
    if (layers_ < 1 || c_ < 1 || hw_ < 1 || inputs_ < 1) die("instanas: sizes must be >= 1");
  }
  std::string describe() const override {
    char buf[128];
    std::snprintf(buf, sizeof buf, "layers=%d channels=%d hw=%d inputs=%d", layers_, c_, hw_,
                  inputs_);
    return buf;
  }
  bool dynamic() const override { return true; }

  void setup() override {
    ACS_BENCH_CHECK(cudaMallocHost(&host_logits_, (size_t)layers_ * kModules * sizeof(float)));
    img_ = activation("img", 3, hw_, hw_);
    for (int k = 0; k < inputs_; ++k)
      bank_.push_back({mem_.constant(label("input", k), (size_t)3 * hw_ * hw_, -1, 1), 3, hw_, hw_});
    x_[0] = activation("x0", c_, hw_, hw_);
    x_[1] = activation("x1", c_, hw_, hw_);
    acc_ = activation("acc", c_, hw_, hw_);
    const tensor ctrl = activation("ctrl", 8, hw_, hw_);
    logits_ = mem_.state("logits", (size_t)layers_ * kModules);
    for (int m = 0; m < kModules; ++m) {
      const int ce = c_ * kExpand[m];
      expanded_[m] = activation(label("expanded", m), ce, hw_, hw_);
      depthwise_[m] = activation(label("depthwise", m), ce, hw_, hw_);
      y_[m] = activation(label("y", m), c_, hw_, hw_);
    }
    for (int k = 0; k < inputs_; ++k) load_.push_back(&make(label("load", k), blend(bank_[(size_t)k], img_, 0.0f), 0));
    stem_ = &make("stem", conv(img_, x_[0], 3, true), 0);
    ctrl_conv_ = &make("ctrl_conv", conv(img_, ctrl, 3, true), 1);
    ctrl_fc_ = &make("ctrl_fc", gap_fc(ctrl, logits_, layers_ * kModules, 0), 1);
    module_.resize((size_t)layers_);
    for (int l = 0; l < layers_; ++l) {
      const tensor& in = x_[l % 2];
      for (int m = 0; m < kModules; ++m) {
        std::vector<piece> p;
        p.push_back(conv(in, expanded_[m], 1, true));
        p.push_back(dwconv(expanded_[m], depthwise_[m], kKernel[m], true));
        p.push_back(conv(depthwise_[m], y_[m], 1, false));
        module_[(size_t)l][(size_t)m] = &make(label("module", l, m), std::move(p), m, annot::scope);
      }
    }
    head_ = &make("head", blend(x_[layers_ % 2], acc_, 0.5f), -1);
  }

  void run(executor& ex) override {
    for (int k = 0; k < inputs_; ++k) {
      stage_ = {load_[(size_t)k], stem_, ctrl_conv_, ctrl_fc_};
      ex.run(stage_);
      ex.readback(host_logits_, logits_, (size_t)layers_ * kModules * sizeof(float));
      stage_.clear();
      for (int l = 0; l < layers_; ++l) {
        unsigned mask = 0;
        for (int m = 0; m < kModules; ++m)
          if (host_logits_[l * kModules + m] > 0.0f) mask |= 1u << m;
        if (mask == 0) mask = 1;  // at least one module per layer
        for (int m = 0; m < kModules; ++m)
          if (mask & (1u << m)) stage_.push_back(module_[(size_t)l][(size_t)m]);
        stage_.push_back(&sum_op(l, mask));
      }
      stage_.push_back(head_);
      ex.run(stage_);
    }
  }

  std::vector<acs_range> outputs() const override {
    return {{acc_.p, (size_t)acc_.size() * sizeof(float)}};
  }
  ~instanas() override {
    if (host_logits_) (void)cudaFreeHost(host_logits_);
  }

 private:
  static constexpr int kModules = 5;
  static constexpr int kExpand[kModules] = {1, 3, 6, 3, 6};
  static constexpr int kKernel[kModules] = {3, 3, 3, 5, 5};

  // Chosen modules' outputs plus the residual, averaged; one op per (layer, choice).
  const op& sum_op(int l, unsigned mask) {
    const op*& slot = sums_[{l, mask}];
    if (!slot) {
      std::vector<tensor> ins;
      for (int m = 0; m < kModules; ++m)
        if (mask & (1u << m)) ins.push_back(y_[m]);
      ins.push_back(x_[l % 2]);
      slot = &make(label("sum", l, (int)mask), sum(ins, x_[(l + 1) % 2], 1.0f / (float)ins.size(), true), -1);
    }
    return *slot;
  }

  int layers_, c_, hw_, inputs_;
  tensor img_, acc_, x_[2], expanded_[kModules], depthwise_[kModules], y_[kModules];
  std::vector<tensor> bank_;
  float* logits_ = nullptr;
  float* host_logits_ = nullptr;
  std::vector<const op*> load_;
  const op *stem_ = nullptr, *ctrl_conv_ = nullptr, *ctrl_fc_ = nullptr, *head_ = nullptr;
  std::vector<std::array<const op*, kModules>> module_;
  std::map<std::pair<int, unsigned>, const op*> sums_;
  stage stage_;
};

class routing final : public nn_workload {
 public:
  explicit routing(options& o) {
    const bool q = global().quick;
    layers_ = (int)o.integer("layers", q ? 3 : 8);
    c0_ = (int)o.integer("channels", 16);
    hw0_ = (int)o.integer("hw", 32);
    inputs_ = (int)o.integer("inputs", q ? 2 : 4);
    if (layers_ < 1 || c0_ < 1 || inputs_ < 1 || hw0_ < 16 || hw0_ % 8)
      die("routing: sizes must be >= 1 and --hw a multiple of 8, at least 16");
  }
  std::string describe() const override {
    char buf[128];
    std::snprintf(buf, sizeof buf, "layers=%d channels=%d hw=%d inputs=%d", layers_, c0_, hw0_,
                  inputs_);
    return buf;
  }
  bool dynamic() const override { return true; }

  void setup() override {
    ACS_BENCH_CHECK(cudaMallocHost(&host_gates_, kScales * 3 * sizeof(float)));
    img_ = activation("img", 3, hw0_, hw0_);
    for (int k = 0; k < inputs_; ++k)
      bank_.push_back({mem_.constant(label("input", k), (size_t)3 * hw0_ * hw0_, -1, 1), 3, hw0_, hw0_});
    for (int s = 0; s < kScales; ++s) {
      const int c = c0_ << s, hw = hw0_ >> s;
      for (int p = 0; p < 2; ++p) {
        out_[p][s] = activation(label("cell", p, s), c, hw, hw);
        upsampled_[p][s] = activation(label("upsampled", p, s), c, hw, hw);
        downsampled_[p][s] = activation(label("downsampled", p, s), c, hw, hw);
      }
      agg_[s] = activation(label("agg", s), c, hw, hw);
      tmp_[s] = activation(label("tmp", s), c, hw, hw);
      acc_[s] = activation(label("acc", s), c, hw, hw);
      gates_[s] = {mem_.state(label("gates", s), 3), 3, 1, 1};
    }
    gates_all_ = {mem_.state("gates_all", kScales * 3), kScales * 3, 1, 1};
    // Weights per cell, made here: ops for the cells are built on first use.
    w_.resize((size_t)layers_);
    for (int l = 0; l < layers_; ++l) {
      for (int s = 0; s < kScales; ++s) {
        const int c = c0_ << s;
        cell_weights& w = w_[(size_t)l][(size_t)s];
        w.dw = dwconv_weights(c, 3);
        w.pw = conv_weights(c, c, 1);
        w.gate = projection_weights(c, 3);
        if (s > 0) w.up = projection_weights(c, c / 2);
        if (s + 1 < kScales) w.down = projection_weights(c, 2 * c);
      }
    }
    for (int k = 0; k < inputs_; ++k) load_.push_back(&make(label("load", k), blend(bank_[(size_t)k], img_, 0.0f), -1));
    // The stem writes "layer -1"'s scale-0 cell, which feeds layer 0 through its same path.
    stem_ = &make("stem", conv(img_, out_[1][0], 3, true), -1);
  }

  void run(executor& ex) override {
    for (int k = 0; k < inputs_; ++k) {
      // Paths open from the previous layer: bit 0 up (to s-1), 1 same, 2 down (to s+1).
      std::array<unsigned, kScales> open{};
      open[0] = 2;
      stage_ = {load_[(size_t)k], stem_};
      std::array<bool, kScales> active{};
      for (int l = 0; l < layers_; ++l) {
        const int prev = (l + 1) % 2, cur = l % 2;
        // Resampling paths from the previous layer's cells (not for the stem).
        if (l > 0) {
          for (int s = 0; s < kScales; ++s) {
            if (open[s] & 1u) stage_.push_back(&path_op(l - 1, s, true));
            if (open[s] & 4u) stage_.push_back(&path_op(l - 1, s, false));
          }
        }
        unsigned active_mask = 0;
        for (int s = 0; s < kScales; ++s) {
          // Inputs: bit 0 same scale, bit 1 downsampled from s-1, bit 2 upsampled from s+1.
          unsigned in = 0;
          if (open[s] & 2u) in |= 1u;
          if (s > 0 && (open[s - 1] & 4u)) in |= 2u;
          if (s + 1 < kScales && (open[s + 1] & 1u)) in |= 4u;
          active[(size_t)s] = in != 0;
          if (!in) continue;
          active_mask |= 1u << s;
          stage_.push_back(&cell_op(l, s, in, prev, cur));
          stage_.push_back(&gate_op(l, s));
        }
        stage_.push_back(&gather_op(l, active_mask));
        ex.run(stage_);
        stage_.clear();
        ex.readback(host_gates_, gates_all_.p, kScales * 3 * sizeof(float));
        bool any = false;
        for (int s = 0; s < kScales; ++s) {
          open[(size_t)s] = 0;
          if (!active[(size_t)s]) continue;
          if (s > 0 && host_gates_[s * 3 + 0] > 0.0f) open[(size_t)s] |= 1u;
          if (host_gates_[s * 3 + 1] > 0.0f) open[(size_t)s] |= 2u;
          if (s + 1 < kScales && host_gates_[s * 3 + 2] > 0.0f) open[(size_t)s] |= 4u;
          any = any || open[(size_t)s];
        }
        if (!any) {  // keep the network alive: the lowest active cell goes straight on
          for (int s = 0; s < kScales; ++s)
            if (active[(size_t)s]) {
              open[(size_t)s] = 2u;
              break;
            }
        }
      }
      for (int s = 0; s < kScales; ++s)
        if (active[(size_t)s]) stage_.push_back(&head_op(layers_ - 1, s));
      ex.run(stage_);
    }
  }

  std::vector<acs_range> outputs() const override {
    std::vector<acs_range> r;
    for (int s = 0; s < kScales; ++s) r.push_back({acc_[s].p, (size_t)acc_[s].size() * sizeof(float)});
    return r;
  }
  ~routing() override {
    if (host_gates_) (void)cudaFreeHost(host_gates_);
  }

 private:
  static constexpr int kScales = 4;
  struct cell_weights {
    const float *dw = nullptr, *pw = nullptr, *gate = nullptr, *up = nullptr, *down = nullptr;
  };

  // The cell: sum of its inputs, depthwise 3x3, pointwise 1x1: one scope.
  const op& cell_op(int l, int s, unsigned in, int prev, int cur) {
    const op*& slot = ops_by_key_[key('c', l, s, (int)in)];
    if (!slot) {
      std::vector<tensor> ins;
      if (in & 1u) ins.push_back(out_[prev][s]);
      if (in & 2u) ins.push_back(downsampled_[prev][s]);
      if (in & 4u) ins.push_back(upsampled_[prev][s]);
      std::vector<piece> p;
      p.push_back(sum(ins, agg_[s], 1.0f / (float)ins.size(), false));
      const cell_weights& w = w_[(size_t)l][(size_t)s];
      p.push_back(dwconv(agg_[s], tmp_[s], 3, true, w.dw));
      p.push_back(conv(tmp_[s], out_[cur][s], 1, true, w.pw));
      slot = &make(label("cell", l, s), std::move(p), s, annot::scope);
    }
    return *slot;
  }
  const op& gate_op(int l, int s) {
    const op*& slot = ops_by_key_[key('g', l, s, 0)];
    if (!slot)
      slot = &make(label("gate", l, s),
                   gap_fc(out_[l % 2][s], gates_[s].p, 3, 2, w_[(size_t)l][(size_t)s].gate), s);
    return *slot;
  }
  // Cell (l, s) to scale s-1 (up) or s+1 (down), read by layer l+1.
  const op& path_op(int l, int s, bool to_finer) {
    const op*& slot = ops_by_key_[key(to_finer ? 'u' : 'd', l, s, 0)];
    if (!slot) {
      const int p = l % 2;
      const cell_weights& w = w_[(size_t)l][(size_t)s];
      slot = to_finer ? &make(label("up", l, s), up(out_[p][s], upsampled_[p][s - 1], w.up), -1)
                      : &make(label("down", l, s), down(out_[p][s], downsampled_[p][s + 1], w.down), -1);
    }
    return *slot;
  }
  const op& gather_op(int l, unsigned mask) {
    const op*& slot = ops_by_key_[key('a', l, 0, (int)mask)];
    if (!slot) {
      std::vector<tensor> parts;
      for (int s = 0; s < kScales; ++s)
        parts.push_back(mask & (1u << s) ? gates_[s] : tensor{nullptr, 3, 1, 1});
      slot = &make(label("gather", l), concat(parts, gates_all_), -1);
    }
    return *slot;
  }
  const op& head_op(int l, int s) {
    const op*& slot = ops_by_key_[key('h', l, s, 0)];
    if (!slot) slot = &make(label("head", s), blend(out_[l % 2][s], acc_[s], 0.5f), -1);
    return *slot;
  }
  static long long key(char kind, int l, int s, int extra) {
    return ((long long)kind << 40) | ((long long)l << 24) | ((long long)s << 16) | extra;
  }

  int layers_, c0_, hw0_, inputs_;
  tensor img_, out_[2][kScales], upsampled_[2][kScales], downsampled_[2][kScales], agg_[kScales],
      tmp_[kScales], acc_[kScales], gates_[kScales], gates_all_;
  std::vector<tensor> bank_;
  float* host_gates_ = nullptr;
  std::vector<const op*> load_;
  const op* stem_ = nullptr;
  std::vector<std::array<cell_weights, kScales>> w_;
  std::map<long long, const op*> ops_by_key_;
  stage stage_;
};

class condconv final : public nn_workload {
 public:
  explicit condconv(options& o) {
    const bool q = global().quick;
    layers_ = (int)o.integer("layers", q ? 2 : 6);
    experts_ = (int)o.integer("experts", 8);
    c_ = (int)o.integer("channels", 32);
    hw_ = (int)o.integer("hw", 16);
    inputs_ = (int)o.integer("inputs", q ? 2 : 8);
    if (layers_ < 1 || c_ < 1 || hw_ < 1 || inputs_ < 1 || experts_ < 1 || experts_ > 8)
      die("condconv: sizes must be >= 1, --experts at most 8");
  }
  std::string describe() const override {
    char buf[128];
    std::snprintf(buf, sizeof buf, "layers=%d experts=%d channels=%d hw=%d inputs=%d", layers_,
                  experts_, c_, hw_, inputs_);
    return buf;
  }

  void setup() override {
    const tensor img = activation("img", 3, hw_, hw_);
    x_[0] = activation("x0", c_, hw_, hw_);
    x_[1] = activation("x1", c_, hw_, hw_);
    acc_ = activation("acc", c_, hw_, hw_);
    routing_ = mem_.state("routing", (size_t)experts_);
    std::vector<tensor> ys;
    for (int e = 0; e < experts_; ++e) ys.push_back(activation(label("expert", e), c_, hw_, hw_));
    for (int k = 0; k < inputs_; ++k) {
      const tensor input{mem_.constant(label("input", k), (size_t)3 * hw_ * hw_, -1, 1), 3, hw_, hw_};
      load_.push_back(&make(label("load", k), blend(input, img, 0.0f), experts_));
    }
    body_.push_back(&make("stem", conv(img, x_[0], 3, true), experts_));
    for (int l = 0; l < layers_; ++l) {
      const tensor& in = x_[l % 2];
      body_.push_back(&make(label("route", l), gap_fc(in, routing_, experts_, 1), experts_));
      for (int e = 0; e < experts_; ++e)
        body_.push_back(&make(label("expert", l, e), conv(in, ys[(size_t)e], 3, false), e));
      body_.push_back(&make(label("mix", l), mix(ys, routing_, x_[(l + 1) % 2], true), experts_));
    }
    body_.push_back(&make("head", blend(x_[layers_ % 2], acc_, 0.5f), experts_));
  }

  void run(executor& ex) override {
    for (int k = 0; k < inputs_; ++k) {
      stage_ = {load_[(size_t)k]};
      stage_.insert(stage_.end(), body_.begin(), body_.end());
      ex.run(stage_);
    }
  }

  std::vector<acs_range> outputs() const override {
    return {{acc_.p, (size_t)acc_.size() * sizeof(float)}};
  }

 private:
  int layers_, experts_, c_, hw_, inputs_;
  tensor x_[2], acc_;
  float* routing_ = nullptr;
  std::vector<const op*> load_, body_;
  stage stage_;
};

}  // namespace
}  // namespace acs_bench

int main(int argc, char** argv) {
  using namespace acs_bench;
  return run_main(
      argc, argv, "dynnn",
      {
          {"instanas", "per-input subset of modules per layer (--layers --channels --hw --inputs)",
           [](options& o) -> std::unique_ptr<workload> { return std::make_unique<instanas>(o); }},
          {"routing", "per-input path through layers x 4 scales (--layers --channels --hw --inputs)",
           [](options& o) -> std::unique_ptr<workload> { return std::make_unique<routing>(o); }},
          {"condconv", "per-input mixture of 8 expert convolutions (--layers --experts --channels --hw --inputs)",
           [](options& o) -> std::unique_ptr<workload> { return std::make_unique<condconv>(o); }},
      });
}
