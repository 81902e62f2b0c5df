#!/bin/bash
# swacheck-expect: exit=1 codes=SWA306 checked=1
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash -tp-size 8 \
  --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1
