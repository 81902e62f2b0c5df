#!/bin/bash
# swacheck-expect: exit=0 codes= checked=1
# The cookbook's Docker form on MI355X: the platform comes from the image name.
docker run -d --rm --name dsv4 \
  --device=/dev/kfd --device=/dev/dri --group-add video --ipc=host --shm-size 32g \
  -v /data/hf:/root/.cache/huggingface \
  -e SGLANG_HACK_FLASHMLA_BACKEND=unified_kv_triton \
  -p 30000:30000 \
  lmsysorg/sglang:v0.5.23-rocm700-mi35x \
  sglang serve deepseek-ai/DeepSeek-V4-Flash \
    --tp 8 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 \
    --host 0.0.0.0 --port 30000
