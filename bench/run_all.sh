#!/usr/bin/env bash
# Run every benchmark at its default sizes and keep each JSON document in bench/results/<name>.json.
# DEVICE=auto|cpu|cuda picks the device (default auto); PYTHON overrides the interpreter.
set -euo pipefail

cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
DEVICE="${DEVICE:-auto}"
mkdir -p bench/results
trap 'rm -f bench/results/*.json.tmp' EXIT

for name in attribution_throughput er_overhead; do
    echo "== ${name} (device ${DEVICE})" >&2
    # Write to a temporary file first so that a failed run never leaves a truncated result behind.
    "${PY}" "bench/${name}.py" --device "${DEVICE}" > "bench/results/${name}.json.tmp"
    mv "bench/results/${name}.json.tmp" "bench/results/${name}.json"
    echo "   -> bench/results/${name}.json" >&2
done
