"""The ``sglang`` command's launch subcommands in one release, read from its source: ``sglang
serve`` (its backends: the LLM server, whose flags are ServerArgs', and the diffusion server,
whose parser ``sglang/cli/serve.py`` builds; the flag that picks one, ``--model-type``) and
``sglang generate`` (its own parser, ``sglang/cli/generate.py``).

Each parser's option strings are read by :mod:`..server_args.parsers`. Then what becomes of a word it does
not know: ``parse_args`` stops there (argparse's error); ``parse_known_args`` hands such words
on, and they are followed from call to call (``execute_serve_cmd(args, remaining)`` ->
``ServerArgs.from_cli_args(args, unknown_args)``) to the function that exits on them ("error:
unrecognized arguments"). The methods it calls on them before that exit take some forms of a
flag no parser registers (``--component-paths.vae``, ``--vae-path``): the prefixes and suffixes
their ``startswith`` / ``endswith`` tests look for are what it takes. Where no function exits
on them, any other flag is taken (and ignored)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pathlib import Path

from sglang_lint.derive.server_args.diffusion import config_attributes, diffusion_keywords
from sglang_lint.derive.server_args.parsers import UNKNOWN, Class, Function, ModuleSet, ParserReader
from sglang_lint.derive.source.tree import Module, walk_all

SERVE_MODULE = "sglang.cli.serve"
GENERATE_MODULE = "sglang.cli.generate"
LLM_ENTRY = "prepare_server_args"  # the LLM server's ServerArgs parser (the server-argument table)
REJECTION = "unrecognized arguments"  # what an exit on words no parser took says (argparse's words)
NOT_FLAG_TESTS = frozenset({"-", "--"})  # startswith("-"): a value test; startswith("--"): any flag
MAX_HOPS = 6


@dataclass(frozen=True)
class ParserFacts:
    """What one command's parser takes: its option strings, and of the other flags, any
    (``open``) or those with one of ``prefixes`` (``--component-paths.``) or, after ``--``, one
    of ``suffixes`` (``-path``)."""

    flags: tuple
    open: bool = False
    prefixes: tuple = ()
    suffixes: tuple = ()


@dataclass(frozen=True)
class Commands:
    """One release's launch subcommands (none: a release without the ``sglang`` command)."""

    serve: bool = False
    backends: tuple = ()  # the backends `sglang serve` picks from: "llm", "diffusion"
    selector: tuple = ()  # the flags `sglang serve` takes itself: --model-type (which backend)
    diffusion: ParserFacts | None = None
    generate: ParserFacts | None = None
    unresolved: tuple = ()  # "path:line" of an option string the reader could not compute
    # the keywords of the diffusion server's ServerArgs from Python (diffusion_args.py), as a
    # parser's option strings: DiffGenerator.from_pretrained(...) and ServerArgs.from_kwargs(...)
    diffusion_keywords: ParserFacts | None = None
    # the names PipelineConfig.from_kwargs takes out of them first (diffusion_args.config_attributes)
    diffusion_config_keywords: ParserFacts | None = None

    def __bool__(self) -> bool:
        return self.serve or self.generate is not None


PACKAGES = ("sglang.cli.", "sglang.multimodal_gen.")  # what the commands' parsers are built from


def read_commands(modules: list[Module]) -> Commands:
    """``sglang serve``'s backends and ``sglang generate``'s parser, as this tree has them."""
    return _read(ModuleSet([m for m in modules if m.name.startswith(PACKAGES)]))


def tree_commands(root: Path) -> Commands:
    """:func:`read_commands` of the tree under ``root``, parsing only the modules it reads."""
    return _read(ModuleSet(root=root, packages=PACKAGES))


def _read(modules: ModuleSet) -> Commands:
    reader = ParserReader(modules)
    serve = modules.get(SERVE_MODULE)
    if serve is None and GENERATE_MODULE not in modules:
        return Commands()  # (no release without the sglang command has the diffusion server)
    diffusion, unresolved = _facts(reader, SERVE_MODULE)
    generate, more = _facts(reader, GENERATE_MODULE)
    backends = (("llm",) if serve is not None and LLM_ENTRY in serve.source else ()) + (
        ("diffusion",) if diffusion is not None else ())
    keywords, config = diffusion_keywords(modules), config_attributes(modules)
    return Commands(serve is not None, backends, _selector(serve) if serve is not None else (), diffusion,
                    generate, tuple(sorted(set(unresolved + more))),
                    ParserFacts(keywords) if keywords is not None else None,
                    ParserFacts(config) if keywords is not None and config is not None else None)


def _selector(module: Module) -> tuple:
    """The flags ``sglang serve`` reads itself, before any backend: those its module compares a
    word with (``arg == "--model-type"``)."""
    found = set()
    for node in walk_all(module.tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq) for op in node.ops):
            for side in [node.left, *node.comparators]:
                if isinstance(side, ast.Constant) and isinstance(side.value, str) and side.value.startswith("--"):
                    found.add(side.value)
    return tuple(sorted(found))


def _facts(reader: ParserReader, module_name: str) -> tuple[ParserFacts | None, tuple]:
    reading = reader.read_module(module_name)
    if not reading.parsers:
        return None, tuple(reading.unresolved)
    flags = sorted({flag for parser in reading.parsers for flag in parser.flags})
    opened, prefixes, suffixes = False, set(), set()
    for parser in reading.parsers:
        if not parser.known_args:
            continue  # parse_args: a word it does not know is argparse's error
        function = _function(reader, parser.parsed_in)
        found = _leftover(reader, function, parser.remaining, 0) if function and parser.remaining else None
        if found is None:
            opened = True
        else:
            prefixes |= found[0]
            suffixes |= found[1]
    return ParserFacts(tuple(flags), opened, tuple(sorted(prefixes)), tuple(sorted(suffixes))), \
        tuple(reading.unresolved)


