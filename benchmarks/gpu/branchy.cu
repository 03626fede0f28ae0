// Static multi-branch networks at batch size 1: the DAG is fixed, so a CUDA graph can be
// built once; the question is how much of its parallelism streams recover.
//   inception  a stack of Inception-v3 "A" modules (the 35x35 module) at a quarter of the
//              channels: branches 1x1 (16) | 1x1 (12) -> 5x5 (16) | 1x1 (16) -> 3x3 (24) ->
//              3x3 (24) | 3x3 avg pool -> 1x1 (8), concatenated to 64 channels.
//   nasnet     a stack of NASNet-A normal cells (Zoph et al., 2018), operations and inputs as
//              in TF-slim's nasnet_utils: both inputs 1x1-projected, then five blocks
//              sep5(h0)+sep3(h1), sep5(h1)+sep3(h1), avg3(h0)+h1, avg3(h1)+avg3(h1),
//              sep3(h0)+h0 (a separable conv is twice depthwise -> pointwise), and the
//              concatenation of h1 and the five blocks.
// A rep runs --inputs inputs one after another, each folded into the checked accumulator.
//
// Annotation styles shown here: scopes (an Inception branch is one acs task of 1-3
// launches) and acs_next_launch (every NASNet launch).
#include "nn_kernels.cuh"

namespace acs_bench {
namespace {

class inception final : public nn_workload {
 public:
  explicit inception(options& o) {
    const bool q = global().quick;
    modules_ = (int)o.integer("modules", q ? 2 : 6);
    hw_ = (int)o.integer("hw", 16);
    inputs_ = (int)o.integer("inputs", q ? 2 : 8);
    if (modules_ < 1 || hw_ < 1 || inputs_ < 1) die("inception: sizes must be >= 1");
  }
  std::string describe() const override {
    char buf[96];
    std::snprintf(buf, sizeof buf, "modules=%d hw=%d inputs=%d", modules_, hw_, inputs_);
    return buf;
  }

  void setup() override {
    const int h = hw_;
    const tensor img = activation("img", 3, h, h);
    const tensor x[2] = {activation("x0", kChannels, h, h), activation("x1", kChannels, h, h)};
    acc_ = activation("acc", kChannels, h, h);
    const tensor b1 = activation("b1", 16, h, h), b2a = activation("b2a", 12, h, h),
                 b2 = activation("b2", 16, h, h), b3a = activation("b3a", 16, h, h),
                 b3b = activation("b3b", 24, h, h), b3 = activation("b3", 24, h, h),
                 b4a = activation("b4a", kChannels, h, h), b4 = activation("b4", 8, h, h);
    for (int k = 0; k < inputs_; ++k) {
      const tensor input{mem_.constant(label("input", k), (size_t)3 * h * h, -1, 1), 3, h, h};
      load_.push_back(&make(label("load", k), blend(input, img, 0.0f), 0));
    }
    body_.push_back(&make("stem", conv(img, x[0], 3, true), 0));
    for (int m = 0; m < modules_; ++m) {
      const tensor& in = x[m % 2];
      std::vector<piece> p;
      p.push_back(conv(in, b1, 1, true));
      body_.push_back(&make(label("branch1x1_", m), std::move(p), 0, annot::scope));
      p.clear();
      p.push_back(conv(in, b2a, 1, true));
      p.push_back(conv(b2a, b2, 5, true));
      body_.push_back(&make(label("branch5x5_", m), std::move(p), 1, annot::scope));
      p.clear();
      p.push_back(conv(in, b3a, 1, true));
      p.push_back(conv(b3a, b3b, 3, true));
      p.push_back(conv(b3b, b3, 3, true));
      body_.push_back(&make(label("branch3x3dbl_", m), std::move(p), 2, annot::scope));
      p.clear();
      p.push_back(pool(in, b4a, false));
      p.push_back(conv(b4a, b4, 1, true));
      body_.push_back(&make(label("branch_pool_", m), std::move(p), 3, annot::scope));
      body_.push_back(&make(label("concat", m), concat({b1, b2, b3, b4}, x[(m + 1) % 2]), 0));
    }
    body_.push_back(&make("head", blend(x[modules_ % 2], acc_, 0.5f), 0));
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
  static constexpr int kChannels = 64;
  int modules_, hw_, inputs_;
  tensor acc_;
  std::vector<const op*> load_, body_;
  stage stage_;
};

class nasnet final : public nn_workload {
 public:
  explicit nasnet(options& o) {
    const bool q = global().quick;
    cells_ = (int)o.integer("cells", q ? 2 : 6);
    c_ = (int)o.integer("channels", 32);
    hw_ = (int)o.integer("hw", 16);
    inputs_ = (int)o.integer("inputs", q ? 2 : 4);
    if (cells_ < 1 || c_ < 1 || hw_ < 1 || inputs_ < 1) die("nasnet: sizes must be >= 1");
  }
  std::string describe() const override {
    char buf[96];
    std::snprintf(buf, sizeof buf, "cells=%d channels=%d hw=%d inputs=%d", cells_, c_, hw_,
                  inputs_);
    return buf;
  }

