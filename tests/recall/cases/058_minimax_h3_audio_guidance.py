# raise: sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.minimax_h3.video_adapter:MiniMaxH3VideoModelAdapter.validate_transport_options line 213 (the guard tests an expression, not the parameter itself)  # noqa: E501
# why: task t2va passes the gate; the audio_guidance_scale extra field raises, a request without it passes.
from sglang.multimodal_gen.runtime.entrypoints.openai.protocol import VideoGenerationsRequest
from sglang.multimodal_gen.runtime.pipelines_core.stages.model_specific_stages.minimax_h3.video_adapter import (
    MiniMaxH3VideoModelAdapter,
)

adapter = MiniMaxH3VideoModelAdapter()
with_guidance = VideoGenerationsRequest(prompt="a fox in the snow", task="t2va", audio_guidance_scale=4.0)
plain = VideoGenerationsRequest(prompt="a fox in the snow", task="t2va")

adapter.validate_transport_options(with_guidance, model_path=None)  # recall: bad
adapter.validate_transport_options(plain, model_path=None)  # recall: good
