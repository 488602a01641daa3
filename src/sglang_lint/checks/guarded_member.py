"""guarded-member: a method or property that raises on an object built in a mode that
lacks the part it needs, unless the caller checks for that part first.

Mirrors ``if self.language_model is None: raise AttributeError(...)`` on a model built
from a config whose flag (``encoder_only=True``) leaves that part out. The receiver must be
built in the same scope, from a config whose flag is a literal ``True``."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.syntax import dotted_name, literal_value
from sglang_lint.checks.base import CheckKind, argument_of, mentions, target_trigger
from sglang_lint.checks.messages import with_argument
from sglang_lint.core.model import Finding
from sglang_lint.screen.calls import ScopedFacts, may_be_made


@dataclass(frozen=True)
class GuardedMember:
    summary: str
    receiver_class: str
    flag: str
    config_argument: str
    config_position: int | None
    guard_attribute: str


def parse(fields, targets):
    for target in targets:
        if target.kind not in ("method", "attribute"):
            raise fields.error("target", f"{target.name}: guarded-member targets are methods or attributes")
    classes = {receiver for target in targets for receiver in target.receivers[:1]}
    if len(classes) != 1 or any(not target.receivers for target in targets):
        raise fields.error("target", "guarded-member targets name one receiver class, the same for all (receivers)")
    return GuardedMember(
        summary=fields.str("summary"),
        receiver_class=classes.pop(),
        flag=fields.str("flag"),
        config_argument=fields.str("config_argument"),
        config_position=fields.int("config_position", required=False),
        guard_attribute=fields.str("guard_attribute"),
    )


def triggers(check):
    params: GuardedMember = check.params
    owner = params.receiver_class.rsplit(".", 1)[-1]
    return [target_trigger(target, owner, params.flag, screen=made_receiver) for target in check.targets]


def made_receiver(call: ast.Call, facts) -> bool:
    """The call-site screen (of a method call, or of an attribute read as a call of it): the
    engine judges only a receiver it finds the constructor call of (analysis/resolve.py
    ``constructor_call``: a call, or a name whose one binding is a call), never ``self``, an
    attribute or a subscript; a name, where any of its bindings is a call. (The text screen
    parses the call's arguments alone: the receiver is not there to see.)"""
    if not isinstance(facts, ScopedFacts):
        return True
    return isinstance(call.func, ast.Attribute) and may_be_made(call.func.value, facts)


# (a later ``p(...)`` of ``p = partial(obj.method, ...)``: judged by the same receiver)
made_receiver.receiver_only = made_receiver


def _flag_is_true(model, config: cst.BaseExpression, scope, flag: str) -> bool:
    """Was ``config`` built with ``flag=True`` (inline, by its one binding, or set after)?

    Any write of ``<config>.<flag>`` to the same variable, from any scope, that is not a
    literal ``True`` makes the answer no: the resolver does not order writes, so it does not
    guess."""
    if isinstance(config, cst.Call):
        arg = argument_of(config, flag, None)
        return arg is not None and literal_value(arg.value) is True
    if not isinstance(config, cst.Name):
        return False
    owner = model.binding_scope(config.value, scope)
    writes = [
        literal_value(value)
        for write_scope, text, value in model.attribute_writes
        if text == f"{config.value}.{flag}" and model.binding_scope(config.value, write_scope) is owner
    ]
    if writes:
        return all(value is True for value in writes)
    binding = model.single_binding(config.value, scope)
    return isinstance(binding, cst.Call) and _flag_is_true(model, binding, scope, flag)


def _guarded(site, receiver: cst.BaseExpression, attribute: str) -> bool:
    name = dotted_name(receiver)
    if name is None:
        return False

    def is_guard(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Attribute) and node.attr.value == attribute:
            return dotted_name(node.value) == name
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            if node.func.value in ("hasattr", "getattr") and node.args:
                return dotted_name(node.args[0].value) == name
        return False

    return any(mentions(g.test, is_guard) for g in site.guards)


def run(site, rule, check, target):
    params: GuardedMember = check.params
    receiver = site.receiver
    if receiver is None:
        return
    model = site.model
    call = model.constructor_call(receiver, site.scope)
    if call is None or model.qualify(call.func, site.scope) != params.receiver_class:
        return
    config = argument_of(call, params.config_argument, params.config_position)
    if config is None or not _flag_is_true(model, config.value, site.scope, params.flag):
        return
    if _guarded(site, receiver, params.guard_attribute):
        return
    owner = params.receiver_class.rsplit(".", 1)[-1]
    member = site.node.func.attr if isinstance(site.node, cst.Call) else site.node.attr
    shown = f".{target.name}()" if target.kind == "method" else f".{target.name}"
    name = dotted_name(receiver) or owner
    yield Finding(
        member,
        f"{shown} on a {owner} built with {params.flag}=True: {with_argument(params.summary)}; "
        f"check `{name}.{params.guard_attribute} is not None` first",
    )


KIND = CheckKind(name="guarded-member", site="call", parse=parse, run=run, triggers=triggers)
