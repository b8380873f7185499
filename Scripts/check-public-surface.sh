#!/usr/bin/env bash
# Dumps the library's public symbol graph and checks that app code cannot fire events with it.
set -euo pipefail
cd "$(dirname "$0")/.."
output=$(swift package dump-symbol-graph --minimum-access-level public 2>&1) || { echo "$output"; exit 1; }
directory=$(echo "$output" | sed -n 's/^Files written to //p' | tail -1)
python3 Scripts/check-public-surface.py "${directory:-.build/symbolgraph}"
