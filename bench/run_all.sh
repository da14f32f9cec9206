#!/usr/bin/env bash
# Run every benchmark and keep each JSON document in bench/<study>/results/<name>.json, then rewrite
# every study's README.md, BENCHMARKS.md and the figures from them (python -m bench.report).
#   DEVICE=cpu|cuda       device for the model benchmarks (default cpu). With cuda the results go to
#                         bench/<study>/results/<name>_cuda.json, only the model benchmarks run (the store and the
#                         API do not use the GPU), and the report shows them beside the CPU ones.
#   THREADS=N             torch intra-op threads on the CPU (default 1: on a shared CPU more threads than free
#                         cores make step times swing by multiples; THREADS= leaves torch's default)
#   EFFECT_BUDGET_S=N     stop starting effect-sweep runs that would end after N seconds (default: run all)
#   ONLY="a b"            run only these benchmarks (names as below); the report still uses every result
#   PYTHON=...            interpreter (default .venv/bin/python)
# Benchmarks run one at a time, at low CPU priority: other people's work on the machine goes first.
set -euo pipefail

cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
DEVICE="${DEVICE:-cpu}"
EFFECT_ARGS=()
if [[ -n "${EFFECT_BUDGET_S:-}" ]]; then EFFECT_ARGS=(--time-budget-s "${EFFECT_BUDGET_S}"); fi
THREADS="${THREADS-1}"
THREADS_ARG=()
if [[ -n "${THREADS}" && "${DEVICE}" != "cuda" ]]; then THREADS_ARG=(--threads "${THREADS}"); fi
mkdir -p runs
trap 'rm -f bench/*/results/*.json.tmp' EXIT

# name -> "study.runner arguments"; the runner is the module bench.<study>.<runner>.
declare -A ARGS
if [[ "${DEVICE}" == "cuda" ]]; then
    SUFFIX=_cuda
    ARGS=(
        # A GPU explains all 2,000 texts with IG in seconds: no subsample for batched IG here.
        [attribution_throughput]="attribution.attribution_throughput --device cuda --same-texts --repeats 3"
        [er_overhead]="er_speed.er_overhead --device cuda --n 12 --warmup 2 --repeats 2"
        [er_overhead_share30]="er_speed.er_overhead --device cuda --n 12 --warmup 2 --repeats 2 --feedback-share 0.3 --variants plain erasure both_default both_difference"
        # A GPU step at batch 16 is bound by kernel launches: the same at batch 64.
        [er_overhead_b64]="er_speed.er_overhead --device cuda --n 12 --warmup 2 --repeats 2 --batch-size 64 --variants plain erasure both_default both_difference"
        [er_overhead_b64_share30]="er_speed.er_overhead --device cuda --n 12 --warmup 2 --repeats 2 --batch-size 64 --feedback-share 0.3 --variants plain erasure both_default both_difference"
        # HateXplain at max length 128, all three seeds (bench/real_data.py --full).
        [real_data]="real_data.real_data --device cuda --full --log runs/bench-real-data-cuda.jsonl --out bench/real_data/results/real_data_cuda.json"
        [effect_sweep]="effect.effect_sweep --device cuda --workdir runs/bench-demo-cuda --objective both --losses mse --lams 0.3 1 3 --seeds 0 1 2 --log runs/bench-effect-cuda.jsonl ${EFFECT_ARGS[*]}"
    )
    ORDER=(attribution_throughput er_overhead er_overhead_share30 er_overhead_b64 er_overhead_b64_share30 effect_sweep real_data)
else
    SUFFIX=
    ARGS=(
        # Batched IG is timed on the peer loop's 200-text subsample: over all 2,000 texts it takes about an
        # hour on a 2-core CPU (drop --ig-on-peer-texts to measure it anyway; add occlusion with --methods).
        [attribution_throughput]="attribution.attribution_throughput --device ${DEVICE} ${THREADS_ARG[*]} --methods grad_x_input saliency integrated_gradients --ig-on-peer-texts --repeats 2"
        [ig_chunking]="attribution.ig_chunking --device ${DEVICE} ${THREADS_ARG[*]} --n 32 --n-steps 50 --budgets 512 1024 2048 4096"
        [er_overhead]="er_speed.er_overhead --device ${DEVICE} ${THREADS_ARG[*]} --n 12 --warmup 2 --repeats 3"
        # The demo's own share of training rows that carry the feedback word (30 %), beside the 50 % above.
        [er_overhead_share30]="er_speed.er_overhead --device ${DEVICE} ${THREADS_ARG[*]} --n 12 --warmup 2 --repeats 3 --feedback-share 0.3 --variants plain erasure both_default both_difference"
        [store_scale]="store_scale.store_scale --n 100000 1000000 --db both"
        # One explain job over 1, 2 and 4 real Celery workers (Redis + PostgreSQL); the tiny model shows the
        # orchestration and the store, `--model minilm` the compute.
        [worker_scaling]="worker_scaling.worker_scaling --n 100000 --chunk-size 256"
        # The loss x λ grid, three seeds; the log lets an interrupted sweep resume where it stopped.
        [effect_sweep]="effect.effect_sweep --device ${DEVICE} --objective both --losses mse --lams 0.3 1 3 --seeds 0 1 2 --log runs/bench-effect.jsonl ${EFFECT_ARGS[*]}"
        # Why `both` is the default: each ER objective alone and `both` at two epoch/weight settings.
        [effect_objectives]="effect.effect_sweep --device ${DEVICE} --settings erasure:1:mse attribution:10:mse both:1:mse:1:10 both:1:mse:2:5 --seeds 0 1 2 --log runs/bench-objectives.jsonl ${EFFECT_ARGS[*]}"
        # Real data (HateXplain): identity-word remove vs λ = 0 vs deletion, rationale add vs λ = 0, three seeds,
        # max length 64, within an hour on 2 quiet cores; then the candidate settings on the dev split only.
        [real_data]="real_data.real_data --device ${DEVICE} ${THREADS_ARG[*]} --log runs/bench-real-data.jsonl"
        [real_data_dev]="real_data.real_data_dev --device ${DEVICE} ${THREADS_ARG[*]} --log runs/bench-real-data-dev.jsonl"
        # How much of the identity FPR the identity words explain at all: test-time erasure on the same base model.
        [real_data_ceiling]="real_data.real_data_ceiling --device ${DEVICE} ${THREADS_ARG[*]}"
        # The API benchmark starts the service itself (uvicorn on loopback) against a 100k-example store.
        [api_latency]="api_latency.api_latency"
    )
    ORDER=(attribution_throughput ig_chunking er_overhead er_overhead_share30 store_scale worker_scaling effect_sweep effect_objectives real_data real_data_dev real_data_ceiling api_latency)
fi

for name in ${ONLY:-${ORDER[*]}}; do
    if [[ -z "${ARGS[${name}]+x}" ]]; then echo "unknown benchmark ${name} for DEVICE=${DEVICE}" >&2; exit 2; fi
    read -r module args <<<"${ARGS[${name}]}"
    out="bench/${module%%.*}/results/${name}${SUFFIX}.json"
    echo "== ${name} (${DEVICE}) $(date -u +%H:%M:%S)" >&2
    # Write to a temporary file first so that a failed run never leaves a truncated result behind.
    # shellcheck disable=SC2086  # the argument strings are word lists
    nice -n 19 "${PY}" -m "bench.${module}" ${args} > "${out}.tmp"
    mv "${out}.tmp" "${out}"
    echo "   -> ${out}" >&2
done

"${PY}" -m bench.report
