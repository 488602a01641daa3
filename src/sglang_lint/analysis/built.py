"""Lists and dicts built in steps: what an argv list or a keyword dict holds where it is used.

Launch code rarely writes a command or the engine's keywords in one literal::

    cmd = ["python", "-m", "sglang.launch_server", "--model-path", path]
    if tp > 1:
        cmd += ["--tp-size", str(tp)]
    cmd.extend(COMMON_FLAGS)
    subprocess.Popen(cmd)

    kwargs = dict(base, mem_fraction_static=0.8)
    kwargs["tensor_parallel_size"] = 2
    sgl.Engine(**kwargs)

This module follows such a value from each binding that may reach the use (analysis/resolve.py)
through the writes made to it in between (bindings.Write), in the order they run, and answers
with its *versions*: one per binding that may reach the use. A list version is a sequence of
:class:`Piece` (an element written in the source) and :class:`Gap` (a stretch it cannot know);
a dict version is its :class:`Entry` per key, and whether keys it cannot know may be there.

A write inside a condition or loop may or may not happen: its elements are kept (each branch is
judged) but marked not ``certain``, and a key it removes stays. What cannot be followed is never
guessed: a write it does not understand, or the object handed to another name or to a call that
might change it, before the use, makes that version unknown (a lone :class:`Gap`, or a dict
with no entries that is ``open``)."""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from itertools import product

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.bindings import Augmented, Defined, Param, Scope, Where, Write
from sglang_lint.analysis.resolve import FileModel
from sglang_lint.analysis.syntax import dotted_name, literal_value

MAX_VERSIONS = 8  # more ways for one value to be built are not judged (never a guess: fewer findings)
MAX_DEPTH = 6  # name-to-name hops

# Calls that read a list or dict they are handed and never change it.
READERS = frozenset({
    "print", "len", "str", "repr", "list", "tuple", "set", "sorted", "dict", "any", "all", "enumerate",
    "zip", "isinstance", "id", "hash", "shlex.join", "shlex.quote", "json.dumps", "copy.copy",
    "copy.deepcopy", "subprocess.Popen", "subprocess.run", "subprocess.call", "subprocess.check_call",
    "subprocess.check_output",
})
READER_METHODS = frozenset({"join", "format", "debug", "info", "warning", "warn", "error", "exception", "critical"})
LIST_READS = frozenset({"index", "count", "copy"})
DICT_READS = frozenset({"get", "items", "keys", "values", "copy"})


@dataclass(frozen=True)
class Gap:
    """An unknown stretch of a list; ``param`` names the parameter of the enclosing function it
    came from (a helper's extra flags: its callers may pass a literal list)."""

    param: str | None = None


UNKNOWN_LIST = (Gap(),)
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Word:
    """A word of a string literal split into a list (``"--page-size 16".split()``): its text, the
    literal, and where it starts in the literal's source (None where the source is no plain
    copy of the text: an escape)."""

    text: str
    literal: cst.SimpleString
    offset: int | None


@dataclass(frozen=True)
class Piece:
    """One element written in the source: ``node``, with the scope and statement to evaluate it
    at. ``step``: the statement (or literal) that added it; a flag and its value are paired only
    within one step or across steps that both run on every path (``certain``)."""

    node: cst.BaseExpression
    scope: Scope
    where: Where | None
    step: int
    certain: bool = True


@dataclass(frozen=True)
class Entry:
    """One key of a dict: ``key_node`` is where the key is written (a string literal or a
    keyword's name); ``value`` None when it is not known (``d["k"] += ...``)."""

    key: str
    key_node: cst.CSTNode
    value: cst.BaseExpression | None
    scope: Scope
    where: Where | None
    certain: bool = True


@dataclass
class DictVersion:
    entries: dict = field(default_factory=dict)  # key -> Entry
    open: bool = False  # keys this module cannot know may be there too
    params: tuple = ()  # ``**name`` of parameters of the enclosing function it merged (a helper's keywords)

    def copy(self) -> "DictVersion":
        return DictVersion(dict(self.entries), self.open, self.params)


