// The few atomic operations the delivery engine needs.
//
// A delivery pass reads each listener's state without taking the bus's lock, and publishes where it
// is so that `off` can tell whether it may still call a listener. Swift's own
// `Synchronization.Atomic` needs iOS 18 / macOS 15, later than this package's platform floor, so
// these wrap the compiler builtins. Every function is `static inline`: a call costs the instruction.

#ifndef SDK_EVENT_BUS_ATOMICS_H
#define SDK_EVENT_BUS_ATOMICS_H

#include <stdint.h>

/// Reads `value` with acquire ordering.
static inline uint64_t sdk_event_bus_load_acquire_64(const uint64_t *_Nonnull value) {
    return __atomic_load_n(value, __ATOMIC_ACQUIRE);
}

/// Reads `value` with no ordering.
static inline uint64_t sdk_event_bus_load_relaxed_64(const uint64_t *_Nonnull value) {
    return __atomic_load_n(value, __ATOMIC_RELAXED);
}

/// Writes `value` with release ordering.
static inline void sdk_event_bus_store_release_64(uint64_t *_Nonnull target, uint64_t value) {
    __atomic_store_n(target, value, __ATOMIC_RELEASE);
}

/// Writes `value` with no ordering.
static inline void sdk_event_bus_store_relaxed_64(uint64_t *_Nonnull target, uint64_t value) {
    __atomic_store_n(target, value, __ATOMIC_RELAXED);
}

/// Adds one to `value` with release ordering.
static inline void sdk_event_bus_increment_64(uint64_t *_Nonnull value) {
    __atomic_fetch_add(value, 1, __ATOMIC_RELEASE);
}

/// Reads `value` with acquire ordering.
static inline uint32_t sdk_event_bus_load_acquire_32(const uint32_t *_Nonnull value) {
    return __atomic_load_n(value, __ATOMIC_ACQUIRE);
}

/// Writes `value` with release ordering.
static inline void sdk_event_bus_store_release_32(uint32_t *_Nonnull target, uint32_t value) {
    __atomic_store_n(target, value, __ATOMIC_RELEASE);
}

/// A full (sequentially consistent) fence: no load after it is performed before a store before it.
static inline void sdk_event_bus_fence(void) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

#endif
