#!/usr/bin/env bash
# A long simulation of the configuration half: many more random sequences than the README's test
# command plays (3,000), in an optimised build, each checked step by step against the reference
# model (Tests/SDKEventBusTests/Simulation; Docs/Reliability.md says what it checks).
#
# Usage: Scripts/simulate-lifecycle.sh [SEQUENCES [SEED]]
#   SEQUENCES  how many sequences (default 40,000: about 1.5 million operations)
#   SEED       the base seed; sequence i plays SEED + i (default: a random one, printed)
#
# A failure prints its sequence's seed and the shortest sequence that still fails, as Swift to paste
# into a named regression test. Hashing is made deterministic, so that a printed seed replays
# exactly: Scripts/simulate-lifecycle.sh 1 <seed>.
#
# With SDKEVENTBUS_SIM_CENSUS set (an invariant's name, `every` or `all`; see
# LifecycleSimulationTests) it runs a census instead: which sequences break which promise.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z "${SDKEVENTBUS_SIM_CENSUS:-}" ]]; then export SDKEVENTBUS_SIM_LONG=1; fi
export SDKEVENTBUS_SIM_SEQUENCES="${1:-40000}"
if [[ -n "${2:-}" ]]; then export SDKEVENTBUS_SIM_SEED="$2"; fi
export SWIFT_DETERMINISTIC_HASHING=1

# As Scripts/test-release.sh builds the tests: optimised, with @testable imports allowed.
flags=(-c release -Xswiftc -enable-testing -Xswiftc -DSDKEVENTBUS_TEST_HOOKS)
swift build "${flags[@]}" --build-tests
swift test "${flags[@]}" --skip-build --filter 'LifecycleSimulationTests/(longCampaign|census)'
