// DRL physics simulation, modelled on a Brax-style environment step over a batch of
// environments (one thread per environment, a fraction of the GPU per kernel).
//
// Robots (body and hinge counts of the MJCF assets Brax ships, the torso with a free joint):
//   ant       13 bodies: torso + 4 legs of 3 (leg, aux, ankle); 8 hinges (hip, ankle per leg)
//   humanoid  13 bodies: torso; abdomen (lwaist, pelvis: 3 hinges); 2 legs (thigh, shin,
//             foot: hip x/y/z and knee, 4 hinges each); 2 arms (upper, lower: 2 shoulder
//             hinges and an elbow); 17 hinges
//   walker2d   7 bodies: torso + 2 legs (thigh, leg, foot: 3 hinges each); 6 hinges
// Each kinematic subtree below the torso ("limb") has its own arrays. One step:
//   stage 1: policy MLP per limb | forward kinematics per limb -> capsule-ground contact
//            detection per limb, sphere-ground for the torso -> contact flags per limb;
//   the host reads the flags back (one synchronising copy per step);
//   stage 2: --iters constraint-solver iterations, each a solve per limb (the kernel with
//            contacts where that limb touches the ground in some environment, the
//            contact-free kernel elsewhere) joined by a torso solve; then integration per
//            limb and for the torso, and the reward.
// Which kernels run depends on the state, so the stage-2 DAG changes as the environments
// move (graph_rebuild measures rebuilding it per step; graph keeps one per contact pattern).
// --work scales the per-thread work (MLP depth, kinematic sub-frames, contact samples, solver
// sweeps, integration sub-steps); scripts/bench.sh calibrates it for a target kernel length.
//
// Annotation style shown here: acs_next_launch before every launch.
#include "harness.cuh"

namespace acs_bench {
namespace {

constexpr float kDt = 0.05f;  // Brax ant's control step
constexpr int kHidden = 16;
constexpr int kObs = 19;  // 2 * 4 joints + 11 torso values, at most
constexpr int kPolicyWeights = kHidden * kObs + kHidden * kHidden + 4 * kHidden;

__device__ __forceinline__ float terrain(float x, float y) {
  return 0.05f * sinf(1.3f * x) * cosf(0.7f * y);
}
__device__ __forceinline__ float clampf(float v, float lo, float hi) {
  return fminf(fmaxf(v, lo), hi);
}

__global__ void drl_policy(const float* __restrict__ q, const float* __restrict__ qd,
                           const float* __restrict__ rq, const float* __restrict__ rqd,
                           const float* __restrict__ w, float* __restrict__ act, int n, int nj,
                           int work) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  float obs[kObs];
#pragma unroll
  for (int k = 0; k < kObs; ++k) obs[k] = 0.0f;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if (j < nj) {
      obs[j] = q[j * n + e];
      obs[4 + j] = qd[j * n + e];
    }
  }
#pragma unroll
  for (int c = 0; c < 5; ++c) obs[8 + c] = rq[(2 + c) * n + e];
#pragma unroll
  for (int c = 0; c < 6; ++c) obs[13 + c] = rqd[c * n + e];
  const float* w1 = w;
  const float* w2 = w1 + kHidden * kObs;
  const float* w3 = w2 + kHidden * kHidden;
  float h[kHidden];
#pragma unroll
  for (int i = 0; i < kHidden; ++i) {
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < kObs; ++k) s = fmaf(w1[i * kObs + k], obs[k], s);
    h[i] = tanhf(s);
  }
  for (int r = 0; r < work; ++r) {
    float g[kHidden];
#pragma unroll
    for (int i = 0; i < kHidden; ++i) {
      float s = 0.1f * h[i];
#pragma unroll
      for (int k = 0; k < kHidden; ++k) s = fmaf(w2[i * kHidden + k], h[k], s);
      g[i] = tanhf(s);
    }
#pragma unroll
    for (int i = 0; i < kHidden; ++i) h[i] = g[i];
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if (j >= nj) break;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < kHidden; ++k) s = fmaf(w3[j * kHidden + k], h[k], s);
    act[j * n + e] = tanhf(s);
  }
}

