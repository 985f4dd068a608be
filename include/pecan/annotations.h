/* pecan's annotation API for C and C++: mark atomic regions and custom happens-before edges.
   Under pecan instrumentation they reach libpecan_rt.so; in any other build they vanish. */
#ifndef PECAN_ANNOTATIONS_H
#define PECAN_ANNOTATIONS_H

/*
 * pecan_region_begin(key) / pecan_region_end(key)
 *     The code between them is one atomic region: the analysis checks atomicity and atomic-set
 *     serializability for it as it does for a critical section. `key` names the region (any
 *     integer or pointer; regions with the same key on one thread must nest properly).
 * pecan_happens_before(key) / pecan_happens_after(key)
 *     Everything a thread did before pecan_happens_before(key) happens before everything
 *     another thread does after a later pecan_happens_after(key) with the same key (use them
 *     for synchronization the recorder cannot see, e.g. a hand-written futex or a lock-free
 *     queue hand-off). `key` is any integer or pointer, e.g. the queue slot's address.
 *
 * The key is converted with (uintptr_t)(key). Each call costs one branch when the program is
 * built with pecan but not recorded, and nothing at all without -fsanitize=thread.
 */

#include <stdint.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PECAN_ANNOTATIONS_ENABLED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define PECAN_ANNOTATIONS_ENABLED 1
#endif

#if defined(PECAN_ANNOTATIONS_ENABLED)

#ifdef __cplusplus
extern "C" {
#endif
/* Weak: a build with the real ThreadSanitizer runtime (no libpecan_rt.so) links and runs. */
void __pecan_region_begin(uintptr_t key) __attribute__((weak));
void __pecan_region_end(uintptr_t key) __attribute__((weak));
void __pecan_happens_before(uintptr_t key) __attribute__((weak));
void __pecan_happens_after(uintptr_t key) __attribute__((weak));
#ifdef __cplusplus
}
#endif

#define PECAN_ANNOTATION_CALL_(function, key) \
  ((function) ? function((uintptr_t)(key)) : (void)0)
#define pecan_region_begin(key) PECAN_ANNOTATION_CALL_(__pecan_region_begin, key)
#define pecan_region_end(key) PECAN_ANNOTATION_CALL_(__pecan_region_end, key)
#define pecan_happens_before(key) PECAN_ANNOTATION_CALL_(__pecan_happens_before, key)
#define pecan_happens_after(key) PECAN_ANNOTATION_CALL_(__pecan_happens_after, key)

#else

#define pecan_region_begin(key) ((void)(key))
#define pecan_region_end(key) ((void)(key))
#define pecan_happens_before(key) ((void)(key))
#define pecan_happens_after(key) ((void)(key))

#endif

#endif /* PECAN_ANNOTATIONS_H */