def unknown_dict() -> DictVersion:
    return DictVersion(open=True)


class Builder:
    """Follows lists and dicts in one file (one per call of :func:`list_versions` /
    :func:`dict_versions`)."""

    def __init__(self, model: FileModel):
        self.model = model

    # --- lists ------------------------------------------------------------------------------
    def list_of(self, node: cst.BaseExpression, scope: Scope, where: Where | None, depth: int = 0) -> list[tuple]:
        if depth > MAX_DEPTH:
            return [UNKNOWN_LIST]
        if isinstance(node, (cst.List, cst.Tuple)):
            parts = []
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    parts.append(self.list_of(element.value, scope, where, depth + 1))
                else:
                    parts.append([(Piece(element.value, scope, where, id(node)),)])
            return _joined(parts)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            return _joined([self.list_of(node.left, scope, where, depth + 1),
                            self.list_of(node.right, scope, where, depth + 1)])
        if isinstance(node, cst.Subscript) and _whole_slice(node):
            return self.list_of(node.value, scope, where, depth + 1)
        copied = self._copied(node, scope)
        if copied is not None:
            return self.list_of(copied, scope, where, depth + 1)
        split = self._split(node, scope)
        if split is not None:
            return self._split_words(*split, scope, where)
        if isinstance(node, cst.Name):
            return self._name(node.value, scope, where, depth, lists=True) or [(Gap(self._param(node, scope)),)]
        if isinstance(node, cst.Attribute):
            values = self._attribute(node, scope)
            if values:
                return _capped([v for value, owner in values for v in self.list_of(value, owner, None, depth + 1)])
        returned = self._returned(node, scope)
        if returned is not None:
            value, body = returned
            # the callee's parameters are not the caller's: its gaps name none
            return [tuple(Gap() if isinstance(p, Gap) else p for p in version)
                    for version in self.list_of(value, body, None, depth + 1)]
        return [UNKNOWN_LIST]

    def _split(self, node: cst.BaseExpression, scope: Scope) -> tuple[cst.BaseExpression, bool] | None:
        """``text.split()`` or ``shlex.split(text)``: (``text``, whether the shell's quoting applies)."""
        if not isinstance(node, cst.Call):
            return None
        if not node.args and isinstance(node.func, cst.Attribute) and node.func.attr.value == "split":
            return node.func.value, False
        if len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star \
                and self.model.qualify(node.func, scope) == "shlex.split":
            return node.args[0].value, True
        return None

    def _split_words(self, text: cst.BaseExpression, quoted: bool, scope: Scope, where: Where | None) -> list[tuple]:
        """The words of a string split at blanks (``extra = "--page-size 16" if x else ""``, then
        ``cmd + extra.split()``): one version per literal the string may be, each word a
        :class:`Word` at its place in that literal, the words of one literal one step. Unknown
        where any value is not a literal written in the file (a parameter's default: a caller
        may pass another), or, read the shell's way, holds a quote or an escape."""
        known = self.model.evaluate(text, scope, where)
        if not known or len(known) > MAX_VERSIONS:
            return [UNKNOWN_LIST]
        versions = []
        for value in known:
            literal = value.origin
            if not isinstance(value.value, str) or value.default or not isinstance(literal, cst.SimpleString) \
                    or (quoted and any(mark in value.value for mark in "'\"\\")):
                return [UNKNOWN_LIST]
            start = len(literal.prefix) + len(literal.quote)
            exact = literal.value[start:len(literal.value) - len(literal.quote)] == value.value
            versions.append(tuple(
                Piece(Word(found.group(), literal, start + found.start() if exact else None), scope, where, id(literal))
                for found in _WORD.finditer(value.value)))
        return versions

    def _returned(self, node: cst.BaseExpression, scope: Scope) -> tuple[cst.BaseExpression, Scope] | None:
        """``server_cmd(...)``, a function of the file whose last statement is its one ``return``:
        what it returns, in its body's scope as the body ends (``cmd = [...]; cmd.extend(...);
        return cmd``)."""
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Name):
            return None
        found = self.model.lookup(node.func.value, scope)
        if found is None or len(found[0]) != 1 or not isinstance(found[0][0].value, Defined):
            return None
        function = found[0][0].value.node
        body = self.model.function_scopes.get(function)
        if body is None or body.class_info is not None or not isinstance(function.body, cst.IndentedBlock):
            return None
        last = function.body.body[-1] if function.body.body else None
        if not (isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1
                and isinstance(last.body[0], cst.Return) and last.body[0].value is not None):
            return None
        if _returns_in(function) != 1:
            return None
        return last.body[0].value, body

    def _apply_list(self, version: tuple, write: Write, certain: bool, depth: int) -> list[tuple] | None:
        node = write.node
        if write.kind != "method":
            return None  # cmd[i] = ..., del cmd[i]
        method = node.func.attr.value
        args = [a for a in node.args if a.keyword is None and not a.star]
        if method in LIST_READS:
            return [version]
        if method == "append" and len(args) == 1 and len(node.args) == 1:
            return [version + (Piece(args[0].value, write.scope, write.where, id(node), certain),)]
        if method == "extend" and len(args) == 1 and len(node.args) == 1:
            added = self.list_of(args[0].value, write.scope, write.where, depth + 1)
            return [version + _uncertain(more, certain) for more in added]
        if method == "insert" and len(args) == 2 and len(node.args) == 2:
            index = literal_value(args[0].value)
            known_before = not any(isinstance(p, Gap) for p in version[:index]) if type(index) is int else False
            if known_before and 0 <= index <= len(version):
                piece = Piece(args[1].value, write.scope, write.where, id(node), certain)
                return [version[:index] + (piece,) + version[index:]]
        return None

    # --- dicts ------------------------------------------------------------------------------
    def dict_of(self, node: cst.BaseExpression, scope: Scope, where: Where | None, depth: int = 0) -> list[DictVersion]:
        if depth > MAX_DEPTH:
            return [unknown_dict()]
        if isinstance(node, cst.Dict):
            versions = [DictVersion()]
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    key = literal_value(element.key)
                    for version in versions:
                        if isinstance(key, str):
                            version.entries[key] = Entry(key, element.key, element.value, scope, where)
                        else:
                            version.open = True
                else:  # **base
                    versions = self._merged(versions, self.dict_of(element.value, scope, where, depth + 1))
            return versions
        if isinstance(node, cst.Call) and self._is_builtin(node.func, "dict", scope):
            versions = [DictVersion()]
            for arg in node.args:
                if arg.keyword is not None:
                    for version in versions:
                        version.entries[arg.keyword.value] = Entry(arg.keyword.value, arg.keyword, arg.value, scope,
                                                                   where)
                elif arg.star == "*":
                    return [unknown_dict()]
                else:  # dict(base) or dict(**base)
                    versions = self._merged(versions, self.dict_of(arg.value, scope, where, depth + 1))
            return versions
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            left = self.dict_of(node.left, scope, where, depth + 1)
            return self._merged(left, self.dict_of(node.right, scope, where, depth + 1))
        copied = self._copied(node, scope)
        if copied is not None:
            return self.dict_of(copied, scope, where, depth + 1)
        if isinstance(node, cst.Name):
            found = self._name(node.value, scope, where, depth, lists=False)
            if found:
                return found
            param = self._param(node, scope)
            return [DictVersion(open=True, params=(param,) if param else ())]
        if isinstance(node, cst.Attribute):
            values = self._attribute(node, scope)
            if values:
                return _capped([v for value, owner in values for v in self.dict_of(value, owner, None, depth + 1)])
        return [unknown_dict()]

    def _merged(self, versions: list[DictVersion], more: list[DictVersion]) -> list[DictVersion]:
        merged = []
        for version, extra in product(versions, more):
            combined = version.copy()
            combined.entries.update(extra.entries)
            combined.open = combined.open or extra.open
            combined.params += extra.params
            merged.append(combined)
        return _capped(merged)

    def _apply_dict(self, version: DictVersion, write: Write, name: str, certain: bool,
                    depth: int) -> list[DictVersion] | None:
        node, scope, where = write.node, write.scope, write.where
        if write.kind in ("setitem", "delitem"):
            targets = ([t.target for t in node.targets] if isinstance(node, cst.Assign)
                       else [node.target])
            changed = version.copy()
            for target in targets:
                if not (isinstance(target, cst.Subscript) and _subscript_of(target, name)):
                    continue
                key = _key(target)
                if not isinstance(key, str):
                    if write.kind == "delitem":
                        return None  # which key goes is not known
                    changed.open = True
                    continue
                if write.kind == "delitem":
                    if certain:
                        changed.entries.pop(key, None)
                    continue
                value = node.value if isinstance(node, (cst.Assign, cst.AnnAssign)) else None
                key_node = target.slice[0].slice.value
                changed.entries[key] = Entry(key, key_node, value, scope, where, certain)
            return [changed]
        if write.kind != "method":
            return None
        method = node.func.attr.value
        if method in DICT_READS:
            return [version]
        args = node.args
        positional = [a for a in args if a.keyword is None and not a.star]
        if method == "update":
            versions = [version.copy()]
            for arg in args:
                if arg.keyword is not None:
                    for each in versions:
                        each.entries[arg.keyword.value] = Entry(arg.keyword.value, arg.keyword, arg.value, scope, where,
                                                                certain)
                elif arg.star == "*":
                    return None
                else:
                    more = self.dict_of(arg.value, scope, where, depth + 1)
                    if not certain:
                        more = [_uncertain_dict(m) for m in more]
                    versions = self._merged(versions, more)
            return versions
        if method == "setdefault" and len(positional) in (1, 2) and len(args) == len(positional):
            key = literal_value(positional[0].value)
            changed = version.copy()
            if not isinstance(key, str):
                changed.open = True
            elif key not in changed.entries:
                value = positional[1].value if len(positional) == 2 else None
                changed.entries[key] = Entry(key, positional[0].value, value, scope, where, certain)
            return [changed]
        if method == "pop" and positional and len(args) == len(positional):
            key = literal_value(positional[0].value)
            if not isinstance(key, str):
                return None
            changed = version.copy()
            if certain:
                changed.entries.pop(key, None)
            return [changed]
        return None

    # --- names, writes and attributes ---------------------------------------------------------
    def _name(self, name: str, scope: Scope, where: Where | None, depth: int, lists: bool) -> list | None:
        """The versions of a name at ``where``: each binding that reaches it, with the writes
        made after it; None when the name cannot be followed at all."""
        model = self.model
        found = model.reaching(name, scope, where)
        if found is None or not found[0]:
            return None
        sites, owner = found
        if where is not None and owner is scope:
            sites = [s for s in sites if s.where.seq != where.seq]  # x = x + [...]: the x before it
        writes = [w for w in model.facts.writes.get(name, ())
                  if w.scope is owner or self._owner(name, w.scope) is owner]
        if any(w.scope is not owner and _changes(w) for w in writes):
            return None  # changed from another function: when, is not known
        use = where if owner is scope and where is not None else owner.end()
        versions: list = []
        for site in sites:
            value = site.value
            if isinstance(value, Param):
                continue  # a parameter: the caller's value (see _param)
            if isinstance(value, Augmented):
                before = self._before(name, owner, site.where, depth, lists)
                if before is None:
                    continue
                more = (self.list_of if lists else self.dict_of)(value.node.value, owner, site.where, depth + 1)
                if lists:
                    built = _joined([before, more])
                else:
                    built = self._merged(before, more)
            elif isinstance(value, cst.BaseExpression):
                built = (self.list_of if lists else self.dict_of)(value, owner, site.where, depth + 1)
            else:
                continue
            alone = len(sites) == 1
            for version in built:
                versions += self._replay(name, version, site, owner, use, writes, depth, lists, alone)
        return _capped(versions) if versions else None

    def _owner(self, name: str, scope: Scope) -> Scope | None:
        found = self.model.lookup(name, scope)
        return found[1] if found is not None else None

    def _before(self, name: str, owner: Scope, where: Where, depth: int, lists: bool) -> list | None:
        """The versions of ``name`` just before the statement at ``where`` (for ``name += ...``)."""
        earlier = Where(where.path, where.seq - 0.5, where.in_loop)  # between it and the statement before
        found = self.model.reaching(name, owner, earlier)
        if found is None or not found[0] or any(s.where.seq >= where.seq for s in found[0]):
            return None
        return self._name(name, owner, earlier, depth + 1, lists)

    def _replay(self, name: str, version, site, owner: Scope, use: Where, writes, depth: int, lists: bool,
                alone: bool) -> list:
        """``version`` (what ``site`` bound) with the writes that run after it and before ``use``.
        When other bindings may reach the use too (``alone`` false), a write that may not run
        is often tied to the same condition as one of them (``if pd: cmd = [...pd launcher]``
        ... ``if pd: cmd += [pd flags]``): what it adds is then unknown, not judged."""
        versions = [version]
        for write in writes:
            if write.scope is not owner or write.where.seq <= site.where.seq or write.where.seq >= use.seq:
                continue
            reaching = self.model.reaching(name, owner, write.where)
            if reaching is None or site not in reaching[0]:
                continue  # a write to what another binding made
            if write.kind in ("passed", "aliased"):
                if write.kind == "passed" and _reads_only(write.node, name, self.model, owner):
                    continue
                return []  # handed on before the use: it may change there
            certain = write.direct and write.where.dominates(use)
            if not certain and not alone:
                versions = [each + (Gap(),) if lists else _opened(each) for each in versions]
                continue
            following = []
            for each in versions:
                changed = (self._apply_list(each, write, certain, depth) if lists
                           else self._apply_dict(each, write, name, certain, depth))
                if changed is None:
                    return []
                following += changed
            versions = _capped(following)
        return versions

    def _param(self, node: cst.Name, scope: Scope) -> str | None:
        """The name, when it is a parameter of the function ``scope`` (and nothing rebinds it)."""
        found = self.model.lookup(node.value, scope)
        if found is None or found[1] is not scope or len(found[0]) != 1 or not isinstance(found[0][0].value, Param):
            return None
        if any(w.scope is scope and _changes(w) for w in self.model.facts.writes.get(node.value, ())):
            return None  # changed in the function: not what the caller passed
        return node.value

    def _attribute(self, node: cst.Attribute, scope: Scope) -> list[tuple]:
        """``self.x`` / ``cls.x`` in a method: the class body's one binding of ``x`` and every
        ``self.x = ...``/``cls.x = ...`` of the file in that class (each a version)."""
        if not (isinstance(node.value, cst.Name) and node.value.value in ("self", "cls")):
            return []
        model = self.model
        info = model.enclosing_class_of_self(scope, node.value.value)
        if info is None:
            return []
        attr = node.attr.value
        if f"self.{attr}" in model.mutated_names or f"cls.{attr}" in model.mutated_names:
            return []  # self.x.append(...), self.x["k"] = ...: changed in place
        values = []
        body = model.class_scopes.get(info.node)
        if body is not None:
            for site in body.bindings.get(attr, ()):
                if not isinstance(site.value, cst.BaseExpression):
                    return []
                values.append((site.value, body))
        for write_scope, text, value in model.attribute_writes:
            head, _, rest = text.partition(".")
            if rest == attr and head in ("self", "cls"):
                other = model.enclosing_class_of_self(write_scope, head)
                if other is None or (other is not info and (model.is_local_subclass(other, info)
                                                            or model.is_local_subclass(info, other))):
                    return []  # a subclass or base class sets it too, or it is not known whose it is
                if other is info:
                    values.append((value, write_scope))
        return values

    def _copied(self, node: cst.BaseExpression, scope: Scope) -> cst.BaseExpression | None:
        """``x.copy()``, ``copy.copy(x)``, ``copy.deepcopy(x)``, ``list(x)``: ``x``."""
        if _is_copy_call(node):
            return node.func.value
        if not isinstance(node, cst.Call) or len(node.args) != 1 or node.args[0].keyword or node.args[0].star:
            return None
        func = node.func
        if self.model.qualify(func, scope) in ("copy.copy", "copy.deepcopy") or self._is_builtin(func, "list", scope):
            return node.args[0].value
        return None

    def _is_builtin(self, func: cst.BaseExpression, name: str, scope: Scope) -> bool:
        return isinstance(func, cst.Name) and func.value == name and self.model.lookup(name, scope) is None


