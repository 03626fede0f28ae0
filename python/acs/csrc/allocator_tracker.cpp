// The CUDA caching allocator's blocks as acs sub-allocations: each block it hands out (ALLOC)
// is an allocation of its own for acs until it is freed. Registered from the allocator's trace
// tracker, which PyTorch calls under the device allocator's lock, in the allocator's order:
// a block's FREE always comes before an ALLOC that reuses its memory.
//  * ALLOC: [ptr, ptr + size rounded up to 512): the allocator's smallest block; the block
//    itself is at least that big, so the range never reaches a neighbour, and it covers the
//    padding a vectorised kernel may read past a tensor's end.
//  * FREE_REQUESTED (and FREE_COMPLETED, when record_stream delayed it): the block is
//    forgotten at the request, the earliest moment. Forgetting only makes lookups coarser (the
//    whole segment), and the ranges of kernels still in flight are bytes: a block reused at
//    once stays ordered behind them (docs/design.md rule 7).
//  * SEGMENT_FREE / SEGMENT_UNMAP: every block inside is forgotten, whatever was missed.
// Compiled without CUDA (a CPU-only PyTorch) it reports so and does nothing.
#include <atomic>
#include <mutex>
#include <string>

#include "integration.hpp"

#if defined(ACS_TORCH_WITH_CUDA)
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace acs_torch {

namespace {

std::atomic<std::uint64_t> allocated{0}, freed{0}, released{0};

#if defined(ACS_TORCH_WITH_CUDA)
constexpr std::size_t min_block = 512;  // CUDACachingAllocator.cpp: kMinBlockSize

const void* as_pointer(std::size_t a) { return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(a)); }

void on_trace(const c10::CachingDeviceAllocator::TraceEntry& te) {
  using entry = c10::CachingDeviceAllocator::TraceEntry;
  switch (te.action_) {
    case entry::ALLOC: {
      if (te.size_ == 0) return;
      const std::size_t bytes = (te.size_ + min_block - 1) / min_block * min_block;
      acs_suballocation(as_pointer(te.addr_), bytes, 1);
      allocated.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    case entry::FREE_REQUESTED:
    case entry::FREE_COMPLETED:
      acs_suballocation(as_pointer(te.addr_), 0, 0);  // the block that starts there
      freed.fetch_add(1, std::memory_order_relaxed);
      return;
    case entry::SEGMENT_FREE:
    case entry::SEGMENT_UNMAP:
      if (te.size_ != 0) acs_suballocation(as_pointer(te.addr_), te.size_, 0);
      released.fetch_add(1, std::memory_order_relaxed);
      return;
    default: return;
  }
}
#endif

}  // namespace

std::string attach_allocator_tracker() {
#if defined(ACS_TORCH_WITH_CUDA)
  static std::mutex mutex;
  static bool attached = false;
  std::lock_guard lock(mutex);
  if (attached) return "already attached";
  try {
    auto* allocator = c10::cuda::CUDACachingAllocator::get();
    if (allocator == nullptr) return "unavailable: no CUDA allocator";
    // Attaching before the allocator knows its devices would attach to none of them.
    if (!allocator->initialized()) return "not initialized";
    c10::cuda::CUDACachingAllocator::attachAllocatorTraceTracker(&on_trace);
    attached = true;
    return "attached";
  } catch (const std::exception& e) {
    // cudaMallocAsync and pluggable allocators may not trace: their tensors are then whole
    // allocations of their own anyway (cudaMallocAsync), or one unit per segment.
    return std::string("unavailable: ") + e.what();
  } catch (...) {
    return "unavailable: unknown error";
  }
#else
  return "no CUDA in this build";
#endif
}

block_counters tracker_counters() noexcept { return {allocated.load(), freed.load(), released.load()}; }

}  // namespace acs_torch
