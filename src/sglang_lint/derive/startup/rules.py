"""From the start-up run's sites to rules (derive/startup/run.py): which conditions a launch can
make certainly true, and why the others can never be (what they need that a linter cannot
know, counted by kind)."""

from __future__ import annotations

import ast
import hashlib
from collections import Counter
from dataclasses import dataclass

from sglang_lint.checks.fails_when.conditions import is_query
from sglang_lint.checks.fails_when.grammar import BUILTINS, QUERY_PREFIX
from sglang_lint.derive.startup.platform_probes import probes_read
from sglang_lint.derive.startup.sequence import Startup
from sglang_lint.derive.reading.symbolic import (
    OUTSIDE_NAMES, UNKNOWN_NAME, is_unknown, nodes, queries_kept_where_repeated, reasons, size,
)

# --- from sites to rules ------------------------------------------------------------------
# Why a condition can never be certain, by what its unknown parts stand for (the skipped
# sites' table). A condition's kind: the first category whose words one of its unknowns'
# reasons names (in this order, whichever unknown the condition reads first).
UNKNOWABLE = (
    ("the model's config", ("model_config", "hf_config", "get_config", "arch", "config", "from_pretrained",
                            "ConnectorType", "parse_connector_type", "draft", "quant", "checkpoint", "mla", "nsa",
                            "is_deepseek")),
    ("the GPU or platform", ("cuda", "hip", "npu", "xpu", "hpu", "musa", "mps", "cpu", "device", "platform", "sm1",
                             "sm9", "sm8", "blackwell", "capability", "memory", "gpu", "flashinfer_available",
                             "xmx", "arm64", "aiter", "amx", "mlx")),
    ("an installed package or a file", ("import", "find_spec", "version", "os.path", "isfile", "exists", "open",
                                        "file")),
    ("an environment variable the launch does not set", ("env",)),
    ("the run's own state (a loop, a try, a value computed at run time)", ("loop", "try", "random", "time",
                                                                           "socket", "port")),
)


def unknowable(reasons: list[str]) -> str:
    """The kind of what a condition needs and a linter cannot know (``reasons``: of each of its
    unknowns), as UNKNOWABLE orders them."""
    lowered = [reason.lower() for reason in reasons]
    for category, words in UNKNOWABLE:
        if any(word.lower() in reason for reason in lowered for word in words):
            return category
    return "a value the derivation does not follow"


def may_be_certain(node: ast.expr, memo: dict | None = None, decidable: frozenset = frozenset()) -> bool:
    """Can the condition be certainly true for some launch? (No where it needs an unknown
    to be true: ``a and unknown``; a test of unknowns alone.) ``decidable``: the queries a
    declaration may answer (the platform's probes), read as the launch's own inputs."""
    return _may(node, True, {} if memo is None else memo, decidable)


def may_be_false(node: ast.expr, memo: dict | None = None) -> bool:
    return _may(node, False, {} if memo is None else memo, frozenset())


def _may(node: ast.expr, want: bool, memo: dict, decidable: frozenset) -> bool:
    """Can ``node`` certainly have the truth ``want``? (Each shared part decided once.)"""
    key = (id(node), want)
    if key not in memo:
        memo[key] = _decide(node, want, memo, decidable)
    return memo[key]


