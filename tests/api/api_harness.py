"""A call of sglang's public Python API, made for real against an unpacked release with every
other package stubbed (tests/startup/harness.py's ``setup``), in a separate interpreter: does
Python take the call's arguments?

Parent side: ``call(release, spec)`` returns one verdict dict::

    {"outcome": "bound" | "binding" | "absent" | "unclear", "exception": ..., "message": ...}

``spec``: ``{"module": "sglang.srt.entrypoints.engine", "owner": "Engine" (or null), "name":
"generate" (null: the owner's constructor), "args": [...], "kwargs": {...}}``, the arguments JSON
literals.

- ``bound``: Python bound the arguments to the callable's parameters: its body was about to
  run (a trace function stops it there, so nothing of it runs: no server is launched), or an
  ``async`` function returned its coroutine, which is closed unrun.
- ``binding``: Python raised ``TypeError`` before the callable's body was entered (an
  unexpected keyword, too many arguments, a missing one): the verdict users get.
- ``absent``: the class (or module) has no attribute of that name: ``AttributeError``.
- ``unclear``: the module did not import under the stubs, or anything else happened.

A method is called on the class with a stub in place of ``self`` (``Engine.generate(stub,
...)``), a static method without one; a decorated callable is traced at its innermost function
(``inspect.unwrap``), so a wrapper that takes ``*args, **kwargs`` does not hide the binding.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "startup"))

import harness  # noqa: E402 (the start-up harness: its child's setup and its spawner, reused)


def call(release: str, spec: dict, timeout: float = harness.TIMEOUT) -> dict:
    """sglang ``release``'s verdict on the call ``spec`` (see the module's docstring)."""
    return harness.spawn(Path(__file__), release, spec, timeout=timeout)


class _Entered(Exception):
    """Raised by the trace function where the callable's body would begin."""


def _child(tree: str, spec: dict, deps: str, gpu: str) -> dict:
    import importlib
    import inspect
    import traceback

    machine = harness.setup(tree, deps, gpu)
    _forgive_sglang_imports(machine.rp)
    import asyncio
    import types

    uvloop = sys.modules["uvloop"] = types.ModuleType("uvloop")  # (the engine's module sets its policy)
    uvloop.EventLoopPolicy = asyncio.DefaultEventLoopPolicy
    try:
        module = importlib.import_module(spec["module"])
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "unclear", "exception": type(exc).__name__, "message": str(exc)[:2000],
                "detail": f"importing {spec['module']} failed", "traceback": traceback.format_exc()[-4000:]}
    if spec.get("describe"):
        return _describe(module, spec.get("owner"), machine)
    if "sampling" in spec:
        return _sampling(module, spec["sampling"], machine)
    if "choices" in spec:
        return _choices(module, spec["choices"])
    owner_name, name = spec.get("owner"), spec.get("name")
    try:
        owner = getattr(module, owner_name) if owner_name else module
        target = getattr(owner, name) if name else owner
    except AttributeError as exc:
        return {"outcome": "absent", "exception": "AttributeError", "message": str(exc)}
    if machine.is_stub(owner) or machine.is_stub(target):
        return {"outcome": "unclear", "detail": f"{spec['module']} did not define it under the stubs",
                "traceback": getattr(module, "__forgiven__", "")}
    args, kwargs = list(spec.get("args", [])), dict(spec.get("kwargs", {}))
    if owner_name and name and not isinstance(inspect.getattr_static(owner, name), (staticmethod, classmethod)):
        args.insert(0, harness_stub("self"))
    function = target.__init__ if isinstance(target, type) else target
    code = getattr(inspect.unwrap(function), "__code__", None)

    def trace(frame, event, arg):
        if event == "call" and frame.f_code is code:
            raise _Entered
        return None

    sys.settrace(trace)
    try:
        made = target(*args, **kwargs)
    except _Entered:
        return {"outcome": "bound"}
    except TypeError as exc:
        return {"outcome": "binding", "exception": "TypeError", "message": str(exc)}
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "unclear", "exception": type(exc).__name__, "message": str(exc)[:2000],
                "detail": "raised before the body", "traceback": traceback.format_exc()[-4000:]}
    finally:
        sys.settrace(None)
    if inspect.iscoroutine(made) or inspect.isgenerator(made) or inspect.isasyncgen(made):
        made.close()
        return {"outcome": "bound"}
    if code is None:  # (a callable without Python code: it ran, and took the arguments)
        return {"outcome": "bound"}
    return {"outcome": "unclear", "detail": "returned without entering the traced body"}


