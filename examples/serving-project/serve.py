"""Offline generation with the engine, and a second server started from Python."""

import subprocess
import sys

import sglang as sgl

MODEL = "Qwen/Qwen2.5-7B-Instruct"


def offline(prompts):
    engine = sgl.Engine(model_path=MODEL, tp_size="2", mem_fraction=0.8)
    outputs = engine.generate(prompts, sampling_params={"max_tokens": 128, "temperature": 0.7})
    engine.shutdown()
    return outputs


def start_reasoning_server(port: int):
    command = [sys.executable, "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"]
    command += ["--port", str(port)]
    command += ["--reasoning-parser", "deepseek_r1"]
    return subprocess.Popen(command)


def good(prompts):
    # Correct calls produce nothing.
    engine = sgl.Engine(model_path=MODEL, tp_size=2, mem_fraction_static=0.8)
    return engine.generate(prompts, sampling_params={"max_new_tokens": 128, "temperature": 0.7})
