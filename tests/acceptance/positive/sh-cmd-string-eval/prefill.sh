#!/bin/bash
# swacheck-expect: exit=1 codes=SWA202 checked=1
# Prefill node of a 1P1D benchmark: the command is kept in a string and run with eval.
MODEL_PATH=/mnt/models/deepseek-v4-flash
PORT=30000

PREFILL_CMD="python3 -m sglang.launch_server --model-path ${MODEL_PATH} --port ${PORT}"
PREFILL_CMD="${PREFILL_CMD} --disaggregation-mode prefill --disaggregation-bootstrap-port 8998"
PREFILL_CMD="${PREFILL_CMD} --speculative-algorithm EAGLE --speculative-num-steps 3"

echo "$PREFILL_CMD"
eval "$PREFILL_CMD" > prefill.log 2>&1 &
wait
