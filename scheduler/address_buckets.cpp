#include "scheduler/address_buckets.hpp"

namespace acs {

address_buckets::address_buckets(unsigned slots)
    : words_((slots + 63) / 64),
      masks_(std::size_t{bucket_count} * words_, 0),
      wide_(words_, 0),
      wide_count_(slots, 0) {}

void address_buckets::update(std::uint32_t slot, const byte_range& r, bool set) noexcept {
  const std::uint64_t bit = std::uint64_t{1} << (slot % 64);
  const unsigned word = slot / 64;
  const std::uint64_t first = r.first >> bucket_shift;
  const std::uint64_t last = r.last >> bucket_shift;
  if (last - first >= max_span) {
    // Counted, since a slot may hold several wide ranges.
    wide_count_[slot] = set ? wide_count_[slot] + 1 : wide_count_[slot] - 1;
    if (wide_count_[slot] != 0) wide_[word] |= bit;
    else wide_[word] &= ~bit;
    return;
  }
  std::uint64_t* masks = masks_.data() + word;
  if (set) {
    for (std::uint64_t b = first; b <= last; ++b) masks[(b % bucket_count) * words_] |= bit;
  } else {
    for (std::uint64_t b = first; b <= last; ++b) masks[(b % bucket_count) * words_] &= ~bit;
  }
}

void address_buckets::candidates(const byte_range& q, std::uint64_t* out) const noexcept {
  const std::uint64_t first = q.first >> bucket_shift;
  const std::uint64_t last = q.last >> bucket_shift;
  const std::uint64_t span = last - first >= bucket_count ? bucket_count : last - first + 1;
  if (words_ == 1) {  // windows up to 64: the common case, one word per bucket
    std::uint64_t acc = wide_[0];
    for (std::uint64_t i = 0; i < span; ++i) acc |= masks_[(first + i) % bucket_count];
    out[0] |= acc;
    return;
  }
  for (unsigned w = 0; w < words_; ++w) out[w] |= wide_[w];
  for (std::uint64_t i = 0; i < span; ++i) {
    const std::uint64_t* m = &masks_[((first + i) % bucket_count) * words_];
    for (unsigned w = 0; w < words_; ++w) out[w] |= m[w];
  }
}

}  // namespace acs
