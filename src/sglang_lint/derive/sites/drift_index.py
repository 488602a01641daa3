"""What `catalog verify` reads of a tree besides its raise sites: the messages each function
raises (:func:`raises_by_function`), and the tree's bindings and signatures (:func:`read_callables`)
to check a rule's targets by: each callable it names (function, class,
method on its receivers, the ``via`` it is reached through, an enum's members) still bound in
the tree, and the argument it checks still a parameter, at the position the rule reads it.

Read once from the parsed modules into plain data (no syntax tree kept), and judged leniently:
a name is gone only where its module is in the tree and binds it nowhere (no def, class,
assignment, import, ``*`` import or module ``__getattr__``), a parameter only where the callable
is certainly found and takes no ``**kwargs``; whatever a class outside sglang may supply is
taken as there."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from sglang_lint.derive.reading.guards import assert_as_raise, normalize_message, raise_message, shown_message
from sglang_lint.derive.reading.hierarchy import Hierarchy
from sglang_lint.derive.source.tree import Module, bound_names, walk_all
from sglang_lint.text.pynames import ast_dotted_name

UNKNOWN = object()  # bound, but by something whose signature cannot be read here
FIELD = object()  # a field of a dataclass-like class: passed by keyword (its position is not read)
MAX_HOPS = 8  # re-exports and imports followed


@dataclass(frozen=True)
class Signature:
    """A def's parameters as a call binds them (``self``/``cls`` of a method dropped)."""

    positional: tuple[str, ...]
    keyword_only: tuple[str, ...] = ()
    var_keyword: bool = False

    def where(self, argument: str):
        """The argument's position (None: keyword-only), UNKNOWN (it may go in ``**kwargs``),
        or False (no such parameter)."""
        if argument in self.positional:
            return self.positional.index(argument)
        if argument in self.keyword_only:
            return None
        return UNKNOWN if self.var_keyword else False


@dataclass
class ClassFacts:
    bases: tuple  # qualified names of sglang's classes, None for a base outside it
    methods: dict  # name -> Signature, or UNKNOWN (bound otherwise in the body)
    fields: tuple  # annotated names of the body, in order
    record: bool = False  # decorated as a dataclass: its __init__ is made of its fields


@dataclass
class Callables:
    """Every module's top-level bindings, functions and classes (the verifier's index)."""

    modules: dict = field(default_factory=dict)  # module -> set of names it binds (None: any name)
    functions: dict = field(default_factory=dict)  # module.f -> Signature
    classes: dict = field(default_factory=dict)  # module.C -> ClassFacts
    imports: dict = field(default_factory=dict)  # module.name -> what it imports
    exports: dict = field(default_factory=dict)  # package.Name -> where it is bound


def signature(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> Signature:
    args = function.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)
    if method and not static:
        positional = positional[1:]
    return Signature(tuple(positional), tuple(a.arg for a in args.kwonlyargs), args.kwarg is not None)


def read_callables(modules: list[Module], exports: dict) -> Callables:
    """The index of ``modules`` (``exports``: their packages' re-exports, derive/source/exports.py)."""
    hierarchy = Hierarchy(modules)
    index = Callables(exports=exports)
    for module in modules:
        names: set | None = set()
        for node in module.tree.body:
            names |= bound_names(node)
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                names = None
                break
        if names is not None and "__getattr__" in names:
            names = None
        index.modules[module.name] = names
        for local, qualified in module.imports.items():
            index.imports[f"{module.name}.{local}"] = qualified
        for node in module.tree.body:
            qualified = f"{module.name}.{node.name}" if hasattr(node, "name") else None
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                index.functions[qualified] = signature(node, False)
            elif isinstance(node, ast.ClassDef):
                methods: dict = {}
                fields = []
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        methods[item.name] = signature(item, True)
                    elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        fields.append(item.target.id)
                        methods.setdefault(item.target.id, UNKNOWN)
                    else:
                        for name in bound_names(item):
                            methods.setdefault(name, UNKNOWN)
                record = any((ast_dotted_name(d.func if isinstance(d, ast.Call) else d) or "").endswith("dataclass")
                             for d in node.decorator_list)
                index.classes[qualified] = ClassFacts(tuple(hierarchy.bases.get(qualified, ())), methods,
                                                      tuple(fields), record)
    return index


def resolve(index: Callables, name: str, hops: int = 0):
    """What the qualified ``name`` is in the tree: ("function", Signature), ("class", qualified),
    ("method", Signature), UNKNOWN (bound by something not read here, or outside the tree), or
    None (its module is in the tree and binds it nowhere)."""
    if hops > MAX_HOPS or not name.startswith("sglang"):
        return UNKNOWN
    if name in index.functions:
        return "function", index.functions[name]
    if name in index.classes:
        return "class", name
    if name in index.exports:
        return resolve(index, index.exports[name], hops + 1)
    owner, _, short = name.rpartition(".")
    if owner in index.classes:
        found = method(index, owner, short)
        return ("method", found) if isinstance(found, Signature) else found
    if owner in index.modules:
        names = index.modules[owner]
        if name in index.imports:
            return resolve(index, index.imports[name], hops + 1)
        if names is None or short in names:
            return UNKNOWN
        return None
    if not owner or owner.count(".") == 0:
        return UNKNOWN  # (no module of its line is in the tree)
    parent = resolve(index, owner, hops + 1)
    if parent is None:
        return None
    if isinstance(parent, tuple) and parent[0] == "class":
        return resolve(index, f"{parent[1]}.{short}", hops + 1)
    return UNKNOWN


