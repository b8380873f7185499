// The atomic counter the delivery loop needs.
//
// The main actor reads a bus's cancellation epoch before every callback without taking a lock;
// ending a subscription, from any thread, increments it. Swift's own `Synchronization.Atomic` needs
// iOS 18 / macOS 15, later than this package's platform floor, so these wrap the compiler builtins.

#ifndef SDK_EVENT_BUS_ATOMICS_H
#define SDK_EVENT_BUS_ATOMICS_H

#include <stdint.h>

/// Reads `counter` with acquire ordering.
static inline uint64_t sdk_event_bus_counter_load(const uint64_t *_Nonnull counter) {
    return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

/// Adds one to `counter` with release ordering.
static inline void sdk_event_bus_counter_increment(uint64_t *_Nonnull counter) {
    __atomic_fetch_add(counter, 1, __ATOMIC_RELEASE);
}

#endif
