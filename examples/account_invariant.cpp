// Atomic-set serializability: checking + savings must always total 100, but a transfer
// updates the two fields in two separate critical sections, and an audit can fall in between.
//
// Bug: transfer_to_savings() takes the lock for the withdrawal (line 32) and again for the
// deposit (line 37); audit_total() reads both fields (lines 48, 49) in one critical section. Every
// access is locked, so there is no data race, yet an audit between the two writes sees a total
// of 90 and the assertion at line 60 fails.
// Normal run: the auditor waits 50 ms and sees 50 + 50 = 100. Exits 0.
// Expected with pecan hunt --regions functions (the transfer is a function, not one critical
// section): a confirmed atomic-set serializability violation W(l1) R'(l1) R'(l2) W(l2) on lines
// 32, 48, 49, 37, whose replay fails the assertion at line 60. With the default lock regions
// there is nothing to find.
#include <cassert>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

// {checking, savings} form one atomic set: together they hold the customer's total.
struct Accounts {
  std::mutex lock;
  int checking = 60;
  int savings = 40;
};

Accounts accounts;

void withdraw_checking(int amount) {
  std::lock_guard<std::mutex> guard(accounts.lock);
  accounts.checking -= amount; /* BUG: W(l1) */
}

void deposit_savings(int amount) {
  std::lock_guard<std::mutex> guard(accounts.lock);
  accounts.savings += amount; /* BUG: W(l2) */
}

// The unit of work whose two writes must not be split.
void transfer_to_savings(int amount) {
  withdraw_checking(amount);
  deposit_savings(amount);
}

int audit_total() {
  std::lock_guard<std::mutex> guard(accounts.lock);
  int checking = accounts.checking; /* BUG: R'(l1) */
  int savings = accounts.savings;   /* BUG: R'(l2) */
  return checking + savings;
}

}  // namespace

int main() {
  std::thread customer([] { transfer_to_savings(10); });
  std::thread auditor([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    int total = audit_total();
    assert(total == 100); /* ERROR: the audit saw half a transfer */
    std::printf("total %d\n", total);
  });
  customer.join();
  auditor.join();
  return 0;
}
