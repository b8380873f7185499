// The two atomic operations on a flag that the delivery loop needs.
//
// The main actor reads a listener's cancelled flag before every callback without taking a lock;
// `off` may set it from any thread. Swift's own `Synchronization.Atomic` needs iOS 18 / macOS 15,
// later than this package's platform floor, so these wrap the compiler builtins instead.

#ifndef SDK_EVENT_BUS_ATOMICS_H
#define SDK_EVENT_BUS_ATOMICS_H

#include <stdbool.h>

/// Reads `flag` with acquire ordering.
static inline bool sdk_event_bus_flag_load(const bool *_Nonnull flag) {
    return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

/// Sets `flag` with acquire-release ordering and returns its previous value.
static inline bool sdk_event_bus_flag_exchange(bool *_Nonnull flag, bool value) {
    return __atomic_exchange_n(flag, value, __ATOMIC_ACQ_REL);
}

#endif
