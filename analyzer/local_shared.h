// LocalShared<T>: std::shared_ptr's sharing for objects one thread alone uses, with a plain
// count. The streaming analysis copies a clock or a region record into every pair and unit it
// keeps, millions of copies. A shared_ptr's count is atomic, and on x86 each of its locked
// instructions is a full memory barrier: it waits for the cache misses before it.
// Not for objects more than one thread may share.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace pecan {

template <typename V>
struct LocalSharedBlock {
  template <typename... Args>
  explicit LocalSharedBlock(Args&&... args) : value(std::forward<Args>(args)...) {}
  V value;
  uint64_t count = 1;
};

// T may be const: LocalShared<V> converts to LocalShared<const V>, and ConstCast goes back.
template <typename T>
class LocalShared {
  using V = std::remove_const_t<T>;
  using Block = LocalSharedBlock<V>;

 public:
  LocalShared() = default;
  LocalShared(const LocalShared& o) noexcept : block_(o.block_) { Acquire(); }
  LocalShared(LocalShared&& o) noexcept : block_(std::exchange(o.block_, nullptr)) {}
  template <typename U,
            typename = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  LocalShared(const LocalShared<U>& o) noexcept : block_(o.block_) {  // NOLINT: as shared_ptr
    Acquire();
  }
  template <typename U,
            typename = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
  LocalShared(LocalShared<U>&& o) noexcept  // NOLINT: as shared_ptr
      : block_(std::exchange(o.block_, nullptr)) {}
  LocalShared& operator=(const LocalShared& o) noexcept {
    Block* const block = o.block_;  // o may be this
    if (block != nullptr) ++block->count;
    Release();
    block_ = block;
    return *this;
  }
  LocalShared& operator=(LocalShared&& o) noexcept {
    if (this != &o) {
      Release();
      block_ = std::exchange(o.block_, nullptr);
    }
    return *this;
  }
  ~LocalShared() { Release(); }

  // A new object, made from `args`, held by one LocalShared.
  template <typename... Args>
  static LocalShared Make(Args&&... args) {
    LocalShared p;
    p.block_ = new Block(std::forward<Args>(args)...);
    return p;
  }

  T& operator*() const { return block_->value; }
  T* operator->() const { return &block_->value; }
  T* get() const { return block_ == nullptr ? nullptr : &block_->value; }
  explicit operator bool() const { return block_ != nullptr; }
  uint64_t use_count() const { return block_ == nullptr ? 0 : block_->count; }
  // The same object, writable (as std::const_pointer_cast).
  LocalShared<V> ConstCast() && {
    LocalShared<V> p;
    p.block_ = std::exchange(block_, nullptr);
    return p;
  }

 private:
  template <typename>
  friend class LocalShared;

  void Acquire() {
    if (block_ != nullptr) ++block_->count;
  }
  void Release() {
    if (block_ != nullptr && --block_->count == 0) Destroy(block_);
    block_ = nullptr;
  }
  // Out of line: Release, inlined at every copy's end, stays a decrement and a test.
  [[gnu::noinline]] static void Destroy(Block* block) { delete block; }

  Block* block_ = nullptr;
};

}  // namespace pecan