// Limb geometry shared by kinematics and collision.
struct limb_geom {
  float heading;  // direction of the limb's attachment on the torso
  float pitch0;   // rest pitch of the limb (down is pi/2)
  float link;     // length of each body
  float height;   // torso rest height
};

__global__ void drl_fk(const float* __restrict__ q, const float* __restrict__ qd,
                       const float* __restrict__ rq, float* __restrict__ xpos, int n, int nb,
                       int nj, limb_geom g, int work) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  float qj[4], qdj[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    qj[j] = j < nj ? q[j * n + e] : 0.0f;
    qdj[j] = j < nj ? qd[j * n + e] : 0.0f;
  }
  const float px = rq[0 * n + e], py = rq[1 * n + e], pz = g.height + rq[2 * n + e];
  float x[3] = {0, 0, 0}, y[3] = {0, 0, 0}, z[3] = {0, 0, 0}, a[3] = {0, 0, 0};
  float ch, sh;
  sincosf(g.heading, &sh, &ch);
  for (int s = 1; s <= work; ++s) {
    const float t = (float)s / (float)work;
    float cx = px + 0.2f * ch, cy = py + 0.2f * sh, cz = pz, pitch = g.pitch0;
#pragma unroll
    for (int b = 0; b < 3; ++b) {
      if (b >= nb) break;
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (j < nj && j % nb == b) pitch += qj[j] + t * kDt * qdj[j];
      float sp, cp;
      sincosf(pitch, &sp, &cp);
      cx += g.link * cp * ch;
      cy += g.link * cp * sh;
      cz -= g.link * sp;
      const float keep = s == 1 ? 0.0f : 0.5f;
      x[b] = keep * x[b] + (1.0f - keep) * cx;
      y[b] = keep * y[b] + (1.0f - keep) * cy;
      z[b] = keep * z[b] + (1.0f - keep) * cz;
      a[b] = keep * a[b] + (1.0f - keep) * pitch;
    }
  }
#pragma unroll
  for (int b = 0; b < 3; ++b) {
    if (b >= nb) break;
    xpos[(b * 4 + 0) * n + e] = x[b];
    xpos[(b * 4 + 1) * n + e] = y[b];
    xpos[(b * 4 + 2) * n + e] = z[b];
    xpos[(b * 4 + 3) * n + e] = a[b];
  }
}

// Capsule-ground contacts: `work` sample points along each body's capsule.
__global__ void drl_collide(const float* __restrict__ xpos, const float* __restrict__ rq,
                            float* __restrict__ con, int n, int nb, limb_geom g, float radius,
                            int work) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  float ch, sh;
  sincosf(g.heading, &sh, &ch);
  float x0 = rq[0 * n + e] + 0.2f * ch, y0 = rq[1 * n + e] + 0.2f * sh,
        z0 = g.height + rq[2 * n + e];
  for (int b = 0; b < nb; ++b) {
    const float x1 = xpos[(b * 4 + 0) * n + e], y1 = xpos[(b * 4 + 1) * n + e],
                z1 = xpos[(b * 4 + 2) * n + e];
    float lowest = 1e30f, lx = x1, ly = y1;
    for (int s = 0; s < work; ++s) {
      const float t = ((float)s + 0.5f) / (float)work;
      const float sx = x0 + t * (x1 - x0), sy = y0 + t * (y1 - y0), sz = z0 + t * (z1 - z0);
      const float gap = sz - radius - terrain(sx, sy);
      if (gap < lowest) {
        lowest = gap;
        lx = sx;
        ly = sy;
      }
    }
    const float gx = -0.065f * cosf(1.3f * lx) * cosf(0.7f * ly);
    const float gy = 0.035f * sinf(1.3f * lx) * sinf(0.7f * ly);
    const float inv = rsqrtf(gx * gx + gy * gy + 1.0f);
    con[(b * 4 + 0) * n + e] = fmaxf(0.0f, -lowest);
    con[(b * 4 + 1) * n + e] = gx * inv;
    con[(b * 4 + 2) * n + e] = gy * inv;
    con[(b * 4 + 3) * n + e] = inv;
    x0 = x1;
    y0 = y1;
    z0 = z1;
  }
}

