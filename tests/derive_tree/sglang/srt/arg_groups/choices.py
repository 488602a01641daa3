# A stand-in for sglang's arg_groups/choices.py.
KV_CACHE_DTYPE_CHOICES = ["auto", "fp8_e4m3", "bf16"]
ATTENTION_BACKEND_CHOICES = ["triton", "flashinfer"]

add_attention_backend_choices = ATTENTION_BACKEND_CHOICES.extend
SAMPLING_BACKEND_CHOICES = ["flashinfer", "pytorch"]
