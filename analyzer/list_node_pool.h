// ListNodePool: the nodes of many singly linked lists of 32-bit values, in a BlockVector, the free
// ones in lists too (nodes erased one at a time, and whole cleared lists): the race search's pairs
// waiting for a class's next member, one pool per location (freed with it), millions of nodes at
// the peak of a program that walks big buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analyzer/block_vector.h"

namespace pecan {

class ListNodePool {
 public:
  static constexpr uint32_t kNil = ~0u;  // the end of a list, and the head of an empty one
  struct Node {
    uint32_t value = 0;
    uint32_t next = kNil;
  };

  Node& operator[](uint32_t n) { return nodes_[n]; }
  const Node& operator[](uint32_t n) const { return nodes_[n]; }

  // Puts `value` at the head of the list that starts at `*head`, in a free node if there is one.
  void Push(uint32_t* head, uint32_t value) {
    uint32_t n = free_;
    if (n != kNil) {
      free_ = nodes_[n].next;
      --loose_;
    } else if (!cleared_.empty()) {
      n = cleared_.back();
      if (nodes_[n].next == kNil) {
        cleared_.pop_back();
      } else {
        cleared_.back() = nodes_[n].next;
      }
    } else {
      n = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back(Node{});
    }
    nodes_[n] = Node{value, *head};
    *head = n;
  }

  // Frees the node `*link` names (a list's head, or a node's `next`): `*link` then names the one
  // after it.
  void Erase(uint32_t* link) {
    const uint32_t n = *link;
    Node& node = (*this)[n];
    *link = node.next;
    node.next = free_;
    free_ = n;
    ++loose_;
  }

  // Frees every node of the list that starts at `*head`, which becomes empty, at once: the list
  // is kept whole for Push to take its nodes from (a class's list of waiting pairs can hold tens
  // of thousands when it completes, and a walk to its tail would visit each).
  void Clear(uint32_t* head) {
    if (*head == kNil) return;
    cleared_.push_back(*head);
    *head = kNil;
  }

  // The nodes in lists, and in cleared lists Push has not reused all of yet (it takes their nodes
  // before it makes new ones): the nodes in lists if no list was cleared.
  size_t held() const { return nodes_.size() - loose_; }
  // Every node made so far (free or not).
  size_t made() const { return nodes_.size(); }

 private:
  BlockVector<Node> nodes_;
  uint32_t free_ = kNil;           // the list of nodes freed one at a time (Erase)
  size_t loose_ = 0;               // the nodes in it
  std::vector<uint32_t> cleared_;  // the heads of cleared lists (Clear), whose nodes are free
};

}  // namespace pecan