  void setup() override {
    const int h = hw_, c = c_;
    const tensor img = activation("img", 3, h, h);
    const tensor stem = activation("stem", c, h, h);
    tensor outs[3];
    for (int i = 0; i < 3; ++i) outs[i] = activation(label("cell_out", i), 6 * c, h, h);
    acc_ = activation("acc", 6 * c, h, h);
    // Intermediates shared by all cells (each cell depends on the one before anyway).
    const tensor h0 = activation("h0", c, h, h), h1 = activation("h1", c, h, h);
    tensor blocks[5], sep_out[5], sep_tmp[5][3], pooled[3];
    for (int b = 0; b < 5; ++b) {
      blocks[b] = activation(label("block", b), c, h, h);
      sep_out[b] = activation(label("sep", b), c, h, h);
      for (int t = 0; t < 3; ++t) sep_tmp[b][t] = activation(label("sep_tmp", b, t), c, h, h);
    }
    for (int i = 0; i < 3; ++i) pooled[i] = activation(label("pool", i), c, h, h);

    for (int k = 0; k < inputs_; ++k) {
      const tensor input{mem_.constant(label("input", k), (size_t)3 * h * h, -1, 1), 3, h, h};
      load_.push_back(&make(label("load", k), blend(input, img, 0.0f), -1));
    }
    body_.push_back(&make("stem", conv(img, stem, 3, true), -1));
    tensor prev = stem, cur = stem;
    for (int i = 0; i < cells_; ++i) {
      const tensor out = outs[i % 3];
      body_.push_back(&make(label("pre0_", i), conv(prev, h0, 1, true), -1));
      body_.push_back(&make(label("pre1_", i), conv(cur, h1, 1, true), -1));
      int next_sep = 0;
      // Separable conv: (depthwise k, pointwise) twice; one op per launch.
      auto sep = [&](const tensor& in, int k) {
        const int s = next_sep++;
        const tensor* t = sep_tmp[s];
        body_.push_back(&make(label("sep_dw_a", i, s), dwconv(in, t[0], k, true), -1));
        body_.push_back(&make(label("sep_pw_a", i, s), conv(t[0], t[1], 1, true), -1));
        body_.push_back(&make(label("sep_dw_b", i, s), dwconv(t[1], t[2], k, true), -1));
        body_.push_back(&make(label("sep_pw_b", i, s), conv(t[2], sep_out[s], 1, false), -1));
        return sep_out[s];
      };
      int next_pool = 0;
      auto avg = [&](const tensor& in) {
        const tensor& o = pooled[next_pool++];
        body_.push_back(&make(label("avg", i, next_pool), pool(in, o, false), -1));
        return o;
      };
      auto add = [&](int b, const tensor& l, const tensor& r) {
        body_.push_back(&make(label("add", i, b), sum({l, r}, blocks[b], 1.0f, false), -1));
      };
      // Operands are evaluated left to right here (separate statements) so that the
      // launch order is fixed.
      tensor l0 = sep(h0, 5), r0 = sep(h1, 3);
      add(0, l0, r0);
      tensor l1 = sep(h1, 5), r1 = sep(h1, 3);
      add(1, l1, r1);
      tensor l2 = avg(h0);
      add(2, l2, h1);
      tensor l3 = avg(h1), r3 = avg(h1);
      add(3, l3, r3);
      tensor l4 = sep(h0, 3);
      add(4, l4, h0);
      body_.push_back(&make(label("concat", i),
                            concat({h1, blocks[0], blocks[1], blocks[2], blocks[3], blocks[4]}, out),
                            -1));
      prev = cur;
      cur = out;
    }
    body_.push_back(&make("head", blend(cur, acc_, 0.5f), -1));
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
  int cells_, c_, hw_, inputs_;
  tensor acc_;
  std::vector<const op*> load_, body_;
  stage stage_;
};

}  // namespace
}  // namespace acs_bench

int main(int argc, char** argv) {
  using namespace acs_bench;
  return run_main(
      argc, argv, "branchy",
      {
          {"inception", "Inception-v3 A modules, 4 branches (--modules --hw --inputs)",
           [](options& o) -> std::unique_ptr<workload> { return std::make_unique<inception>(o); }},
          {"nasnet", "NASNet-A normal cells (--cells --channels --hw --inputs)",
           [](options& o) -> std::unique_ptr<workload> { return std::make_unique<nasnet>(o); }},
      });
}
