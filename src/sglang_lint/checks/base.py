"""What every check kind shares: the site it is given, what it returns, argument binding,
and the pieces of a message (how a value is shown, which allowed value is closest)."""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.resolve import Known
from sglang_lint.analysis.site import Site
from sglang_lint.analysis.syntax import mentions
from sglang_lint.core.model import Fix, Span
from sglang_lint.screen.calls import receiver_screen
from sglang_lint.text.pynames import SCALARS, UNKNOWN, condition_passes, find_argument, literal_in  # noqa: F401
from sglang_lint.text.pynames import Ref
from sglang_lint.text.words import AnyIdentifier, Identifier


def common_targets(checks) -> tuple:
    """The targets every one of these checks has (by callee and argument); an argument that
    moved between them keeps its name and loses its position."""
    targets = []
    for target in checks[0].targets:
        where = (target.kind, target.name, target.argument)
        same = [next((t for t in c.targets if (t.kind, t.name, t.argument) == where), None) for c in checks]
        if any(t is None for t in same):
            continue
        if any(t.position != target.position for t in same):
            if target.argument is None:
                continue
            target = dataclasses.replace(target, position=None)
        targets.append(target)
    return tuple(targets)


def identical_across_releases(checks):
    """Checks (newest first) that differ only in where the argument sits: one at the targets
    they share; None when their parameters differ."""
    targets = common_targets(checks)
    if not targets or any(c.params != checks[0].params for c in checks):
        return None
    return dataclasses.replace(checks[0], targets=targets, since=checks[-1].since, until=checks[0].until)


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
    # (Check) -> how its findings are fixed, for the rule docs ("" when they are not).
    fix_safety: Callable = lambda check: ""
    # (Site, Check, Target) -> [(name, takes, program)]: the names at this site that may be
    # parameters of its function, handed on in a way of the kind's own (a launch helper's extra
    # flags, and the program they go to; its **kwargs); reach.parameter_wrapper makes the wrapper
    # where one is.
    wrappers: Callable | None = None
    # (Check, launch_flags.Launch) -> Iterable[Finding]: judge a launch command found outside
    # Python (shell scripts, Markdown, YAML); None for kinds that judge Python calls only.
    run_text: Callable | None = None
    # (Check) -> the target an argv list that starts sglang's launcher is judged as where it
    # stands (analysis/standing.py: a command line), or None where the check judges none.
    standing: Callable | None = None
    # For a check on one argument's value: (params, value) -> does sglang raise on this value?
    # The one statement of the verdict: the check (on values the resolver knows) and the
    # call-site screen (on literals written at the call) both ask it.
    fails: Callable | None = None
    # (checks, newest first, each sglang's for some of a project's releases) -> one check that
    # fails where every one of them fails, or None when the kind cannot say (then none is on).
    across_releases: Callable = identical_across_releases


FIX_SAFETY = (
    "safe/unsafe fix: safe when the bad literal differs from one allowed value only by case, "
    "'-', '_' or spaces, or is a unique prefix of it (`sglang-lint --fix`); unsafe when that "
    "value is only the unique nearest spelling (`--fix --unsafe-fixes`); no fix on a tie, or "
    "when the value is not a plain literal"
)


@dataclass(frozen=True)
class Trigger:
    """Text a file must contain for a check to possibly fire there.

    ``name`` written in ``shape`` (``word``: anywhere; ``file``: anywhere, and ``screen``
    judges the file's ast module, not a call; ``call``: ``.name(``; ``member``:
    ``.name``; ``callable``: ``name(``, or ``name as`` in an import, or inside a
    ``partial(...)``: every way the engine can see a function or class called; ``config``:
    callable, or on a ``class`` line, defining the config class or a subclass of it), and
    every item of ``also`` (a substring, or a compiled pattern)."""

    name: str
    shape: str = "word"
    also: tuple = ()
    # A function or class is called only where its module is imported (so the module's
    # last name is written) or inside that module itself (known from the file's path).
    module: str | None = None
    # (ast.Call, FileFacts) -> could a call written ``name(...)`` fire? (see screen/calls.py);
    # None: any call can.
    screen: Callable | None = None
    # A function or class target's full name: a call can fire only where its callee may
    # qualify to it (the engine matches those by qualified name).
    qualified: str | None = None


