#!/usr/bin/env bash
# Benchmarks of intruder-defence (MDAV and local suppression on a seeded synthetic file).
# Usage: bash benches/defence/run.sh [N] [SEED]   (defaults: 100000 1)
# Prints the markdown table of BENCHMARKS.md (section 5), with CPU time and load average.
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-100000}"
seed="${2:-1}"
cargo build --release -p intruder-defence --example bench_defence
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "CPU: %U s user, %S s sys; wall %e s" target/release/examples/bench_defence "$n" "$seed"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
