# raise: sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.kandinsky6_sr.tiling:closest_base_resolution line 163 (the allowed set is a name bound at run time or more than once (registry lookup))  # noqa: E501
# why: the default resolutions table RESOLUTIONS has only the key 512; visual_size=1024 raises, 512 passes.
from sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.kandinsky6_sr.tiling import (
    closest_base_resolution,
)

bad = closest_base_resolution(720, 1280, visual_size=1024)  # recall: bad
ok = closest_base_resolution(720, 1280, visual_size=512)  # recall: good