def target_trigger(target, *also, screen: Callable | None = None) -> Trigger:
    # A config class's fields are also read from ``class Mine(Config):`` statements.
    shape = {"method": "call", "attribute": "member"}.get(target.kind, "config" if target.fields else "callable")
    module = qualified = None
    receivers = sorted({name.rpartition(".")[2] for name in getattr(target, "receivers", ())})
    if receivers and target.kind == "method":
        screen = receiver_screen(frozenset(target.receivers), target.on_class, screen)
    if receivers:
        # the receiver is shown to be one of these classes only where the file names it (made
        # there, subclassed there, or its own module): ``build`` alone would pass most files
        also = (*also, Identifier(receivers[0]) if len(receivers) == 1 else AnyIdentifier(receivers))
    if target.kind in ("function", "class"):
        module, qualified = target.name.rpartition(".")[0], target.name
        also = (Identifier(module.rpartition(".")[2]), *also)
    return Trigger(target.last_name, shape, tuple(also), module, screen, qualified)


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
    found = find_in_call(call, name, position, site)
    if found is None or found is UNKNOWN:
        return None
    arg, through = found
    holder = through.value if through is not None and isinstance(through.value, cst.Name) else None
    return arg, holder


def find_in_call(call: cst.Call, name: str | None, position: int | None, site: Site | None):
    """:func:`~sglang_lint.text.pynames.find_argument` on this call, ``**`` mappings read as the
    resolver knows them: (argument, mapping) / None (absent) / UNKNOWN."""
    return find_argument(call_arguments(call), name, position, lambda arg: _mapping_items(arg, site))


def omitted_at(site: Site, target) -> bool:
    """Does this call certainly leave the target's argument out (not by keyword, not at its
    position, no ``*args``/``**kwargs`` that might hold it)? Then the parameter's default
    is what the function sees."""
    if not isinstance(site.node, cst.Call) or site.partial is not None:
        return False
    return find_in_call(site.node, target.argument, target.position, site) is None


def conditions_hold(site: Site, conditions) -> bool:
    """Is every condition certainly met at this call: its argument a literal the call passes
    (one value, written here, not a parameter's default), or left out with a literal default?"""
    if not isinstance(site.node, cst.Call) or site.partial is not None:
        return False
    for condition in conditions:
        found = find_in_call(site.node, condition.argument, condition.position, site)
        if found is UNKNOWN:
            return False
        if found is None:
            if not condition.has_default or not condition_passes(condition.holds, condition.values, condition.default):
                return False
            continue
        value = found[0].value
        if isinstance(value, (cst.List, cst.Tuple, cst.Dict, cst.Set)):
            # A display written at the call: never equal to a scalar or None, true when not empty.
            if condition.holds == "in" or (condition.holds in ("truthy", "falsy")
                                           and bool(value.elements) != (condition.holds == "truthy")):
                return False
            continue
        known = list(site.model.evaluate(value, site.scope, site.where))
        if len(known) != 1 or known[0].default or isinstance(known[0].value, Ref) or not isinstance(
                known[0].value, SCALARS + (type(None),)):
            return False
        if not condition_passes(condition.holds, condition.values, known[0].value):
            return False
    return True


def call_arguments(call: cst.Call) -> list[tuple[str | None, str, cst.Arg]]:
    """The call's arguments as :func:`~sglang_lint.text.pynames.find_argument` reads them."""
    return [(arg.keyword.value if arg.keyword is not None else None, arg.star, arg) for arg in call.args]


def _mapping_items(arg: cst.Arg, site: Site | None) -> list[tuple[str, cst.Arg]] | None:
    """The string keys of a ``**{...}`` literal (or of a dict name bound to one, never
    changed), each with its value as an argument; None when the mapping is unknown."""
    mapping = site.model.dict_literal(arg.value, site.scope, site.where) if site else arg.value
    if not isinstance(mapping, cst.Dict):
        return None
    return [
        (element.key.evaluated_value, cst.Arg(value=element.value))
        for element in mapping.elements
        if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)
    ]


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


