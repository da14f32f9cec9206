#!/usr/bin/env bash
# The CUDA-graph GPU session lives with its study: bench/graphs_gpu/gpu_graphs.sh (this path is kept for the
# issues and notes that name it). Same environment variables: OUT, PYTHON.
exec bash "$(dirname "$0")/graphs_gpu/gpu_graphs.sh" "$@"
