# A stand-in for sglang's arg_groups/fields: A[type, help or Arg(...)] = default, and plain
# annotations (fields without a flag, or whose flag server_args.py registers by hand).
from typing import ClassVar, Dict, List, Literal, Optional

from sglang.srt.arg_groups.arg_utils import A, Arg
from sglang.srt.arg_groups.choices import ATTENTION_BACKEND_CHOICES, KV_CACHE_DTYPE_CHOICES
from sglang.srt.graph_config import Backend
from sglang.srt.utils_common import ALL_MODULES, SUPPORTED_MODULES


class Exec:
    _NS_PATH = "exec"
    namespace_doc: ClassVar[str] = "not a field"

    attention_backend: A[Optional[str], Arg(help="kernels", choices=ATTENTION_BACKEND_CHOICES)] = None
    kv_cache_dtype: A[str, Arg(help="dtype", choices=KV_CACHE_DTYPE_CHOICES)] = "auto"
    tp_size: A[int, Arg(help="tensor parallel", aliases=["--tensor-parallel-size"])] = 1
    schedule_policy: A[Literal["fcfs", "lpm"], "policy"] = "fcfs"
    internal_only: A[bool, Arg(help="not a flag", no_cli=True)] = False
    graph_backend: A[Optional[Literal["full", "off"]], Arg(help="graphs", choices=Backend.ALL)] = None
    target_modules: A[Optional[List[str]], Arg(help="lora", nargs="*", choices=SUPPORTED_MODULES + [ALL_MODULES])] = None
    sampling_backend: A[Optional[str], Arg(help="registered by hand", no_cli=True)] = None
    graph_sizes: A[Optional[List[int]], "batch sizes, one word each"] = None
    bucket_bounds: Optional[List[float]] = None
    stat_loggers: Optional[Dict[str, type]] = None
    reasoning_parser: Optional[str] = None
    canary_data: str = "none"
    _policy_explicitly_set: bool = False