// Torso sphere against the ground: `work` points on its lower half.
__global__ void drl_collide_torso(const float* __restrict__ rq, float* __restrict__ con, int n,
                                  float height, float radius, int work) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  const float px = rq[0 * n + e], py = rq[1 * n + e], pz = height + rq[2 * n + e];
  float deepest = 0.0f;
  for (int s = 0; s < work; ++s) {
    float sa, ca;
    sincosf(6.2831853f * (float)s / (float)work, &sa, &ca);
    const float sx = px + 0.7f * radius * ca, sy = py + 0.7f * radius * sa;
    const float sz = pz - 0.7f * radius;
    deepest = fmaxf(deepest, terrain(sx, sy) - sz);
  }
  con[0 * n + e] = deepest;
  con[1 * n + e] = 0.0f;
  con[2 * n + e] = 0.0f;
  con[3 * n + e] = 1.0f;
}

// Per limb (block b): the deepest contact over all environments. Max is order-free, so the
// flags are deterministic.
__global__ void drl_flags(const float* __restrict__ c0, const float* __restrict__ c1,
                          const float* __restrict__ c2, const float* __restrict__ c3,
                          const float* __restrict__ c4, const float* __restrict__ c5,
                          float* __restrict__ flags, int n, int count, int nb_packed) {
  __shared__ float best[256];
  const int b = blockIdx.x;
  if (b >= count) return;
  const float* c = b == 0 ? c0 : b == 1 ? c1 : b == 2 ? c2 : b == 3 ? c3 : b == 4 ? c4 : c5;
  const int nb = (nb_packed >> (4 * b)) & 15;
  float m = 0.0f;
  for (int i = threadIdx.x; i < nb * n; i += blockDim.x) m = fmaxf(m, c[((i / n) * 4) * n + i % n]);
  best[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if ((int)threadIdx.x < s) best[threadIdx.x] = fmaxf(best[threadIdx.x], best[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) flags[b] = best[0];
}

// One constraint-solver iteration for a limb: joint drive, damping and limits, and with
// Contact, ground impulses. Writes the limb's velocities and its reaction on the torso.
template <bool Contact>
__global__ void drl_solve(const float* __restrict__ rqd, const float* __restrict__ act,
                          const float* __restrict__ q, const float* __restrict__ con,
                          float* __restrict__ qd, float* __restrict__ imp, int n, int nb, int nj,
                          int work) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  float v[4], p[4], u[4], f[6] = {0, 0, 0, 0, 0, 0}, depth[3] = {0, 0, 0}, nz[3] = {0, 0, 0};
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    v[j] = j < nj ? qd[j * n + e] : 0.0f;
    p[j] = j < nj ? q[j * n + e] : 0.0f;
    u[j] = j < nj ? act[j * n + e] : 0.0f;
  }
  if (Contact) {
#pragma unroll
    for (int b = 0; b < 3; ++b) {
      if (b >= nb) break;
      depth[b] = con[(b * 4 + 0) * n + e];
      nz[b] = con[(b * 4 + 3) * n + e];
    }
  }
  const float w0 = rqd[3 * n + e], w1 = rqd[4 * n + e], w2 = rqd[5 * n + e];
  const float h = kDt / (float)work, inv = 1.0f / (float)work;
  for (int r = 0; r < work; ++r) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (j >= nj) break;
      const float wr = j % 3 == 0 ? w0 : j % 3 == 1 ? w1 : w2;
      const float tau = 1.5f * u[j] - 0.8f * v[j] - 4.0f * p[j] - 0.3f * wr;
      v[j] = clampf(v[j] + h * tau, -10.0f, 10.0f);
      f[3 + j % 3] -= 0.05f * tau * inv;
    }
    if (Contact) {
#pragma unroll
      for (int b = 0; b < 3; ++b) {
        if (b >= nb) break;
        const int j = b % nj;
        const float lambda = fmaxf(0.0f, 50.0f * depth[b] - 2.0f * v[j] * nz[b]);
        v[j] = clampf(v[j] + h * 0.1f * lambda, -10.0f, 10.0f);
        f[2] += lambda * nz[b] * inv;
        f[0] -= 0.2f * lambda * v[j] * inv;
      }
    }
  }
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (j < nj) qd[j * n + e] = v[j];
#pragma unroll
  for (int c = 0; c < 6; ++c) imp[c * n + e] = f[c];
}

