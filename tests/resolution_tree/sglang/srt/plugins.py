# What the stand-in looks up at run time: registries filled by plugins, outside what a
# launch's text says.
_REGISTRY: dict = {}


def register(key, value):
    _REGISTRY[key] = value


def load_speculative_algorithm(name):
    return _REGISTRY.get(("speculative", name))


def load_watermark(path):
    return _REGISTRY.get(("watermark", path))


def load_kernel_spec():
    return _REGISTRY.get("kernel")


def architectures_of(model_path):
    return _REGISTRY.get(("architectures", model_path), ())
