# A stand-in for sglang's platform queries (tests of derive/startup/run.py): what the machine is,
# detected once, one answer however often a start-up asks.
import functools
import subprocess

_PLATFORM = None


class Platform:
    def __init__(self, name):
        self.is_hip = name == "hip"

    @classmethod
    def detect(cls):
        return cls(subprocess.run(["rocminfo"], capture_output=True).returncode == 0 and "hip" or "cuda")


def get_platform():
    global _PLATFORM
    if _PLATFORM is None:
        _PLATFORM = Platform.detect()
    return _PLATFORM


@functools.lru_cache(maxsize=1)
def is_hip():
    return get_platform().is_hip
