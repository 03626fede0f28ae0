#pragma once
// Batch-1 CNN layers for the dynamic-NN and multi-branch programs: plain direct kernels, one
// thread per output, fixed summation order (deterministic, so every variant must agree bit
// for bit). Tensors are CHW floats, each its own allocation.
#include "harness.cuh"

namespace acs_bench {

// Convolution, stride 1, same padding.
__global__ void nn_conv(const float* __restrict__ in, const float* __restrict__ w,
                        float* __restrict__ out, int cin, int cout, int h, int wd, int k,
                        int relu) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int hw = h * wd;
  if (idx >= cout * hw) return;
  const int co = idx / hw, y = (idx % hw) / wd, x = idx % wd, r = k / 2;
  float acc = 0.0f;
  for (int ci = 0; ci < cin; ++ci) {
    const float* src = in + ci * hw;
    const float* wk = w + (co * cin + ci) * k * k;
    for (int ky = 0; ky < k; ++ky) {
      const int iy = y + ky - r;
      if (iy < 0 || iy >= h) continue;
      for (int kx = 0; kx < k; ++kx) {
        const int ix = x + kx - r;
        if (ix < 0 || ix >= wd) continue;
        acc = fmaf(wk[ky * k + kx], src[iy * wd + ix], acc);
      }
    }
  }
  out[idx] = relu ? fmaxf(acc, 0.0f) : acc;
}

// Depthwise convolution, stride 1, same padding.
__global__ void nn_dwconv(const float* __restrict__ in, const float* __restrict__ w,
                          float* __restrict__ out, int c, int h, int wd, int k, int relu) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int hw = h * wd;
  if (idx >= c * hw) return;
  const int ch = idx / hw, y = (idx % hw) / wd, x = idx % wd, r = k / 2;
  const float* src = in + ch * hw;
  float acc = 0.0f;
  for (int ky = 0; ky < k; ++ky) {
    const int iy = y + ky - r;
    if (iy < 0 || iy >= h) continue;
    for (int kx = 0; kx < k; ++kx) {
      const int ix = x + kx - r;
      if (ix < 0 || ix >= wd) continue;
      acc = fmaf(w[(ch * k + ky) * k + kx], src[iy * wd + ix], acc);
    }
  }
  out[idx] = relu ? fmaxf(acc, 0.0f) : acc;
}

// 3x3 pooling, stride 1, same padding (average over the window inside the image).
__global__ void nn_pool(const float* __restrict__ in, float* __restrict__ out, int c, int h,
                        int wd, int is_max) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int hw = h * wd;
  if (idx >= c * hw) return;
  const int ch = idx / hw, y = (idx % hw) / wd, x = idx % wd;
  const float* src = in + ch * hw;
  float acc = is_max ? -3.0e38f : 0.0f;
  int count = 0;
  for (int iy = max(y - 1, 0); iy <= min(y + 1, h - 1); ++iy)
    for (int ix = max(x - 1, 0); ix <= min(x + 1, wd - 1); ++ix) {
      const float v = src[iy * wd + ix];
      acc = is_max ? fmaxf(acc, v) : acc + v;
      ++count;
    }
  out[idx] = is_max ? acc : acc / (float)count;
}

// out = scale * (a0 + ... + a{count-1}), then optionally ReLU.
__global__ void nn_sum(const float* __restrict__ a0, const float* __restrict__ a1,
                       const float* __restrict__ a2, const float* __restrict__ a3,
                       const float* __restrict__ a4, const float* __restrict__ a5,
                       float* __restrict__ out, int n, int count, float scale, int relu) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = a0[i];
  if (count > 1) s += a1[i];
  if (count > 2) s += a2[i];
  if (count > 3) s += a3[i];
  if (count > 4) s += a4[i];
  if (count > 5) s += a5[i];
  s *= scale;
  out[i] = relu ? fmaxf(s, 0.0f) : s;
}

