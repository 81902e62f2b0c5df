#!/usr/bin/env bash
# swacheck-expect: exit=0 codes= checked=1
# PD decode worker for DeepSeek-V4-Flash on 8x MI355X (unified-KV Triton backend).
set -euo pipefail

export HIP_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
export SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton
MODEL=${MODEL:-deepseek-ai/DeepSeek-V4-Flash}

COMMON_ARGS=(--model-path "$MODEL" --tp-size 8 --trust-remote-code --host 0.0.0.0)
SPEC_ARGS=(
  --speculative-algorithm EAGLE   # MTP through the target's NextN layer
  --speculative-num-steps 3
  --speculative-eagle-topk 1
)
PD_ARGS=(--disaggregation-mode decode --disaggregation-transfer-backend mooncake)
PD_ARGS+=(--max-running-requests 16)

python3 -m sglang.launch_server "${COMMON_ARGS[@]}" "${SPEC_ARGS[@]}" "${PD_ARGS[@]}" --port 30001
