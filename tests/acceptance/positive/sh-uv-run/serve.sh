#!/bin/sh
# swacheck-expect: exit=0 codes=SWA201 checked=1
# uv-managed environment; page size left over from a Llama template.
exec uv run --with "sglang[all]==0.5.23" python -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-V4-Flash --page-size 64 \
  --speculative-algorithm EAGLE --speculative-num-steps 2 --speculative-eagle-topk 1
