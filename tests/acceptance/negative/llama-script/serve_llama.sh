#!/bin/bash
# swacheck-expect: exit=0 codes= checked=0
# Not ours: a Llama server without speculative decoding or PD (no config.json on the runner).
python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 1 --port 30000 \
  --mem-fraction-static 0.85 --enable-torch-compile
