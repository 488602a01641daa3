"""Deprecations of server arguments, read from sglang's source: the launch flags registered with
a ``Deprecated*`` argparse action (with the replacement they name, what the action does with
the flag, and what sglang says to do instead), the flags sglang otherwise marks as deprecated
(their help, or the warning it prints), and the values sglang maps to others with a warning
(``if self.x == "old": warn(...); self.x = "new"``). Written into
``rules/derived/server_args.toml`` (``[deprecated_flags]``, ``[deprecated_values]``) for SGL011
and SGL009."""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import NamedTuple

from sglang_lint.derive.source.tree import walk_all


DEPRECATED_ACTION_PREFIX = "Deprecated"  # sglang's DeprecatedAction, DeprecatedStoreTrueAction, ...
# What the action does with the flag: it stops the launch (raises, or argparse's error), it
# changes nothing (a warning alone), or it still sets its value ("").
STOPS, IGNORED = "stops", "ignored"
FIELD_FLAG = "field"  # the action of a flag sglang builds from a field (no add_argument names it)


class DeprecatedFlag(NamedTuple):
    """One release's deprecation of a flag: the argparse action that registers it (a
    ``Deprecated*`` one, or the plain action of a flag sglang marks deprecated otherwise), the
    replacement it names (``new_flag=``), what it does (:data:`STOPS`, :data:`IGNORED` or ""),
    and, where no ``new_flag`` is named, sglang's own words on what to do instead."""

    action: str
    new: str | None = None
    effect: str = ""
    says: str | None = None


def deprecated_flags(trees: list[ast.Module], flags: frozenset = frozenset()) -> dict[str, DeprecatedFlag]:
    """The flags ``server_args.py`` and ``arg_groups`` register as deprecated (``trees``; the
    launcher registers ``flags`` besides those their ``add_argument`` calls name): with a
    ``Deprecated*`` action (``parser.add_argument("--x", action=DeprecatedStoreTrueAction,
    new_flag="--y")``), whose class in the same trees tells what it does; with a help text
    that starts by saying so (``"[Deprecated] Use ..."``); or with a warning sglang prints
    (``"--x is deprecated; use ..."``). sglang keeps such a spelling for a few releases, then
    removes it. What sglang says to do instead is the message a stopping action prints, else
    that warning, else the help, less its sentences that name no other flag or variable."""
    behaviours = {node.name: _behaviour(node) for tree in trees for node in walk_all(tree)
                  if isinstance(node, ast.ClassDef) and node.name.startswith(DEPRECATED_ACTION_PREFIX)}
    found: dict[str, DeprecatedFlag] = {}
    marked: dict[str, tuple[str, str]] = {}  # flag -> (its action, its help), a help saying deprecated
    registered: set[str] = set(flags)
    for tree in trees:
        for node in walk_all(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "add_argument"):
                continue
            longs = [arg.value for arg in node.args
                     if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("--")]
            registered.update(longs)
            keywords = {k.arg: k.value for k in node.keywords if k.arg}
            action = keywords.get("action")
            name = action.id if isinstance(action, ast.Name) else action.attr if isinstance(action, ast.Attribute) \
                else action.value if isinstance(action, ast.Constant) and isinstance(action.value, str) else "store"
            help_text = text_of(keywords.get("help"))
            if name.startswith(DEPRECATED_ACTION_PREFIX):
                new = text_of(keywords.get("new_flag"))
                behaviour = behaviours.get(name)
                effect, message = behaviour.effect(keywords) if behaviour is not None else ("", None)
                for flag in longs:
                    found[flag] = DeprecatedFlag(name, new, effect, None if new else advice(message or help_text, flag))
            elif help_text and _MARKED.match(help_text):
                for flag in longs:
                    marked[flag] = (name, help_text)
    warned = _warnings(trees, registered)
    for flag in sorted((set(marked) | set(warned)) - set(found)):
        action = marked[flag][0] if flag in marked else FIELD_FLAG
        found[flag] = DeprecatedFlag(action, None, "", advice(warned.get(flag) or marked[flag][1], flag))
    return found


