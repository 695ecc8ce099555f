#!/usr/bin/env bash
# `intruder risk` on a local Ballista cluster of 1, 2 and 3 executors (issue 37's scaling
# curve), each executor one core (`--vcores 1`), the commands of docs/cluster.md "On one
# machine". Appends run.py's JSON lines to OUT, with the bytes the executors wrote (shuffle
# files and results: `shuffle_bytes`) and their CPU seconds (`executor_cpu_s`) per run.
#
#   benches/engine/scaling.sh ROWS OUT [EXECUTOR_COUNTS] [MISSING]
#   benches/engine/scaling.sh 10000000 benches/engine/scaling_10m.jsonl "1 2 3" listwise
#
# Binaries: target/release (cargo build --release -p intruder-cli --features parquet,cluster
# -p intruder-engine --bins). On a machine with fewer cores than executors the executors share
# them: the curve then shows Ballista's overhead, not its speed-up.
set -euo pipefail
rows=$1
out=$2
counts=${3:-"1 2 3"}
missing=${4:-listwise}
bin=${BIN_DIR:-target/release}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pids=()
stop() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=()
}
trap 'stop; rm -rf "$work"' EXIT
port=50150
for n in $counts; do
    "$bin/intruder-scheduler" --bind-host 127.0.0.1 --external-host 127.0.0.1 --bind-port $port \
        > "$work/scheduler_$n.log" 2>&1 &
    pids+=($!)
    sleep 2
    epids=()
    edirs=()
    for i in $(seq 1 "$n"); do
        base=$((port + 10 * i))
        mkdir -p "$work/e$n-$i"
        "$bin/intruder-executor" --scheduler-host 127.0.0.1 --scheduler-port $port \
            --bind-host 127.0.0.1 --external-host 127.0.0.1 --bind-port $base \
            --bind-grpc-port $((base + 1)) --bind-health-port $((base + 2)) \
            --executor-heartbeat-interval-seconds 1 --vcores 1 --work-dir "$work/e$n-$i" \
            > "$work/executor_$n-$i.log" 2>&1 &
        pids+=($!)
        epids+=($!)
        edirs+=("$work/e$n-$i")
    done
    sleep 4
    python3 "$here/run.py" --rows "$rows" --engines "local,ballista://127.0.0.1:$port" \
        --missing "$missing" --bin-dir "$bin" --out "$out" --label "executors=$n" \
        --shuffle-dirs "$(IFS=,; echo "${edirs[*]}")" --executor-pids "$(IFS=,; echo "${epids[*]}")"
    stop
    port=$((port + 100))
done
