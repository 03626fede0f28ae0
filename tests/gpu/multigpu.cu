// Several GPUs in one process (docs/design.md rule 8). Needs 2 devices: with fewer it says
// so on stdout ("SKIPPED: ...") and exits 77, which CTest reports as skipped.
//
//   multigpu peer [--rounds=6]
//       A producer on device 0 (a chain and independent kernels on stream s0), its result
//       copied to device 1 with cudaMemcpyPeerAsync on s0, an event recorded on s0 and waited
//       on by stream s1 of device 1, whose consumers read the copy and, with peer access,
//       device 0's buffer itself. Then back: device 1's result copied to device 0 on s1, an
//       event, s0 waits. A consumer that acs ran before the copy or the wait reads stale data.
//   multigpu switch [--rounds=8]
//       cudaSetDevice between launches on the legacy stream (stream 0 of each device in turn):
//       dependent and independent kernels interleaved over both devices, each device's own
//       legacy stream ordered as written, copies between them through cudaMemcpyPeer.
//   multigpu events [--rounds=8]
//       Ping-pong over two created streams, one per device: each round's kernels on one
//       device wait, through an event recorded on the other, for the other's previous round.
//
// stdout: digests of every buffer, compared bit for bit with the native run.
// Never uses NVLink multicast (no cuMulticastCreate); the tests set NCCL_NVLS_ENABLE=0 too.
#include <vector>

#include "common.cuh"

using std::uint32_t;

namespace {

constexpr int n = 1 << 16;
constexpr int iters = 200;

void require_two_devices() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count < 2) {
    std::printf("SKIPPED: fewer than 2 CUDA devices (%s)\n",
                e != cudaSuccess ? cudaGetErrorName(e) : (count == 1 ? "1 device" : "0 devices"));
    std::exit(acs_test::skip_code);
  }
}

// Buffers of one device, allocated with it current.
struct device_buffers {
  int device = 0;
  cudaStream_t stream = nullptr;
  uint32_t* in = nullptr;
  uint32_t* mid = nullptr;
  uint32_t* side = nullptr;
  uint32_t* out = nullptr;
  uint32_t* copy = nullptr;  // what the other device sent

  explicit device_buffers(int d) : device(d) {
    ACS_CHECK(cudaSetDevice(d));
    ACS_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (uint32_t** p : {&in, &mid, &side, &out, &copy}) *p = acs_test::device_words(n);
    acs_test::fill(stream, in, nullptr, n, 0x1000u + static_cast<uint32_t>(d));
    acs_test::fill(stream, copy, nullptr, n, 0x2000u + static_cast<uint32_t>(d));
    ACS_CHECK(cudaStreamSynchronize(stream));  // the other device's streams read these from the start
  }
  // After every device's work: a copy issued on one device may write another's buffers.
  void print(const char* tag) const {
    for (int d = 0; d < 2; ++d) {
      ACS_CHECK(cudaSetDevice(d));
      ACS_CHECK(cudaDeviceSynchronize());
    }
    ACS_CHECK(cudaSetDevice(device));
    char name[32];
    const uint32_t* all[] = {in, mid, side, out, copy};
    const char* names[] = {"in", "mid", "side", "out", "copy"};
    for (int i = 0; i < 5; ++i) {
      std::snprintf(name, sizeof name, "%s.d%d.%s", tag, device, names[i]);
      acs_test::print_device_words(name, all[i], n);
    }
  }
};

bool enable_peer(int from, int to) {
  int can = 0;
  ACS_CHECK(cudaDeviceCanAccessPeer(&can, from, to));
  if (can == 0) return false;
  ACS_CHECK(cudaSetDevice(from));
  const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();
    return true;
  }
  ACS_CHECK(e);
  return true;
}

// One device's share of a round: a chain through mid and out, an independent kernel on side
// (acs may run it beside the chain), and a consumer of what the other device sent.
void work(device_buffers& b, uint32_t salt, const uint32_t* peer) {
  ACS_CHECK(cudaSetDevice(b.device));
  acs_test::rmw(b.stream, b.mid, b.in, b.copy, n, salt, iters);
  acs_test::rmw(b.stream, b.side, b.in, nullptr, n, salt + 1, iters);
  acs_test::rmw(b.stream, b.out, b.mid, peer, n, salt + 2, iters);  // peer: the other device's memory
  acs_test::rmw(b.stream, b.in, b.out, b.side, n, salt + 3, iters / 4);
}