def _decide(node: ast.expr, want: bool, memo: dict, decidable: frozenset) -> bool:
    if is_unknown(node) or (is_query(node) and node.id not in decidable):
        return False
    if isinstance(node, ast.Constant):
        return bool(node.value) is want
    if isinstance(node, ast.BoolOp):
        ends = isinstance(node.op, ast.Or)  # the truth one operand gives the whole
        parts = [_may(v, want, memo, decidable) for v in node.values]
        return any(parts) if want is ends else all(parts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _may(node.operand, not want, memo, decidable)
    if isinstance(node, ast.IfExp):
        return (_may(node.test, True, memo, decidable) and _may(node.body, want, memo, decidable)) or (
            _may(node.test, False, memo, decidable) and _may(node.orelse, want, memo, decidable)) or (
            _may(node.body, want, memo, decidable) and _may(node.orelse, want, memo, decidable))
    return _reads_input(node, decidable)


def _reads_input(node: ast.expr, decidable: frozenset = frozenset()) -> bool:
    """Does the expression read a field or an environment variable (something a launch may
    say), or a query of ``decidable``, other than through an unknown?"""
    return any(isinstance(n, ast.Name) and n.id != UNKNOWN_NAME and n.id not in BUILTINS
               and (not n.id.startswith(QUERY_PREFIX) or n.id in decidable)
               and not (decidable and n.id in OUTSIDE_NAMES) for n in nodes(node))  # (torch: the machine's)


@dataclass(frozen=True)
class Rule:
    """One start-up site of one release as a rule: its condition over the fields and
    environment variables, and the literal defaults of the fields it reads."""

    module: str
    function: str
    exception: str
    message: str
    condition: str
    defaults: tuple  # ((field, default), ...) of the fields it reads that have a literal default
    values: tuple = ()  # ((name, expression), ...): the parts the condition reads in several places
    shown: tuple = ()  # the expression each ``{...}`` of the message shows ("" where not known)
    platform: tuple = ()  # the platform probes it needs answered (judged only on a declared machine)

    def __hash__(self) -> int:  # (a default may be a list)
        return hash((self.module, self.function, self.exception, self.message, self.condition, repr(self.defaults),
                     self.values, self.shown, self.platform))


def site_rules(startup: Startup, defaults: dict) -> tuple[list[Rule], list[str], int]:
    """The rules of one release's sites (a site met on several ways: each way its own rule,
    the same condition once), and why each other site is none. ``defaults``: field ->
    literal default."""
    rules: dict[tuple, Rule] = {}
    skipped: dict[tuple, str] = {}
    met: set = set()
    for site in startup.sites:
        key = (site.module, site.function, site.line)
        met.add(key)
        if site.condition is None:
            skipped.setdefault(key, site.skip)
            continue
        probes = frozenset()
        if not may_be_certain(site.condition):
            probes = platform_probes(site.condition)
            if not probes or not may_be_certain(site.condition, decidable=probes):
                why = reasons(site.condition)
                skipped.setdefault(key, f"depends on {unknowable(why) if why else 'nothing a launch sets'}")
                continue
        condition = queries_kept_where_repeated(site.condition, kept=probes)
        shown = [s for s in site.shown if s is not None]
        text, values, shown_texts = written_with(condition, shown)
        read = {n.id for root in (condition, *shown) for n in nodes(root) if isinstance(n, ast.Name)}
        written_shown = iter(shown_texts)
        rule = Rule(site.module, site.function, site.exception, site.message, text,
                    tuple(sorted((name, defaults[name]) for name in read if name in defaults)), values,
                    tuple("" if s is None else next(written_shown) for s in site.shown) if shown else (),
                    tuple(sorted(name[len(QUERY_PREFIX):] for name in probes)))
        rules[(key, text, values)] = rule
    made = {key for key, _, _ in rules}
    why = [reason for key, reason in skipped.items() if key not in made]
    return list(rules.values()), why, len(met)


def platform_probes(condition: ast.expr) -> frozenset:
    """The query names of the platform probes the condition reads (derive/startup/platform_probes.py)."""
    named = {(n.id, getattr(n, "reason", "")) for n in nodes(condition) if is_query(n)}
    return frozenset(QUERY_PREFIX + probe for probe in probes_read(named))


def unshared(node):
    """A copy of an expression whose shared parts are copied apart: ``ast.unparse`` keeps one
    precedence per node, so a part read in two places (the test of one conditional, the
    ``else`` of another) would be written with the parentheses of one of them only."""
    if isinstance(node, list):
        return [unshared(item) for item in node]
    if not isinstance(node, ast.AST):
        return node
    copied = type(node)(**{name: unshared(getattr(node, name, None)) for name in node._fields})
    return copied


VALUE_PREFIX = "_v"  # the names of the table's values: no field or environment variable starts so
NAMED_SIZE = 6  # a part read in several places is named when it holds at least this many nodes
POOLED_SIZE = 40  # a part this large as written is named even where one place reads it: other rules may share it
_SCOPES = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.Lambda)


