#pragma once
// The small per-thread caches in front of acs's look-ups (stream and context resolution,
// parameter layouts, pointer probes): a direct-mapped array of slots, meant to be
// thread_local, so that a hit takes no lock and shares no cache line with another thread.
//
// Each slot remembers a key, its value and the generation the value was computed under. The
// owner of the data bumps its generation whenever an answer may have become wrong (a handle
// destroyed and reusable, modules unloaded, an allocation made or freed): every slot computed
// under an older one then misses. Generations are any 64-bit values except `never`.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace acs {

/// @brief The one hash of acs's caches and sets: Fibonacci hashing of a word (one multiply;
/// the high bits of the product depend on every bit of the input, aligned pointers included).
constexpr std::uint64_t hash_word(std::uint64_t v) noexcept { return v * 0x9e3779b97f4a7c15ULL; }

/// @brief Folds another word into a hash (boost's hash_combine, on 64 bits).
constexpr std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t v) noexcept {
  return seed ^ (hash_word(v) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

template <class Key, class Value, std::size_t Slots>
class thread_cache {
  static_assert(Slots != 0 && (Slots & (Slots - 1)) == 0, "a power of two of slots");
  static_assert(std::is_trivially_copyable_v<Key> && std::is_trivially_copyable_v<Value>);

 public:
  static constexpr std::uint64_t never = ~std::uint64_t{0};

  /// @brief The value cached for `key` under `generation`, or nullptr.
  const Value* find(Key key, std::uint64_t generation) const noexcept {
    const slot& s = slots_[index(key)];
    return s.generation == generation && s.key == key ? &s.value : nullptr;
  }

  /// @brief Remembers `value` for `key`, computed under `generation`; returns it.
  const Value& store(Key key, std::uint64_t generation, const Value& value) noexcept {
    slot& s = slots_[index(key)];
    s = {generation, key, value};
    return s.value;
  }

  /// @brief The cached value, or `compute()` stored under `generation`.
  template <class Compute>
  Value get(Key key, std::uint64_t generation, Compute&& compute) {
    if (const Value* v = find(key, generation)) return *v;
    return store(key, generation, compute());
  }

 private:
  struct slot {
    std::uint64_t generation = never;
    Key key{};
    Value value{};
  };

  static std::size_t index(Key key) noexcept {
    if constexpr (Slots == 1) {
      return 0;
    } else {
      std::uint64_t word = 0;
      if constexpr (std::is_pointer_v<Key>) {
        word = reinterpret_cast<std::uintptr_t>(key);
      } else {
        word = static_cast<std::uint64_t>(key);
      }
      return static_cast<std::size_t>(hash_word(word) >> (64 - std::countr_zero(Slots)));
    }
  }

  std::array<slot, Slots> slots_{};
};

}  // namespace acs
