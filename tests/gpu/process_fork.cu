// fork() right after launches (docs/design.md rule 13): 15 times, a burst of kernels on one
// stream, then fork(); the child calls exit() at once. Natively the child exits; under acs it must
// too (its exit must not wait for issuing threads that stayed in the parent), quickly, and print
// nothing (ACS_STATS=1 is set in the acs run: the statistics are the parent's). The parent then
// synchronises and prints its buffers, which must equal the native run's.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "common.cuh"

namespace {

constexpr int n_words = 1 << 14;
constexpr int rounds = 15;
constexpr int burst = 64;

// The child's exit status and how long it took; -1 if it had to be killed after 20 s.
int reap(pid_t pid, double& seconds) {
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > 20) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int main() {
  acs_test::require_device();
  std::uint32_t* buffers[4];
  for (std::uint32_t*& b : buffers) b = acs_test::device_words(n_words);
  cudaStream_t s = nullptr;
  ACS_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int quick = 0;
  double slowest = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int k = 0; k < burst; ++k)
      acs_test::rmw(s, buffers[k % 4], buffers[(k + 1) % 4], nullptr, n_words, static_cast<std::uint32_t>(round * burst + k),
                    20);
    ACS_CHECK(cudaGetLastError());
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return 1;
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(pipe_fds[1], STDOUT_FILENO);
      dup2(pipe_fds[1], STDERR_FILENO);
      close(pipe_fds[0]);
      std::exit(0);  // with the exit handlers, as the program in issue 13 did
    }
    close(pipe_fds[1]);
    double seconds = 0;
    const int status = reap(pid, seconds);
    std::string printed;
    char chunk[512];
    for (ssize_t n; (n = read(pipe_fds[0], chunk, sizeof chunk)) > 0;) printed.append(chunk, static_cast<std::size_t>(n));
    close(pipe_fds[0]);
    std::printf("round %2d: child exit status %d, printed %zu bytes\n", round, status, printed.size());
    if (!printed.empty()) std::fprintf(stderr, "the child printed: %s\n", printed.c_str());
    quick += status == 0 && seconds < 5;
    slowest = seconds > slowest ? seconds : slowest;
  }
  std::printf("children that exited within 5 s: %d of %d\n", quick, rounds);
  std::fprintf(stderr, "acs-test: children_quick=%d slowest_child_ms=%.0f\n", quick, slowest * 1000);
  ACS_CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < 4; ++i) acs_test::print_device_words("buffer", buffers[i], n_words);
  return 0;
}
