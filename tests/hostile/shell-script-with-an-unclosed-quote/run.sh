python3 -m sglang.launch_server --model-path "models/v4 --tp-size 8