@dataclass(frozen=True)
class Suggestion:
    """The allowed value a bad one most plausibly meant, and whether that is certain."""

    value: object
    safe: bool


def suggest(value: object, allowed: Iterable[object], cutoff: float = 0.6) -> Suggestion | None:
    """The one allowed value ``value`` meant, or None (never on a tie).

    Safe: the only allowed value equal to it up to case and ``-``/``_``/space, or the only
    one it is a prefix of (``"pre"`` for ``"pre_rope"``, as argparse takes ``--tp``).
    Unsafe: the unique nearest by spelling (difflib ratio at least ``cutoff``)."""
    allowed = list(allowed)
    if isinstance(value, Ref):
        value = value.qualified.rsplit(".", 1)[-1]
        labels = {a.rsplit(".", 1)[-1] if isinstance(a, str) else str(a): a for a in allowed}
    else:
        labels = {a if isinstance(a, str) else str(a): a for a in allowed}
    if not isinstance(value, str) or not value:
        return None
    normal = _normal(value)
    same = [a for label, a in labels.items() if _spelling(label)[0] == normal]
    if len(same) == 1:
        return Suggestion(same[0], True)
    if same:
        return None  # two allowed values differ only by case or separators: no guess
    prefixed = [a for label, a in labels.items() if _spelling(label)[0].startswith(normal)]
    if len(prefixed) > 1:
        return None  # ``"fp8"`` starts both ``fp8_e5m2`` and ``fp8_e4m3``: a tie
    if prefixed and len(normal) >= 2:
        return Suggestion(prefixed[0], True)
    nearest = _nearest(normal, labels, cutoff)
    return Suggestion(labels[nearest], False) if nearest is not None else None


@functools.lru_cache(maxsize=8192)
def _spelling(label: str) -> tuple[str, tuple[tuple[str, int], ...]]:
    """A label as compared (:func:`_normal`) and how often each letter is in it (kept: the
    same few hundred argument names are compared with every unknown keyword)."""
    normal = _normal(label)
    return normal, tuple(Counter(normal).items())


def _nearest(normal: str, labels: Iterable[str], cutoff: float) -> str | None:
    """The one label whose spelling is nearest ``normal`` (difflib ratio, at least ``cutoff``),
    or None on a tie. A label is measured only where difflib's cheap upper bounds (the lengths,
    then the letters in common) reach the best ratio so far: an unknown keyword is measured
    against a few of sglang's hundreds of arguments, not all."""
    letters = Counter(normal)
    best, nearest = cutoff, []
    for label in labels:
        other, its_letters = _spelling(label)
        total = len(normal) + len(other)
        if 2.0 * min(len(normal), len(other)) / total < best:
            continue
        common = sum(min(count, letters[letter]) for letter, count in its_letters)
        if 2.0 * common / total < best:
            continue
        ratio = difflib.SequenceMatcher(None, normal, other).ratio()
        if ratio > best or not nearest and ratio == best:
            best, nearest = ratio, [label]
        elif ratio == best:
            nearest.append(label)
    return nearest[0] if len(nearest) == 1 else None


