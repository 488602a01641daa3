"""The file's :mod:`ast`, read for the call-site screen's second look: which calls are real,
what scope each sits in, and how every name is bound there.

The text screen (screen/calls.py) judges a call from its own text and asks the whole file only
"is this name bound anywhere?". When that lets a file through, this reads the file once with
:mod:`ast` (about a tenth of a LibCST parse) and answers per call:

* a name written in a comment or a string is no call;
* a function or class target is called through a name bound to an import or a top-level
  ``def``/``class`` (the engine matches them by qualified name, engine/dispatch.py
  ``effective_target``): ``tensor.select(...)`` is not ``sglang.select(...)``;
* a name's value comes from the bindings of the scope it is used in (Python's rule: the
  innermost function that binds it, class bodies only for their own statements, then the
  module), every one of them, in any order: a superset of the engine's reaching
  definitions (analysis/bindings.py), so the screen never says "no" where the engine could report.

Binding kinds, as the engine reads them (analysis/resolve.py ``evaluate``): a value (followed), a
parameter (its literal default; or the value a call of its function in the file passes, a
wrapper), ``+=`` (only argv lists and dicts are followed through it), and everything else
(imports, ``def``/``class``, loop and ``with`` targets, unpacking): never a known value.
"""

from __future__ import annotations

import ast
import bisect
import itertools
from dataclasses import dataclass, field

from sglang_lint.screen.ast_flow import COMPREHENSIONS as _COMPREHENSIONS, FUNCTIONS as _FUNCTIONS, StatementPlaces
from sglang_lint.screen.ast_guards import tested_names
from sglang_lint.text.pynames import (
    IGNORED, MAX_HOPS, PARTIAL, UNSURE, ast_dotted_name, qualify_dotted, resolve_relative,
)
from sglang_lint.text.pynames import NAME_BYTE, name_occurrences

_SCOPES = (*_FUNCTIONS, ast.Lambda, ast.ClassDef, *_COMPREHENSIONS)

# What a binding is (the first item of a binding tuple).
VALUE = "value"  # (VALUE, expression)
PARAM = "param"  # (PARAM, function or lambda, default expression or None)
AUGMENTED = "augmented"  # (AUGMENTED, the ast.AugAssign): ``name += ...``
GLOBAL = "global"  # (GLOBAL,): ``global``/``nonlocal``: bound elsewhere
IMPORTED = "imported"  # (IMPORTED, qualified name or None): an import, or a ``def``/``class`` statement
# (None: a nested definition, or one of a file whose module is not known: the engine qualifies neither)
OPAQUE = "opaque"  # (OPAQUE,): a loop or ``with`` target, unpacking, an exception name...


@dataclass
class CallSite:
    """A call written in the file, and the scopes it sits in (module first). ``expected_raise``:
    it sits in a negative test (``with pytest.raises(...)``, ``self.assertRaises(...)``, a
    ``try`` whose ``else`` raises), where the engine makes no site of it (analysis/guards.py)."""

    call: ast.Call
    scopes: tuple
    expected_raise: bool = False
    path: tuple = ()  # the nodes holding the call, the module first
    _tested: frozenset | None = field(default=None, repr=False, compare=False)

    def tested(self) -> frozenset[str]:
        """The names the conditions in force at the call test (screen/ast_guards.py)."""
        if self._tested is None:
            self._tested = tested_names((*self.path, self.call))
        return self._tested


