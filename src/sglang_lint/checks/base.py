"""What every check kind shares: the site it is given, what it returns, argument binding,
and the pieces of a message (how a value is shown, which allowed value is closest)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import libcst as cst

from sglang_lint.resolve import FileModel, Known, Ref, Scope, Where


@dataclass(frozen=True)
class Guard:
    """A condition known to hold where a call sits: ``test`` is truthy (``holds``) or falsy."""

    test: cst.BaseExpression
    holds: bool


@dataclass(eq=False)
class Site:
    """One call (or attribute read) of a catalog name, as the visitor found it."""

    node: cst.CSTNode  # cst.Call, cst.Attribute (attribute targets) or cst.ClassDef (class checks)
    scope: Scope
    guards: tuple[Guard, ...]
    model: FileModel
    where: Where | None = None  # the statement it is in (None: after its scope has run)
    partial: cst.Call | None = None  # the functools.partial(...) call this call goes through

    @property
    def receiver(self) -> cst.BaseExpression | None:
        func = self.node.func if isinstance(self.node, cst.Call) else self.node
        return func.value if isinstance(func, cst.Attribute) else None


@dataclass(frozen=True)
class Finding:
    node: cst.CSTNode
    message: str


@dataclass(frozen=True)
class CheckKind:
    """One kind of check: how its rule-file table is validated, which words a file must
    contain for it to possibly fire (the prefilter), and the function that checks a site."""

    name: str
    site: str  # "call": calls/attribute reads of its targets; "class": every class statement
    parse: Callable  # (Fields, targets) -> params
    run: Callable  # (Site, Rule, Check, Target | None) -> Iterable[Finding]
    triggers: Callable  # (Check) -> Iterable[Trigger]
    # Does a parameter passed on unchanged to a checked argument carry the check to the
    # calls of its function (a wrapper)? True for the value checks.
    through_wrappers: bool = False


@dataclass(frozen=True)
class Trigger:
    """Text a file must contain for a check to possibly fire there.

    ``name`` written in ``shape`` (``word``: anywhere, as imports need; ``call``:
    ``.name(``; ``member``: ``.name``), and every item of ``also`` (a substring, or a
    compiled pattern)."""

    name: str
    shape: str = "word"
    also: tuple = ()
    # A function or class is called only where its module is imported (so the module's
    # last name is written) or inside that module itself (known from the file's path).
    module: str | None = None


def target_trigger(target, *also) -> Trigger:
    shape = {"method": "call", "attribute": "member"}.get(target.kind, "word")
    module = None
    if target.kind in ("function", "class"):
        module = target.name.rpartition(".")[0]
        also = (module.rpartition(".")[2], *also)
    return Trigger(target.last_name, shape, tuple(also), module)


def argument_of(
    call: cst.Call, name: str | None, position: int | None, site: Site | None = None
) -> cst.Arg | None:
    """The argument passed for parameter ``name`` (by keyword, in a ``**{...}`` literal or
    a dict name bound to one, or at ``position`` counting from 0 without ``self``); None
    when absent or unknowable."""
    found = _argument(call, name, position, site)
    return found[0] if found else None


def _argument(
    call: cst.Call, name: str | None, position: int | None, site: Site | None
) -> tuple[cst.Arg, cst.Name | None] | None:
    """The argument, and the dict name it came through for ``**kwargs`` (else None)."""
    for arg in call.args:
        if arg.keyword is not None and name is not None and arg.keyword.value == name:
            return arg, None
        if arg.star == "**" and name is not None:
            mapping = site.model.dict_literal(arg.value, site.scope, site.where) if site else arg.value
            if not isinstance(mapping, cst.Dict):
                continue
            for element in mapping.elements:
                if (
                    isinstance(element, cst.DictElement)
                    and isinstance(element.key, cst.SimpleString)
                    and element.key.evaluated_value == name
                ):
                    holder = arg.value if isinstance(arg.value, cst.Name) else None
                    return cst.Arg(value=element.value), holder
    if position is None:
        return None
    index = 0
    for arg in call.args:
        if arg.keyword is not None or arg.star == "**":
            break
        if arg.star == "*":
            return None  # after a splat, positions are unknown
        if index == position:
            return arg, None
        index += 1
    return None


def argument_values(
    site: Site, name: str | None, position: int | None, may: bool = False
) -> Iterator[tuple[cst.Arg, Known]]:
    """Each value the argument for parameter ``name``/``position`` is known to take at this
    call (or, with ``may``, may take); nothing when it is absent or unknown. A value that
    came through ``**kwargs`` shows at ``kwargs`` in the call, as ``kwargs['name']``."""
    found = _argument(site.node, name, position, site)
    if found is None:
        return
    arg, holder = found
    for known in site.model.evaluate(arg.value, site.scope, site.where, may=may):
        if holder is not None:
            known = Known(known.value, holder, (f"{holder.value}[{name!r}]",) + known.via, known.written)
        yield arg, known


def require_argument(fields, targets) -> None:
    """Value checks need to know which argument of each target they judge."""
    for target in targets:
        if target.argument is None and target.position is None:
            raise fields.error("target", f"target {target.name} needs an argument or a position")


def show_value(value: object) -> str:
    return repr(value)  # Ref's repr is the short ``Enum.MEMBER`` form


def show_call(site: Site, target, known: Known) -> str:
    """``f(mode='pre')``; ``f(mode=MODE) with MODE = 'pre' (line 3)`` when the value came by
    name; ``f(mode=mode) with mode defaulting to 'pre' (line 3)`` for a parameter default."""
    prefix = "." if target.kind in ("method", "attribute") else ""
    label = f"{target.argument}=" if target.argument else ""
    if not known.via:
        return f"{prefix}{target.display}({label}{show_value(known.value)})"
    if known.default:
        value = f"{' = '.join(known.via)} defaulting to {show_value(known.value)}"
    else:
        value = f"{' = '.join(known.via)} = {show_value(known.value)}"
    where = f" (line {site.model.line_of(known.origin)})" if known.origin is not None else ""
    return f"{prefix}{target.display}({label}{known.via[0]}) with {value}{where}"


def _normal(text: str) -> str:
    return text.lower().replace("-", "_").replace(" ", "_")


def closest(value: object, allowed: Iterable[object]) -> object | None:
    """The one allowed value ``value`` most plausibly meant, or None (never on a tie)."""
    allowed = list(allowed)
    if isinstance(value, Ref):
        value = value.qualified.rsplit(".", 1)[-1]
        labels = {a.rsplit(".", 1)[-1] if isinstance(a, str) else str(a): a for a in allowed}
    else:
        labels = {a if isinstance(a, str) else str(a): a for a in allowed}
    if not isinstance(value, str):
        return None
    same = [a for label, a in labels.items() if _normal(label) == _normal(value)]
    if len(same) == 1:
        return same[0]
    prefixed = [a for label, a in labels.items() if _normal(label).startswith(_normal(value))]
    if value and len(prefixed) == 1:
        return prefixed[0]
    scored = sorted(
        ((difflib.SequenceMatcher(None, _normal(value), _normal(label)).ratio(), label)
         for label in labels),
        reverse=True,
    )
    if not scored or scored[0][0] < 0.6:
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return labels[scored[0][1]]


def guarded_on(site: Site, name: str) -> bool:
    """Does a condition in force at the site test ``name`` (``if x:``, ``if x is not None``,
    an early ``return`` when it is None, ``assert x ...``)? Then its value there is not
    guessed at."""
    return any(
        mentions(guard.test, lambda n: isinstance(n, cst.Name) and n.value == name) for guard in site.guards
    )


def mentions(node: cst.CSTNode, predicate: Callable[[cst.CSTNode], bool]) -> bool:
    """Does any node in the subtree satisfy ``predicate``? (A small, cheap walk.)"""
    stack = [node]
    while stack:
        current = stack.pop()
        if predicate(current):
            return True
        stack.extend(current.children)
    return False
