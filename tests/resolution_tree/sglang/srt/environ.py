# The stand-in's environment variables (0.5.20 layout): one sglang turns on for some models.


class EnvBool:
    def __init__(self, default):
        self.default = default


class Envs:
    SGLANG_ENABLE_SPEC_V2 = EnvBool(False)


envs = Envs()