def _describe(module, owner_name: str | None, machine) -> dict:
    """The public callables of a module (its own functions) or of a class (its methods, and its
    constructor under ""), each with its parameters as ``inspect`` reads the real object:
    ``[name, kind, has_default, default]`` (kind: inspect's, ``POSITIONAL_OR_KEYWORD`` ...; the
    default where it is a plain literal, else None)."""
    import inspect

    owner = getattr(module, owner_name) if owner_name else module
    if machine.is_stub(owner):
        return {"outcome": "unclear", "detail": f"{owner_name} did not define under the stubs"}
    members = {}
    for name, value in inspect.getmembers(owner):
        if name.startswith("_") and name != "__init__":
            continue
        if owner_name is None and (not inspect.isfunction(value) or value.__module__ != module.__name__):
            continue
        if owner_name is not None and not (inspect.isfunction(value) or inspect.ismethod(value)):
            continue
        if machine.is_stub(value):
            continue
        try:
            signature = inspect.signature(value)
        except (TypeError, ValueError):
            continue
        static = owner_name is not None and isinstance(inspect.getattr_static(owner, name), staticmethod)
        params = [[p.name, p.kind.name, p.default is not inspect.Parameter.empty, _literal(p.default)]
                  for p in signature.parameters.values()]
        if owner_name is not None and not static and params and not inspect.ismethod(value):
            params = params[1:]  # (self)
        members["" if name == "__init__" else name] = {"params": params, "async": inspect.iscoroutinefunction(value)}
    if owner_name is not None and "" not in members:  # (a struct's constructor: the class's signature)
        try:
            signature = inspect.signature(owner)
            members[""] = {"params": [[p.name, p.kind.name, p.default is not inspect.Parameter.empty,
                                       _literal(p.default)] for p in signature.parameters.values()],
                           "async": False}
        except (TypeError, ValueError):
            pass
    return {"outcome": "described", "members": members}


def _sampling(module, params: dict, machine) -> dict:
    """A request's sampling parameters as sglang's tokenizer manager takes them:
    ``SamplingParams(**params)``, ``normalize(None)`` (a server without a tokenizer: no stop
    strings are drawn), ``verify(vocab_size)`` (Llama-3.1's, the harness's model)."""
    import traceback

    try:
        made = module.SamplingParams(**params)
    except TypeError as exc:
        return {"outcome": "binding", "exception": "TypeError", "message": str(exc)}
    except BaseException as exc:  # noqa: BLE001
        return {**machine.verdict_of(exc), "traceback": traceback.format_exc()[-3000:]}
    try:
        made.normalize(None)
        made.verify(harness.FAKE_HF_CONFIG["vocab_size"])
    except BaseException as exc:  # noqa: BLE001
        return {**machine.verdict_of(exc), "traceback": traceback.format_exc()[-3000:]}
    return {"outcome": "passed"}


def _choices(module, dest: str) -> dict:
    """The names a launch flag's registry holds, as sglang's own parser has them
    (``ServerArgs.add_cli_args`` on a fresh parser): the choices of the flag setting ``dest``."""
    import argparse

    parser = argparse.ArgumentParser()
    module.ServerArgs.add_cli_args(parser)
    for action in parser._actions:
        if action.dest == dest:
            return {"outcome": "described", "flags": list(action.option_strings),
                    "choices": [c for c in (action.choices or ()) if isinstance(c, str)]}
    return {"outcome": "unclear", "detail": f"no flag sets {dest}"}


def _literal(value):
    """A default as JSON can carry it (None where it cannot: a stub, an object)."""
    return value if isinstance(value, (str, int, float, bool)) else None


def _forgive_sglang_imports(rp) -> None:
    """An sglang module that fails part way under the stubs (a stubbed decorator called at
    import, a stub joined as text) keeps what it defined before the failure, and gives a stub
    for any other name: the callable's own module and the classes it is built from are what
    the verdict needs, not every module they import."""
    import importlib.abc
    import importlib.machinery
    import traceback

    class Forgiving(importlib.abc.Loader):
        def __init__(self, loader):
            self.loader = loader

        def create_module(self, spec):
            return self.loader.create_module(spec)

        def exec_module(self, made):
            try:
                self.loader.exec_module(made)
            except Exception as exc:  # noqa: BLE001
                made.__forgiven__ = "".join(traceback.format_exception(exc))[-3000:]
                made.__getattr__ = lambda name: rp.Stub(f"{made.__name__}.{name}")

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if not name.startswith("sglang."):
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is not None and spec.loader is not None:
                spec.loader = Forgiving(spec.loader)
            return spec

    sys.meta_path.insert(0, Finder())


def harness_stub(name: str):
    import real_parsers as rp

    return rp.Stub(name)


if __name__ == "__main__":
    harness.child_main(_child)
