# A stand-in for sglang's ServerArgs whose start-up checks ask the platform, each in one form
# sglang writes it (tests/test_platform_declaration.py).
import dataclasses
from typing import Optional

import torch

from sglang.srt.runtime_context import get_platform
from sglang.srt.utils import is_blackwell_supported, is_cuda, is_hip, is_model_sparse


@dataclasses.dataclass
class ServerArgs:
    model_path: str = "m"
    attention_backend: Optional[str] = None
    kv_cache_dtype: str = "auto"
    dcp_size: int = 1
    page_size: int = 1
    tp_size: int = 1

    def __post_init__(self):
        if self.attention_backend == "trtllm_mla" and not is_blackwell_supported():
            raise ValueError("TRTLLM MLA backend is only supported on Blackwell GPUs.")
        if self.kv_cache_dtype == "mxfp8" and not get_platform().is_sm100:
            raise ValueError("--kv-cache-dtype mxfp8 requires an SM100 GPU.")
        if self.dcp_size > 1:
            if is_hip():
                pass
            elif is_cuda():
                raise ValueError("Decode context parallel is not supported on CUDA.")
        if self.page_size > 64 and is_model_sparse():
            raise ValueError("A sparse model takes pages of at most 64 tokens.")
        if self.tp_size > 8 and torch.version.hip is not None:
            raise ValueError("ROCm runs at most 8 ranks.")
        if self.tp_size == 3:
            raise ValueError("tp_size 3 is not supported.")