def plausible_typo(written: str, meant: str) -> bool:
    """Could ``written`` be a slip of the keys for the name ``meant``? The same words in the
    same order (split at ``-``, ``_``, spaces), each within a few edits of its twin (one per
    three letters, rounded up: ``graf`` -> ``graph``). ``--disable-piecewise-cuda-graph`` is no typo of
    ``--disable-decode-cuda-graph`` (another word: the opposite graph), nor
    ``--dsa-prefill-cp-mode`` of ``--dsa-prefill-backend`` (other words)."""
    ours, theirs = _words(written), _words(meant)
    if len(ours) != len(theirs):
        return False
    return all(_edits(a, b) <= (max(len(a), len(b)) + 2) // 3 for a, b in zip(ours, theirs))


def _words(name: str) -> list[str]:
    return [w for w in _normal(name).strip("_").split("_") if w]


def _edits(a: str, b: str) -> int:
    """Edit distance with transpositions (optimal string alignment): ``backnd`` -> 1."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                cost = min(cost, previous2[j - 2] + 1)
            current.append(cost)
        previous2, previous = previous, current
    return previous[-1]


def _string_body_ok(text: str, quote: str) -> bool:
    return text.isprintable() and "\\" not in text and quote[0] not in text


def string_fix(node: cst.CSTNode | None, new_value: str, safe: bool, keep_prefix: str = "") -> Fix | None:
    """A fix writing ``new_value`` into the string literal ``node``, keeping its prefix and
    quotes (a raw string stays raw, double quotes stay double); None when ``node`` is
    not a plain string literal or the new text would need escapes. ``keep_prefix``: text the
    literal starts with that stays (``--flag=`` before an inline value). A :class:`Span` (a
    word of a shell command) is rewritten where its source is the word itself."""
    if isinstance(node, Span):
        ok = node.exact and node.text.startswith(keep_prefix) and _shell_word_ok(new_value)
        return Fix(node, node.text, keep_prefix + new_value, safe) if ok else None
    if not isinstance(node, cst.SimpleString) or "b" in node.prefix.lower():
        return None
    if not _string_body_ok(new_value, node.quote):
        return None
    body = node.value[len(node.prefix) + len(node.quote) : -len(node.quote)]
    if not body.startswith(keep_prefix) or "\\" in body:
        return None  # escapes in the old text: its source and value differ, leave it
    return Fix(node, node.value, f"{node.prefix}{node.quote}{keep_prefix}{new_value}{node.quote}", safe)


def _shell_word_ok(word: str) -> bool:
    """Can ``word`` stand in a shell command unquoted?"""
    return bool(word) and all(c.isalnum() or c in "-_.,=:/+@%" for c in word)


def name_fix(node: cst.CSTNode | None, new_name: str, safe: bool) -> Fix | None:
    """A fix renaming an identifier (a keyword argument, an enum member after its dot)."""
    if isinstance(node, cst.Attribute):
        node = node.attr
    if not isinstance(node, cst.Name) or not new_name.isidentifier():
        return None
    return Fix(node, node.value, new_name, safe)


def rename_fix(node, new_name: str, safe: bool) -> Fix | None:
    """A fix writing ``new_name`` over a keyword's name or a flag's string literal."""
    return name_fix(node, new_name, safe) if isinstance(node, cst.Name) else string_fix(node, new_name, safe)


def rename_hint(word: str, options, node, written: Callable[[str], str] | None = None) -> tuple[str, Fix | None]:
    """The hint (and fix) for a name or flag nothing takes: its closest real one, where the
    name is the same up to case and separators or a plausible typo of it (never a guess
    across words). ``written``: how the command spells that one (a framework's prefixed flag)."""
    found = suggest(word, options, cutoff=0.75)
    if found is None or not (found.safe or plausible_typo(word, found.value)):
        return "", None
    name = written(found.value) if written is not None else found.value
    fix = rename_fix(node, name, found.safe)
    return did_you_mean(repr(name), fix), fix


def did_you_mean(shown: str, fix: Fix | None) -> str:
    """`` (did you mean 'x'?)``, saying whether ``sglang-lint --fix`` can write it."""
    if fix is None:
        return f" (did you mean {shown}?)"
    command = "sglang-lint --fix" if fix.safe else "sglang-lint --fix --unsafe-fixes"
    return f" (did you mean {shown}? fixable with `{command}`)"


def guarded_on(site: Site, name: str) -> bool:
    """Does a condition in force at the site test ``name`` (``if x:``, ``if x is not None``,
    an early ``return`` when it is None, ``assert x ...``)? Then its value there is not
    guessed at."""
    return any(
        mentions(guard.test, lambda n: isinstance(n, cst.Name) and n.value == name) for guard in site.guards
    )
