#!/usr/bin/env bash
# PD decode server of DeepSeek-V4-Flash on 8 AMD MI355X GPUs, unified-KV Triton backend.
# swacheck reads the exports and the continued command line as the shell would; the platform
# is ROCm because HIP_VISIBLE_DEVICES is set (swacheck infers it; no --platform needed).
# Expected: pass -- unified (128, 131, 6419) on both pools: 6419 = (16 + 2 x 16 + 1) x 131.
set -euo pipefail

export HIP_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
export SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton
MODEL_PATH=${MODEL_PATH:-../models/DeepSeek-V4-Flash}   # checkpoints are mounted here in production
PORT=30001

exec python3 -m sglang.launch_server \
    --model-path "${MODEL_PATH}" \
    --tp-size 8 \
    --host 0.0.0.0 --port "$PORT" \
    --disaggregation-mode decode \
    --disaggregation-transfer-backend mooncake \
    --max-running-requests 16 \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 3 \
    --speculative-eagle-topk 1 \
    --trust-remote-code