@dataclass
class AstFile:
    """One file's ast; its calls are found by where their callee's name ends (a byte offset),
    each scope's bindings are computed on first need."""

    tree: ast.Module
    data: bytes
    starts: list[int]  # the byte offset where each line starts
    # for each top-level statement, how many lines its positions are off by (screen/ast_reparse.py:
    # statements kept from an earlier text are not renumbered); None: none is
    shifts: list[int] | None = None
    # the module's name and whether it is a package's ``__init__`` (pynames.module_name_for):
    # what qualifies its top-level definitions and relative imports, as the engine's bindings
    module: str | None = None
    is_package: bool = False
    _bindings: dict[int, dict[str, list[tuple]]] = field(default_factory=dict)
    _mutated: frozenset | None = None
    _places: StatementPlaces | None = None
    _classes: list[tuple[ast.ClassDef, tuple]] | None = None
    _attribute_writes: dict[str, list[ast.expr | None]] | None = None
    receivers: dict = field(default_factory=dict)  # what screen/ast_receivers.py has read of the file

    @classmethod
    def read(cls, data: bytes, tree: ast.Module | None = None, module: str | None = None,
             is_package: bool = False) -> "AstFile | None":
        """The file's facts, from ``tree`` when the caller has it (flake8 does); None when the
        file does not parse or its byte offsets cannot be trusted (not UTF-8)."""
        try:
            data.decode("utf-8")
            if tree is None:
                tree = ast.parse(data)
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
            return None
        # (bytes.splitlines splits at \r\n, \r and \n: Python's line ends, pynames.LINE_END)
        starts = [0, *itertools.accumulate(map(len, data.splitlines(keepends=True)))]
        if len(starts) > 1 and not data.endswith((b"\n", b"\r")):
            starts.pop()  # (the last line has no line end: no line starts after it)
        if data.startswith(b"\xef\xbb\xbf"):
            starts[0] = 3  # ast counts the first line's columns after the byte-order mark
        return cls(tree, data, starts, module=module, is_package=is_package)

    def call_at(self, name_end: int, partial: bool = False, member: bool = False) -> CallSite | None | bool:
        """The call whose callee's name ends at byte ``name_end`` (``partial``: the
        ``partial(...)`` call whose first argument does; ``member``: the attribute ``x.name``
        that does, as a call of it without arguments), found by walking down only
        the nodes that hold it; None when there is none (the name is in a comment or a
        string, or the literal part of an f-string); True when unsure (inside an f-string's
        braces, whose inner positions older Pythons get wrong)."""
        line = bisect.bisect_right(self.starts, name_end)
        column = name_end - self.starts[line - 1]
        shifts = self.shifts or [0] * len(self.tree.body)
        pending: list[tuple[ast.AST, tuple, tuple[int, int], bool, tuple]] = [
            (statement, (self.tree,), (line - shift, column), False, (self.tree,))
            for statement, shift in zip(self.tree.body, shifts) if _may_hold(statement, (line - shift, column))
        ]
        while pending:
            node, scopes, point, expected, path = pending.pop()
            if member and isinstance(node, ast.Attribute) and (node.end_lineno, node.end_col_offset) == point:
                return CallSite(ast.copy_location(ast.Call(node, [], []), node), scopes, expected, path)
            if isinstance(node, ast.Call):
                func = node.func
                expected = expected or _callee_name(node) in EXPECTED_RAISE_NAMES
                if partial:
                    func = node.args[0] if node.args and _callee_name(node) == PARTIAL else None
                if isinstance(func, (ast.Name, ast.Attribute)) and (func.end_lineno, func.end_col_offset) == point:
                    return CallSite(node, scopes, expected, path)
            elif isinstance(node, ast.JoinedStr):
                # The name is in the f-string's literal part (no ``{`` left open before it):
                # no call. (Positions inside the braces are what older Pythons get wrong; the
                # string's own start is right.)
                start = self.starts[node.lineno + (line - point[0]) - 1] + node.col_offset
                return True if _in_braces(self.data[start:name_end]) else None
            raising_body = not expected and _raising_body(node)
            for child, child_scopes in _children(node, scopes):
                if _may_hold(child, point):
                    pending.append((child, child_scopes, point, expected or child in raising_body, (*path, node)))
        return None

    def calls_named(self, name: str, methods: bool = False) -> list[CallSite | bool]:
        """Every call ``name(...)`` of the file (found from its text, then :meth:`call_at`);
        ``methods``: ``self.name(...)`` instead. True for a place inside an f-string, where
        the call cannot be told (the engine reads it)."""
        found: list[CallSite | bool] = []
        for match in name_occurrences(self.data, name.encode()):
            site = self.call_at(match.end())
            if not isinstance(site, CallSite):
                if site is True:
                    found.append(True)
                continue
            func = site.call.func
            if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
                    if methods else isinstance(func, ast.Name)):
                found.append(site)
        return found

    def calls_of(self, function: ast.AST, owner: tuple, method: bool) -> list[CallSite | bool]:
        """The calls of the file that may reach ``function`` (whose scope chain is ``owner``,
        the function last), as engine/reach.py ``calls_of`` finds a wrapper's calls: ``self.name(...)``
        for a method; else each ``name(...)`` where the name may be bound to this ``def`` (one
        of its bindings there is the ``def``'s, or a ``global``: a superset of
        ``calls_bound_to``, which asks that all of them be), not where it is only an import or
        another name (``def Engine(**kw): from x import Engine; return Engine(**kw)``)."""
        if method:
            return self.calls_named(function.name, methods=True)
        top_level = len(owner) == 2 and self.module is not None
        definition = (IMPORTED, f"{self.module}.{function.name}" if top_level else None)
        found: list[CallSite | bool] = []
        for site in self.calls_named(function.name):
            bindings = site is True or self.lookup(function.name, site.scopes)
            if bindings is True or bindings is not None and any(
                    binding == definition or binding[0] == GLOBAL for binding in bindings[0]):
                found.append(site)
        return found

    def partials_of(self, name: str) -> list[CallSite | bool]:
        """Every ``partial(name, ...)`` of the file (True: a place inside an f-string)."""
        found: list[CallSite | bool] = []
        for match in name_occurrences(self.data, name.encode()):
            site = self.call_at(match.end(), partial=True)
            if site is not None:
                found.append(site)
        return found

    def bound_name_called(self, value: ast.expr, scope: ast.AST) -> bool:
        """Is ``value`` (a call written in ``scope``) bound there to a name the file calls,
        ``m = Block(...)`` then ``m(x)``, ``p = partial(f, ...)`` then ``p(...)``? (Any binding
        of it counts: a superset of the engine's, which takes a name bound once.)"""
        return any(self.calls_named(name) for name, sites in self.bindings(scope).items()
                   if any(site[0] == VALUE and site[1] is value for site in sites))

    def attribute_values(self, attr: str) -> list[ast.expr | None]:
        """Every value ``self.attr``/``cls.attr`` may be given (analysis/built.py ``_attribute``): a
        class body's binding of ``attr`` (any class of the file), ``self.attr = ...`` or
        ``cls.attr = ...`` anywhere; None for one the screen cannot read (unpacking into it, a
        class-body binding that is no value)."""
        if self._attribute_writes is None:
            self._attribute_writes = {}
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    targets, value = [node.target], node.value
                else:
                    continue
                for target in targets:
                    if isinstance(target, (ast.Tuple, ast.List)):
                        for element in ast.walk(target):
                            if self_attribute(element):
                                self._attribute_writes.setdefault(element.attr, []).append(None)
                    elif self_attribute(target):
                        self._attribute_writes.setdefault(target.attr, []).append(value)
        values = list(self._attribute_writes.get(attr, ()))
        for node, _ in self.classes():
            for binding in self.bindings(node).get(attr, ()):
                values.append(binding[1] if binding[0] == VALUE else None)
        return values

    def classes(self) -> list[tuple[ast.ClassDef, tuple]]:
        """Every class statement of the file, with the scopes it sits in."""
        if self._classes is None:
            self._classes = []
            pending: list[tuple[ast.AST, tuple]] = [(self.tree, (self.tree,))]
            while pending:
                node, scopes = pending.pop()
                if isinstance(node, ast.ClassDef):
                    self._classes.append((node, scopes))
                if isinstance(node, (ast.stmt, ast.Module, ast.excepthandler, ast.match_case)):
                    pending.extend(_children(node, scopes))
        return self._classes

    def may_be_a(self, node: ast.ClassDef, scopes: tuple, qualified: str, depth: int = 0) -> bool:
        """Could the engine find the class ``node`` (defined in ``scopes``) to be the class
        ``qualified`` or a subclass (analysis/resolve.py ``class_is_a``)? Its own name qualifies
        only at the top level of a known module (analysis/bindings.py ``_qualified``); a base,
        where its name qualifies to it (or may: a ``global``) or names a class of this file that
        may be one."""
        if depth > MAX_HOPS:
            return True
        if len(scopes) == 1 and self.module is not None and f"{self.module}.{node.name}" == qualified:
            return True  # (in a file of no known module, the engine qualifies no class of its own)
        for base in node.bases:
            found = self.qualify(base, scopes)
            if found is UNSURE or found == qualified:
                return True
            if isinstance(base, ast.Name) and any(
                other is not node and other.name == base.id and self.may_be_a(other, other_scopes, qualified, depth + 1)
                for other, other_scopes in self.classes()
            ):
                return True
        return False

    def bindings(self, scope: ast.AST) -> dict[str, list[tuple]]:
        key = id(scope)
        if key not in self._bindings:
            self._bindings[key] = _scope_bindings(scope, b":=" in self.data, self.module, self.is_package)
        return self._bindings[key]

    def qualify(self, node: ast.expr, scopes: tuple) -> str | None | object:
        """analysis/resolve.py ``FileModel.qualify`` on ast: the one qualified name a dotted name refers
        to, seen from ``scopes`` (every binding of its head the same import or top-level
        definition, qualified as the engine's bindings are); None when it has none;
        :data:`UNSURE` when its head may be bound elsewhere (a ``global``)."""
        dotted = ast_dotted_name(node)
        found = self.lookup(dotted.partition(".")[0], scopes) if dotted is not None else None
        return qualify_dotted(dotted, found and found[0], _binding_qualified)

    def changed_names(self) -> frozenset[str]:
        """Names the engine counts as changed in place anywhere in the file (analysis/bindings.py
        ``mutated_names``), where the ast shows it as surely: ``name.method(...)`` (any
        method) and ``name[...] = ...``. The engine reads no keys from ``**name`` then
        (analysis/resolve.py ``dict_literal``). A subset of the engine's set: it also counts
        ``del name[...]``, ``name[...] += ...``."""
        if self._mutated is None:
            found = set()
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Call):
                    func = node.func
                    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                        found.add(func.value.id)
                elif isinstance(node, ast.Assign):
                    found.update(target.value.id for target in node.targets
                                 if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name))
            self._mutated = frozenset(found)
        return self._mutated

    def changed_mapping(self, name: str, scopes: tuple) -> bool:
        """Is ``name``, seen from ``scopes``, a dict the file changes in place
        (:meth:`changed_names`), bound by no parameter (whose ``**kwargs`` engine/reach.py follows
        whatever is done to it) nor a ``global``?"""
        if name not in self.changed_names():
            return False
        found = self.lookup(name, scopes)
        return found is not None and all(binding[0] not in (PARAM, GLOBAL) for binding in found[0])

    def one_dict(self, name: str, scopes: tuple) -> list[tuple[str, ast.expr]] | None:
        """The string keys and values of the one dict display or ``dict(...)`` of keywords that
        binds ``name`` seen from ``scopes`` (its scope binds it no other way), as an
        argument's lookup reads them (checks/base.py ``_mapping_items``); None otherwise. The
        engine (analysis/resolve.py ``dict_literal``) reads that dict where it is the one binding
        reaching the call, and nothing elsewhere: judging its values is a superset of both."""
        found = self.lookup(name, scopes)
        if found is None or len(found[0]) != 1 or found[0][0][0] != VALUE:
            return None
        return dict_items(found[0][0][1])

    def mapping_lacks(self, mapping: str, key: str, scopes: tuple) -> bool:
        """Is ``key`` certainly not among the keys the engine may read in ``**mapping`` seen
        from ``scopes`` (analysis/resolve.py ``dict_literal``: the one reaching binding, a dict display
        or ``dict(...)`` of keywords, never changed)? No binding is a parameter or a
        ``global``, no display or call among them names the key, spreads another mapping or
        takes positional arguments, and the file does nothing with the name but pass it (no
        ``m[...]``, no ``m.method(...)``, no ``m |= ...``). Any other value the engine reads
        no keys from."""
        found = self.lookup(mapping, scopes)
        changed = rb"\s*(?:\[|\.\s*" + NAME_BYTE + rb"+\s*\(|\|=)"
        if found is None or any(name_occurrences(self.data, mapping.encode(), changed)):
            return False
        for binding in found[0]:
            if binding[0] in (PARAM, GLOBAL):
                return False  # a wrapper's ``**kwargs`` (engine/reach.py follows it), or bound elsewhere
            value = binding[1] if binding[0] == VALUE else None
            if isinstance(value, ast.Dict) and any(
                    k is None or not (isinstance(k, ast.Constant) and isinstance(k.value, str)) or k.value == key
                    for k in value.keys):
                return False
            if isinstance(value, ast.Call) and (value.args or any(k.arg in (None, key) for k in value.keywords)):
                return False
        return True

    def reaching(self, name: str, scopes: tuple, site: CallSite | None) -> tuple[list[tuple], tuple] | None:
        """:meth:`lookup`, less the bindings that cannot reach the call ``site`` (screen/ast_flow.py:
        the engine's ``reaching``); all of them where there is no site, a ``global`` is among
        them, or the statements' lines are not the text's (a document's kept statements)."""
        found = self.lookup(name, scopes)
        if found is None or site is None or len(found[0]) < 2 or self.shifts is not None or any(
                binding[0] == GLOBAL for binding in found[0]):
            return found
        if self._places is None:
            self._places = StatementPlaces(self.tree, self.data, self.starts)
        use = self._places.use_place(site.path, site.scopes, found[1])
        return found if use is None else (self._places.reaching(found[0], use), found[1])

    def lookup(self, name: str, scopes: tuple) -> tuple[list[tuple], tuple] | None:
        """The bindings of ``name`` seen from the innermost of ``scopes`` (a class body only
        from its own statements), and the scope chain that owns them; None when unbound."""
        innermost = len(scopes) - 1
        for depth in range(innermost, -1, -1):
            scope = scopes[depth]
            if isinstance(scope, ast.ClassDef) and depth != innermost:
                continue
            found = self.bindings(scope).get(name)
            if found:
                return found, scopes[: depth + 1]
        return None


