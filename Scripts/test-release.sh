#!/usr/bin/env bash
# Runs the guarantee suites once in an optimised build (-c release), where the engine's unsafe code
# paths (raw payload buffers, moves, the lock-free counters) are compiled differently from debug.
#
# The suites: everything that checks delivery, ordering, exactly-once, `off`, memory and lifetimes
# (the engine, the buses, the app buses, the model checker and the reliability suites). Suites that
# check debug-only behaviour (a catalog slip stops a debug build) are not among them.
#
# Usage: Scripts/test-release.sh    (about 3 minutes from a clean clone on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."

suites=(
    # Engine
    BoundedJobTests DeliveryLaneTests ErasedCallbackTests ListenerRegistryTests OffWaitingTests
    PayloadMoveTests SubscriptionHandleTests WaiterCancellationTests BacklogDiagnosticsTests
    BusLifetimeTests ReplayClearingTests MemoryReturnTests ImmediateHandOffTests DroppedAndAbandonedTests
    DrainPriorityTests DeliveryBudgetTests MainThreadBudgetTests ErasedCallbackConventionTests
    # Buses
    EventBusAsyncSequenceTests EventBusDeliveryTests EventBusStressTests EventBusSubscriptionTests
    FlagBusDeliveryTests FlagBusReentrancyTests FlagBusReplayTests
    # App buses
    AppEventBusContainerTests AppEventBusScopeTests AllEventsFeedTests AppEventDesignTests AppEventGuaranteeTests
    # Reliability
    BusModelTests FaultInjectionTests ReadinessUnderFireTests ReviewRegressionTests
    SubscriptionMemoryTests ConfigFieldCorpusTests
)
filter=$(IFS='|'; echo "${suites[*]}")
# SDKEVENTBUS_TEST_HOOKS: the engine's test hooks that keep state (a job limit, waiter watchers) are
# compiled only in debug builds and with this condition; a shipped release build has none.
flags=(-c release -Xswiftc -enable-testing -Xswiftc -DSDKEVENTBUS_TEST_HOOKS)
swift build "${flags[@]}" --build-tests
swift test "${flags[@]}" --skip-build --filter "$filter"