// The torso's solve: gravity, the limbs' reactions and, with Contact, its own ground contact.
template <bool Contact>
__global__ void drl_solve_torso(const float* __restrict__ i0, const float* __restrict__ i1,
                                const float* __restrict__ i2, const float* __restrict__ i3,
                                const float* __restrict__ i4, const float* __restrict__ con,
                                float* __restrict__ rqd, int n, int limbs, float mass, int work) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  float force[6], v[6];
#pragma unroll
  for (int c = 0; c < 6; ++c) {
    float s = 0.0f;
    if (limbs > 0) s += i0[c * n + e];
    if (limbs > 1) s += i1[c * n + e];
    if (limbs > 2) s += i2[c * n + e];
    if (limbs > 3) s += i3[c * n + e];
    if (limbs > 4) s += i4[c * n + e];
    force[c] = s;
    v[c] = rqd[c * n + e];
  }
  const float depth = Contact ? con[e] : 0.0f;
  const float h = kDt / (float)work;
  for (int r = 0; r < work; ++r) {
#pragma unroll
    for (int c = 0; c < 6; ++c) {
      float a = force[c] / mass - 0.5f * v[c];
      if (c == 2) a += -9.8f + (Contact ? 80.0f * depth - 5.0f * v[2] : 0.0f);
      v[c] = clampf(v[c] + h * a, -5.0f, 5.0f);
    }
  }
#pragma unroll
  for (int c = 0; c < 6; ++c) rqd[c * n + e] = v[c];
}

__global__ void drl_integrate(const float* __restrict__ qd, float* __restrict__ q, int n, int nj,
                              int work) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  const float h = kDt / (float)work;
  for (int j = 0; j < nj; ++j) {
    float p = q[j * n + e];
    const float v = qd[j * n + e];
    for (int r = 0; r < work; ++r) p = clampf(p + h * v - 0.001f * h * p, -1.5f, 1.5f);
    q[j * n + e] = p;
  }
}

__global__ void drl_integrate_torso(const float* __restrict__ rqd, float* __restrict__ rq, int n,
                                    float height, int work) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  float p[3], o[4], v[6];
#pragma unroll
  for (int c = 0; c < 3; ++c) p[c] = rq[c * n + e];
  o[0] = 1.0f + rq[3 * n + e];
#pragma unroll
  for (int c = 1; c < 4; ++c) o[c] = rq[(3 + c) * n + e];
