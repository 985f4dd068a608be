// Dispatch from the thread's events to the section monitors that are on (section_hooks.h).
#include "recorder/section_hooks.h"

#include "recorder/heal_sections.h"
#include "recorder/noise_sections.h"
#include "recorder/runtime.h"
#include "recorder/thread_state.h"

namespace pecan::rt {
namespace {

bool noise_on = false;
bool heal_on = false;

}  // namespace

void StartSectionMonitors(bool recording) {
  noise_on = recording && StartNoiseMonitor();
  heal_on = !recording && Config().mode == RuntimeMode::kHeal && StartHealMonitor();
}

bool SectionsActive() {
  return noise_on || heal_on;
}

void SectionsOnAccess(ThreadState& t, EventKind kind, uint64_t addr, uint64_t size, uint64_t pc) {
  if (noise_on) NoiseOnAccess(t, kind, addr, size, pc);
  if (heal_on) HealOnAccess(t, kind, addr, size, pc);
}

void SectionsOnEvent(ThreadState& t, EventKind kind, uint64_t target) {
  if (noise_on) NoiseOnEvent(t, kind, target);
  if (heal_on) HealOnEvent(t, kind, target);
}

void SectionsOnFunction(ThreadState& t, bool entry, uint64_t pc) {
  if (noise_on) NoiseOnFunction(t, entry, pc);
}

void SectionsOnThreadEnd(ThreadState& t) {
  if (noise_on) NoiseOnThreadEnd(t);
  if (heal_on) HealOnThreadEnd(t);
}

}  // namespace pecan::rt
