#!/bin/bash
# swacheck-expect: exit=0 codes=SWA307 checked=0
# A PD decode server of a checkpoint whose id says nothing about the model.
python3 -m sglang.launch_server --model-path /checkpoints/release-2026-10 --disaggregation-mode decode \
  --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1
