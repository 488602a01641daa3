"""forbidden-combination: keyword arguments that each pass alone but fail together.

Mirrors a raise reached only when two settings meet (``encoder_only=True`` with a
speculative algorithm reaches aux-hidden-state capture on a model with no language
model). Every ``when`` keyword must be known to hold, and a ``conflicts`` keyword must be
known to be set (not ``None``/``False``/empty)."""

from __future__ import annotations

from dataclasses import dataclass

from sglang_lint.checks.allowed_values import SCALARS
from sglang_lint.checks.base import CheckKind, argument_values, show_value, target_trigger
from sglang_lint.checks.messages import with_argument
from sglang_lint.core.model import Finding


@dataclass(frozen=True)
class ForbiddenCombination:
    summary: str
    when: tuple[tuple[str, object], ...]
    conflicts: tuple[str, ...]


def parse(fields, targets):
    when = fields.sub("when")
    pairs = []
    for key, value in when.table.items():
        if not isinstance(value, SCALARS):
            raise when.error(key, f"must be a literal, got {value!r}")
        pairs.append((key, value))
    if not pairs:
        raise fields.error("when", "must name at least one keyword")
    return ForbiddenCombination(
        summary=fields.str("summary"),
        when=tuple(pairs),
        conflicts=fields.strings("conflicts"),
    )


def triggers(check):
    words = tuple(key for key, _ in check.params.when)
    return [target_trigger(target, *words) for target in check.targets]


def _known(site, keyword):
    return [known for _, known in argument_values(site, keyword, None)]


def run(site, rule, check, target):
    params: ForbiddenCombination = check.params
    shown = []
    for key, expected in params.when:
        values = _known(site, key)
        if not values or any(
            type(k.value) is not type(expected) or k.value != expected for k in values
        ):
            return
        shown.append(f"{key}={show_value(expected)}")
    for key in params.conflicts:
        for known in _known(site, key):
            if known.value is None or known.value is False or known.value == "":
                continue
            passed = f"{known.via[0]} (= {show_value(known.value)})" if known.via else show_value(known.value)
            yield Finding(
                known.node,
                f"{target.display}({', '.join(shown)}, {key}={passed}): "
                f"{with_argument(params.summary)}",
            )


KIND = CheckKind(
    name="forbidden-combination", site="call", parse=parse, run=run, triggers=triggers
)
