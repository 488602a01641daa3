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

import dataclasses
import io
import re
import tokenize
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

import libcst as cst

from sglang_lint.catalog import CRASH_CODE, Check, Rule, Target, default_rules
from sglang_lint.checks import CHECK_KINDS, Site
from sglang_lint.checks.base import Fix, argument_of, guarded_on
from sglang_lint.resolve import ClassInfo, Defined, FileModel, Param, dotted_name, reads
from sglang_lint.screen import IDENTIFIER_BYTES, FileFacts, screen_call, whole_word
from sglang_lint.noqa import filter_noqa
from sglang_lint.visitor import DispatchVisitor, callee_name, walk


@dataclass(frozen=True)
class Edit:
    """A finding's fix as text: replace ``old`` (from ``line``:``col`` to ``end_line``:
    ``end_col``, 1-based lines, 0-based columns in characters) by ``new``."""

    line: int
    col: int
    end_line: int
    end_col: int
    old: str
    new: str
    safe: bool

    def describe(self) -> str:
        return f"{self.old} -> {self.new}"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding. ``line`` is 1-based, ``col`` 0-based (what flake8 wants from plugins)."""

    line: int
    col: int
    code: str
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: Edit | None = field(default=None, compare=False)
    # first and last line of the call the finding is in (where a ``# noqa`` also counts)
    span: tuple = field(default=(), compare=False)

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

    def __init__(self, rules: Sequence[Rule], screen: bool = True):
        self.rules = tuple(rules)
        self.screen = screen  # run the call-site screen (screen.py) after the text prefilter
        self.calls: dict[str, list[Entry]] = {}
        self.attributes: dict[str, list[Entry]] = {}
        self.classes: list[Entry] = []
        self.fields: list[Entry] = []  # targets that are dataclass-like configs (fields = true)
        # prefilter: every trigger, filed under its name (as bytes: the scan runs on bytes).
        self.by_name: dict[bytes, list[_Trigger]] = {}
        for rule in self.rules:
            for check in rule.checks:
                kind = CHECK_KINDS[check.kind]
                for trigger in kind.triggers(check):
                    self.by_name.setdefault(trigger.name.encode(), []).append(_Trigger.of(trigger))
                if kind.site == "class":
                    self.classes.append(Entry(rule, check, None))
                    continue
                for target in check.targets:
                    table = self.attributes if target.kind == "attribute" else self.calls
                    table.setdefault(target.last_name, []).append(Entry(rule, check, target))
                    if target.fields:
                        self.fields.append(Entry(rule, check, target))
        self.names = frozenset(self.by_name)

    def may_match(self, source: str | bytes, module: str | None = None) -> bool:
        """Could any check fire on this text (of the module named ``module``, if known)?
        False means: skip the file, parse nothing."""
        return self.skip_reason(source, module) is None

    def skip_reason(self, source: str | bytes, module: str | None = None) -> str | None:
        """Why the file need not be parsed (:data:`SKIPPED_NO_NAME`, :data:`SKIPPED_BY_SCREEN`),
        or None when it must be.

        First the file's identifiers: its bytes with every byte that cannot be part of one
        turned into a space, split (two C loops, whatever the number of rules). Only the
        names found there have their shapes (``name(``, ``.name(``) and other words checked,
        and each call found that way passes the call-site screen (screen.py) or not."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        present = self.names.intersection(data.translate(IDENTIFIER_BYTES).split())
        facts = FileFacts(data)
        reason = SKIPPED_NO_NAME
        for name in present:
            for trigger in self.by_name[name]:
                if not ((module is not None and module == trigger.module) or all(
                    (word in data) if isinstance(word, bytes) else word.search(data) for word in trigger.also
                )):
                    continue
                found = _fires(data, name, trigger, facts if self.screen else None)
                if found == "fires":
                    return None
                if found == "screened":
                    reason = SKIPPED_BY_SCREEN
        return reason

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
            ],
            self.screen,
        )