def text_of(node) -> str | None:
    """A literal string (an implicit concatenation is one; ``"a" + "b"``, an f-string's text with
    ``{}`` for what it computes)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = text_of(node.left), text_of(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    return None


class _Behaviour(NamedTuple):
    """What a ``Deprecated*`` action's ``__call__`` does: stops always (carrying the text of
    this keyword of ``add_argument``, "" for none), stops when this keyword is given (with its
    text), and whether it sets anything on the namespace."""

    always: str | None
    when: str | None
    sets: bool

    def effect(self, keywords: dict) -> tuple[str, str | None]:
        if self.always is not None:
            return STOPS, text_of(keywords.get(self.always)) if self.always else None
        if self.when is not None and self.when in keywords:
            return STOPS, text_of(keywords[self.when])
        return ("", None) if self.sets else (IGNORED, None)


def _behaviour(cls: ast.ClassDef) -> _Behaviour:
    call = next((item for item in cls.body if isinstance(item, ast.FunctionDef) and item.name == "__call__"), None)
    if call is None:
        return _Behaviour(None, None, True)  # (an argparse action's own __call__: it sets its value)
    always = when = None
    for statement in call.body:
        stops = _stops(statement)
        if stops is not None:
            always = stops
        elif isinstance(statement, ast.If) and any(_stops(inner) is not None for inner in statement.body):
            when = _tested_attribute(statement.test)
    sets = any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
               for node in walk_all(call))
    return _Behaviour(always, when, sets)


def _stops(statement: ast.stmt) -> str | None:
    """``raise X(self.attr)`` or ``parser.error(self.attr)``: "attr" ("" when it carries no
    attribute of the action); None for any other statement."""
    if isinstance(statement, ast.Raise):
        call = statement.exc
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr == "error":
        call = statement.value
    else:
        return None
    args = call.args if isinstance(call, ast.Call) else []
    return _self_attribute(args[0]) or "" if args else ""


def _self_attribute(node) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _tested_attribute(test: ast.expr) -> str | None:
    """``self.x is not None`` or ``self.x``: "x"."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot):
        return _self_attribute(test.left)
    return _self_attribute(test)


# A help text that opens by saying the flag is deprecated: "[Deprecated] ...", "(Deprecated: ...",
# "Deprecated. ...", "NOTE: --x is deprecated. ..."
_MARKED = re.compile(r"^\s*(?:[(\[]?deprecated\b|(?:note:\s*)?--[a-z0-9-]+ is deprecated\b)", re.I)
# A warning sglang prints about a flag: "--x is deprecated ..."
_WARNING = re.compile(r"^(?:note:\s*)?(--[a-z0-9][a-z0-9-]*) is deprecated\b", re.I)


def _warnings(trees: list[ast.Module], registered: set[str]) -> dict[str, str]:
    """flag -> the longest warning of the trees that says the flag (one they register) is
    deprecated."""
    found: dict[str, str] = {}
    for tree in trees:
        for node in walk_all(tree):
            text = text_of(node) if isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp)) else None
            matched = _WARNING.match(text) if text else None
            if matched and matched.group(1) in registered and len(text) > len(found.get(matched.group(1), "")):
                found[matched.group(1)] = text
    return found


