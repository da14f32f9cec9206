#!/usr/bin/env bash
# The CUDA-graph measurements of one lent GPU session (TrainConfig.cuda_graphs), run on the device machine from
# the repository root after `.venv/bin/python bench/gpu_bundle.py pack` here (carry .gpu). Each step has its
# own time limit and failure does not stop the next, so one short lease returns what did run. The step times
# (the issue's GPU target) run first, then the capture check and the demo seeds. The H200 files of stop 28 were
# made with the first version of the static step (every row's ER work); the row buckets are not yet timed on a GPU.
# Writes JSON into ${OUT:-bench/graphs_gpu/results}: graphs_check_cuda, demo_speed_{eager,graphs}_seed{0,1,2}_cuda,
# er_overhead_graphs_cuda (eager and graphed variants, batch 16), er_overhead_graphs_b64_share30_cuda,
# calibration_timing_cuda (whether the estimate's calibration times graphed steps there, and what it prices).
set -u
cd "$(dirname "$0")/../.."
export PYTHONPATH=.gpu/site:backend:. PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
OUT="${OUT:-bench/graphs_gpu/results}"
PY="${PYTHON:-python3}"
# step NAME SECONDS ARGS...: python ARGS (-m bench.<study>.<runner> ...) into $OUT/NAME.json, log into $OUT/gpu_graphs.log
step() {
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    timeout "$limit" "$PY" "$@" >"$OUT/$name.json" 2>>"$OUT/gpu_graphs.log" || echo "$name: exit $?" | tee -a "$OUT/gpu_graphs.log"
    echo "$name: $((SECONDS - t0)) s" | tee -a "$OUT/gpu_graphs.log"
}
"$PY" bench/gpu_bundle.py unpack
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$OUT/gpu_graphs.log"
"$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" | tee -a "$OUT/gpu_graphs.log"
COMMON=(--device cuda --n 12 --warmup 3)
step er_overhead_graphs_cuda 150 -m bench.er_speed.er_overhead "${COMMON[@]}" --repeats 1 --variants plain plain_graphs \
    both_joint both_graphs both_attr_every2_graphs both_attr_every4_joint both_attr_every4_graphs erasure_joint \
    erasure_graphs
step er_overhead_graphs_b64_share30_cuda 75 -m bench.er_speed.er_overhead "${COMMON[@]}" --repeats 1 --batch-size 64 \
    --feedback-share 0.3 --variants plain plain_graphs both_joint both_graphs
step calibration_timing_cuda 60 -m bench.first_start.calibration_timing --device cuda
step graphs_check_cuda 60 -m bench.graphs_gpu.graphs_check
# The demo retrain, eager and graphed, seeds 0-2, from one baseline fine-tuned by the first run.
for seed in 0 1 2; do
    from=(--baseline-from /tmp/xmd-demo-base)
    if [[ $seed == 0 ]]; then from=(--workdir /tmp/xmd-demo-base); fi
    step "demo_speed_eager_seed${seed}_cuda" 60 -m bench.demo.demo_speed --device cuda --seed "$seed" "${from[@]}"
    step "demo_speed_graphs_seed${seed}_cuda" 45 -m bench.demo.demo_speed --device cuda --seed "$seed" \
        --baseline-from /tmp/xmd-demo-base --train '{"cuda_graphs": true}'
done
