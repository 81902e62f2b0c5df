#!/bin/bash
# swacheck-expect: exit=0 codes=SWA306 checked=0
# A commented-out flag inside the continued command: bash ends the command there, so the
# server starts without the speculative flags below it.
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash \
    --tp 8 \
    # --enable-dp-attention --dp 8 \
    --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1
