# A stand-in for sglang's declarations (0.5.20 on): views that refuse writes, declarations
# kept beside the record, and a resolver from outside the tree run on a recorder.


class ResolvingConfig:
    def __init__(self, server_args):
        object.__setattr__(self, "_server_args", server_args)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "_server_args"), name)

    def __setattr__(self, name, value):
        raise AttributeError("read-only")


def resolving_view(server_args):
    return ResolvingConfig(server_args)


def resolved_view(server_args):
    return ResolvingConfig(server_args)


def declare_resolution(server_args, source, **fields):
    stash = getattr(server_args, "_resolved_overrides", None)
    if stash is None:
        stash = []
        server_args._resolved_overrides = stash
    stash.append((source, dict(fields)))


class _ForeignDefaults:
    def __init__(self, server_args):
        object.__setattr__(self, "_cfg", resolving_view(server_args))
        object.__setattr__(self, "_written", {})

    def __setattr__(self, name, value):
        object.__getattribute__(self, "_written")[name] = value


def record_foreign_defaults(server_args, source, resolve):
    recorder = _ForeignDefaults(server_args)
    result = resolve(recorder)
    written = {name: value for name, value in object.__getattribute__(recorder, "_written").items()}
    if written:
        declare_resolution(server_args, source, **written)
    return result