def dict_items(node: ast.expr) -> list[tuple[str, ast.expr]] | None:
    """The string keys and values of a dict display, or the keywords of ``dict(...)`` with
    keywords only (whatever ``dict`` is bound to: a superset of analysis/resolve.py ``_dict_call``), as
    an argument's lookup reads a mapping (checks/base.py ``_mapping_items``); None for any
    other expression."""
    if isinstance(node, ast.Dict):
        return [(key.value, item) for key, item in zip(node.keys, node.values)
                if isinstance(key, ast.Constant) and isinstance(key.value, str)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" \
            and not node.args and all(keyword.arg is not None for keyword in node.keywords):
        return [(keyword.arg, keyword.value) for keyword in node.keywords]
    return None


def _in_braces(text: bytes) -> bool:
    """Does an f-string's text up to a point leave a replacement field (``{...``) open? Yes
    too where it cannot tell: a quote inside a field (a string there may hold a brace)."""
    depth = 0
    index, end = 0, len(text)
    while index < end:
        byte = text[index]
        if depth == 0:
            if byte == 0x7B:  # ``{``, unless ``{{`` (a brace of the text)
                if text[index + 1: index + 2] == b"{":
                    index += 1
                else:
                    depth = 1
        elif byte in (0x22, 0x27):  # a quote in a field
            return True
        elif byte == 0x7B:
            depth += 1
        elif byte == 0x7D:
            depth -= 1
        index += 1
    return depth > 0


def self_attribute(node: ast.AST) -> bool:
    """Is ``node`` ``self.x`` or ``cls.x`` (a class's own attribute, as analysis/built.py follows it)?"""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")


# Calls inside these are deliberate (``with pytest.raises(...)``, ``self.assertRaises``): the
# engine makes no site of them (analysis/guards.py), the screen rules them out (``CallSite.expected_raise``).
EXPECTED_RAISE_NAMES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})


