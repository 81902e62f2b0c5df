#!/bin/bash
# swacheck-expect: exit=1 codes=SWA202,SWA306 checked=1
# A backslash followed by two spaces: the line does not continue.
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --speculative-algorithm EAGLE \  
    --speculative-num-steps 3 --speculative-eagle-topk 1