#pragma unroll
  for (int c = 0; c < 6; ++c) v[c] = rqd[c * n + e];
  const float h = kDt / (float)work;
  for (int r = 0; r < work; ++r) {
#pragma unroll
    for (int c = 0; c < 3; ++c) p[c] += h * v[c];
    p[2] = clampf(p[2], -height, 1.0f);
    // o += h/2 * (0, w) * o, then renormalise.
    const float dw = 0.5f * h * (-v[3] * o[1] - v[4] * o[2] - v[5] * o[3]);
    const float dx = 0.5f * h * (v[3] * o[0] + v[4] * o[3] - v[5] * o[2]);
    const float dy = 0.5f * h * (-v[3] * o[3] + v[4] * o[0] + v[5] * o[1]);
    const float dz = 0.5f * h * (v[3] * o[2] - v[4] * o[1] + v[5] * o[0]);
    o[0] += dw;
    o[1] += dx;
    o[2] += dy;
    o[3] += dz;
    const float inv = rsqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);
#pragma unroll
    for (int c = 0; c < 4; ++c) o[c] *= inv;
  }
#pragma unroll
  for (int c = 0; c < 3; ++c) rq[c * n + e] = p[c];
  rq[3 * n + e] = o[0] - 1.0f;
#pragma unroll
  for (int c = 1; c < 4; ++c) rq[(3 + c) * n + e] = o[c];
}

__global__ void drl_reward(const float* __restrict__ rq, const float* __restrict__ rqd,
                           const float* __restrict__ a0, const float* __restrict__ a1,
                           const float* __restrict__ a2, const float* __restrict__ a3,
                           const float* __restrict__ a4, float* __restrict__ reward, int n,
                           int limbs, int nj_packed, float height) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n) return;
  float ctrl = 0.0f;
  for (int l = 0; l < limbs; ++l) {
    const float* a = l == 0 ? a0 : l == 1 ? a1 : l == 2 ? a2 : l == 3 ? a3 : a4;
    const int nj = (nj_packed >> (4 * l)) & 15;
    for (int j = 0; j < nj; ++j) ctrl = fmaf(a[j * n + e], a[j * n + e], ctrl);
  }
  const float alive = height + rq[2 * n + e] > 0.3f * height ? 1.0f : 0.0f;
  reward[e] = 0.99f * reward[e] + rqd[0 * n + e] - 0.01f * ctrl + alive;
}

struct limb_spec {
  const char* name;
  int bodies, joints;
  float heading, pitch0, link, radius;
};
struct robot_spec {
  float height, torso_radius, mass;
  std::vector<limb_spec> limbs;
};

robot_spec robot(const std::string& name) {
  // Legs reach about the ground at rest, so contacts come and go with the joint angles;
  // arms and the torso touch it only when an environment falls.
  if (name == "ant")
    return {0.75f, 0.25f, 10.0f,
            {{"front_left", 3, 2, 0.785f, 0.45f, 0.58f, 0.08f},
             {"front_right", 3, 2, 2.356f, 0.45f, 0.58f, 0.08f},
             {"back_left", 3, 2, 3.927f, 0.45f, 0.58f, 0.08f},
             {"back_right", 3, 2, 5.498f, 0.45f, 0.58f, 0.08f}}};
  if (name == "humanoid")
    return {1.4f, 0.09f, 40.0f,
            {{"abdomen", 2, 3, 0.0f, 1.57f, 0.18f, 0.06f},
             {"right_leg", 3, 4, 4.712f, 1.45f, 0.42f, 0.06f},
             {"left_leg", 3, 4, 1.571f, 1.45f, 0.42f, 0.06f},
             {"right_arm", 2, 3, 4.712f, 1.0f, 0.28f, 0.04f},
             {"left_arm", 2, 3, 1.571f, 1.0f, 0.28f, 0.04f}}};
  if (name == "walker2d")
    return {1.25f, 0.05f, 3.5f,
            {{"right_leg", 3, 3, 4.712f, 1.45f, 0.37f, 0.05f},
             {"left_leg", 3, 3, 1.571f, 1.45f, 0.37f, 0.05f}}};
  die("drl: unknown robot '%s'", name.c_str());
}

