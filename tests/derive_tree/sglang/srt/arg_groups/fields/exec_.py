# A stand-in for sglang's arg_groups/fields: A[type, help or Arg(...)] = default.
from typing import Literal, Optional

from sglang.srt.arg_groups.arg_utils import A, Arg
from sglang.srt.arg_groups.choices import ATTENTION_BACKEND_CHOICES, KV_CACHE_DTYPE_CHOICES


class Exec:
    attention_backend: A[Optional[str], Arg(help="kernels", choices=ATTENTION_BACKEND_CHOICES)] = None
    kv_cache_dtype: A[str, Arg(help="dtype", choices=KV_CACHE_DTYPE_CHOICES)] = "auto"
    tp_size: A[int, Arg(help="tensor parallel", aliases=["--tensor-parallel-size"])] = 1
    schedule_policy: A[Literal["fcfs", "lpm"], "policy"] = "fcfs"
    internal_only: A[bool, Arg(help="not a flag", no_cli=True)] = False
