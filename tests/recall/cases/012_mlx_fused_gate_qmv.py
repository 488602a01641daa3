# raise: sglang.srt.hardware_backend.mlx.moe.fused_swiglu:fused_gate_qmv_silu_mul line 274 (no part of the guard tests the parameter alone)  # noqa: E501
# why: K=32*64=2048 and N=768 pass the block checks, then fp32 scales/biases against fp16 x raise the dtype mismatch.
import mlx.core as mx

from sglang.srt.hardware_backend.mlx.moe.fused_swiglu import fused_gate_qmv_silu_mul

x = mx.zeros((1, 1, 1, 2048), dtype=mx.float16)
gate_w = mx.zeros((8, 768, 256), dtype=mx.uint32)
scales_fp32 = mx.zeros((8, 768, 32), dtype=mx.float32)
biases_fp32 = mx.zeros((8, 768, 32), dtype=mx.float32)
scales = mx.zeros((8, 768, 32), dtype=mx.float16)
biases = mx.zeros((8, 768, 32), dtype=mx.float16)
indices = mx.zeros((1, 2), dtype=mx.uint32)
x_up = mx.zeros((1, 2, 1, 768), dtype=mx.float16)

bad = fused_gate_qmv_silu_mul(x, gate_w, scales_fp32, biases_fp32, indices, x_up)  # recall: bad
ok = fused_gate_qmv_silu_mul(x, gate_w, scales, biases, indices, x_up)  # recall: good
