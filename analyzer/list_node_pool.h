// ListNodePool: the nodes of many singly linked lists of 32-bit values, in a BlockVector, with
// one list of free nodes: the race search's pairs waiting for a class's next member, one pool per
// location (freed with it), millions of nodes at the peak of a program that walks big buffers.
#pragma once

#include <cstddef>
#include <cstdint>

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

  // Puts `value` at the head of the list that starts at `*head`.
  void Push(uint32_t* head, uint32_t value) {
    uint32_t n = free_;
    if (n != kNil) {
      free_ = nodes_[n].next;
      nodes_[n] = Node{value, *head};
    } else {
      n = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back(Node{value, *head});
    }
    *head = n;
    ++live_;
  }

  // Frees the node `*link` names (a list's head, or a node's `next`): `*link` then names the one
  // after it.
  void Erase(uint32_t* link) {
    const uint32_t n = *link;
    Node& node = (*this)[n];
    *link = node.next;
    node.next = free_;
    free_ = n;
    --live_;
  }

  // The nodes in lists (not free).
  size_t live() const { return live_; }

  // Frees every node of the list that starts at `*head`, which becomes empty.
  void Clear(uint32_t* head) {
    if (*head == kNil) return;
    uint32_t last = *head;
    --live_;
    while ((*this)[last].next != kNil) {
      last = (*this)[last].next;
      --live_;
    }
    (*this)[last].next = free_;
    free_ = *head;
    *head = kNil;
  }

 private:
  BlockVector<Node> nodes_;
  uint32_t free_ = kNil;  // the list of free nodes
  size_t live_ = 0;       // nodes in lists
};

}  // namespace pecan