MAX_PARSE_BYTES = 4_000_000  # sglang 0.5.23's largest file is 0.3 MB
SKIPPED_NO_NAME = "calls no catalog name (text prefilter)"
SKIPPED_BY_SCREEN = "no call the engine could judge (call-site screen)"
PARSED = "parsed with LibCST"

_SPACE = frozenset(b" \t\r\n\f\\")  # a backslash continues a line
_WINDOW = 80


@dataclass(frozen=True)
class _Trigger:
    """A check's :class:`Trigger` compiled for the bytes scan."""

    shape: str
    also: tuple  # bytes, or compiled bytes patterns
    module: str | None
    screen: object  # see Trigger.screen

    @classmethod
    def of(cls, trigger) -> "_Trigger":
        also = tuple(
            word.encode() if isinstance(word, str) else re.compile(word.pattern.encode(), word.flags & ~re.UNICODE)
            for word in trigger.also
        )
        return cls(trigger.shape, also, trigger.module, trigger.screen)


def _next_char(data: bytes, index: int) -> int:
    """The first byte at or after ``index`` that is not white space (-1 at the end)."""
    end = min(len(data), index + _WINDOW)
    while index < end and data[index] in _SPACE:
        index += 1
    return data[index] if index < end else -1


def _previous_char(data: bytes, index: int) -> int:
    """The last byte before ``index`` that is not white space (-1 at the start)."""
    start = max(0, index - _WINDOW)
    index -= 1
    while index >= start and data[index] in _SPACE:
        index -= 1
    return data[index] if index >= start else -1


_DEFINITION = re.compile(rb"(?:def|class)[ \t]+$")
_IMPORT_ALIAS = re.compile(rb"\s+as\s")


def _fires(data: bytes, name: bytes, trigger: _Trigger, facts: FileFacts | None) -> str | None:
    """"fires" when ``name`` is written, as a whole identifier, in the trigger's shape
    somewhere in ``data`` and (for a call, when ``facts`` are given) the call passes the
    screen; "screened" when it is written so but every such call failed the screen."""
    found = None
    index = data.find(name)
    while index >= 0:
        end = index + len(name)
        if whole_word(data, index, end):
            shape = _shape_at(data, index, end, trigger.shape)
            if shape == "call" and facts is not None and trigger.screen is not None:
                if screen_call(data, end, trigger.screen, facts):
                    return "fires"
                found = "screened"
            elif shape:
                return "fires"
        index = data.find(name, end)
    return found


def _shape_at(data: bytes, index: int, end: int, shape: str) -> str | None:
    """None when ``shape`` is not there; "call" for a call ``name(`` (what the screen
    judges); "other" for any other way it matches."""
    following = _next_char(data, end)
    if shape == "word":
        return "call" if following == ord("(") else "other"
    if shape == "config":
        line_start = data.rfind(b"\n", 0, index) + 1
        if data[line_start:index].lstrip().startswith(b"class"):
            return "other"  # the config class's own statement, or a subclass's
        shape = "callable"
    if shape == "callable":
        if following == ord("("):
            # ``def name(`` and ``class name(`` define it, they do not call it.
            return None if _DEFINITION.search(data, max(0, index - 16), index) else "call"
        # ``import name as alias`` (then ``alias(...)``); ``partial(mod.name, ...)``
        if _IMPORT_ALIAS.match(data, end) or b"partial(" in data[max(0, index - _WINDOW) : index]:
            return "other"
        return None
    if _previous_char(data, index) != ord("."):
        return None
    if shape == "member":
        return "other"
    return "call" if following == ord("(") else None


@lru_cache(maxsize=None)
def default_ruleset() -> RuleSet:
    return RuleSet(default_rules())