// Concatenation of up to six tensors of s0..s5 elements; a missing one (null) gives zeros.
__global__ void nn_concat(const float* __restrict__ a0, const float* __restrict__ a1,
                          const float* __restrict__ a2, const float* __restrict__ a3,
                          const float* __restrict__ a4, const float* __restrict__ a5,
                          float* __restrict__ out, int s0, int s1, int s2, int s3, int s4, int s5,
                          int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float* const src[6] = {a0, a1, a2, a3, a4, a5};
  const int size[6] = {s0, s1, s2, s3, s4, s5};
  int at = i;
  for (int part = 0; part < count && part < 6; ++part) {
    if (at < size[part]) {
      out[i] = src[part] ? src[part][at] : 0.0f;
      return;
    }
    at -= size[part];
  }
}

// Nearest 2x upsampling with a 1x1 channel projection: (cin, h, wd) -> (cout, 2h, 2wd).
__global__ void nn_up(const float* __restrict__ in, const float* __restrict__ w,
                      float* __restrict__ out, int cin, int cout, int h, int wd) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int ohw = 4 * h * wd, ow = 2 * wd;
  if (idx >= cout * ohw) return;
  const int co = idx / ohw, y = (idx % ohw) / ow / 2, x = (idx % ow) / 2;
  float acc = 0.0f;
  for (int ci = 0; ci < cin; ++ci) acc = fmaf(w[co * cin + ci], in[(ci * h + y) * wd + x], acc);
  out[idx] = acc;
}

// 2x2 average pooling with a 1x1 channel projection: (cin, h, wd) -> (cout, h/2, wd/2).
__global__ void nn_down(const float* __restrict__ in, const float* __restrict__ w,
                        float* __restrict__ out, int cin, int cout, int h, int wd) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int oh = h / 2, ow = wd / 2, ohw = oh * ow;
  if (idx >= cout * ohw) return;
  const int co = idx / ohw, y = 2 * ((idx % ohw) / ow), x = 2 * (idx % ow);
  float acc = 0.0f;
  for (int ci = 0; ci < cin; ++ci) {
    const float* s = in + (ci * h + y) * wd + x;
    acc = fmaf(w[co * cin + ci], 0.25f * (s[0] + s[1] + s[wd] + s[wd + 1]), acc);
  }
  out[idx] = acc;
}

// Global average pooling then a fully connected layer; one block. act: 0 none, 1 sigmoid,
// 2 max(0, tanh) (the gate of dynamic routing: exactly zero when closed).
__global__ void nn_gap_fc(const float* __restrict__ in, const float* __restrict__ w,
                          float* __restrict__ out, int c, int hw, int nout, int act) {
  __shared__ float pooled[512];
  for (int ch = threadIdx.x; ch < c && ch < 512; ch += blockDim.x) {
    float s = 0.0f;
    for (int p = 0; p < hw; ++p) s += in[ch * hw + p];
    pooled[ch] = s / (float)hw;
  }
  __syncthreads();
  for (int j = threadIdx.x; j < nout; j += blockDim.x) {
    float s = 0.0f;
    for (int ch = 0; ch < c && ch < 512; ++ch) s = fmaf(w[j * c + ch], pooled[ch], s);
    out[j] = act == 1 ? 1.0f / (1.0f + expf(-s)) : act == 2 ? fmaxf(0.0f, tanhf(s)) : s;
  }
}

// Mixture of expert outputs: out = sum_e r[e] * y_e, then optionally ReLU.
__global__ void nn_mix(const float* __restrict__ y0, const float* __restrict__ y1,
                       const float* __restrict__ y2, const float* __restrict__ y3,
                       const float* __restrict__ y4, const float* __restrict__ y5,
                       const float* __restrict__ y6, const float* __restrict__ y7,
                       const float* __restrict__ r, float* __restrict__ out, int n, int experts,
                       int relu) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* y[8] = {y0, y1, y2, y3, y4, y5, y6, y7};
  float s = 0.0f;
  for (int e = 0; e < experts && e < 8; ++e) s = fmaf(r[e], y[e][i], s);
  out[i] = relu ? fmaxf(s, 0.0f) : s;
}

// out = keep * out + (1 - keep) * a: loads an input (keep 0) or folds a result into a running
// accumulator (keep 0.5), so that every input of a rep shows in the checked output.
__global__ void nn_blend(const float* __restrict__ a, float* __restrict__ out, int n, float keep) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = keep * out[i] + (1.0f - keep) * a[i];
}

