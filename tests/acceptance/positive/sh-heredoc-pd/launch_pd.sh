#!/bin/bash
# swacheck-expect: exit=1 codes=SWA406 checked=1
# Writes one launcher per role, then starts both; the decode side forgot speculative decoding.
MODEL=deepseek-ai/DeepSeek-V4-Flash
mkdir -p run

cat > run/prefill.sh <<EOF
#!/bin/bash
python3 -m sglang.launch_server --model-path $MODEL --disaggregation-mode prefill \
  --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --port 30000
EOF

cat > run/decode.sh <<'EOF'
#!/bin/bash
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --disaggregation-mode decode --port 30001
EOF

chmod +x run/*.sh
bash run/prefill.sh & bash run/decode.sh &
wait