def class_fields(node: ast.ClassDef):
    """A class body's ``name = value`` and ``name: T = value`` (``field(default=value)``)."""
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            name, value = statement.target.id, statement.value
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(
                statement.targets[0], ast.Name):
            name, value = statement.targets[0].id, statement.value
        else:
            continue
        if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) and (
                getattr(value.func, "id", None) or value.func.attr) == "field":
            value = next((k.value for k in value.keywords if k.arg == "default"), None)
        if value is not None:
            yield name, value


def _callee_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _raising_body(node: ast.AST) -> list[ast.stmt]:
    """The statements of ``node`` where a failing call is expected (analysis/guards.py
    ``visit_With_body``, ``visit_Try_body``): the body of ``with pytest.raises(...):``, and of a
    ``try`` whose ``else`` ends in a ``raise``."""
    if isinstance(node, (ast.With, ast.AsyncWith)) and any(
            isinstance(item.context_expr, ast.Call) and _callee_name(item.context_expr) in EXPECTED_RAISE_NAMES
            for item in node.items):
        return node.body
    if isinstance(node, ast.Try) and node.orelse and isinstance(node.orelse[-1], ast.Raise):
        return node.body
    return []


def _binding_qualified(binding: tuple) -> object:
    """A binding's qualified name, as the engine's bindings qualify it (pynames.qualify_dotted)."""
    if binding[0] == VALUE and isinstance(binding[1], ast.Constant) and binding[1].value is None:
        return IGNORED
    if binding[0] == GLOBAL:
        return UNSURE
    return binding[1] if binding[0] == IMPORTED else None


