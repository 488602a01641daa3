# A stand-in for sglang.srt.utils.common's platform probes, in each form sglang writes them.
from functools import lru_cache, partial

import torch


@lru_cache(maxsize=1)
def is_cuda():
    return torch.cuda.is_available() and torch.version.cuda is not None


@lru_cache(maxsize=1)
def is_hip():
    return torch.version.hip is not None


def _check_cuda_device_version(device_capability_majors, cuda_version):
    if not is_cuda():
        return False
    return torch.cuda.get_device_capability()[0] in device_capability_majors


is_blackwell_supported = is_blackwell = lru_cache(maxsize=1)(
    partial(_check_cuda_device_version, device_capability_majors=[10, 11, 12], cuda_version=(12, 8))
)
is_sm100_supported = lru_cache(maxsize=1)(
    partial(_check_cuda_device_version, device_capability_majors=[10], cuda_version=(12, 8))
)


def is_model_sparse():
    # not a probe of the platform table: a check reading it is never judged
    return torch.cuda.device_count() > 4