int peer(int argc, char** argv) {
  const int rounds = static_cast<int>(acs_test::arg_long(argc, argv, "--rounds", 6));
  device_buffers d0(0), d1(1);
  // Peer access where the GPUs allow it (both ways); without it, copies alone cross over.
  const bool direct = enable_peer(0, 1) && enable_peer(1, 0);
  std::printf("peer access: %s\n", direct ? "yes" : "no");  // the same natively and under acs
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  ACS_CHECK(cudaSetDevice(0));
  ACS_CHECK(cudaEventCreateWithFlags(&e0, cudaEventDisableTiming));
  ACS_CHECK(cudaSetDevice(1));
  ACS_CHECK(cudaEventCreateWithFlags(&e1, cudaEventDisableTiming));
  for (int r = 0; r < rounds; ++r) {
    const auto salt = static_cast<uint32_t>(r * 16);
    work(d0, salt, direct ? d1.out : nullptr);
    ACS_CHECK(cudaMemcpyPeerAsync(d1.copy, 1, d0.out, 0, n * sizeof(uint32_t), d0.stream));
    ACS_CHECK(cudaEventRecord(e0, d0.stream));
    ACS_CHECK(cudaSetDevice(1));
    ACS_CHECK(cudaStreamWaitEvent(d1.stream, e0, 0));
    work(d1, salt + 8, direct ? d0.out : nullptr);
    ACS_CHECK(cudaMemcpyPeerAsync(d0.copy, 0, d1.out, 1, n * sizeof(uint32_t), d1.stream));
    ACS_CHECK(cudaEventRecord(e1, d1.stream));
    ACS_CHECK(cudaSetDevice(0));
    ACS_CHECK(cudaStreamWaitEvent(d0.stream, e1, 0));
  }
  d0.print("peer");
  d1.print("peer");
  return 0;
}

int switch_devices(int argc, char** argv) {
  const int rounds = static_cast<int>(acs_test::arg_long(argc, argv, "--rounds", 8));
  device_buffers d0(0), d1(1);
  device_buffers* both[] = {&d0, &d1};
  for (int r = 0; r < rounds; ++r) {
    for (device_buffers* b : both) {
      ACS_CHECK(cudaSetDevice(b->device));  // then stream 0 is this device's legacy stream
      const auto salt = static_cast<uint32_t>(r * 8 + b->device);
      acs_test::rmw(nullptr, b->mid, b->in, b->copy, n, salt, iters);
      acs_test::rmw(nullptr, b->side, b->in, nullptr, n, salt + 1, iters);
    }
    for (device_buffers* b : both) {
      ACS_CHECK(cudaSetDevice(b->device));
      acs_test::rmw(nullptr, b->out, b->mid, b->side, n, static_cast<uint32_t>(r), iters);
      acs_test::rmw(nullptr, b->in, b->out, nullptr, n, static_cast<uint32_t>(r) + 5, iters / 4);
    }
    // Synchronous peer copies (on the legacy streams): each device's work before, the next after.
    ACS_CHECK(cudaSetDevice(0));
    ACS_CHECK(cudaMemcpyPeer(d1.copy, 1, d0.out, 0, n * sizeof(uint32_t)));
    ACS_CHECK(cudaMemcpyPeer(d0.copy, 0, d1.out, 1, n * sizeof(uint32_t)));
  }
  ACS_CHECK(cudaSetDevice(1));
  ACS_CHECK(cudaDeviceSynchronize());
  d0.print("switch");
  d1.print("switch");
  return 0;
}

int events(int argc, char** argv) {
  const int rounds = static_cast<int>(acs_test::arg_long(argc, argv, "--rounds", 8));
  device_buffers d0(0), d1(1);
  device_buffers* both[] = {&d0, &d1};
  cudaEvent_t done[2] = {nullptr, nullptr};
  for (int d = 0; d < 2; ++d) {
    ACS_CHECK(cudaSetDevice(d));
    ACS_CHECK(cudaEventCreateWithFlags(&done[d], cudaEventDisableTiming));
  }
  for (int r = 0; r < rounds; ++r) {
    device_buffers& b = *both[r % 2];
    device_buffers& other = *both[1 - r % 2];
    ACS_CHECK(cudaSetDevice(b.device));
    if (r > 0) ACS_CHECK(cudaStreamWaitEvent(b.stream, done[other.device], 0));
    // The other device's result, copied here on this device's stream after the wait.
    ACS_CHECK(cudaMemcpyPeerAsync(b.copy, b.device, other.out, other.device, n * sizeof(uint32_t), b.stream));
    work(b, static_cast<uint32_t>(r * 4), nullptr);
    ACS_CHECK(cudaEventRecord(done[b.device], b.stream));
  }
  d0.print("events");
  d1.print("events");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  require_two_devices();
  const char* scenario = argc > 1 ? argv[1] : "peer";
  if (std::strcmp(scenario, "peer") == 0) return peer(argc, argv);
  if (std::strcmp(scenario, "switch") == 0) return switch_devices(argc, argv);
  if (std::strcmp(scenario, "events") == 0) return events(argc, argv);
  std::fprintf(stderr, "unknown scenario %s\n", scenario);
  return 2;
}
