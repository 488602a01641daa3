# raise: sglang.multimodal_gen.runtime.loader.component_loaders.text_encoder_loader:_delegate_quantized_checkpoint_to_transformers line 141 (the guard does not run on every call)  # noqa: E501
# why: Transformers restores a top-level bitsandbytes 4-bit quantization_config, so it raises; no quantization returns.
from sglang.multimodal_gen.runtime.loader.component_loaders.text_encoder_loader import (
    _delegate_quantized_checkpoint_to_transformers,
)

bnb_config = {"model_type": "t5", "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}}
plain_config = {"model_type": "t5", "d_model": 4096}

_delegate_quantized_checkpoint_to_transformers(bnb_config, "text_encoder")  # recall: bad
_delegate_quantized_checkpoint_to_transformers(plain_config, "text_encoder")  # recall: good
