#!/usr/bin/env bash
# Start the chat server on two GPUs.
set -euo pipefail

MODEL=Qwen/Qwen2.5-7B-Instruct

python -m sglang.launch_server \
    --model-path "$MODEL" \
    --tp 2 \
    --max-model-len 32768 \
    --dtype fp16 \
    --mem-fraction-static 0.85 \
    --host 0.0.0.0 --port 30000
