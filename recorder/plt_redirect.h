// Library mode without LD_PRELOAD: the runtime came after libc in the lookup order, so the
// instrumented modules' calls to pthread, malloc, fork... bind to libc. Their GOT slots are
// pointed at the runtime's interposers instead, as they would have bound with the runtime first.
#pragma once

namespace pecan::rt {

// Redirects the modules loaded since the last call that reference __tsan_* (instrumented code),
// leaving the rest (the host, libc, libstdc++, the runtime) alone. Later dlopen()ed instrumented
// modules are redirected by the call their __tsan_init makes. Returns false (and redirects
// nothing more) if a module's slots could not be written.
bool RedirectInstrumentedModules();

// Whether RedirectInstrumentedModules has run (and __tsan_init should look for new modules).
bool RedirectingModules();

}  // namespace pecan::rt