def method(index: Callables, cls: str, name: str, depth: int = 0):
    """``name`` on class ``cls``, its own or inherited: a Signature, UNKNOWN (bound otherwise, or
    possibly by a base outside sglang), or None (certainly defined by none of its classes)."""
    facts = index.classes.get(cls)
    if facts is None or depth > MAX_HOPS:
        return UNKNOWN
    if name in facts.methods:
        return facts.methods[name]
    for base in facts.bases:
        found = UNKNOWN if base is None else method(index, base, name, depth + 1)
        if found is not None:
            return found
    return None


def fields_of(index: Callables, cls: str, depth: int = 0):
    """The annotated fields of ``cls`` and its sglang bases; None where a base is not sglang's
    (it may add any)."""
    facts = index.classes.get(cls)
    if facts is None or depth > MAX_HOPS:
        return None
    found = set(facts.fields)
    for base in facts.bases:
        more = None if base is None else fields_of(index, base, depth + 1)
        if more is None:
            return None
        found |= more
    return found


def _constructor(index: Callables, cls: str, depth: int = 0):
    """What makes an instance of ``cls``: an ``__init__``'s Signature, the qualified name of the
    dataclass whose fields it takes, UNKNOWN, or None (no sglang class of its line has either)."""
    facts = index.classes.get(cls)
    if facts is None or depth > MAX_HOPS:
        return UNKNOWN
    init = facts.methods.get("__init__")
    if init is not None:
        return init
    if facts.record:
        return cls
    for base in facts.bases:
        found = UNKNOWN if base is None else _constructor(index, base, depth + 1)
        if found is not None:
            return found
    return None


def constructor_where(index: Callables, cls: str, argument: str):
    """Where a call of class ``cls`` binds ``argument``: as :meth:`Signature.where` (a field of a
    dataclass: FIELD)."""
    made = _constructor(index, cls)
    if isinstance(made, Signature) or made is UNKNOWN:
        return made if made is UNKNOWN else made.where(argument)
    fields = fields_of(index, made or cls)
    if fields is not None and argument in fields:
        return FIELD
    return UNKNOWN if fields is None else False


def target_drift(index: Callables, target) -> list[str]:
    """What of one [[check.target]] the tree no longer has (empty: all of it is there)."""
    found = []
    what = resolve(index, target.name) if target.kind in ("function", "class") else UNKNOWN
    if what is None:
        return [f"target {target.name} is gone"]
    # (``via`` is a qualified name, or a sentence saying how the argument is handed on)
    if target.via and " " not in target.via and resolve(index, target.via) is None:
        found.append(f"{target.via} (the way to target {target.name}) is gone")
    if target.kind in ("function", "class"):
        if target.argument is None or not isinstance(what, tuple):
            where = UNKNOWN
        elif what[0] == "class":
            where = constructor_where(index, what[1], target.argument)
        else:
            where = what[1].where(target.argument)
        return found + _argument_drift(target.name, target.argument, target.position, where)
    for receiver in target.receivers:
        what = resolve(index, receiver)
        if what is None:
            found.append(f"receiver {receiver} of {target.name} is gone")
        elif isinstance(what, tuple) and what[0] == "class":
            bound = method(index, what[1], target.name)
            if bound is None and target.kind == "method":
                found.append(f"{receiver} has no method {target.name} any more")
            elif isinstance(bound, Signature) and target.argument:
                found += _argument_drift(f"{receiver}.{target.name}", target.argument, target.position,
                                         bound.where(target.argument))
    return found


def _argument_drift(name: str, argument: str | None, position: int | None, where) -> list[str]:
    if argument is None or where is UNKNOWN or where is FIELD:
        return []
    if where is False:
        return [f"target {name} has no parameter {argument} any more"]
    if position is not None and where != position:
        now = "keyword-only" if where is None else f"position {where}"
        return [f"target {name}: {argument} moved from position {position} to {now}"]
    return []


def enum_drift(index: Callables, enum: str, members: tuple) -> list[str]:
    """An enum a rule names by its members: the class and each member still there."""
    what = resolve(index, enum)
    if what is None:
        return [f"enum {enum} is gone"]
    if not (isinstance(what, tuple) and what[0] == "class"):
        return []
    body = index.classes[what[1]].methods  # (an enum's members are its own body's: it has no subclass)
    gone = [m for m in members if m not in body]
    return [f"enum {enum} has no member {', '.join(gone)} any more"] if gone else []


def raises_by_function(modules: list[Module]) -> dict[tuple[str, str], set[str]]:
    """(module, "Class.function") -> the normalized messages of every raise in it."""
    found: dict[tuple[str, str], set[str]] = {}
    for module in modules:
        for node in module.tree.body:
            functions = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append((node.name, node))
            elif isinstance(node, ast.ClassDef):
                functions += [
                    (f"{node.name}.{i.name}", i)
                    for i in node.body
                    if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef))
                ]
            for name, function in functions:
                messages = found.setdefault((module.name, name), set())
                for sub in walk_all(function):
                    if isinstance(sub, (ast.Raise, ast.Assert)):
                        raised = assert_as_raise(sub) if isinstance(sub, ast.Assert) else sub
                        messages.add(normalize_message(shown_message(*raise_message(raised))))
    return found