// Builds ops from layers. A `piece` is one launch with its footprint; an op is one piece
// (per-launch annotation) or several run in order (a scope).
class nn_workload : public workload {
 protected:
  struct tensor {
    float* p = nullptr;
    int c = 0, h = 0, w = 0;
    int size() const { return c * h * w; }
  };
  struct piece {
    std::vector<const float*> reads, writes;
    std::function<void(launcher&)> fn;
  };

  tensor activation(const std::string& name, int c, int h, int w) {
    return {mem_.state(name, (size_t)c * h * w, -0.5f, 0.5f), c, h, w};
  }
  // He-uniform weights.
  float* weights(const std::string& name, size_t n, int fan_in) {
    const float s = std::sqrt(6.0f / (float)std::max(fan_in, 1));
    return mem_.constant(name, n, -s, s);
  }

  // Layers with weights allocate them unless given `w` (ops built after setup must be given
  // theirs: buffers are only made in setup).
  float* conv_weights(int cin, int cout, int k) {
    return weights("w_conv", (size_t)cout * cin * k * k, cin * k * k);
  }
  piece conv(const tensor& in, const tensor& out, int k, bool relu, const float* w = nullptr) {
    if (!w) w = conv_weights(in.c, out.c, k);
    const float* src = in.p;
    float* dst = out.p;
    const int cin = in.c, cout = out.c, h = in.h, wd = in.w, r = relu;
    return {{src, w}, {dst}, [=](launcher& l) {
              ACS_BENCH_LAUNCH(l, nn_conv, blocks_for((long long)cout * h * wd), 128, src, w, dst,
                               cin, cout, h, wd, k, r);
            }};
  }
  float* dwconv_weights(int c, int k) { return weights("w_dw", (size_t)c * k * k, k * k); }
  piece dwconv(const tensor& in, const tensor& out, int k, bool relu, const float* w = nullptr) {
    if (!w) w = dwconv_weights(in.c, k);
    const float* src = in.p;
    float* dst = out.p;
    const int c = in.c, h = in.h, wd = in.w, r = relu;
    return {{src, w}, {dst}, [=](launcher& l) {
              ACS_BENCH_LAUNCH(l, nn_dwconv, blocks_for((long long)c * h * wd), 128, src, w, dst, c,
                               h, wd, k, r);
            }};
  }
  piece pool(const tensor& in, const tensor& out, bool is_max) {
    const float* src = in.p;
    float* dst = out.p;
    const int c = in.c, h = in.h, wd = in.w, m = is_max;
    return {{src}, {dst}, [=](launcher& l) {
              ACS_BENCH_LAUNCH(l, nn_pool, blocks_for((long long)c * h * wd), 128, src, dst, c, h,
                               wd, m);
            }};
  }
  piece sum(const std::vector<tensor>& ins, const tensor& out, float scale, bool relu) {
    if (ins.empty() || ins.size() > 6) die("nn: sum of %zu tensors", ins.size());
    const float* a[6] = {};
    std::vector<const float*> reads;
    for (size_t i = 0; i < ins.size(); ++i) {
      a[i] = ins[i].p;
      reads.push_back(ins[i].p);
    }
    float* dst = out.p;
    const int n = out.size(), count = (int)ins.size(), r = relu;
    return {reads, {dst}, [=](launcher& l) {
              ACS_BENCH_LAUNCH(l, nn_sum, blocks_for(n), 128, a[0], a[1], a[2], a[3], a[4], a[5],
                               dst, n, count, scale, r);
            }};
  }
  // A part with a null p (but its shape) gives zeros.
  piece concat(const std::vector<tensor>& parts, const tensor& out) {
    if (parts.empty() || parts.size() > 6) die("nn: concat of %zu tensors", parts.size());
    const float* a[6] = {};
    int size[6] = {};
    int total = 0;
    std::vector<const float*> reads;
    for (size_t i = 0; i < parts.size(); ++i) {
      a[i] = parts[i].p;
      size[i] = parts[i].size();
      total += size[i];
      if (parts[i].p) reads.push_back(parts[i].p);
    }
    if (total != out.size()) die("nn: concat of %d elements into %d", total, out.size());
    float* dst = out.p;
    const int count = (int)parts.size();
    return {reads, {dst}, [=](launcher& l) {
              ACS_BENCH_LAUNCH(l, nn_concat, blocks_for(total), 128, a[0], a[1], a[2], a[3], a[4],
                               a[5], dst, size[0], size[1], size[2], size[3], size[4], size[5],
                               count);
            }};
  }
  float* projection_weights(int cin, int cout) {
    return weights("w_proj", (size_t)cout * cin, cin);
  }
  piece up(const tensor& in, const tensor& out, const float* w = nullptr) {
    if (!w) w = projection_weights(in.c, out.c);
    const float* src = in.p;
    float* dst = out.p;
    const int cin = in.c, cout = out.c, h = in.h, wd = in.w;
    return {{src, w}, {dst}, [=](launcher& l) {
              ACS_BENCH_LAUNCH(l, nn_up, blocks_for((long long)cout * 4 * h * wd), 128, src, w, dst,
                               cin, cout, h, wd);
            }};
  }
  piece down(const tensor& in, const tensor& out, const float* w = nullptr) {
    if (!w) w = projection_weights(in.c, out.c);
    const float* src = in.p;
    float* dst = out.p;
    const int cin = in.c, cout = out.c, h = in.h, wd = in.w;
    return {{src, w}, {dst}, [=](launcher& l) {
              ACS_BENCH_LAUNCH(l, nn_down, blocks_for((long long)cout * (h / 2) * (wd / 2)), 128,
                               src, w, dst, cin, cout, h, wd);
            }};
  }
  piece gap_fc(const tensor& in, float* out, int nout, int act, const float* w = nullptr) {
    if (!w) w = projection_weights(in.c, nout);
    const float* src = in.p;
    const int c = in.c, hw = in.h * in.w;
    return {{src, w}, {out}, [=](launcher& l) {
              ACS_BENCH_LAUNCH(l, nn_gap_fc, 1, 256, src, w, out, c, hw, nout, act);
            }};
  }
  piece mix(const std::vector<tensor>& ys, const float* r, const tensor& out, bool relu) {
    if (ys.empty() || ys.size() > 8) die("nn: mix of %zu experts", ys.size());
    const float* y[8] = {};
    std::vector<const float*> reads{r};
    for (size_t i = 0; i < ys.size(); ++i) {
      y[i] = ys[i].p;
      reads.push_back(ys[i].p);
    }
    float* dst = out.p;
    const int n = out.size(), e = (int)ys.size(), rl = relu;
    return {reads, {dst}, [=](launcher& l) {
              ACS_BENCH_LAUNCH(l, nn_mix, blocks_for(n), 128, y[0], y[1], y[2], y[3], y[4], y[5],
                               y[6], y[7], r, dst, n, e, rl);
            }};
  }
  piece blend(const tensor& a, const tensor& out, float keep) {
    const float* src = a.p;
    float* dst = out.p;
    const int n = out.size();
    return {{src, dst}, {dst}, [=](launcher& l) {
              ACS_BENCH_LAUNCH(l, nn_blend, blocks_for(n), 128, src, dst, n, keep);
            }};
  }

  // One op from pieces run in order; its footprint is the union of theirs.
  const op& make(const std::string& name, std::vector<piece> pieces, int lane, annot how) {
    if (how == annot::next_launch && pieces.size() != 1)
      die("nn: op %s: acs_next_launch covers exactly one launch", name.c_str());
    std::vector<const float*> reads, writes;
    std::vector<std::function<void(launcher&)>> fns;
    for (auto& p : pieces) {
      for (const float* r : p.reads)
        if (std::find(reads.begin(), reads.end(), r) == reads.end()) reads.push_back(r);
      for (const float* w : p.writes)
        if (std::find(writes.begin(), writes.end(), w) == writes.end()) writes.push_back(w);
      fns.push_back(std::move(p.fn));
    }
    if (fns.size() == 1) return add_op(name, reads, writes, lane, how, std::move(fns[0]));
    return add_op(name, reads, writes, lane, how, [fns](launcher& l) {
      for (const auto& f : fns) f(l);
    });
  }
  const op& make(const std::string& name, piece p, int lane, annot how = annot::next_launch) {
    std::vector<piece> v;
    v.push_back(std::move(p));
    return make(name, std::move(v), lane, how);
  }
};

}  // namespace acs_bench
