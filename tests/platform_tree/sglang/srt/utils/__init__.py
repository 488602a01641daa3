# A stand-in for sglang's utils package: it re-exports its probes (tests/test_platform_declaration.py).
from sglang.srt.utils.common import *  # noqa: F401,F403
from sglang.srt.utils.common import is_cuda, is_hip, is_sm100_supported  # noqa: F401
