#!/usr/bin/env bash
# Runs every benchmark, keeps the raw output, and regenerates the results of Docs/Performance.md
# and Docs/performance-chart.svg from it.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p Benchmarks/Results
output=Benchmarks/Results/latest.md
swift package --package-path Benchmarks benchmark --format markdown --no-progress "$@" | tee "$output"
python3 Scripts/benchmark-report.py "$output"