def _children(node: ast.AST, scopes: tuple):
    """``node``'s children, each with the scope chain it is evaluated in."""
    if isinstance(node, _SCOPES):
        outer, inner = _split_scope(node)
        inner_scopes = scopes + (node,)
        return [(child, scopes) for child in outer] + [(child, inner_scopes) for child in inner]
    return [(child, scopes) for child in ast.iter_child_nodes(node)]


def _may_hold(node: ast.AST, point: tuple[int, int]) -> bool:
    """Could the source of ``node`` hold ``point`` (line, column)? Nodes without a position
    (arguments, ``with`` items...) may; a ``def`` or ``class`` also from its decorators."""
    start = getattr(node, "lineno", None)
    if start is None:
        return True
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        start = min(start, *(d.lineno for d in decorators))
        return start <= point[0] <= node.end_lineno
    return (start, node.col_offset) <= point <= (node.end_lineno, node.end_col_offset)


def _split_scope(node: ast.AST) -> tuple[list[ast.AST], list[ast.AST]]:
    """A scope node's children evaluated in the enclosing scope, and those inside it."""
    if isinstance(node, _FUNCTIONS):
        args = node.args
        outer = [*node.decorator_list, *args.defaults, *(d for d in args.kw_defaults if d is not None)]
        outer += [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.annotation]
        if node.returns is not None:
            outer.append(node.returns)
        return outer, list(node.body)
    if isinstance(node, ast.Lambda):
        args = node.args
        return [*args.defaults, *(d for d in args.kw_defaults if d is not None)], [node.body]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords], list(node.body)
    first, *rest = node.generators  # a comprehension: its first iterable is read outside
    inner: list[ast.AST] = [first.target, *first.ifs, *rest]
    inner += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    return [first.iter], inner


