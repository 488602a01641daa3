# A stand-in for sglang's runtime context: get_platform()'s facts name the probes they read.
_PLATFORM_PROBES = {
    "is_cuda": "is_cuda",
    "is_sm100": "is_sm100_supported",
}


class PlatformContext:
    def __getattr__(self, name):
        raise AttributeError(name)


_PLATFORM = PlatformContext()


def get_platform() -> PlatformContext:
    return _PLATFORM
