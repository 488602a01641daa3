"""allowed-values: an argument must be one of a fixed set of literals (or enum members).

Mirrors ``if x not in (...): raise`` and ``if x == "a": ... elif x == "b": ... else: raise``, and
a registry looked up by name (``MAP.get(x)`` then a raise when nothing is found): the values
are its keys. ``fold``: sglang looks up the value's folded form (``MAP.get(x.lower())``), so a
string is compared in that form and anything else is left alone. Only values the resolver
knows are judged; anything else is left alone."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.checks.base import (
    FIX_SAFETY,
    CheckKind,
    identical_across_releases,
    argument_values,
    did_you_mean,
    guarded_on,
    name_fix,
    require_argument,
    show_call,
    string_fix,
    suggest,
    target_trigger,
)
from sglang_lint.checks.messages import with_argument
from sglang_lint.core.model import Finding
from sglang_lint.screen.calls import value_screen
from sglang_lint.text.pynames import Ref, literal_in

SCALARS = (str, int, float, bool)
# How sglang may fold a name before it compares it: the fold's name in a rule file -> (the
# string method, what a message says of it).
FOLDS = {"lower": (str.lower, "lower-cased")}


def folded(value: object, fold: str | None) -> object:
    """The form sglang compares: a string folded as ``fold`` says (None: as it is)."""
    return FOLDS[fold][0](value) if fold is not None and isinstance(value, str) else value


@dataclass(frozen=True)
class AllowedValues:
    summary: str
    values: tuple = ()
    enum: str | None = None  # qualified enum class; then ``values`` are member names
    none: bool = False  # None passes too
    strict: bool = False  # only values certain at the call: no parameter defaults
    fold: str | None = None  # a key of FOLDS: a string is compared folded; any other value is not judged

    def allows(self, value: object) -> bool | None:
        """True/False when the value can be judged, None when it cannot (not our kind)."""
        if self.enum is not None:
            if not isinstance(value, Ref) or not value.qualified.startswith(self.enum + "."):
                return None
            return value.qualified[len(self.enum) + 1 :] in self.values
        if isinstance(value, Ref) or not isinstance(value, SCALARS + (type(None),)):
            return None
        if value is None and self.none:
            return True
        if self.fold is not None and not isinstance(value, str):
            return None
        return literal_in(folded(value, self.fold), self.values)

    def shown(self) -> list[str]:
        if self.enum is not None:
            owner = self.enum.rsplit(".", 1)[-1]
            return [f"{owner}.{v}" for v in self.values]
        return [repr(v) for v in self.values]


def parse(fields, targets):
    summary = fields.str("summary")
    enum = fields.str("enum", required=False)
    values = fields.any("values")
    if not isinstance(values, list) or not values:
        raise fields.error("values", f"must be a non-empty list, got {values!r}")
    for value in values:
        if not isinstance(value, SCALARS) or (enum is not None and not isinstance(value, str)):
            raise fields.error("values", f"{value!r} is not a literal this check can compare")
    if len(set(map(repr, values))) != len(values):
        raise fields.error("values", "lists a value twice")
    require_argument(fields, targets)
    none = fields.bool("none", required=False) or False
    strict = fields.bool("strict", required=False) or False
    fold = fields.str("fold", required=False)
    if fold is not None:
        if fold not in FOLDS:
            raise fields.error("fold", f"must be one of {', '.join(map(repr, FOLDS))}, got {fold!r}")
        if enum is not None or not all(isinstance(value, str) for value in values):
            raise fields.error("fold", "folds strings: every value must be a string, and no enum")
    return AllowedValues(summary=summary, values=tuple(values), enum=enum, none=none, strict=strict, fold=fold)


def fails(params: AllowedValues, value: object) -> bool:
    """A value the check can judge and that is not allowed."""
    return params.allows(value) is False


def run(site, rule, check, target):
    params: AllowedValues = check.params
    for arg, known in argument_values(site, target.argument, target.position):
        if not fails(params, known.value) or (params.strict and known.default):
            continue
        if known.via and guarded_on(site, known.via[0]):
            continue
        compared = folded(known.value, params.fold)
        looked_up = f"sglang looks up {compared!r} ({FOLDS[params.fold][1]}): " if params.fold is not None else ""
        message = (
            f"{show_call(site, target, known)}: "
            f"{with_argument(params.summary, rule.raise_site.parameter, known.value)}; "
            f"{looked_up}expected one of {', '.join(params.shown())}"
        )
        fix = None
        suggestion = suggest(compared, params.values)
        if suggestion is not None:
            fix = _fix(known, suggestion, params)
            message += did_you_mean(params.shown()[params.values.index(suggestion.value)], fix)
        # A parameter's bad default is reported where it is written, where it is fixed.
        yield Finding(known.written if known.default else known.node, message, fix)


def _fix(known, suggestion, params: AllowedValues):
    """The literal where the value was written (a constant's, once for all its uses)
    rewritten to the suggested value: a string, or the member name after ``Enum.``."""
    if params.enum is not None:
        # ``Enum.MEMBER`` only: a bare imported member name is a binding, not a spelling.
        if not isinstance(known.written, cst.Attribute):
            return None
        return name_fix(known.written, suggestion.value, suggestion.safe)
    if isinstance(suggestion.value, str):
        return string_fix(known.written, suggestion.value, suggestion.safe)
    return None


def across_releases(checks):
    """For a project on releases whose allowed sets differ (checks newest first): a value is
    wrong only where no release allows it, so the union is allowed."""
    first = checks[0]
    if any((c.params.enum, c.params.none, c.params.fold) != (first.params.enum, first.params.none, first.params.fold)
           for c in checks):
        return None
    values = tuple(dict.fromkeys(v for c in checks for v in c.params.values))
    same = [dataclasses.replace(c, params=dataclasses.replace(c.params, values=values, summary=first.params.summary))
            for c in checks]
    return identical_across_releases(same)


def triggers(check):
    # An enum-valued check can only fire where the enum's name is written.
    params: AllowedValues = check.params
    extra = (params.enum.rsplit(".", 1)[-1],) if params.enum else ()
    # The screen passes a call whose literal fails, or whose Enum.MEMBER is not an allowed one.
    return [
        target_trigger(
            target, *extra,
            screen=value_screen(
                target.argument, target.position, functools.partial(fails, params), params.enum, params.strict,
                target.omitted,
            ),
        )
        for target in check.targets
    ]


KIND = CheckKind(
    name="allowed-values", site="call", parse=parse, run=run, triggers=triggers, through_wrappers=True,
    fix_safety=lambda check: FIX_SAFETY, fails=fails, across_releases=across_releases,
)
