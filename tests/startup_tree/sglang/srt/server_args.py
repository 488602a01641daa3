# A stand-in for sglang's ServerArgs: one start-up check of each family the deriver reads,
# written for these tests (tests/test_startup_derive.py).
import dataclasses
from typing import List, Optional

import torch
from transformers import AutoConfig

from sglang.srt.environ import envs
from sglang.srt.platform import is_hip

_is_hip = is_hip()


def get_device_memory():
    return torch.cuda.get_device_properties(0).total_memory


def model_arch(path):
    return AutoConfig.from_pretrained(path).architectures[0]


def model_quantization(path):
    return AutoConfig.from_pretrained(path).quantization_config["quant_method"]


def model_cache_dtype(path):
    return AutoConfig.from_pretrained(path).kv_cache_dtype


def validate_buckets(arg_name, rule):
    # a check handed a field's value, not the arguments; its try ends only by raising
    if not rule:
        return
    if rule[0] == "custom":
        try:
            values = [float(x) for x in rule[1:]]
        except ValueError:
            assert False, f"{arg_name} bucket values must be numeric"
        assert len(set(values)) == len(values), f"{arg_name} bucket values must not repeat"


def canonical(config):
    config.kv_cache_dtype = config.kv_cache_dtype.lower()


@dataclasses.dataclass
class ServerArgs:
    model_path: str
    tp_size: int = 1
    dp_size: int = 1
    page_size: int = 1
    chunked_prefill_size: Optional[int] = None
    enable_dp_attention: bool = False
    enable_mixed_chunk: bool = False
    disable_radix_cache: bool = False
    served_model_name: Optional[str] = None
    schedule_conservativeness: float = 1.0
    attention_backend: Optional[str] = None
    moe_backend: str = "auto"
    quantization: Optional[str] = None
    kv_cache_dtype: str = "auto"
    prompt_buckets: Optional[List[str]] = None
    mm_limits: Optional[dict] = None
    kv_layout: Optional[str] = None
    speculative_algorithm: Optional[str] = None
    speculative_num_steps: Optional[int] = None
    speculative_eagle_topk: Optional[int] = None

    def __post_init__(self):
        if self.served_model_name is None:
            self.served_model_name = self.model_path
        if self.model_path.lower() in ["none", "dummy"]:
            return
        self._handle_memory()
        self._handle_parallelism()
        self._handle_model()
        self._handle_environment()
        self._handle_moe_backend()
        self._handle_platform()
        self._handle_speculative()

    def _handle_memory(self):
        if self.chunked_prefill_size is None:
            # a default that depends on the GPU: unknown, not its literal
            self.chunked_prefill_size = 8192 if get_device_memory() > 40 else 2048

    def _handle_parallelism(self):
        if self.enable_dp_attention:
            # a field rewritten before a later check reads it
            self.disable_radix_cache = True
            if self.tp_size % self.dp_size != 0:
                raise ValueError("tp_size must be divisible by dp_size with DP attention")

    def _handle_model(self):
        if model_arch(self.model_path) == "DeepseekV3":
            assert self.page_size == 64, "DeepseekV3 needs page_size 64"
        checkpoint = model_quantization(self.model_path)
        if checkpoint in ("modelopt_fp4", "modelopt_fp8"):
            # the checkpoint's quantization wins: unknown, but one of the two the test names
            self.quantization = checkpoint
        if envs.SGLANG_CUTLASS_MOE.get() and self.quantization != "fp8":
            raise ValueError("cutlass MoE needs fp8 quantization")
        config = AutoConfig.from_pretrained(self.model_path)
        if config.kv_cache_dtype in ("fp8_e4m3", "fp8_e5m2"):
            # a call handed the object may change it: what the test said of it ends there
            canonical(config)
            self.kv_cache_dtype = config.kv_cache_dtype
        if self.kv_cache_dtype not in ("auto", "bfloat16"):
            raise ValueError("the KV cache must be auto or bfloat16")

    def _handle_environment(self):
        if envs.SGLANG_ENABLE_WIDE_MODE.get() and self.page_size != 1:
            raise ValueError("wide mode needs page_size 1")

    def _handle_moe_backend(self):
        # a chain of steps, each testing the value the one before wrote: written out in full,
        # the value would double at every step
        if self.tp_size > 1 and self.moe_backend != "b1":
            self.moe_backend = "b1"
        if self.tp_size > 2 and self.moe_backend != "b2":
            self.moe_backend = "b2"
        if self.tp_size > 3 and self.moe_backend != "b3":
            self.moe_backend = "b3"
        if self.tp_size > 4 and self.moe_backend != "b4":
            self.moe_backend = "b4"
        if self.tp_size > 5 and self.moe_backend != "b5":
            self.moe_backend = "b5"
        if self.tp_size > 6 and self.moe_backend != "b6":
            self.moe_backend = "b6"
        if self.tp_size > 7 and self.moe_backend != "b7":
            self.moe_backend = "b7"
        if self.tp_size > 8 and self.moe_backend != "b8":
            self.moe_backend = "b8"
        if self.tp_size > 9 and self.moe_backend != "b9":
            self.moe_backend = "b9"
        if self.tp_size > 10 and self.moe_backend != "b10":
            self.moe_backend = "b10"
        if self.moe_backend == "b2" and self.page_size != 1:
            raise ValueError("the b2 MoE backend needs page_size 1")

    def _handle_platform(self):
        # the platform asked twice (the module's name bound to the query, the query called):
        # one answer, so the first check is certain on every platform where the launch leaves
        # kv_layout to its default; the second is the platform's alone
        if _is_hip and self.kv_layout is None:
            self.kv_layout = "hip"
        if self.attention_backend == "fa3" and (self.kv_layout == "hip" or not is_hip()):
            raise ValueError("fa3 needs a CUDA machine and the default KV layout")
        if is_hip() and self.tp_size > 8:
            raise ValueError("at most 8 GPUs on ROCm")

    def _handle_speculative(self):
        if self.speculative_algorithm is None:
            return
        if self.speculative_num_steps is None and self.speculative_eagle_topk is None:
            self.speculative_num_steps, self.speculative_eagle_topk = 3, 1
        # a companion left out stays None: ordering it against a number raises TypeError
        if self.speculative_eagle_topk > 1 and self.page_size > 1:
            raise ValueError("topk > 1 needs page_size 1")
        # tested for None first: no TypeError
        if self.speculative_num_steps is not None and self.speculative_num_steps > 8:
            raise ValueError("at most 8 speculative steps")

    def check_server_args(self):
        assert self.schedule_conservativeness >= 0, "schedule_conservativeness must be non-negative"
        assert ":" not in self.served_model_name, "served_model_name cannot contain a colon"
        if self.enable_mixed_chunk and not self.disable_radix_cache:
            raise ValueError("mixed chunk needs the radix cache disabled")
        if self.chunked_prefill_size % self.page_size != 0:
            raise ValueError("chunked_prefill_size must be divisible by page_size")
        validate_buckets("--prompt-buckets", self.prompt_buckets)
        if self.mm_limits:
            # a loop that only tests its items: its raise fails the launch where some item fails
            for modality in self.mm_limits.keys():
                if modality not in {"image", "video"}:
                    raise ValueError(f"unknown modality {modality}")
            # one that writes: its raise is inside a loop
            for modality in self.mm_limits:
                self.mm_limits[modality] += 1
                if self.mm_limits[modality] > 8:
                    raise ValueError("at most 8 items of a modality")
