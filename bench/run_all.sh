#!/usr/bin/env bash
# Run every benchmark and keep each JSON document in bench/results/<name>.json, then rewrite
# BENCHMARKS.md and its figures from them (bench/report.py).
#   DEVICE=auto|cpu|cuda  device for the model benchmarks (default auto)
#   THREADS=N             torch intra-op threads (default 1: on a shared CPU more threads than free cores
#                         make step times swing by multiples; THREADS= leaves torch's default)
#   EFFECT_BUDGET_S=N     stop starting effect-sweep runs that would end after N seconds (default: run all)
#   ONLY="a b"            run only these benchmarks (names as below); the report still uses every result
#   PYTHON=...            interpreter (default .venv/bin/python)
# Benchmarks run one at a time, at low CPU priority: other people's work on the machine goes first.
set -euo pipefail

cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
DEVICE="${DEVICE:-auto}"
EFFECT_ARGS=()
if [[ -n "${EFFECT_BUDGET_S:-}" ]]; then EFFECT_ARGS=(--time-budget-s "${EFFECT_BUDGET_S}"); fi
THREADS="${THREADS-1}"
THREADS_ARG=()
if [[ -n "${THREADS}" ]]; then THREADS_ARG=(--threads "${THREADS}"); fi
mkdir -p bench/results runs
trap 'rm -f bench/results/*.json.tmp' EXIT

declare -A ARGS=(
    # Batched IG is timed on the peer loop's 200-text subsample: over all 2,000 texts it takes about an
    # hour on a 2-core CPU (drop --ig-on-peer-texts to measure it anyway; add occlusion with --methods).
    [attribution_throughput]="--device ${DEVICE} ${THREADS_ARG[*]} --methods grad_x_input saliency integrated_gradients --ig-on-peer-texts --repeats 2"
    [ig_chunking]="--device ${DEVICE} ${THREADS_ARG[*]} --n 32"
    [er_overhead]="--device ${DEVICE} ${THREADS_ARG[*]} --n 12 --warmup 2 --repeats 3"
    [store_scale]="--n 100000 1000000 --db sqlite"
    # The loss x λ grid, three seeds; the log lets an interrupted sweep resume where it stopped.
    [effect_sweep]="--device ${DEVICE} --objective both --losses mse mae --lams 0.3 1 3 --seeds 0 1 2 --log runs/bench-effect.jsonl ${EFFECT_ARGS[*]}"
)
ORDER=(attribution_throughput ig_chunking er_overhead store_scale effect_sweep)
# The API benchmark belongs to the API; run it when it exists.
if [[ -f bench/api_latency.py ]]; then ORDER+=(api_latency); ARGS[api_latency]=""; fi

for name in ${ONLY:-${ORDER[*]}}; do
    echo "== ${name} $(date -u +%H:%M:%S)" >&2
    # Write to a temporary file first so that a failed run never leaves a truncated result behind.
    # shellcheck disable=SC2086  # ARGS entries are word lists
    nice -n 19 "${PY}" "bench/${name}.py" ${ARGS[${name}]} > "bench/results/${name}.json.tmp"
    mv "bench/results/${name}.json.tmp" "bench/results/${name}.json"
    echo "   -> bench/results/${name}.json" >&2
done

"${PY}" bench/report.py
