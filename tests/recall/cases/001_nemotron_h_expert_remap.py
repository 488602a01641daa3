# raise: sglang.srt.arg_groups.model_overrides.nemotron_h:_validate_expert_remap line 164 (the guard is and-ed with another condition)  # noqa: E501
# why: EPLB with "flashinfer_cutedsl" and moe_a2a_backend "none" reaches the and-ed raise; an a2a backend does not.
from types import SimpleNamespace

from sglang.srt.arg_groups.model_overrides.nemotron_h import _validate_expert_remap

no_a2a = SimpleNamespace(moe_runner_backend="flashinfer_cutedsl", enable_eplb=True, moe_a2a_backend="none")
with_a2a = SimpleNamespace(moe_runner_backend="flashinfer_cutedsl", enable_eplb=True, moe_a2a_backend="deepep")

_validate_expert_remap(no_a2a, None, "NemotronHForCausalLM")  # recall: bad
_validate_expert_remap(with_a2a, None, "NemotronHForCausalLM")  # recall: good