def _scope_bindings(scope: ast.AST, walrus: bool = True, module: str | None = None,
                    is_package: bool = False) -> dict[str, list[tuple]]:
    """Every binding made directly in ``scope`` (nested functions and classes bind only their
    own name here), by name. Expressions are read only when the file has a ``:=``. A top-level
    ``def``/``class`` of a known ``module`` and a relative import are qualified as analysis/bindings.py
    qualifies them (a relative import it cannot resolve binds an opaque name)."""
    top_level = module is not None and isinstance(scope, ast.Module)
    found: dict[str, list[tuple]] = {}

    def bind(name: str, binding: tuple) -> None:
        found.setdefault(name, []).append(binding)

    if isinstance(scope, (*_FUNCTIONS, ast.Lambda)):
        _bind_parameters(scope, bind)
        body = list(scope.body) if isinstance(scope, _FUNCTIONS) else [scope.body]
    elif isinstance(scope, _COMPREHENSIONS):
        for generator in scope.generators:
            _bind_targets(generator.target, bind)
        body = [test for generator in scope.generators for test in generator.ifs]
        body += [scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt]
    else:
        body = list(scope.body)
    pending = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            bind(node.name, (IMPORTED, f"{module}.{node.name}" if top_level else None))
            if walrus:
                pending.extend(_split_scope(node)[0])
            continue
        if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
            pending.extend(_split_scope(node)[0])
            if isinstance(node, _COMPREHENSIONS):  # ``:=`` in a comprehension binds out here
                pending.extend(n for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bind(target.id, (VALUE, node.value))
                elif _unpacks_a_display(target, node.value):  # ``B, H = 2, 4``, as the engine reads it
                    for element, value in zip(target.elts, node.value.elts):
                        bind(element.id, (VALUE, value))
                else:
                    _bind_targets(target, bind)
        elif isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name) and node.value is not None:
                bind(node.target.id, (VALUE, node.value))
        elif isinstance(node, ast.NamedExpr):
            bind(node.target.id, (VALUE, node.value))
        elif isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name):
                bind(node.target.id, (AUGMENTED, node))
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            _bind_targets(node.target, bind)
        elif isinstance(node, ast.withitem):
            if node.optional_vars is not None:
                _bind_targets(node.optional_vars, bind)
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                bind(node.name, (OPAQUE,))
        elif isinstance(node, ast.Import):
            for alias in node.names:  # as analysis/bindings.py: ``import a.b`` binds ``a``
                local = alias.asname or alias.name.partition(".")[0]
                bind(local, (IMPORTED, alias.name if alias.asname else local))
        elif isinstance(node, ast.ImportFrom):
            base = resolve_relative(module, is_package, node.level, node.module) if node.level else node.module
            for alias in node.names:
                bind(alias.asname or alias.name, (IMPORTED, f"{base}.{alias.name}") if base else (OPAQUE,))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bind(name, (GLOBAL,))
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)):
            if node.name:
                bind(node.name, (OPAQUE,))
        elif isinstance(node, ast.MatchMapping):
            if node.rest:
                bind(node.rest, (OPAQUE,))
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bind(target.id, (OPAQUE,))
        if walrus or isinstance(node, _STATEMENT_PARTS):
            pending.extend(ast.iter_child_nodes(node))
        else:
            pending.extend(_blocks(node))
    return found