# What names something to do: another flag (``--ep-size``) or an environment variable (``SGLANG_X``).
NAMED = re.compile(r"--[a-z0-9][a-z0-9-]*|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
_PIECES = re.compile(r"(?<=[.;!?])\s+")
_ASIDE = re.compile(r"^[(\[]deprecated:\s*([^)\]]+)[)\]]", re.I)
_OPENING = re.compile(r"^(?:note:\s*)?(?:[(\[]deprecated[)\]]\s*|deprecated[.:]\s+)", re.I)


def advice(text: str | None, flag: str) -> str | None:
    """What sglang says to do instead of ``flag``, in its words: ``text`` from its first
    sentence (or clause) that names another flag or an environment variable, without the
    opening that only says the flag is deprecated; None when no sentence names one."""
    if not text:
        return None
    text = " ".join(text.split())
    aside = _ASIDE.match(text)  # "(Deprecated: use --y) What the flag did.": the aside is the advice
    if aside and set(NAMED.findall(aside.group(1))) - {flag}:
        return aside.group(1)
    pieces = _PIECES.split(text)
    start = next((i for i, piece in enumerate(pieces) if set(NAMED.findall(piece)) - {flag}), None)
    if start is None:
        return None
    kept = _OPENING.sub("", pieces[start])
    kept = re.sub(rf"^(?:note:\s*)?{re.escape(flag)} is deprecated[^.;,]*[.;,]\s*", "", kept, flags=re.I)
    return " ".join([kept, *pieces[start + 1:]])


def deprecated_values(trees: list[ast.Module]) -> dict[str, dict[str, tuple[str, bool]]]:
    """Values a server argument still takes but sglang rewrites to another, warning that they
    are deprecated: a mapping ``aliases = {"old": "new"}`` and then ``if cfg.field in aliases:``
    (or ``for attr in ("field", ...): old = getattr(args, attr)`` ... ``if old in aliases:``)
    whose branch says "deprecated" -> {field: {old: (new, exact)}}. ``exact``: the function
    names neither value anywhere else, so writing the new one changes nothing else (sglang's
    ``tokenspeed_mla`` also sets an FP8 KV cache: not exact)."""
    found: dict[str, dict[str, tuple[str, bool]]] = {}
    for tree in trees:
        for function in walk_all(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            mappings = {
                node.targets[0].id: pairs for node in walk_all(function)
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and (pairs := _string_pairs(node.value))
            }
            if not mappings:
                continue
            looped = _getattr_loops(function)
            for node in walk_all(function):
                test = node.test if isinstance(node, ast.If) else None
                if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In)
                        and isinstance(test.comparators[0], ast.Name) and test.comparators[0].id in mappings):
                    continue
                if not _says_deprecated(node.body):
                    continue
                if isinstance(test.left, ast.Attribute):
                    names = [test.left.attr]
                elif isinstance(test.left, ast.Name):
                    names = looped.get(test.left.id, [])
                else:
                    names = []
                mapping = mappings[test.comparators[0].id]
                elsewhere = Counter(n.value for n in walk_all(function)
                                    if isinstance(n, ast.Constant) and isinstance(n.value, str))
                for name in names:
                    found.setdefault(name, {}).update({
                        old: (new, elsewhere[old] == 1 and elsewhere[new] == list(mapping.values()).count(new))
                        for old, new in mapping.items()
                    })
    return found


def _string_pairs(node: ast.AST) -> dict[str, str] | None:
    if not isinstance(node, ast.Dict) or not node.keys:
        return None
    pairs = {}
    for key, value in zip(node.keys, node.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)
                and isinstance(value, ast.Constant) and isinstance(value.value, str)):
            return None
        pairs[key.value] = value.value
    return pairs


def _getattr_loops(function: ast.AST) -> dict[str, list[str]]:
    """``for attr in ("a", "b"): x = getattr(obj, attr, ...)`` -> {"x": ["a", "b"]}."""
    found = {}
    for loop in walk_all(function):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name)
                and isinstance(loop.iter, (ast.Tuple, ast.List))):
            continue
        names = [e.value for e in loop.iter.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(names) != len(loop.iter.elts):
            continue
        for node in walk_all(loop):
            call = node.value if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "getattr"
                    and len(call.args) >= 2 and isinstance(call.args[1], ast.Name)
                    and call.args[1].id == loop.target.id and isinstance(node.targets[0], ast.Name)):
                found[node.targets[0].id] = names
    return found


def _says_deprecated(body: list[ast.stmt]) -> bool:
    """Does the branch warn that something is deprecated (a string that says so)?"""
    return any(
        isinstance(node, ast.Constant) and isinstance(node.value, str) and "deprecated" in node.value.lower()
        for statement in body for node in walk_all(statement)
    )
