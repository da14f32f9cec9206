#!/usr/bin/env bash
# The CUDA-graph measurements of one lent GPU session (TrainConfig.cuda_graphs), run on the device machine from
# the repository root after `.venv/bin/python bench/gpu_bundle.py pack` here (carry .gpu). Each step has its
# own time limit and failure does not stop the next, so one short lease returns what did run.
# Writes JSON into ${OUT:-bench/results}: graphs_check_cuda, er_overhead_graphs_cuda (eager and graphed
# variants at batch 16, separate files so a failed capture cannot lose the eager rows), demo_speed_*_cuda,
# er_overhead_graphs_b64_share30_cuda.
set -u
cd "$(dirname "$0")/.."
export PYTHONPATH=.gpu/site:backend:bench PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
OUT="${OUT:-bench/results}"
PY="${PYTHON:-python3}"
step() {  # step NAME SECONDS ARGS...: bench/<script> ARGS into $OUT/NAME.json, its log into $OUT/gpu_graphs.log
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
step graphs_check_cuda 90 bench/graphs_check.py
step er_overhead_eager_cuda 90 bench/er_overhead.py "${COMMON[@]}" --repeats 2 \
    --variants plain both_joint both_attr_every4_joint erasure_joint
step er_overhead_graphs_cuda 120 bench/er_overhead.py "${COMMON[@]}" --repeats 2 \
    --variants plain plain_graphs both_graphs both_attr_every2_graphs both_attr_every4_graphs erasure_graphs
step demo_speed_eager_cuda 120 bench/demo_speed.py --device cuda --workdir /tmp/xmd-demo-eager
step demo_speed_graphs_cuda 90 bench/demo_speed.py --device cuda --baseline-from /tmp/xmd-demo-eager \
    --train '{"cuda_graphs": true}'
step er_overhead_graphs_b64_share30_cuda 60 bench/er_overhead.py "${COMMON[@]}" --repeats 1 --batch-size 64 \
    --feedback-share 0.3 --variants plain plain_graphs both_joint both_graphs