# Nodes whose children are all statements or binding parts (read even without ``:=``).
_STATEMENT_PARTS = (ast.With, ast.AsyncWith, ast.Try, ast.ExceptHandler, ast.Match, ast.match_case, ast.pattern)
if hasattr(ast, "TryStar"):
    _STATEMENT_PARTS += (ast.TryStar,)


def _blocks(node: ast.AST) -> list[ast.AST]:
    """The statements nested in ``node`` (an ``if``/``for``/``while`` body and ``else``)."""
    if isinstance(node, ast.stmt):
        return [*getattr(node, "body", ()), *getattr(node, "orelse", ())]
    return []


def _bind_parameters(function: ast.AST, bind) -> None:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for arg, default in zip(positional, defaults):
        bind(arg.arg, (PARAM, function, default))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        bind(arg.arg, (PARAM, function, default))
    for arg in (args.vararg, args.kwarg):
        if arg is not None:
            bind(arg.arg, (PARAM, function, None))


def _bind_targets(target: ast.AST, bind) -> None:
    """Names bound by a target the engine does not follow (unpacking, a loop variable): the
    target's own name and its tuple, list and starred parts' (``self.x`` and ``d[k]`` bind no
    name: ``self`` stays the method's parameter, as analysis/bindings.py reads it)."""
    if isinstance(target, ast.Name):
        bind(target.id, (OPAQUE,))
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _bind_targets(element, bind)
    elif isinstance(target, ast.Starred):
        _bind_targets(target.value, bind)


def _unpacks_a_display(target: ast.AST, value: ast.AST) -> bool:
    return (
        isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
        and len(target.elts) == len(value.elts) and all(isinstance(e, ast.Name) for e in target.elts)
        and not any(isinstance(e, ast.Starred) for e in value.elts)
    )