class drl final : public workload {
 public:
  drl(options& o, const std::string& robot_name) : name_(robot_name), spec_(robot(robot_name)) {
    const bool q = global().quick;
    envs_ = (int)o.integer("envs", 2048);
    steps_ = (int)o.integer("steps", q ? 3 : 12);
    iters_ = (int)o.integer("iters", 4);
    work_ = (int)o.integer("work", 1);
    if (envs_ < 1 || steps_ < 1 || iters_ < 1 || work_ < 1)
      die("drl: --envs, --steps, --iters, --work must be >= 1");
  }
  ~drl() override {
    if (host_flags_) (void)cudaFreeHost(host_flags_);
  }

  std::string describe() const override {
    char buf[160];
    std::snprintf(buf, sizeof buf, "envs=%d steps=%d iters=%d work=%d", envs_, steps_, iters_,
                  work_);
    return buf;
  }
  bool dynamic() const override { return true; }

  void setup() override {
    const int n = envs_, L = (int)spec_.limbs.size();
    const size_t N = (size_t)n;
    ACS_BENCH_CHECK(cudaMallocHost(&host_flags_, 8 * sizeof(float)));
    rq_ = mem_.state("torso_q", 7 * N, -0.2f, 0.2f);
    rqd_ = mem_.state("torso_qd", 6 * N, -0.3f, 0.3f);
    rcon_ = mem_.state("torso_contact", 4 * N);
    flags_ = mem_.state("flags", 8);
    reward_ = mem_.state("reward", N);
    for (int l = 0; l < L; ++l) {
      const limb_spec& s = spec_.limbs[(size_t)l];
      limb b;
      b.q = mem_.state(label("q", l), (size_t)s.joints * N, -0.3f, 0.3f);
      b.qd = mem_.state(label("qd", l), (size_t)s.joints * N, -0.5f, 0.5f);
      b.act = mem_.state(label("act", l), (size_t)s.joints * N);
      b.xpos = mem_.state(label("xpos", l), (size_t)s.bodies * 4 * N);
      b.con = mem_.state(label("contact", l), (size_t)s.bodies * 4 * N);
      b.imp = mem_.state(label("impulse", l), 6 * N);
      b.w = mem_.constant(label("policy", l), kPolicyWeights, -0.45f, 0.45f);
      limbs_.push_back(b);
    }
    build_ops();
  }

  void run(executor& ex) override {
    const int L = (int)limbs_.size();
    for (int step = 0; step < steps_; ++step) {
      stage_.clear();
      for (int l = 0; l < L; ++l) stage_.push_back(policy_[(size_t)l]);
      for (int l = 0; l < L; ++l) {
        stage_.push_back(fk_[(size_t)l]);
        stage_.push_back(collide_[(size_t)l]);
      }
      stage_.push_back(collide_torso_);
      stage_.push_back(flags_op_);
      ex.run(stage_);
      ex.readback(host_flags_, flags_, (size_t)(L + 1) * sizeof(float));

      stage_.clear();
      for (int it = 0; it < iters_; ++it) {
        for (int l = 0; l < L; ++l)
          stage_.push_back(host_flags_[l] > 0.0f ? solve_contact_[(size_t)l] : solve_free_[(size_t)l]);
        stage_.push_back(host_flags_[L] > 0.0f ? torso_contact_ : torso_free_);
      }
      for (int l = 0; l < L; ++l) stage_.push_back(integrate_[(size_t)l]);
      stage_.push_back(integrate_torso_);
      stage_.push_back(reward_op_);
      ex.run(stage_);
    }
  }

  std::vector<acs_range> outputs() const override {
    const size_t N = (size_t)envs_;
    std::vector<acs_range> r = {{rq_, 7 * N * sizeof(float)},
                                {rqd_, 6 * N * sizeof(float)},
                                {reward_, N * sizeof(float)}};
    for (size_t l = 0; l < limbs_.size(); ++l) {
      const size_t nj = (size_t)spec_.limbs[l].joints;
      r.push_back({limbs_[l].q, nj * N * sizeof(float)});
      r.push_back({limbs_[l].qd, nj * N * sizeof(float)});
    }
    return r;
  }

