"""The environment variables a launch written in Python certainly runs with:
:func:`python_launch_env` for the call of a launch site (``sgl.Engine(...)``,
``subprocess.Popen([...])``, ``popen_launch_server(...)``, ``os.system("...")``).

* What the code writes to ``os.environ`` before the call: ``os.environ["X"] = "1"``,
  ``.update({...})`` / ``.update(X="1")``, ``del os.environ["X"]``, ``.pop("X")``, ``.clear()``,
  ``os.putenv`` / ``os.unsetenv`` (the environment a child process inherits, not ``os.environ``),
  pytest's ``monkeypatch.setenv``, ``mock.patch.dict(os.environ, {...})`` around the call or on
  its function; ``.setdefault`` makes its variable unknown. Read in order over the statements
  that run on every path to the call: those before it in its own function (or module) and in
  the blocks that hold it; a write in an ``if``, a loop, a ``try``, a ``with`` before it, or in
  a function of the file called before it makes its variable unknown. For a call in a function,
  the module's statements before that function are read first, and a variable written anywhere
  else in the file is unknown there (the function may run after that write).
* The call's own ``env=`` (a child process's whole environment): a dict display, ``dict(...)``,
  ``{**os.environ, "X": "1"}``, ``dict(os.environ, X="1")``, ``os.environ.copy()``, or a local
  name built in steps (``env = os.environ.copy(); env["X"] = "1"``).
* The command's own: ``env X=1 python -m ...`` in an argv list, assignments, ``env`` and
  ``export`` in a shell string (shell_env).

Values are string literals, f-strings without holes or ``str(<int literal>)``; anything else is
unknown, and unknown is absent: the result holds only variables whose value is certain.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import NamedTuple

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.bindings import Imported
from sglang_lint.analysis.built import READER_METHODS, READERS
from sglang_lint.analysis.syntax import child_nodes, dotted_name, literal_value
from sglang_lint.checks.base import argument_of
from sglang_lint.checks.server_args.flags import HOLE, python_words, shell_source
from sglang_lint.launch.commands import find_launch
from sglang_lint.launch.shell_split import script_index
from sglang_lint.launch.wrappers import SHELLS
from sglang_lint.launch.shell_env import command_env, launch_commands_with_env

CHILD_CALLS = ("subprocess.", "os.", "asyncio.", "sglang.test.")  # start a child process
PATCHES = frozenset({"unittest.mock.patch.dict", "mock.patch.dict"})
_BLOCKS = ("Module", "IndentedBlock", "SimpleStatementSuite", "SimpleStatementLine")
_OWN_SCOPES = ("FunctionDef", "ClassDef", "Lambda")  # (their bodies do not run where they are written)


class _Word(NamedTuple):
    text: str
    opaque: bool


@dataclass
class _Mapping:
    """What is known of a dict of variables: ``known`` values; ``closed``: no other key is in it
    but ``unknown`` ones (a display); ``bound``: the expression a local name was bound to."""

    known: dict = field(default_factory=dict)
    closed: bool = False
    unknown: frozenset = frozenset()
    bound: object = None

    def merged(self, other: "_Mapping") -> "_Mapping":
        """``{**self, **other}``."""
        if not other.closed:
            return _Mapping(dict(other.known))
        known = {k: v for k, v in self.known.items() if k not in other.known and k not in other.unknown}
        known.update(other.known)
        return _Mapping(known, self.closed, (self.unknown - set(other.known)) | other.unknown)

    def set(self, key: str, value: str | None, certain: bool = True) -> None:
        self.known.pop(key, None)
        if value is not None and certain:
            self.known[key] = value
            self.unknown = self.unknown - {key}
        elif self.closed:
            self.unknown = self.unknown | {key}

    def delete(self, key: str, certain: bool = True) -> None:
        if certain:
            self.known.pop(key, None)
            self.unknown = self.unknown - {key}
        else:
            self.set(key, None)


class _File:
    """What one file's launches share: the names of ``os.environ`` and ``os.putenv`` there, and
    (on first need) every write to the environment in the file."""

    def __init__(self, model) -> None:
        self.model = weakref.proxy(model)  # (the cache of launches is keyed by the model: no cycle through it)
        module = model.module_scope
        self.environ, self.putenv, self.unsetenv = set(), set(), set()
        os_names = {"os"} if "os" not in module.bindings else set()
        for name, sites in module.bindings.items():
            qualified = {s.value.qualified if isinstance(s.value, Imported) else None for s in sites}
            if len(qualified) != 1:
                continue
            (found,) = qualified
            if found == "os":
                os_names.add(name)
            for kind, names in (("environ", self.environ), ("putenv", self.putenv), ("unsetenv", self.unsetenv)):
                if found == f"os.{kind}":
                    names.add(name)
        for os_name in os_names:
            self.environ.add(f"{os_name}.environ")
            self.putenv.add(f"{os_name}.putenv")
            self.unsetenv.add(f"{os_name}.unsetenv")
        facts = model.facts
        methods = {w.node.func.attr.value for writes in facts.writes.values() for w in writes
                   if w.kind == "method" and isinstance(w.node.func, cst.Attribute)}
        imported = any("." not in name for name in self.putenv | self.unsetenv)  # from os import putenv
        self.written = bool(self.environ & facts.mutated_names) or imported or bool(
            methods & {"putenv", "unsetenv", "setenv", "delenv"})
        self._index = None

    def index(self) -> tuple[list, dict]:
        """Every write to the environment in the file (op, the node that makes it), and those
        in each function by its name."""
        if self._index is None:
            everywhere, by_function = [], {}
            stack = [(self.model.module, ())]
            while stack:
                node, functions = stack.pop()
                if isinstance(node, cst.FunctionDef):
                    functions = functions + (node.name.value,)
                for op in self.ops(node, names=False):
                    everywhere.append((op, node))
                    for name in functions:
                        by_function.setdefault(name, []).append(op)
                stack.extend((child, functions) for child in reversed(child_nodes(node)))
            self._index = everywhere, by_function
        return self._index

    # --- what one node writes --------------------------------------------------------------------
    def is_environ(self, node) -> bool:
        return dotted_name(node) in self.environ

    def ops(self, node, names: bool = True) -> list[tuple]:
        """The writes ``node`` itself makes (not those of the nodes under it): (target, kind,
        key, value): target "environ", "process" (os.putenv's) or ("name", N) (a local dict);
        kind "set" (value: text or None, unknown), "delete", "all" (every key unknown), "update"
        / "bind" (value: the expression), "lose" (a dict handed on). ``names``: also the writes
        to local names (the file's index keeps only the environment's)."""
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            found = [op for target in targets for op in self._assigned(target, node)]
        elif isinstance(node, cst.Del):
            targets = ([e.value for e in node.target.elements] if isinstance(node.target, (cst.Tuple, cst.List))
                       else [node.target])
            found = [op for target in targets for op in self._subscript(target, "delete", None)]
        elif isinstance(node, cst.Call):
            found = self._called(node, names)
        else:
            return []
        return found if names else [op for op in found if not isinstance(op[0], tuple)]

    def _assigned(self, target, node) -> list[tuple]:
        value = node.value
        if isinstance(node, cst.AugAssign):
            if isinstance(node.operator, cst.BitOrAssign) and (self.is_environ(target) or isinstance(target, cst.Name)):
                return [(self._target(target), "update", None, value)]
            return [op[:1] + ("set", op[2], None) for op in self._subscript(target, "set", None)] or (
                [(("name", target.value), "lose", None, None)] if isinstance(target, cst.Name) else [])
        if self.is_environ(target):
            return [("environ", "all", None, None)]  # os.environ = {...}
        if isinstance(target, cst.Name):
            found = [(("name", target.value), "bind", None, value)]
            if self.is_environ(value):
                found.append(("environ", "all", None, None))  # an alias: written through, not followed
            if isinstance(value, cst.Name):
                found.append((("name", value.value), "lose", None, None))
            return found
        return self._subscript(target, "set", value)

    def _subscript(self, target, kind: str, value) -> list[tuple]:
        if not isinstance(target, cst.Subscript):
            return []
        owner = self._target(target.value)
        if owner is None:
            return []
        key = _key(target)
        if key is None:
            return [(owner, "all", None, None)]
        return [(owner, kind, key, value)]

    def _target(self, node):
        if self.is_environ(node):
            return "environ"
        return ("name", node.value) if isinstance(node, cst.Name) else None

    def _called(self, call: cst.Call, names: bool) -> list[tuple]:
        func, found = call.func, []
        text = dotted_name(func)
        args = [a for a in call.args if a.keyword is None and not a.star]
        if text in self.putenv or text in self.unsetenv:
            key = literal_value(args[0].value) if args else None
            if not isinstance(key, str):
                return [("process", "all", None, None)]
            return [("process", "set", key, args[1].value if len(args) > 1 and text in self.putenv else None)]
        if isinstance(func, cst.Attribute):
            method, receiver = func.attr.value, func.value
            owner = self._target(receiver)
            if method in ("setenv", "delenv") and isinstance(receiver, cst.Name):
                certain = receiver.value == "monkeypatch" and not any(a.keyword for a in call.args)
                key = literal_value(args[0].value) if args else None
                if not isinstance(key, str):
                    return [("environ", "all", None, None)]
                value = args[1].value if method == "setenv" and len(args) == 2 and certain else None
                return [("environ", "set" if method == "setenv" or not certain else "delete", key, value)]
            if owner is not None:
                found += self._method(owner, method, call, args)
        if names and not (self.model.qualify(func, self.model.module_scope) in READERS or (
                isinstance(func, cst.Attribute) and func.attr.value in READER_METHODS)):
            found += [(("name", a.value.value), "lose", None, None) for a in call.args
                      if isinstance(a.value, cst.Name)]
        return found

    def _method(self, owner, method: str, call: cst.Call, args: list) -> list[tuple]:
        if method in ("copy", "get", "items", "keys", "values", "__contains__", "__getitem__"):
            return []
        if method == "update" and not any(a.star == "*" for a in call.args):
            return [(owner, "update", None, call)]
        if method in ("pop", "setdefault") and args and len(args) == len(call.args):
            key = literal_value(args[0].value)
            if not isinstance(key, str):
                return [(owner, "all", None, None)]
            return [(owner, "delete" if method == "pop" else "set", key, None)]
        if method == "clear" and not call.args:
            return [(owner, "clear", None, None)]
        return [(owner, "all", None, None)]


def _key(target: cst.Subscript) -> str | None:
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return None
    key = literal_value(target.slice[0].slice.value)
    return key if isinstance(key, str) else None


class _State:
    """What is known of the environment at one point of the code."""

    def __init__(self, file: _File) -> None:
        self.file = file
        self.environ = _Mapping()  # os.environ
        self.process = _Mapping()  # what a child process inherits (os.putenv writes only there)
        self.names: dict[str, _Mapping] = {}  # local dicts being built
        self.done: set[int] = set()  # (the writes read as certain)

    def apply(self, op: tuple, certain: bool, node=None) -> None:
        target, kind, key, value = op
        if certain and node is not None:
            self.done.add(id(node))
        if isinstance(target, tuple):
            self._apply_name(target[1], kind, key, value, certain)
            return
        mappings = [self.process] if target == "process" else [self.environ, self.process]
        if kind == "update":
            update = self.update_of(value)
            for mapping in mappings:
                self._update(mapping, update, certain)
            return
        for mapping in mappings:
            if kind in ("all", "clear"):
                mapping.known.clear()
            elif kind == "set":
                mapping.set(key, self.text(value), certain)
            elif kind == "delete":
                mapping.delete(key, certain)

    def _apply_name(self, name: str, kind: str, key, value, certain: bool) -> None:
        if kind == "bind":
            self.names.pop(name, None)
            if certain and _dict_like(value, self.file):
                found = self.mapping(value)
                self.names[name] = _Mapping(found.known, found.closed, found.unknown, value)
            return
        mapping = self.names.get(name)
        if mapping is None:
            return
        if kind == "lose" or kind == "all":
            del self.names[name]
        elif kind == "clear":
            mapping.known, mapping.closed, mapping.unknown = ({}, True, frozenset()) if certain else ({}, False,
                                                                                                      frozenset())
        elif kind == "update":
            self._update(mapping, self.update_of(value), certain)
        elif kind == "set":
            mapping.set(key, self.text(value), certain)
        elif kind == "delete":
            mapping.delete(key, certain)

    def _update(self, mapping: _Mapping, update: _Mapping, certain: bool) -> None:
        if not update.closed:
            mapping.known.clear()
            mapping.closed = False
            return
        for key in set(update.known) | update.unknown:
            mapping.set(key, update.known.get(key), certain)

    def update_of(self, value) -> _Mapping:
        """What ``.update(...)`` or ``|= ...`` merges in."""
        if not isinstance(value, cst.Call):
            return self.mapping(value)
        found = _Mapping(closed=True)
        for arg in value.args:
            if arg.keyword is not None:
                found = found.merged(_Mapping({arg.keyword.value: self.text(arg.value)}, True)
                                     if self.text(arg.value) is not None else
                                     _Mapping(closed=True, unknown=frozenset({arg.keyword.value})))
            else:
                found = found.merged(self.mapping(arg.value))
        return found

    def mapping(self, node, depth: int = 0) -> _Mapping:
        """What is known of the dict ``node`` evaluates to."""
        if depth > 8:
            return _Mapping()
        if self.file.is_environ(node):
            return _Mapping(dict(self.environ.known))
        if isinstance(node, cst.Dict):
            found = _Mapping(closed=True)
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    key = literal_value(element.key)
                    if not isinstance(key, str):
                        found = found.merged(_Mapping())
                        continue
                    found = found.merged(self.entry(key, element.value))
                else:
                    found = found.merged(self.mapping(element.value, depth + 1))
            return found
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            return self.mapping(node.left, depth + 1).merged(self.mapping(node.right, depth + 1))
        if isinstance(node, cst.Name):
            found = self.names.get(node.value)
            return _Mapping(dict(found.known), found.closed, found.unknown) if found else _Mapping()
        if isinstance(node, cst.Call):
            copied = _copied(node, self.file)
            if copied is not None:
                return self.mapping(copied, depth + 1)
            if _is_builtin(node.func, "dict", self.file):
                found = _Mapping(closed=True)
                for arg in node.args:
                    if arg.star == "*":
                        return _Mapping()
                    if arg.keyword is not None:
                        found = found.merged(self.entry(arg.keyword.value, arg.value))
                    else:
                        found = found.merged(self.mapping(arg.value, depth + 1))
                return found
        return _Mapping()

    def entry(self, key: str, value) -> _Mapping:
        text = self.text(value)
        return _Mapping({key: text}, True) if text is not None else _Mapping(closed=True, unknown=frozenset({key}))

    def text(self, node) -> str | None:
        """A value's text when certain: a string literal, an f-string without holes, str(<int>)."""
        if node is None:
            return None
        value = literal_value(node)
        if isinstance(value, str):
            return value
        if isinstance(node, cst.FormattedString):
            parts = [p.value for p in node.parts if isinstance(p, cst.FormattedStringText)]
            if len(parts) == len(node.parts) and not any("\\" in p for p in parts):
                return "".join(parts).replace("{{", "{").replace("}}", "}")
            return None
        if (isinstance(node, cst.Call) and _is_builtin(node.func, "str", self.file) and len(node.args) == 1
                and not node.args[0].keyword and not node.args[0].star):
            number = literal_value(node.args[0].value)
            if type(number) is int:
                return str(number)
        return None


def _dict_like(node, file: _File) -> bool:
    if isinstance(node, (cst.Dict, cst.Name)) or file.is_environ(node):
        return True
    if isinstance(node, cst.BinaryOperation):
        return isinstance(node.operator, cst.BitOr)
    return isinstance(node, cst.Call) and (_copied(node, file) is not None or _is_builtin(node.func, "dict", file))


def _copied(call: cst.Call, file: _File):
    """``x.copy()``, ``copy.copy(x)``, ``copy.deepcopy(x)``: ``x``."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "copy" and not call.args:
        return call.func.value
    if len(call.args) == 1 and not call.args[0].keyword and not call.args[0].star and file.model.qualify(
            call.func, file.model.module_scope) in ("copy.copy", "copy.deepcopy"):
        return call.args[0].value
    return None


def _is_builtin(func, name: str, file: _File) -> bool:
    model = file.model
    return isinstance(func, cst.Name) and func.value == name and model.lookup(name, model.module_scope) is None


_FILES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # model -> (_File, {call key: env})


def python_launch_env(site, target=None) -> dict[str, str]:
    """The environment variables certainly set for the launch at ``site`` (its ``node`` the
    call, as the check kinds get it) through ``target`` (the catalog target the call matched: it
    says where the command is; None: read the call as an in-process launch such as
    ``sgl.Engine(...)``). See the module docstring. A variable not in the result is unknown."""
    call = site.node
    if not isinstance(call, cst.Call):
        return {}
    file, memo = _FILES.get(site.model) or _FILES.setdefault(site.model, (_File(site.model), {}))
    key = (id(call), id(target))
    if key not in memo:
        memo[key] = _launch_env(file, site, target)
    return dict(memo[key])


def _launch_env(file: _File, site, target) -> dict[str, str]:
    call = site.node
    takes = target.handed_as if target is not None else "keywords"
    env = next((a for a in call.args if a.keyword is not None and a.keyword.value == "env"), None)
    child = takes in ("command", "shell") or env is not None or (
        target is not None and target.name.startswith(CHILD_CALLS))
    if child and env is None and (any(a.star for a in call.args) or
                                  len([a for a in call.args if a.keyword is None]) > 5):
        return {}  # env= may be passed in *args / **kwargs, or by position
    state = _State(file)
    if file.written or (env is not None and not _plain(env.value)):
        if not _read_path(state, file, call):
            return {}
    if env is not None and not (isinstance(env.value, cst.Name) and env.value.value == "None"):
        found = _env_argument(state, site, env.value)
    else:
        found = dict((state.process if child else state.environ).known)
    if takes in ("command", "shell"):
        return _command(site, target, takes, found)
    return found


def _plain(node) -> bool:
    """An env= that reads neither os.environ's writes nor a local name."""
    return isinstance(node, cst.Dict) and all(isinstance(e, cst.DictElement) for e in node.elements)


def _env_argument(state: _State, site, node) -> dict[str, str]:
    """A child's whole environment, passed as ``env=``."""
    if isinstance(node, cst.Name):
        model, name = site.model, node.value
        tracked = state.names.get(name)
        found = model.reaching(name, site.scope, site.where)
        if tracked is None or found is None or len(found[0]) != 1 or found[0][0].value is not tracked.bound:
            return {}
        owner = found[1]
        for write in model.facts.writes.get(name, ()):
            seen = model.lookup(name, write.scope)
            if write.scope is not owner and seen is not None and seen[1] is owner:
                return {}  # changed from a nested function: when, is not known
        return dict(tracked.known)
    return dict(state.mapping(node).known)


def _read_path(state: _State, file: _File, call: cst.Call) -> bool:
    """Read the statements on the way to ``call`` (see the module docstring); False when the call
    is not found where a statement holds it (a lambda's body, a call the walk made up)."""
    path = _ancestors(file.model.module, call)
    if path is None or any(type(node).__name__ == "Lambda" for node in path):
        return False
    levels = [(node, path[k + 1], path[k - 1] if k else node) for k, node in enumerate(path[:-1])
              if type(node).__name__ in _BLOCKS]
    own = max((k for k, (_, _, owner) in enumerate(levels) if isinstance(owner, cst.FunctionDef)), default=0)
    for k, (block, held, owner) in enumerate(levels):
        if k == own and k:
            for op, node in file.index()[0] if file.written else ():
                if id(node) not in state.done:
                    state.apply(op, False)
            state.names.clear()
            for decorator in owner.decorators:
                _patched(state, file, decorator.decorator)
        for statement in _before(block, held):
            _run(state, file, statement, isinstance(statement, cst.BaseSmallStatement) or isinstance(
                statement, cst.SimpleStatementLine))
        if not isinstance(held, cst.SimpleStatementLine):
            _run(state, file, held, False, skip=call)  # what else it holds may run before the call
        if isinstance(held, cst.With):
            for item in held.items:
                _patched(state, file, item.item)
    return True


def _before(block, held) -> list:
    """The statements of ``block`` before ``held``."""
    for index, statement in enumerate(block.body):
        if statement is held:
            return list(block.body[:index])
    return []


def _run(state: _State, file: _File, statement, certain: bool, skip=None) -> None:
    """The writes of one statement (not those in the functions and classes it defines), and of
    the functions of the file it calls (unknown)."""
    _, by_function = file.index() if file.written else (None, {})
    stack = [statement]
    while stack:
        node = stack.pop()
        if node is skip:
            continue
        for op in file.ops(node):
            state.apply(op, certain, node)
        for op in by_function.get(_called_function(node), ()):
            state.apply(op, False)
        if node is statement or type(node).__name__ not in _OWN_SCOPES:
            stack.extend(reversed(child_nodes(node)))


def _called_function(node) -> str | None:
    """``f(...)``, ``self.f(...)``, ``cls.f(...)``: ``f`` (maybe a function of the file)."""
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
        return func.attr.value
    return None


def _patched(state: _State, file: _File, node) -> None:
    """``mock.patch.dict(os.environ, {...}, clear=...)``: the variables it sets while it is in force."""
    if not isinstance(node, cst.Call) or file.model.qualify(node.func, file.model.module_scope) not in PATCHES:
        return
    args = [a for a in node.args if a.keyword is None and not a.star]
    if not args or not (file.is_environ(args[0].value) or literal_value(args[0].value) == "os.environ"):
        return
    if any(a.keyword is not None and a.keyword.value == "clear" and literal_value(a.value) is not False
           for a in node.args):
        state.apply(("environ", "clear", None, None), True)
    patch = state.mapping(args[1].value) if len(args) > 1 else _Mapping(closed=True)
    for arg in node.args:
        if arg.star:
            patch = patch.merged(_Mapping())
        elif arg.keyword is not None and arg.keyword.value == "values":
            patch = patch.merged(state.mapping(arg.value))
        elif arg.keyword is not None and arg.keyword.value not in ("clear", "in_dict"):
            patch = patch.merged(state.entry(arg.keyword.value, arg.value))
    for key in set(patch.known) | patch.unknown:
        for mapping in (state.environ, state.process):
            mapping.set(key, patch.known.get(key))
    if not patch.closed:
        state.apply(("environ", "all", None, None), True)


def _ancestors(root, target) -> list | None:
    """The nodes from ``root`` down to ``target`` (by identity), or None."""
    stack, path = [(root, 0)], []
    while stack:
        node, depth = stack.pop()
        del path[depth:]
        path.append(node)
        if node is target:
            return path
        stack.extend((child, depth + 1) for child in reversed(child_nodes(node)))
    return None


# --- the command's own --------------------------------------------------------------------------

def _command(site, target, takes: str, inherited: dict[str, str]) -> dict[str, str]:
    """The variables certain for every launch the call's command may be: ``inherited``, changed
    by the command itself."""
    call = site.node
    arg = argument_of(call, target.argument, target.position, site)
    if arg is None:
        return {}
    node = arg.value
    shell = takes == "shell" or any(a.keyword is not None and a.keyword.value == "shell" and isinstance(
        a.value, cst.Name) and a.value.value == "True" for a in call.args)
    if takes == "command" and isinstance(node, cst.Call) and len(node.args) == 1 and site.model.qualify(
            node.func, site.scope) == "shlex.split":
        node, shell = node.args[0].value, True
    envs = []
    if shell:
        source = shell_source(site, node)
        if source is None:
            return {}
        kind, found = source
        if kind == "text":
            envs = [launch.env for launch in launch_commands_with_env(found, HOLE, inherited)]
        else:
            envs = [env for words in found for env in _argv_envs(words, inherited, True)]
    else:
        envs = [env for words in python_words(site, node) for env in _argv_envs(words, inherited, False)]
    if not envs:
        return {}
    common = dict(envs[0])
    for env in envs[1:]:
        common = {k: v for k, v in common.items() if env.get(k) == v}
    return common


def _argv_envs(words: list, inherited: dict[str, str], shell: bool) -> list[dict[str, str]]:
    """The environment of the launch in one version of an argv list (or of each launch in its
    ``bash -c SCRIPT``)."""
    adapted = [_Word(w.text or "", w.text is None or not w.whole) for w in words]
    if not shell and len(adapted) > 1 and adapted[0].opaque and adapted[1].text == "-m" and not adapted[1].opaque:
        adapted[0] = _Word("python", False)  # ``[sys.executable, "-m", ...]``: an interpreter, whatever its path
    found = find_launch(adapted)
    if found is not None:
        end = next(k for k, w in enumerate(adapted) if w is found.launcher)
        return [command_env(adapted, end, inherited, shell)]
    k = script_index([(w, ()) for w in adapted])
    if k is None or adapted[k].opaque:
        return []
    shell_at = next(j for j, w in enumerate(adapted) if not w.opaque and w.text.rsplit("/", 1)[-1] in SHELLS)
    given = command_env(adapted, shell_at, inherited, shell)
    return [launch.env for launch in launch_commands_with_env(adapted[k].text, None, given)]


__all__ = ["python_launch_env"]
