#!/bin/bash
# swacheck-expect: exit=0 codes= checked=0
# Not ours: EAGLE-3 on Qwen (the model id names another family).
MODEL=Qwen/Qwen3-8B
DRAFT=Tengyunw/qwen3_8b_eagle3
ARGS=(--model-path $MODEL --speculative-algorithm EAGLE3 --speculative-draft-model-path $DRAFT)
ARGS+=(--speculative-num-steps 6 --speculative-eagle-topk 10 --speculative-num-draft-tokens 32)
python3 -m sglang.launch_server "${ARGS[@]}" --mem-fraction-static 0.7 --cuda-graph-max-bs 8 &
python3 -m sglang.bench_serving --backend sglang --num-prompts 200
