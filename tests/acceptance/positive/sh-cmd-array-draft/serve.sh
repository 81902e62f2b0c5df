#!/bin/bash
# swacheck-expect: exit=0 codes=SWA102 checked=1
# Single-node EAGLE server with a separately published MTP draft (sliding_window 256).
# Not PD, so SGLang never compares the pools; swacheck notes that a PD split would fail.
PY=${PYTHON:-python3}
TARGET=/models/DeepSeek-V4-Flash
DRAFT=/models/DeepSeek-V4-Flash-MTP-w256

SGLANG_CMD=("$PY" -m sglang.launch_server
  --model-path "$TARGET"
  --speculative-draft-model-path "$DRAFT"
  --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1
  --tp 8 --port 30000)

echo "launching: ${SGLANG_CMD[*]}"
"${SGLANG_CMD[@]}" 2>&1 | tee server.log
