# A stand-in for sglang's ServerArgs in its 0.5.20 layout (resolve_once runs the arg_groups'
# hooks, which read views and declare what they resolve), written for
# tests/test_startup_derive.py: each hook is a form the deriver must follow.
import dataclasses
from typing import List, Optional

from sglang.srt.arg_groups.overrides import resolved_view


@dataclasses.dataclass
class ServerArgs:
    model_path: str
    tp_size: int = 1
    attn_cp_size: int = 1
    attention_backend: Optional[str] = None
    decode_attention_backend: Optional[str] = None
    speculative_algorithm: Optional[str] = None
    schedule_conservativeness: float = 1.0
    enable_dp_attention: bool = False
    language_only: bool = False
    encoder_urls: List[str] = dataclasses.field(default_factory=list)
    watermark_config: Optional[str] = None
    watermark_delta: float = 2.0
    enable_megakernel: bool = False
    speculative_eagle_topk: Optional[int] = None

    def __post_init__(self):
        """Construction leaves the record as the caller asked."""

    def resolve_once(self) -> None:
        from sglang.srt.arg_groups.pipeline import run_resolution_pipeline

        run_resolution_pipeline(self)

    def _resolved(self):
        """A read-only view of the resolving configuration."""
        return resolved_view(self)