def _effective_target(entry: Entry, site: Site) -> Target | None:
    """The target as it applies at this site, or None when the site is not a call of it.

    Functions and classes match by qualified name; methods and attributes by name, with
    receiver evidence where the rule asks for it."""
    target = entry.target
    node = site.node
    model = site.model
    if site.partial is not None and model.qualify(site.partial.func, site.scope) != "functools.partial":
        return None
    if target.kind in ("function", "class"):
        if not isinstance(node, cst.Call):
            return None
        return target if model.qualify(node.func, site.scope) == target.name else None
    if target.kind == "method":
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            return None
    elif not isinstance(node, cst.Attribute):
        return None
    if target.receivers and not model.instance_of(site.receiver, site.scope, frozenset(target.receivers)):
        return None
    return target


@dataclass(frozen=True)
class Wrapper:
    """A function of the linted file that hands one of its parameters, unchanged and
    unchecked, to a checked argument: calls of it are checked as calls of the target."""

    function: cst.FunctionDef
    owner: ClassInfo | None  # the class, for a method called as ``self.name(...)``
    target: Target


def _wrapper(entry: Entry, target: Target, site: Site) -> Wrapper | None:
    if not isinstance(site.node, cst.Call):
        return None
    arg = argument_of(site.node, target.argument, target.position, site)
    if arg is None or not isinstance(arg.value, cst.Name):
        return None
    name = arg.value.value
    found = site.model.reaching(name, site.scope, site.where)
    if found is None or len(found[0]) != 1 or not isinstance(found[0][0].value, Param):
        return None
    param, owner = found[0][0].value, found[1]
    function = param.function
    if not isinstance(function, cst.FunctionDef) or owner.node is not function or guarded_on(site, name):
        return None
    decorators = {dotted_name(d.decorator) for d in function.decorators}
    method = owner.class_info is not None and "staticmethod" not in decorators
    if param.index == 0 and method:
        return None  # ``self`` itself
    position = None if param.index < 0 else param.index - (1 if method else 0)
    wrapped = Target(
        kind="method" if method else "function",
        name=function.name.value,
        argument=name,
        position=position,
        via=f"{function.name.value}() passes {name} on to {target.display}()",
    )
    return Wrapper(function, owner.class_info if method else None, wrapped)


def _calls_bound_to(visitor: DispatchVisitor, node: cst.FunctionDef | cst.ClassDef) -> list[Site]:
    """The plain calls ``name(...)`` of the file where every binding of ``name`` in reach is
    the ``def``/``class`` statement ``node``."""
    model = visitor.model
    found = []
    for site in visitor.calls_by_name.get(node.name.value, ()):
        func = site.node.func
        if isinstance(func, cst.Name):
            hit = model.lookup(func.value, site.scope)
            if hit and all(isinstance(b.value, Defined) and b.value.node is node for b in hit[0]):
                found.append(site)
    return found


def _calls_of(wrapper: Wrapper, visitor: DispatchVisitor) -> list[Site]:
    """The calls in the file that reach ``wrapper.function``: by its name where that name is
    bound to it, or as ``self.name(...)`` inside its class (or a subclass in the file)."""
    if wrapper.owner is None:
        return _calls_bound_to(visitor, wrapper.function)
    found = []
    for site in visitor.calls_by_name.get(wrapper.function.name.value, ()):
        if isinstance(site.node.func, cst.Attribute):
            info = visitor.model.enclosing_class_of_self(site.scope)
            if info is not None and visitor.model.is_local_subclass(info, wrapper.owner):
                found.append(site)
    return found


def _subclass_calls(entry: Entry, site: Site, visitor: DispatchVisitor) -> list[tuple[Target, Site]]:
    """Calls of a subclass (defined in this file) of a config class: its keywords are the
    config's fields (by keyword only: a subclass may add fields before them)."""
    model = site.model
    info = model.classes[site.node]
    target = entry.target
    if info.qualified == target.name or not model.class_is_a(info, frozenset({target.name})):
        return []
    derived = dataclasses.replace(target, name=info.name, position=None)
    return [(derived, call) for call in _calls_bound_to(visitor, site.node)]


