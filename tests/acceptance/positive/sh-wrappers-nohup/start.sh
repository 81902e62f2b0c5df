#!/bin/bash
# swacheck-expect: exit=1 codes=SWA202 checked=1
# Pinned to NUMA node 0, detached, with a wall-clock limit.
LOG_DIR=${LOG_DIR:-/tmp/sglang}
mkdir -p "$LOG_DIR"
nohup numactl --cpunodebind=0 --membind=0 timeout 12h \
  env SGLANG_ENABLE_JIT_DEEPGEMM=1 \
  python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash \
    --tp 8 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 \
    > "$LOG_DIR/server.log" 2>&1 &
echo $! > "$LOG_DIR/server.pid"