def value_name(text: str) -> str:
    """A value's name: its text's digest (the text reads its inner values by their names, so
    one name is one meaning across rules and releases, and the table writes it once)."""
    return VALUE_PREFIX + hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def written(condition: ast.expr) -> tuple[str, tuple]:
    """The condition as a rule writes it (:func:`written_with`, no message placeholders)."""
    return written_with(condition)[:2]


def written_with(condition: ast.expr, shown: list | tuple = ()) -> tuple[str, tuple, list]:
    """The condition as a rule writes it: its text, and its values ``((name, text), ...)``
    sorted by name, and the texts of the ``shown`` expressions (a message's placeholders,
    written over the same values): each part the derivation shares (one value read by several later checks
    and rewrites) and each large part is written once, under a name the text and the other
    values read (:func:`value_name`). Written out in full, a field rewritten by a chain of
    steps that each test it doubles at every step, and the long values of one field would be
    repeated by every rule that reads it."""
    # the condition's parts are named by how often the condition reads them, never by the
    # placeholders: a part named only because a message shows it would split the condition
    # into other values, which the evaluator reads by other cases (so a launch costs more)
    refs: Counter = Counter()
    seen: set = set()
    _count_refs([condition], refs, seen)
    shown_refs = refs.copy()
    _count_refs(shown, shown_refs, seen)
    names: dict[int, str] = {}
    values: dict[str, str] = {}
    written_size: dict[int, tuple] = {}  # id(part as written) -> (its nodes as written, the part)

    def out(node, top: bool = False):
        if isinstance(node, list):
            return [out(item) for item in node]
        if not isinstance(node, ast.AST):
            return node
        if id(node) in names:
            return ast.Name(names[id(node)], ast.Load())
        if isinstance(node, ast.GeneratorExp) and len(node.generators) == 1:
            # what it loops over is read outside the generator's scope: named like any part
            loop = node.generators[0]
            return ast.GeneratorExp(unshared(node.elt), [ast.comprehension(
                unshared(loop.target), out(loop.iter), unshared(loop.ifs), loop.is_async)])
        if isinstance(node, _SCOPES):
            return unshared(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            # a method is named with its call, never alone: ``_v1('lora')`` where ``_v1`` is
            # ``x.startswith`` would be a method of a value the evaluator splits by cases
            method = ast.Attribute(out(node.func.value), node.func.attr, ast.Load())
            made = ast.Call(method, out(node.args), out(node.keywords))
        else:
            made = type(node)(**{field: out(getattr(node, field, None)) for field in node._fields})
        count = 1 + sum(written_size[id(c)][0] if id(c) in written_size else 1 for c in ast.iter_child_nodes(made))
        written_size[id(made)] = (count, made)
        if not top and isinstance(node, ast.expr) and not isinstance(node, (ast.Name, ast.Constant, ast.Starred)) \
                and (count >= POOLED_SIZE or (counted[0][id(node)] > 1 and size(node) >= NAMED_SIZE)):
            body = ast.unparse(ast.fix_missing_locations(made))
            name = value_name(body)
            values[name] = body
            names[id(node)] = name
            return ast.Name(name, ast.Load())
        return made

    counted = [refs]
    text = ast.unparse(ast.fix_missing_locations(out(condition, top=True)))
    counted[0] = shown_refs  # (the condition's parts keep their names; the placeholders' own shared parts are named)
    texts = [ast.unparse(ast.fix_missing_locations(out(s, top=True))) for s in shown]
    return text, tuple(sorted(values.items())), texts


def _count_refs(roots: list, refs: Counter, seen: set) -> None:
    """Add to ``refs`` how many parents each part under ``roots`` has (a part already in
    ``seen`` is counted, not walked again)."""
    todo = [root for root in roots if id(root) not in seen]
    seen.update(id(root) for root in todo)
    while todo:
        node = todo.pop()
        if isinstance(node, _SCOPES):
            continue  # (a part inside a generator may read its variable: never named)
        for child in ast.iter_child_nodes(node):
            refs[id(child)] += 1
            if id(child) not in seen:
                seen.add(id(child))
                todo.append(child)
