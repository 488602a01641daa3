"""sglang's own parsers of ``sglang serve`` (the diffusion backend) and ``sglang generate``,
built by sglang's own code from an unpacked release, for the tests to compare with what the
deriver reads from the source. Run as a script in a separate interpreter, isolated from the
test venv (``python -I -S real_parsers.py TREE COMMAND MODE [FLAG ...]``): every module that
is neither the standard library nor sglang's ``cli``/``multimodal_gen`` is a stub (torch,
triton, transformers, sglang.srt ...), so that the parser-building code runs without them.

COMMAND: ``serve`` (sglang.cli.serve.serve, its model taken for a diffusion model) or
``generate`` (sglang.cli.generate.generate). MODE:
  options: the option strings of the parser the command parses its arguments with, and those
      every pipeline config may add (``add_pipeline_cli_args``), as JSON {"base", "pipelines"}.
  probe: for each FLAG (``--x``, or ``--x=v`` for one that needs a value), whether the
      command takes it: JSON {flag: "taken" | "rejected"}; taken when the
      command reaches ``ServerArgs.from_dict`` (its arguments all read), rejected on argparse's
      error or the "unrecognized arguments" exit.

A script run with ``python -m`` (``python -I -S real_parsers.py TREE script MODULE REAL [ARG ...]``):
MODULE's main block run as ``__main__`` with sglang's modules whose names start with one of the
comma-separated prefixes REAL run for real (the module's own package: the parser's arguments may
come from a sibling), every other one a stub; ``ServerArgs.add_cli_args`` only marks the parser it
is handed (the server's flags are the server-argument table's). Without ARG: the parser the main
block parses ``sys.argv`` with, as JSON {"flags": its option strings, "server_args": whether
ServerArgs.add_cli_args filled it}. With ARGs (ServerArgs' flags added for real, as a plain flag
each, for a parser that takes them: ``--x`` in FLAGS=...): that parser's verdict on ``ARG ...`` as
JSON {"verdict": "taken" | the message argparse stops with}.
"""

from __future__ import annotations

import abc
import argparse
import importlib
import importlib.abc
import importlib.machinery
import json
import os
import pkgutil
import sys
import types

REAL = {"multimodal_gen", "cli", "version", "utils"}  # sglang's packages run for real (sglang.X)


class _Meta(abc.ABCMeta):
    """The class of a stand-in for a stubbed class (``torch.nn.Module``) and of the classes
    sglang derives from one: their attributes are stubs; calling a stand-in gives a stub."""

    def __new__(mcs, name, bases, namespace, **keywords):
        return super().__new__(mcs, name, bases, namespace)

    def __init__(cls, name, bases, namespace, **keywords):
        super().__init__(name, bases, namespace)

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Stub(f"{cls.__name__}.{name}")

    def __getitem__(cls, item):
        return cls

    def __call__(cls, *args, **kwargs):
        if cls.__dict__.get("_stand_in"):
            return Stub(cls.__name__)
        return super().__call__(*args, **kwargs)

    def __or__(cls, other):
        return cls

    __ror__ = __or__

    def __iter__(cls):
        return iter(())

    def __bool__(cls):
        return False


class _StubBase(metaclass=_Meta):
    def __init_subclass__(cls, **keywords):
        pass

    def __init__(self, *args, **kwargs):
        # a struct-like base (msgspec.Struct, pydantic.BaseModel): fields from the annotations
        names = [n for c in reversed(type(self).__mro__) for n in getattr(c, "__annotations__", {})]
        for name, value in zip(dict.fromkeys(names), args):
            object.__setattr__(self, name, value)
        for name, value in kwargs.items():
            object.__setattr__(self, name, value)