def _returns_in(function: cst.FunctionDef) -> int:
    """The ``return`` statements of a function's own body (not of functions nested in it)."""
    count, stack = 0, list(function.body.children)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return):
            count += 1
        elif not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(node.children)
    return count


def list_versions(model: FileModel, node: cst.BaseExpression, scope: Scope, where: Where | None) -> list[tuple]:
    """The ways the list ``node`` may be built at ``where`` (see the module docstring)."""
    return Builder(model).list_of(node, scope, where)


def dict_versions(model: FileModel, node: cst.BaseExpression, scope: Scope, where: Where | None) -> list[DictVersion]:
    """The ways the dict ``node`` may be built at ``where`` (see the module docstring)."""
    return Builder(model).dict_of(node, scope, where)


def _is_copy_call(node) -> bool:
    return (isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "copy")


def _joined(parts: list[list[tuple]]) -> list[tuple]:
    """Every concatenation of one version of each part (capped)."""
    versions = [()]
    for options in parts:
        versions = _capped([a + b for a, b in product(versions, options)])
    return versions


def _capped(versions: list) -> list:
    return versions[:MAX_VERSIONS]


def _uncertain(version: tuple, certain: bool) -> tuple:
    if certain:
        return version
    return tuple(Piece(p.node, p.scope, p.where, p.step, False) if isinstance(p, Piece) else p for p in version)


