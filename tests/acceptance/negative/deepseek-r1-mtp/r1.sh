#!/bin/bash
# swacheck-expect: exit=0 codes= checked=0
# DeepSeek-R1 with its MTP module (a DeepSeek-V3 architecture: not V4).
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-0528 --tp 8 --trust-remote-code \
  --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