class Stub:
    """Any value of a stubbed module: falsy, empty, every operation gives itself or a stub; a
    decorator gives back what it decorates."""

    def __init__(self, name="stub"):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Stub(f"{self._name}.{name}")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs and not self._name.endswith(("dumps", "dump")):
            return args[0]
        return Stub(self._name + "()")

    def __getitem__(self, item):
        return Stub(self._name + "[]")

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return False

    def __int__(self):
        return 0

    __index__ = __int__

    def __float__(self):
        return 0.0

    def __eq__(self, other):
        return other is self

    def __hash__(self):
        return id(self)

    def __lt__(self, other):
        return False

    __gt__ = __le__ = __ge__ = __lt__

    def __contains__(self, item):
        return False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __mro_entries__(self, bases):
        return (_Meta(self._name.rsplit(".", 1)[-1], (_StubBase,), {"_stand_in": True}),)

    def __repr__(self):
        return f"<stub {self._name}>"

    def __str__(self):
        return self._name

    def __fspath__(self):
        return "/nonexistent"

    def __setattr__(self, name, value):
        pass

    def __setitem__(self, key, value):
        pass

    def __delitem__(self, key):
        pass


def _itself(self, *args, **kwargs):
    return self


for _operator in ("neg", "pos", "abs", "invert", "add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv",
                  "floordiv", "rfloordiv", "mod", "rmod", "pow", "rpow", "and", "rand", "or", "ror", "xor", "rxor",
                  "lshift", "rlshift", "rshift", "rrshift", "matmul", "rmatmul", "iadd", "isub", "imul", "ior",
                  "iand"):
    setattr(Stub, f"__{_operator}__", _itself)
Stub.__round__ = Stub.__floor__ = Stub.__ceil__ = lambda self, *args: 0

ABSENT = {"npu"}  # hasattr(torch, "npu") means an Ascend build


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if (name.startswith("__") and name.endswith("__")) or name in ABSENT:
            raise AttributeError(name)
        value = Stub(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__file__ = "<stub>"
        module.__version__ = "2.9.0"
        return module

    def exec_module(self, module):
        pass


class _StubFinder(importlib.abc.MetaPathFinder):
    real_prefixes: tuple = ()  # a script's run: the sglang modules run for real

    def find_spec(self, name, path, target=None):
        parts = name.split(".")
        if parts[0] in sys.stdlib_module_names:
            return None
        if self.real_prefixes:
            real = name.startswith(self.real_prefixes) or any(p.startswith(name + ".") for p in self.real_prefixes)
            return None if real and name != "sglang.srt.server_args" else \
                importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)
        if parts[0] == "sglang" and (len(parts) == 1 or parts[1] in REAL):
            return None
        return importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)


class _Captured(Exception):
    def __init__(self, parser):
        self.parser = parser


class _Reached(Exception):
    pass


def _install(tree: str) -> None:
    import multiprocessing.connection  # noqa: F401  (sglang reads it as an attribute others imported)

    sys.path.insert(0, tree)
    sys.meta_path.insert(0, _StubFinder())
    package = types.ModuleType("sglang")  # its __init__ imports the LLM runtime: not run
    package.__path__ = [os.path.join(tree, "sglang")]
    sys.modules["sglang"] = package


def _command(name: str):
    module = importlib.import_module(f"sglang.cli.{name}")
    if hasattr(module, "get_is_diffusion_model"):
        module.get_is_diffusion_model = lambda *args, **kwargs: True  # the model is a diffusion model
    return getattr(module, name)


def options(name: str) -> dict:
    original = argparse.ArgumentParser.parse_known_args

    def capture(self, args=None, namespace=None):
        if args is None:
            return original(self, args, namespace)  # a pre-parse of sys.argv (the pipeline selector)
        raise _Captured(self)

    argparse.ArgumentParser.parse_known_args = capture
    try:
        _command(name)(argparse.Namespace(), ["--model-path", "m"])
    except _Captured as found:
        base = sorted({o for action in found.parser._actions for o in action.option_strings})
    else:
        raise SystemExit(f"sglang {name} parsed no arguments")
    finally:
        argparse.ArgumentParser.parse_known_args = original
    return {"base": base, "pipelines": sorted(_pipeline_options())}


