# raise: sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.minimax_h3.presentation:_as_nested_int_list line 179 (the guard does not run on every call)  # noqa: E501
# why: a str is excluded by `isinstance(value, (str, bytes))`, so "0,4,8" raises; a list of lists passes.
from sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.minimax_h3.presentation import (
    _as_nested_int_list,
)

bad = _as_nested_int_list("0,4,8", name="reference_frames")  # recall: bad
ok = _as_nested_int_list([[0, 4], [8]], name="reference_frames")  # recall: good
