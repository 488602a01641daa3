"""``lint(source, path)``: prefilter, one LibCST parse, one visitor pass, diagnostics.

The flow of one file:

1. **Prefilter.** A file is parsed only when its text holds every word of some check's
   trigger (a callee name, plus the words that check cannot fire without). Almost no
   file of a large tree does, which is what makes the flake8 plugin nearly free.
2. **One pass.** :class:`DispatchVisitor` walks the tree once, whatever the number of
   rules. It records imports and bindings (for :mod:`sglang_lint.resolve`), the guards in
   force, and every call whose last name is in the rule table.
3. **Dispatch.** Each recorded call is matched against the targets filed under its name
   (qualified name, or method name plus receiver evidence), and the target's check kind
   runs. A check that raises is reported as SGL900 and the other rules go on.
4. **Positions** are computed only when something is reported.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from sglang_lint.catalog import CRASH_CODE, Check, Rule, Target, default_rules
from sglang_lint.checks import CHECK_KINDS, Guard, Site
from sglang_lint.resolve import (
    OPAQUE,
    ClassInfo,
    FileModel,
    Imported,
    Param,
    Scope,
    dotted_name,
    target_names,
)

# Calls inside these are deliberate (``with pytest.raises(...)``, ``self.assertRaises``).
EXPECTED_RAISE_NAMES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})
EXIT_STATEMENTS = (cst.Return, cst.Raise, cst.Continue, cst.Break)


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding. ``line`` is 1-based, ``col`` 0-based (what flake8 wants from plugins)."""

    line: int
    col: int
    code: str
    message: str
    end_line: int = 0
    end_col: int = 0

    def format(self, path: str) -> str:
        return f"{path}:{self.line}:{self.col + 1}: {self.code} {self.message}"


class SourceError(Exception):
    """The file cannot be linted (undecodable, or not Python LibCST can parse)."""

    def __init__(self, message: str, line: int = 0, col: int = 0):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


@dataclass(frozen=True)
class Entry:
    rule: Rule
    check: Check
    target: Target | None

    @property
    def kind(self):
        return CHECK_KINDS[self.check.kind]


class RuleSet:
    """The catalog compiled for dispatch: entries keyed by callee name, and the prefilter."""

    def __init__(self, rules: Sequence[Rule]):
        self.rules = tuple(rules)
        self.calls: dict[str, list[Entry]] = {}
        self.attributes: dict[str, list[Entry]] = {}
        self.classes: list[Entry] = []
        # prefilter: one pattern of every trigger's name in its shape; each alternative is
        # a named group, so a match says which triggers' other words to look for.
        self.triggers: dict[tuple[str, str], list[tuple]] = {}
        for rule in self.rules:
            for check in rule.checks:
                kind = CHECK_KINDS[check.kind]
                for trigger in kind.triggers(check):
                    self.triggers.setdefault((trigger.name, trigger.shape), []).append(trigger.also)
                if kind.site == "class":
                    self.classes.append(Entry(rule, check, None))
                    continue
                for target in check.targets:
                    table = self.attributes if target.kind == "attribute" else self.calls
                    table.setdefault(target.last_name, []).append(Entry(rule, check, target))
        # One alternation of plain names (fast: the regex engine scans for words); the
        # shape of each hit (``.name(`` for a method) is then checked around the match.
        self.by_name: dict[str, list[tuple[str, tuple]]] = {}
        for (name, shape), alsos in self.triggers.items():
            for also in alsos:
                self.by_name.setdefault(name, []).append((shape, also))
        names = sorted(self.by_name, key=len, reverse=True)
        self.anchor_pattern = (
            re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b") if names else None
        )

    def may_match(self, source: str) -> bool:
        """Could any check fire on this text? False means: skip the file, parse nothing."""
        if self.anchor_pattern is None:
            return False
        failed: set[tuple[str, int]] = set()  # triggers whose other words are missing
        for match in self.anchor_pattern.finditer(source):
            name = match.group(0)
            for index, (shape, also) in enumerate(self.by_name[name]):
                if (name, index) in failed or not _has_shape(source, match, shape):
                    continue
                if all(
                    (word in source) if isinstance(word, str) else word.search(source)
                    for word in also
                ):
                    return True
                failed.add((name, index))
        return False

    def select(self, select: Iterable[str] | None, ignore: Iterable[str] | None) -> "RuleSet":
        """A rule set limited by code prefixes, as ``--select``/``--ignore`` ask."""
        select = tuple(select or ())
        ignore = tuple(ignore or ())
        if not select and not ignore:
            return self
        return RuleSet(
            [
                rule
                for rule in self.rules
                if (not select or rule.code.startswith(select))
                and not (ignore and rule.code.startswith(ignore))
            ]
        )