def _field_sites(entry: Entry, site: Site) -> list[tuple[Target, Site]]:
    """A config class's own field default, or a subclass's, as a keyword of the class call:
    ``class MyArch(SanaWMArchConfig): gdn_backend: str = "cuda"`` is ``gdn_backend="cuda"``
    for every ``MyArch()``."""
    model = site.model
    info = model.classes[site.node]
    target = entry.target
    if not model.class_is_a(info, frozenset({target.name})):
        return []
    scope = model.class_scopes.get(site.node)
    body = site.node.body
    if scope is None or not isinstance(body, cst.IndentedBlock):
        return []
    sites = []
    for statement in body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            value = None
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                if small.target.value == target.argument:
                    value = small.value
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                name = small.targets[0].target
                if isinstance(name, cst.Name) and name.value == target.argument:
                    value = small.value
            value = _field_default(value)
            if value is None:
                continue
            call = cst.Call(func=cst.Name(info.name), args=[cst.Arg(value=value, keyword=cst.Name(target.argument))])
            sites.append(
                (dataclasses.replace(target, name=info.name, position=None), Site(call, scope, (), model, None))
            )
    return sites


def _field_default(value: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """``x: str = "a"`` -> ``"a"``; ``x: str = field(default="a")`` -> ``"a"``."""
    if isinstance(value, cst.Call) and callee_name(value) == "field":
        default = argument_of(value, "default", None)
        return default.value if default is not None else None
    return value


def _deliberate(visitor: DispatchVisitor, site: Site) -> bool:
    """Is the call a negative test's deliberate bad value? Its result is bound to a name
    (``args = ServerArgs(...)``) that an expected-raise block, reached by that very binding,
    reads: ``with pytest.raises(...): args.check()``, ``self.assertRaises(E, args.check)``."""
    for name, binding in visitor.bound_calls.get(site.node, ()):
        for block, scope, where in visitor.raise_blocks:
            found = visitor.model.reaching(name, scope, where)
            if found is not None and binding in found[0] and reads(block, name):
                return True
    return False


def _span(model: FileModel, call: cst.CSTNode) -> tuple:
    """The first and last line of the call (or class) a finding is in; () for a call the
    engine made up (a config field default seen as a keyword)."""
    try:
        where = model.position(call)
    except KeyError:
        return ()
    return (where.start.line, where.end.line)


def _edit(model: FileModel, fix: Fix | None) -> Edit | None:
    if fix is None:
        return None
    where = model.position(fix.node)
    return Edit(where.start.line, where.start.column, where.end.line, where.end.column, fix.old, fix.text, fix.safe)


def decode_source(data: bytes) -> str:
    """Bytes to text the way Python does (PEP 263 coding line, BOM), or SourceError."""
    return decode_with_encoding(data)[0]


def decode_with_encoding(data: bytes) -> tuple[str, str]:
    """(text, encoding); ``text.encode(encoding)`` gives ``data`` back (a BOM is part of
    the ``utf-8-sig`` encoding, so it is dropped from the text and comes back on encoding)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise SourceError(f"cannot decode: {exc}") from exc
    return text, encoding


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
    noqa: bool = True,
) -> list[Diagnostic]:
    """Lint one file's text. Raises :class:`SourceError` when it cannot be parsed.

    ``path`` names the file (it decides the module name, which relative imports inside
    the sglang package need); nothing is read from it. ``noqa``: leave out what a
    ``# noqa`` comment silences (see noqa.py)."""
    return analyse(source, path, ruleset, noqa)[0]


def analyse(
    source: str | bytes,
    path: str | None = None,
    ruleset: RuleSet | None = None,
    noqa: bool = True,
) -> tuple[list[Diagnostic], str]:
    """:func:`lint`, and how far the file went: why it was skipped, or :data:`PARSED`."""
    ruleset = ruleset or default_ruleset()
    text = decode_source(source) if isinstance(source, bytes) else source
    diagnostics, stage = _analyse(source, text, path, ruleset)
    if noqa and diagnostics:
        diagnostics = filter_noqa(diagnostics, LINE_END.split(text), text)
    return diagnostics, stage


LINE_END = re.compile(r"\r\n|\r|\n")  # the line ends Python (and LibCST) count


def _analyse(source: str | bytes, text: str, path: str | None, ruleset: RuleSet) -> tuple[list[Diagnostic], str]:
    model = FileModel(path)
    skipped = ruleset.skip_reason(source, model.module_name)
    if skipped is not None:
        return [], skipped
    size = len(source) if isinstance(source, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_PARSE_BYTES:
        # LibCST needs about 100 bytes of memory per byte of source and seconds per MB: a
        # generated file this big is reported, not parsed.
        raise SourceError(
            f"not analysed: {size / 1e6:.1f} MB is over the {MAX_PARSE_BYTES / 1e6:.0f} MB limit of files "
            "sglang-lint parses (it calls a catalog API)"
        )
    module = parse(text)
    model.module = module
    visitor = DispatchVisitor(ruleset, model)
    try:
        walk(visitor, module)
    except RecursionError as exc:
        raise SourceError("too deeply nested to analyse") from exc

    findings: list[tuple[cst.CSTNode, str, str, Fix | None, cst.CSTNode]] = []
    crashed: dict[str, str] = {}

    def guarded(code: str, action) -> None:
        if code in crashed:
            return
        try:
            action()
        except Exception as exc:  # a broken check must not stop the others
            crashed[code] = f"{type(exc).__name__}: {exc}"

    def check(entry: Entry, target: Target | None, site: Site, via: str | None = None) -> None:
        for finding in entry.kind.run(site, entry.rule, entry.check, target):
            if _deliberate(visitor, site):
                return
            message = f"{finding.message} ({via})" if via else finding.message
            findings.append((finding.node, entry.rule.code, message, finding.fix, site.node))

    # Calls of the rules' targets; then, through wrappers defined in this file, calls of
    # those wrappers (transitively, each wrapper once).
    work: list[tuple[Entry, Target, Site, str | None]] = []
    aliased = [(name, site) for local, name in visitor.aliases.items() for site in visitor.calls_by_name.get(local, ())]
    for name, site in visitor.call_sites + aliased:
        table = ruleset.attributes if isinstance(site.node, cst.Attribute) else ruleset.calls
        for entry in table.get(name, ()):
            def match(entry=entry, site=site):
                target = _effective_target(entry, site)
                if target is not None:
                    work.append((entry, target, site, None))
            guarded(entry.rule.code, match)
    seen: set[tuple[int, str, str]] = set()
    while work:
        entry, target, site, via = work.pop(0)
        guarded(entry.rule.code, lambda: check(entry, target, site, via))
        if not entry.kind.through_wrappers:
            continue

        def follow(entry=entry, target=target, site=site):
            wrapper = _wrapper(entry, target, site)
            if wrapper is None:
                return
            key = (id(wrapper.function), wrapper.target.argument, entry.rule.code)
            if key in seen:
                return
            seen.add(key)
            for call in _calls_of(wrapper, visitor):
                work.append((entry, wrapper.target, call, wrapper.target.via))
        guarded(entry.rule.code, follow)

    for site in visitor.class_sites:
        for entry in ruleset.classes:
            guarded(entry.rule.code, lambda: check(entry, None, site))
        for entry in ruleset.fields:
            def fields(entry=entry, site=site):
                for target, field_site in _field_sites(entry, site) + _subclass_calls(entry, site, visitor):
                    check(entry, target, field_site)
            guarded(entry.rule.code, fields)

    diagnostics = []
    if findings:
        seen_findings = set()
        for node, code, message, fix, call in findings:
            where = model.position(node)
            key = (where.start.line, where.start.column, code, message)
            if key in seen_findings:
                continue
            seen_findings.add(key)
            diagnostics.append(
                Diagnostic(
                    where.start.line, where.start.column, code, message,
                    where.end.line, where.end.column, _edit(model, fix), _span(model, call),
                )
            )
    for code, error in crashed.items():
        diagnostics.append(
            Diagnostic(1, 0, CRASH_CODE, f"rule {code} crashed on this file ({error}); other rules still ran")
        )
    return sorted(diagnostics), PARSED
