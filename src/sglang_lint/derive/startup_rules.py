"""From the start-up run's sites to rules (derive/startup.py): which conditions a launch can
make certainly true, and why the others can never be (what they need that a linter cannot
know, counted by kind)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sglang_lint.checks.when_grammar import BUILTINS
from sglang_lint.derive.startup_sequence import Startup
from sglang_lint.derive.symbolic import UNKNOWN_NAME, is_unknown, reasons

# --- from sites to rules ------------------------------------------------------------------
# Why a condition can never be certain, by what its unknown parts stand for (the skipped
# sites' table). The first category whose words a reason names is its category.
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


def unknowable(reason: str) -> str:
    lowered = reason.lower()
    for category, words in UNKNOWABLE:
        if any(word.lower() in lowered for word in words):
            return category
    return "a value the derivation does not follow"


def may_be_certain(node: ast.expr) -> bool:
    """Can the condition be certainly true for some launch? (No where it needs an unknown
    to be true: ``a and unknown``; a test of unknowns alone.)"""
    if is_unknown(node):
        return False
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(may_be_certain(v) for v in node.values)
        return any(may_be_certain(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return may_be_false(node.operand)
    if isinstance(node, ast.IfExp):
        return (may_be_certain(node.test) and may_be_certain(node.body)) or (
            may_be_false(node.test) and may_be_certain(node.orelse)) or (
            may_be_certain(node.body) and may_be_certain(node.orelse))
    return _reads_input(node)


def may_be_false(node: ast.expr) -> bool:
    if is_unknown(node):
        return False
    if isinstance(node, ast.Constant):
        return not node.value
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return any(may_be_false(v) for v in node.values)
        return all(may_be_false(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return may_be_certain(node.operand)
    if isinstance(node, ast.IfExp):
        return (may_be_certain(node.test) and may_be_false(node.body)) or (
            may_be_false(node.test) and may_be_false(node.orelse)) or (
            may_be_false(node.body) and may_be_false(node.orelse))
    return _reads_input(node)


def _reads_input(node: ast.expr) -> bool:
    """Does the expression read a field or an environment variable (something a launch may
    say), other than through an unknown?"""
    return any(isinstance(n, ast.Name) and n.id != UNKNOWN_NAME and n.id not in BUILTINS for n in ast.walk(node))


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

    def __hash__(self) -> int:  # (a default may be a list)
        return hash((self.module, self.function, self.exception, self.message, self.condition, repr(self.defaults)))


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
        if not may_be_certain(site.condition):
            why = reasons(site.condition)
            skipped.setdefault(key, f"depends on {unknowable(why[0]) if why else 'nothing a launch sets'}")
            continue
        text = ast.unparse(ast.fix_missing_locations(unshared(site.condition)))
        read = {n.id for n in ast.walk(site.condition) if isinstance(n, ast.Name)}
        rule = Rule(site.module, site.function, site.exception, site.message, text,
                    tuple(sorted((name, defaults[name]) for name in read if name in defaults)))
        rules[(key, text)] = rule
    made = {key for key, _ in rules}
    why = [reason for key, reason in skipped.items() if key not in made]
    return list(rules.values()), why, len(met)


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