def _has_shape(source: str, match: re.Match, shape: str) -> bool:
    if shape == "word":
        return True
    before = source[max(0, match.start() - 64) : match.start()].rstrip()
    if not before.endswith("."):
        return False
    return shape == "member" or source[match.end() : match.end() + 64].lstrip().startswith("(")


@lru_cache(maxsize=None)
def default_ruleset() -> RuleSet:
    return RuleSet(default_rules())


class DispatchVisitor(cst.CSTVisitor):
    """The one visitor: builds the file model and records the sites rules care about."""

    def __init__(self, ruleset: RuleSet, model: FileModel):
        super().__init__()
        self.ruleset = ruleset
        self.model = model
        self.scope: Scope = Scope("module", cst.Module(body=()), None)
        model.module_scope = self.scope
        self.branches: list[Guard] = []  # conditions of the enclosing if/while/and/or
        self.suites: list[list[Guard]] = [[]]  # early exits and asserts seen so far, per block
        self.expected_raise_depth = 0
        self.expected_raise_calls: list[cst.Call] = []
        self.raise_withs: list[cst.With] = []
        self.call_sites: list[tuple[str, Site]] = []  # (rule-table name, site)
        self.class_sites: list[Site] = []
        # ``from m import f as g``: calls of ``g`` are looked up as ``f``. Imports are
        # read in text order, so an alias is known from its import statement on.
        self.aliases: dict[str, str] = {}

    # --- bindings -------------------------------------------------------------------
    def bind(self, name: str, value) -> None:
        scope = self.scope
        if name in scope.global_names:
            scope = self.model.module_scope
        scope.bind(name, value)

    def bind_targets(self, node: cst.CSTNode) -> None:
        for name in target_names(node):
            self.bind(name.value, OPAQUE)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted_name(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local, qualified = alias.asname.name.value, full
            else:
                local = qualified = full.split(".", 1)[0]
            self.bind(local, Imported(qualified))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module is not None else None
        level = len(node.relative)
        base = self.model.resolve_relative(level, module) if level else module
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = dotted_name(alias.name)
            if name is None:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            if base:
                self.bind(local, Imported(f"{base}.{name}"))
                if local != name and name in self.ruleset.calls:
                    self.aliases[local] = name
            else:
                self.bind(local, OPAQUE)  # a relative import outside a known package

    def visit_Assign(self, node: cst.Assign) -> None:
        for assign_target in node.targets:
            target = assign_target.target
            if isinstance(target, cst.Name):
                self.bind(target.value, node.value)
            elif isinstance(target, cst.Attribute):
                text = dotted_name(target)
                if text is not None:
                    self.model.attribute_writes.append((self.scope, text, node.value))
            else:
                self.bind_targets(target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is None:
            return
        if isinstance(node.target, cst.Name):
            self.bind(node.target.value, node.value)
        elif isinstance(node.target, cst.Attribute):
            text = dotted_name(node.target)
            if text is not None:
                self.model.attribute_writes.append((self.scope, text, node.value))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bind_targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.bind_targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.bind_targets(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bind_targets(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.bind_targets(node.name.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bind_targets(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self.bind_targets(node.target)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.bind(node.name.value, OPAQUE)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.bind(node.name.value, OPAQUE)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.bind(node.rest.value, OPAQUE)

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self.scope.global_names.add(item.name.value)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        # Not followed: the name becomes unknown here and in the scope that owns it.
        for item in node.names:
            name = item.name.value
            self.scope.bind(name, OPAQUE)
            outer = self.scope.parent
            while outer is not None and (outer.kind == "class" or name not in outer.bindings):
                outer = outer.parent
            if outer is not None:
                outer.bind(name, OPAQUE)

    # --- scopes ---------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        name = node.name.value
        qualified = None
        if self.scope.kind == "module" and self.model.module_name:
            qualified = f"{self.model.module_name}.{name}"
        self.bind(name, Imported(qualified) if qualified else OPAQUE)

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        class_info = self.model.classes.get(self.scope.node) if self.scope.kind == "class" else None
        self.scope = Scope("function", node, self.scope, class_info=class_info)
        self._bind_parameters(node, node.params)

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self.scope = self.scope.parent

    def visit_Lambda_body(self, node: cst.Lambda) -> None:
        self.scope = Scope("lambda", node, self.scope)
        self._bind_parameters(node, node.params)

    def leave_Lambda_body(self, node: cst.Lambda) -> None:
        self.scope = self.scope.parent

    def _bind_parameters(self, function, params: cst.Parameters) -> None:
        for index, param in enumerate((*params.posonly_params, *params.params)):
            self.scope.bind(param.name.value, Param(function, index, param.default))
        for param in params.kwonly_params:
            self.scope.bind(param.name.value, Param(function, -1, param.default))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.scope.bind(star.name.value, OPAQUE)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        name = node.name.value
        qualified = None
        if self.scope.kind == "module" and self.model.module_name:
            qualified = f"{self.model.module_name}.{name}"
        info = ClassInfo(node, name, self.scope, qualified)
        self.model.classes[node] = info
        self.model.classes_by_name.setdefault(name, []).append(info)
        self.bind(name, Imported(qualified) if qualified else OPAQUE)
        if self.ruleset.classes:
            self.class_sites.append(Site(node, self.scope, (), self.model))

    def visit_ClassDef_body(self, node: cst.ClassDef) -> None:
        self.scope = Scope("class", node, self.scope)

    def leave_ClassDef_body(self, node: cst.ClassDef) -> None:
        self.scope = self.scope.parent

    # --- guards -----------------------------------------------------------------------
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.suites.append([])

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.suites.pop()

    def visit_If_body(self, node: cst.If) -> None:
        self.branches.append(Guard(node.test, True))

    def leave_If_body(self, node: cst.If) -> None:
        self.branches.pop()

    def visit_If_orelse(self, node: cst.If) -> None:
        self.branches.append(Guard(node.test, False))

    def leave_If_orelse(self, node: cst.If) -> None:
        self.branches.pop()

    def leave_If(self, node: cst.If) -> None:
        # ``if x is None: return`` guards the rest of the block.
        if node.orelse is None and _ends_in_exit(node.body):
            self.suites[-1].append(Guard(node.test, False))

    def visit_While_body(self, node: cst.While) -> None:
        self.branches.append(Guard(node.test, True))

    def leave_While_body(self, node: cst.While) -> None:
        self.branches.pop()

    def visit_IfExp_body(self, node: cst.IfExp) -> None:
        self.branches.append(Guard(node.test, True))

    def leave_IfExp_body(self, node: cst.IfExp) -> None:
        self.branches.pop()

    def visit_IfExp_orelse(self, node: cst.IfExp) -> None:
        self.branches.append(Guard(node.test, False))

    def leave_IfExp_orelse(self, node: cst.IfExp) -> None:
        self.branches.pop()

    def visit_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self.branches.append(Guard(node.left, isinstance(node.operator, cst.And)))

    def leave_BooleanOperation_right(self, node: cst.BooleanOperation) -> None:
        self.branches.pop()

    def visit_Assert(self, node: cst.Assert) -> None:
        self.suites[-1].append(Guard(node.test, True))

    def _guards(self) -> tuple[Guard, ...]:
        return tuple(self.branches) + tuple(g for suite in self.suites for g in suite)

    # --- sites ------------------------------------------------------------------------
    def visit_With_body(self, node: cst.With) -> None:
        if any(_callee_name(item.item) in EXPECTED_RAISE_NAMES for item in node.items):
            self.expected_raise_depth += 1
            self.raise_withs.append(node)

    def leave_With_body(self, node: cst.With) -> None:
        if self.raise_withs and self.raise_withs[-1] is node:
            self.raise_withs.pop()
            self.expected_raise_depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        name = _callee_name(node)
        if isinstance(node.func, cst.Name):
            name = self.aliases.get(name, name)
        if name in EXPECTED_RAISE_NAMES:
            self.expected_raise_depth += 1
            self.expected_raise_calls.append(node)
            return
        if name in self.ruleset.calls and not self.expected_raise_depth:
            self.call_sites.append((name, Site(node, self.scope, self._guards(), self.model)))

    def leave_Call(self, node: cst.Call) -> None:
        if self.expected_raise_calls and self.expected_raise_calls[-1] is node:
            self.expected_raise_calls.pop()
            self.expected_raise_depth -= 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in self.ruleset.attributes and not self.expected_raise_depth:
            self.call_sites.append((node.attr.value, Site(node, self.scope, self._guards(), self.model)))


def _callee_name(node: cst.CSTNode) -> str | None:
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _ends_in_exit(body: cst.BaseSuite) -> bool:
    if isinstance(body, cst.IndentedBlock):
        if not body.body:
            return False
        last = body.body[-1]
        if isinstance(last, cst.SimpleStatementLine):
            return any(isinstance(s, EXIT_STATEMENTS) for s in last.body)
        return False
    if isinstance(body, cst.SimpleStatementSuite):
        return any(isinstance(s, EXIT_STATEMENTS) for s in body.body)
    return False


def _target_matches(entry: Entry, site: Site) -> bool:
    target = entry.target
    node = site.node
    model = site.model
    if target.kind in ("function", "class"):
        return isinstance(node, cst.Call) and model.qualify(node.func, site.scope) == target.name
    if target.kind == "method":
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            return False
    elif not isinstance(node, cst.Attribute):
        return False
    if target.receivers:
        return model.instance_of(site.receiver, site.scope, frozenset(target.receivers))
    return True


def decode_source(data: bytes) -> str:
    """Bytes to text the way Python does (PEP 263 coding line, BOM), or SourceError."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise SourceError(f"cannot decode: {exc}") from exc
    return text[1:] if text.startswith("\ufeff") else text


def parse(source: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise SourceError(
            f"cannot parse: {exc.message}", exc.raw_line, max(exc.raw_column, 0)
        ) from exc
    except (RecursionError, MemoryError) as exc:
        raise SourceError(f"cannot parse: {type(exc).__name__}") from exc


def lint(
    source: str | bytes,
    path: str | None = None,
    ruleset: RuleSet | None = None,
) -> list[Diagnostic]:
    """Lint one file's text. Raises :class:`SourceError` when it cannot be parsed.

    ``path`` names the file (it decides the module name, which relative imports inside
    the sglang package need); nothing is read from it."""
    ruleset = ruleset or default_ruleset()
    text = decode_source(source) if isinstance(source, bytes) else source
    if not ruleset.may_match(text):
        return []
    module = parse(text)
    model = FileModel(path)
    visitor = DispatchVisitor(ruleset, model)
    try:
        module.visit(visitor)
    except RecursionError as exc:
        raise SourceError("too deeply nested to analyse") from exc

    findings: list[tuple[cst.CSTNode, str, str]] = []
    crashed: dict[str, str] = {}

    def run(entry: Entry, site: Site) -> None:
        if entry.rule.code in crashed:
            return
        try:
            for finding in entry.kind.run(site, entry.rule, entry.check, entry.target):
                findings.append((finding.node, entry.rule.code, finding.message))
        except Exception as exc:  # a broken check must not stop the others
            crashed[entry.rule.code] = f"{type(exc).__name__}: {exc}"

    for name, site in visitor.call_sites:
        table = ruleset.attributes if isinstance(site.node, cst.Attribute) else ruleset.calls
        for entry in table.get(name, ()):
            try:
                matched = _target_matches(entry, site)
            except Exception as exc:
                crashed.setdefault(entry.rule.code, f"{type(exc).__name__}: {exc}")
                continue
            if matched:
                run(entry, site)
    for site in visitor.class_sites:
        for entry in ruleset.classes:
            run(entry, site)

    diagnostics = []
    if findings:
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        seen = set()
        for node, code, message in findings:
            where = positions[node]
            key = (where.start.line, where.start.column, code, message)
            if key in seen:
                continue
            seen.add(key)
            diagnostics.append(
                Diagnostic(
                    where.start.line, where.start.column, code, message,
                    where.end.line, where.end.column,
                )
            )
    for code, error in crashed.items():
        diagnostics.append(
            Diagnostic(1, 0, CRASH_CODE, f"rule {code} crashed on this file ({error}); other rules still ran")
        )
    return sorted(diagnostics)