def _opened(version: DictVersion) -> DictVersion:
    changed = version.copy()
    changed.open = True
    return changed


def _uncertain_dict(version: DictVersion) -> DictVersion:
    changed = version.copy()
    changed.entries = {k: Entry(e.key, e.key_node, e.value, e.scope, e.where, False)
                       for k, e in version.entries.items()}
    return changed


def _whole_slice(node: cst.Subscript) -> bool:
    """``x[:]``."""
    if len(node.slice) != 1:
        return False
    index = node.slice[0].slice
    return isinstance(index, cst.Slice) and index.lower is None and index.upper is None and index.step is None


def _subscript_of(target: cst.Subscript, name: str) -> bool:
    return isinstance(target.value, cst.Name) and target.value.value == name and len(target.slice) == 1 \
        and isinstance(target.slice[0].slice, cst.Index)


def _key(target: cst.Subscript) -> object:
    return literal_value(target.slice[0].slice.value)


def _changes(write: Write) -> bool:
    """Does this write change the object (not only read it, or hand it on)?"""
    if write.kind in ("setitem", "delitem"):
        return True
    return write.kind == "method" and write.node.func.attr.value not in LIST_READS | DICT_READS


def _reads_only(call: cst.Call, name: str, model: FileModel, scope: Scope) -> bool:
    """Does this call only read the list or dict it is handed (``print(cmd)``, ``" ".join(cmd)``)?"""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in READER_METHODS:
        return True
    qualified = model.qualify(func, scope) or dotted_name(func)
    return qualified in READERS