 private:
  struct limb {
    float *q, *qd, *act, *xpos, *con, *imp, *w;
  };

  // Lanes of the hand-written oracle: limb l's chain on stream l, the torso on stream L,
  // the policies on their own streams.
  // Per-kernel multipliers of --work even out the kernels' lengths (estimated from their
  // instruction counts per unit of work: policy and collision are the heaviest per unit).
  void build_ops() {
    const int n = envs_, L = (int)limbs_.size(), work = work_, grid = blocks_for(n);
    const int work_solve = 2 * work, work_torso = 4 * work, work_integrate = 6 * work,
              work_integrate_torso = 3 * work, work_collide_torso = 2 * work;
    const float height = spec_.height, radius = spec_.torso_radius, mass = spec_.mass;
    const annot how = annot::next_launch;
    int nb_packed = 0, nj_packed = 0;
    for (int l = 0; l < L; ++l) {
      nb_packed |= spec_.limbs[(size_t)l].bodies << (4 * l);
      nj_packed |= spec_.limbs[(size_t)l].joints << (4 * l);
    }
    nb_packed |= 1 << (4 * L);
    for (int l = 0; l < L; ++l) {
      const limb& b = limbs_[(size_t)l];
      const limb_spec& s = spec_.limbs[(size_t)l];
      const int nb = s.bodies, nj = s.joints;
      const limb_geom g{s.heading, s.pitch0, s.link, height};
      const float lr = s.radius;
      float *q = b.q, *qd = b.qd, *act = b.act, *xpos = b.xpos, *con = b.con, *imp = b.imp,
            *w = b.w, *rq = rq_, *rqd = rqd_;
      policy_.push_back(&add_op(label("policy", l), {q, qd, rq, rqd, w}, {act}, L + 1 + l, how,
                                [=](launcher& x) {
                                  ACS_BENCH_LAUNCH(x, drl_policy, grid, 128, q, qd, rq, rqd, w, act,
                                                   n, nj, work);
                                }));
      fk_.push_back(&add_op(label("fk", l), {q, qd, rq}, {xpos}, l, how, [=](launcher& x) {
        ACS_BENCH_LAUNCH(x, drl_fk, grid, 128, q, qd, rq, xpos, n, nb, nj, g, work);
      }));
      collide_.push_back(&add_op(label("collide", l), {xpos, rq}, {con}, l, how, [=](launcher& x) {
        ACS_BENCH_LAUNCH(x, drl_collide, grid, 128, xpos, rq, con, n, nb, g, lr, work);
      }));
      solve_free_.push_back(&add_op(label("solve_free", l), {rqd, act, q, qd}, {qd, imp}, l, how,
                                    [=](launcher& x) {
                                      ACS_BENCH_LAUNCH(x, drl_solve<false>, grid, 128, rqd, act, q,
                                                       nullptr, qd, imp, n, nb, nj, work_solve);
                                    }));
      solve_contact_.push_back(&add_op(label("solve_contact", l), {rqd, act, q, con, qd},
                                       {qd, imp}, l, how, [=](launcher& x) {
                                         ACS_BENCH_LAUNCH(x, drl_solve<true>, grid, 128, rqd, act,
                                                          q, con, qd, imp, n, nb, nj, work_solve);
                                       }));
      integrate_.push_back(&add_op(label("integrate", l), {qd, q}, {q}, l, how, [=](launcher& x) {
        ACS_BENCH_LAUNCH(x, drl_integrate, grid, 128, qd, q, n, nj, work_integrate);
      }));
    }
    float *rq = rq_, *rqd = rqd_, *rcon = rcon_, *flags = flags_, *reward = reward_;
    collide_torso_ = &add_op("collide_torso", {rq}, {rcon}, L, how, [=](launcher& x) {
      ACS_BENCH_LAUNCH(x, drl_collide_torso, grid, 128, rq, rcon, n, height, radius,
                       work_collide_torso);
    });
    std::vector<const float*> cons, imps, acts;
    for (const limb& b : limbs_) {
      cons.push_back(b.con);
      imps.push_back(b.imp);
      acts.push_back(b.act);
    }
    cons.push_back(rcon);
    const float* c[6] = {};
    const float* im[5] = {};
    const float* ac[5] = {};
    for (size_t k = 0; k < cons.size(); ++k) c[k] = cons[k];
    for (size_t k = 0; k < imps.size(); ++k) im[k] = imps[k];
    for (size_t k = 0; k < acts.size(); ++k) ac[k] = acts[k];
    const int count = L + 1;
    flags_op_ = &add_op("flags", cons, {flags}, L, how, [=](launcher& x) {
      ACS_BENCH_LAUNCH(x, drl_flags, count, 256, c[0], c[1], c[2], c[3], c[4], c[5], flags, n,
                       count, nb_packed);
    });
    std::vector<const float*> torso_reads = imps;
    torso_reads.push_back(rqd);
    torso_free_ = &add_op("torso_free", torso_reads, {rqd}, L, how, [=](launcher& x) {
      ACS_BENCH_LAUNCH(x, drl_solve_torso<false>, grid, 128, im[0], im[1], im[2], im[3], im[4],
                       nullptr, rqd, n, L, mass, work_torso);
    });
    torso_reads.push_back(rcon);
    torso_contact_ = &add_op("torso_contact", torso_reads, {rqd}, L, how, [=](launcher& x) {
      ACS_BENCH_LAUNCH(x, drl_solve_torso<true>, grid, 128, im[0], im[1], im[2], im[3], im[4],
                       rcon, rqd, n, L, mass, work_torso);
    });
    integrate_torso_ = &add_op("integrate_torso", {rqd, rq}, {rq}, L, how, [=](launcher& x) {
      ACS_BENCH_LAUNCH(x, drl_integrate_torso, grid, 128, rqd, rq, n, height,
                       work_integrate_torso);
    });
    std::vector<const float*> reward_reads = acts;
    reward_reads.push_back(rq);
    reward_reads.push_back(rqd);
    reward_reads.push_back(reward);
    reward_op_ = &add_op("reward", reward_reads, {reward}, L, how, [=](launcher& x) {
      ACS_BENCH_LAUNCH(x, drl_reward, grid, 128, rq, rqd, ac[0], ac[1], ac[2], ac[3], ac[4],
                       reward, n, L, nj_packed, height);
    });
  }

  std::string name_;
  robot_spec spec_;
  int envs_, steps_, iters_, work_;
  float *rq_ = nullptr, *rqd_ = nullptr, *rcon_ = nullptr, *flags_ = nullptr, *reward_ = nullptr;
  float* host_flags_ = nullptr;
  std::vector<limb> limbs_;
  std::vector<const op*> policy_, fk_, collide_, solve_free_, solve_contact_, integrate_;
  const op *collide_torso_ = nullptr, *flags_op_ = nullptr, *torso_free_ = nullptr,
           *torso_contact_ = nullptr, *integrate_torso_ = nullptr, *reward_op_ = nullptr;
  stage stage_;
};

}  // namespace
}  // namespace acs_bench

int main(int argc, char** argv) {
  using namespace acs_bench;
  auto make = [](const char* r) {
    return [r](options& o) -> std::unique_ptr<workload> { return std::make_unique<drl>(o, r); };
  };
  const char* about = "(--envs --steps --iters --work)";
  return run_main(argc, argv, "drl",
                  {
                      {"ant", about, make("ant")},
                      {"humanoid", about, make("humanoid")},
                      {"walker2d", about, make("walker2d")},
                  });
}
