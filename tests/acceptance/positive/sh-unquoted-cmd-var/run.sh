#!/bin/bash
# swacheck-expect: exit=0 codes= checked=1
# The launch kept in a string and run unquoted (word splitting makes the arguments).
SERVER="python3 -m sglang.launch_server --model-path /models/DeepSeek-V4-Flash --tp 8"
SPEC="--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1"
$SERVER $SPEC --port 30000
