# A stand-in for sglang's environment-variable declarations (tests of derive/startup/run.py).


class EnvBool:
    def __init__(self, default):
        self.default = default


class EnvInt:
    def __init__(self, default):
        self.default = default


class Envs:
    SGLANG_ENABLE_WIDE_MODE = EnvBool(False)
    SGLANG_MAX_CHUNK = EnvInt(8)
    SGLANG_CUTLASS_MOE = EnvBool(False)


envs = Envs()