def _pipeline_options() -> set:
    """The flags each pipeline config that has its own (``add_pipeline_cli_args``) adds."""
    found = set()
    configs = importlib.import_module("sglang.multimodal_gen.configs")
    for info in pkgutil.walk_packages(configs.__path__, "sglang.multimodal_gen.configs."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and "add_pipeline_cli_args" in vars(value):
                parser = argparse.ArgumentParser()
                value.add_pipeline_cli_args(parser)
                found |= {o for action in parser._actions for o in action.option_strings}
    return found


def probe(name: str, flags: list[str]) -> dict:
    server_args = importlib.import_module("sglang.multimodal_gen.runtime.server_args")

    def reached(cls, kwargs):
        raise _Reached

    server_args.ServerArgs.from_dict = classmethod(reached)
    command = _command(name)
    verdicts = {}
    for flag in flags:
        argv = ["--model-path", "m", flag]
        sys.argv = ["sglang", name, *argv]
        try:
            command(argparse.Namespace(), argv)
        except _Reached:
            verdicts[flag] = "taken"
        except SystemExit:
            verdicts[flag] = "rejected"
        else:
            raise SystemExit(f"sglang {name} {flag}: neither parsed nor rejected")
    return verdicts


def _script(tree: str, module: str, real: str, argv: list) -> dict:
    """A script's parser (see the module docstring), or its verdict on ``argv``."""
    import runpy

    _StubFinder.real_prefixes = tuple(p for p in real.split(",") if p)
    server_flags = [f for f in os.environ.get("FLAGS", "").split(",") if f]

    class ServerArgs(_StubBase):
        _stand_in = True

        @staticmethod
        def add_cli_args(parser):
            parser._sglang_server_args = True
            for flag in server_flags:
                parser.add_argument(flag)

    import dataclasses

    fake = _StubModule("sglang.srt.server_args")
    fake.ServerArgs = dataclasses.dataclass(ServerArgs)  # (a module may read its fields at import)
    sys.modules["sglang.srt.server_args"] = fake
    for index, part in enumerate(module.split(".")[1:-1], start=2):  # its packages: their folders, not run
        package = ".".join(module.split(".")[:index])
        if package not in sys.modules:
            made = types.ModuleType(package)
            made.__path__ = [os.path.join(tree, *package.split("."))]
            sys.modules[package] = made
    original = argparse.ArgumentParser.parse_known_args

    def capture(self, args=None, namespace=None):
        if args is None and not argv:
            raise _Captured(self)
        return original(self, args, namespace)

    argparse.ArgumentParser.parse_known_args = capture  # (parse_args calls it)
    argparse.ArgumentParser.error = lambda self, message: (_ for _ in ()).throw(_Rejected(message))
    sys.argv = [module, *argv]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=False)
    except _Captured as found:
        flags = {o for action in found.parser._actions for o in action.option_strings}
        return {"flags": sorted(flags), "server_args": bool(getattr(found.parser, "_sglang_server_args", False))}
    except _Rejected as rejected:
        return {"verdict": str(rejected)}
    except _Parsed:
        return {"verdict": "taken"}
    raise SystemExit(f"{module} parsed no arguments")


class _Rejected(Exception):
    pass


class _Parsed(Exception):
    pass


def main() -> None:
    tree, name, mode, *flags = sys.argv[1:]
    if name == "script":
        _install(tree)
        out = sys.stdout
        sys.stdout = sys.stderr = open(os.devnull, "w")
        original = argparse.ArgumentParser.parse_args

        def parsed(self, args=None, namespace=None):
            result = original(self, args, namespace)
            if args is None:
                raise _Parsed
            return result

        argparse.ArgumentParser.parse_args = parsed
        out.write(json.dumps(_script(tree, mode, flags[0], flags[1:])))
        return
    _install(tree)
    sys.argv = ["sglang", name]
    out = sys.stdout
    sys.stdout = sys.stderr = open(os.devnull, "w")  # argparse's errors, sglang's prints and warnings
    found = options(name) if mode == "options" else probe(name, flags)
    out.write(json.dumps(found))


if __name__ == "__main__":
    main()
