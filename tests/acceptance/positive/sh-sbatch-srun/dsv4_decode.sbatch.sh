#!/bin/bash
#SBATCH --job-name=dsv4-decode
#SBATCH --nodes=1
#SBATCH --gpus-per-node=8
#SBATCH --time=04:00:00
# swacheck-expect: exit=0 codes= checked=1
set -x
CONTAINER=lmsysorg/sglang:v0.5.23
srun --nodes=1 --ntasks-per-node=1 --container-image="$CONTAINER" --container-mounts=/lustre/models:/models \
  python3 -m sglang.launch_server --model-path /models/DeepSeek-V4-Flash \
    --disaggregation-mode decode --disaggregation-ib-device mlx5_0 \
    --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 \
    --max-running-requests 64 --tp 8