def _function(reader: ParserReader, qualified: str) -> Function | None:
    found = reader.qualified(qualified)
    return found if isinstance(found, Function) else None


def _leftover(reader: ParserReader, function: Function, name: str, hops: int) -> tuple[set, set] | None:
    """Where the words no parser took (``name``, in ``function``) are rejected: the flag
    prefixes and suffixes taken before that (see the module docstring); None when no function
    they reach rejects them."""
    node = function.node
    rejection = next((n for n in walk_all(node) if isinstance(n, ast.Raise) and n.exc is not None
                      and any(isinstance(c, ast.Constant) and isinstance(c.value, str) and REJECTION in c.value
                              for c in walk_all(n.exc))), None)
    if rejection is not None:
        prefixes, suffixes = set(), set()
        for call in walk_all(node):
            if isinstance(call, ast.Call) and call.lineno < rejection.lineno:
                callee = _own_method(reader, function, call)
                if callee is not None:
                    _string_tests(reader, callee, _arguments(callee, call, {}), prefixes, suffixes, hops)
        return prefixes, suffixes
    if hops >= MAX_HOPS:
        return None
    for call in walk_all(node):
        if not isinstance(call, ast.Call):
            continue
        handed = _handed(call, name)
        if handed is None:
            continue
        callee = reader.value(call.func, function.module, {})
        if isinstance(callee, Function) and not isinstance(callee.node, ast.Lambda):
            parameter = _parameter(callee, *handed)
            found = _leftover(reader, callee, parameter, hops + 1) if parameter else None
            if found is not None:
                return found
    return None


def _handed(call: ast.Call, name: str) -> tuple[int | None, str | None] | None:
    """(position, keyword) where the call passes the name, or None."""
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Name) and argument.id == name:
            return index, None
    for keyword in call.keywords:
        if isinstance(keyword.value, ast.Name) and keyword.value.id == name:
            return None, keyword.arg
    return None


def _parameters(callee: Function) -> list[str]:
    spec = callee.node.args
    names = [a.arg for a in spec.posonlyargs + spec.args]
    return names[1:] if callee.bound is not None else names


def _parameter(callee: Function, position: int | None, keyword: str | None) -> str | None:
    names = _parameters(callee)
    if keyword is not None:
        return keyword
    return names[position] if position is not None and position < len(names) else None


def _own_method(reader: ParserReader, function: Function, call: ast.Call) -> Function | None:
    """The method of the function's own class a call names (``cls.x(...)``, ``self.x(...)``,
    ``ServerArgs.x(...)``), or None."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    owner = function.bound if isinstance(function.bound, Class) else None
    if owner is None:
        found = reader.value(func.value, function.module, {})
        owner = found if isinstance(found, Class) else None
    if owner is None:
        owner = _class_of(function)
    found = reader.attribute(owner, func.attr) if owner is not None else UNKNOWN
    return found if isinstance(found, Function) and not isinstance(found.node, ast.Lambda) else None


def _class_of(function: Function) -> Class | None:
    for cls in function.module.classes:
        if any(item is function.node for item in cls.body):
            return Class(function.module, cls)
    return None


def _arguments(callee: Function, call: ast.Call, scope: dict) -> dict:
    """The strings each parameter of the callee gets at this call (literals, tuples of them,
    names of the caller's whose strings are known)."""
    names = _parameters(callee)
    bound = {name: _strings(argument, scope) for name, argument in zip(names, call.args)}
    bound.update({k.arg: _strings(k.value, scope) for k in call.keywords if k.arg})
    return bound


def _strings(node: ast.expr, scope: dict) -> tuple:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return tuple(s for element in node.elts for s in _strings(element, scope))
    if isinstance(node, ast.Name):
        return scope.get(node.id, ())
    return ()


def _string_tests(reader: ParserReader, function: Function, bound: dict, prefixes: set, suffixes: set,
                  hops: int) -> None:
    """The strings the function (and the methods of its class it calls) test words with:
    ``x.startswith(s)`` -> a prefix, ``x.endswith(s)`` -> a suffix; ``s`` a literal, or a name
    bound to literals here (a parameter, a local tuple, a loop's or comprehension's item)."""
    scope = {name: strings for name, strings in bound.items() if strings}
    nodes = list(walk_all(function.node))
    for _ in range(2):  # (a loop over a name bound later in the walk's order)
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if _strings(node.value, scope):
                    scope[node.targets[0].id] = _strings(node.value, scope)
            elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
                if _strings(node.iter, scope):
                    scope[node.target.id] = _strings(node.iter, scope)
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr in ("startswith", "endswith") and node.args
                and not isinstance(func.value, ast.Constant)):
            found = prefixes if func.attr == "startswith" else suffixes
            found.update(s for s in _strings(node.args[0], scope) if s not in NOT_FLAG_TESTS)
        elif hops < MAX_HOPS:
            callee = _own_method(reader, function, node)
            if callee is not None and callee.node is not function.node:
                _string_tests(reader, callee, _arguments(callee, node, scope), prefixes, suffixes, hops + 1)
