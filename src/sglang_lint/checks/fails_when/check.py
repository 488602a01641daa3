"""fails-when: a call whose arguments make sglang reach a ``raise``, whatever the path to it.

Mirrors a raise site that a single test of one parameter does not describe: the test is of
several parameters (``if start >= end``), of something computed from them (``height % patch
!= 0`` with ``height`` unpacked from ``x.shape``), behind other tests (``if mode == "x": if
other not in {...}``), or after the function rebinds a parameter (``if n is None: n = 88``).
The deriver writes the whole path as one expression over the parameters (``when``,
checks/fails_when/language.py); this check binds the parameters to what the call passes (literals, names
the resolver follows, displays, tensors made with ``torch.zeros(2, 3, dtype=...)``) or to
their defaults, and reports the call when the expression is certainly true. Anything
unknown is never guessed: the expression must be true whatever the unknown values are."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.checks.base import CheckKind, Trigger, find_in_call, guarded_on, target_trigger
from sglang_lint.checks.messages import with_values
from sglang_lint.checks.fails_when.screen_values import MAYBE, AstValues, TextValues
from sglang_lint.checks.fails_when.makers import (
    BUILTIN_DICT,
    CST_OPERATORS,
    DTYPE_METHODS,
    FACTORIES,
    MAX_DEPTH,
    NAMESPACES,
    SAME_TENSOR,
    TENSOR_FUNCTIONS,
    made_by,
    makes,
    scalar_ref,
    tensor_method,
)
from sglang_lint.checks.fails_when.language import (
    UNKNOWN,
    Member,
    Tensor,
    WhenError,
    arithmetic,
    certain,
    equal,
    evaluate,
    holds,
    names_read,
    parse_when,
)
from sglang_lint.analysis.syntax import literal_value
from sglang_lint.core.model import Finding
from sglang_lint.screen.calls import ScopedFacts, argument, ast_call_arguments, may_be_made
from sglang_lint.text.pynames import NOT_LITERAL, UNKNOWN as NOT_FOUND, Ref, ast_dotted_name, ast_literal

# Methods that change a tensor's shape or strides in place (a dtype or device never changes in place).
IN_PLACE_SHAPE = frozenset({"resize_", "resize_as_", "set_", "unsqueeze_", "squeeze_", "transpose_", "t_",
                            "as_strided_", "swapdims_", "swapaxes_"})


@dataclass(frozen=True)
class Parameter:
    """A parameter of the checked callable, as a call binds it."""

    name: str
    position: int | None  # among the positional parameters (without self); None: keyword-only
    keyword: bool = True  # may be passed by keyword (not positional-only)
    default: object = NOT_LITERAL  # the literal default; NOT_LITERAL: none, or not a literal
    var: str = ""  # "*": *args; "**": **kwargs
    # For **kwargs: the function's named parameters (a keyword naming one of them is not in kwargs).
    others: tuple[str, ...] = ()
    # A parameter of the receiver's constructor, which the method reads through ``self``
    # (derive/reading/state.py): bound from the call that made the receiver, not from this call.
    receiver: bool = False


@dataclass(frozen=True)
class RecordClass:
    """One of sglang's classes whose instances are records (a dataclass, msgspec struct or named
    tuple with no ``__init__`` or ``__post_init__`` of its own): made at a call, an instance's
    attributes are the arguments, or the fields' literal defaults."""

    fields: tuple[str, ...]  # in order
    positional: int  # how many of them may be passed by position
    defaults: dict  # field -> literal default (fields without one must be passed)


@dataclass(frozen=True)
class EnumClass:
    """An sglang enum whose members are told apart by name alone: no two share a value (no
    aliases), nothing of its own compares or tests them. ``falsy``: the members whose truth is
    false (an int or str enum's 0 or ""); ``plain``: no int or str mixin (a member equals
    nothing but itself); ``aliases``: the other names sglang exports the class by."""

    qualified: str
    members: tuple[str, ...]
    falsy: tuple[str, ...] = ()
    plain: bool = True
    aliases: tuple[str, ...] = ()

    def member(self, name: str) -> Member:
        return Member(self.qualified, name, name not in self.falsy, self.plain)


@dataclass(frozen=True)
class FailsWhen:
    summary: str
    when: str
    expression: ast.expr
    parameters: tuple[Parameter, ...]
    records: tuple[tuple[str, RecordClass], ...] = ()  # (qualified class, its fields)
    enums: tuple[EnumClass, ...] = ()
    # the value each placeholder of the message shows, over the parameters (None: not known)
    shown: tuple = ()


def parse(fields, targets):
    parameters = []
    for item in fields.subs("parameter"):
        default = item.any("default", required=False)
        written = item.str("default_literal", required=False)
        if item.bool("default_none", required=False):
            default = None
        elif written is not None:
            try:  # a Python literal (a tuple, a dict with int keys): read as data, never run
                default = ast.literal_eval(written)
                default = frozenset(default) if isinstance(default, set) else default
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                raise item.error("default_literal", f"not a Python literal: {written!r}") from None
        elif default is None:
            default = NOT_LITERAL
        parameters.append(Parameter(
            item.str("name"), item.int("position", required=False), item.bool("keyword", required=False) is not False,
            default, item.str("var", required=False) or "", tuple(item.strings("others", required=False) or ()),
            item.bool("receiver", required=False) or False))
        if parameters[-1].receiver and parameters[-1].var:
            raise item.error("receiver", "a constructor's *args or **kwargs is never read")
        item.done()
    records = []
    for item in fields.subs("record", required=False):
        names = tuple(item.strings("fields"))
        written = item.str("defaults", required=False) or "{}"
        try:
            defaults = ast.literal_eval(written)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise item.error("defaults", f"not a Python literal: {written!r}") from None
        if not isinstance(defaults, dict) or not set(defaults) <= set(names):
            raise item.error("defaults", "must be a dict whose keys are among the fields")
        positional = item.int("positional", required=False) or 0
        if not 0 <= positional <= len(names):
            raise item.error("positional", f"must be between 0 and {len(names)}")
        records.append((item.str("class"), RecordClass(names, positional, defaults)))
        item.done()
    enums = []
    for item in fields.subs("enum", required=False):
        members = tuple(item.strings("members"))
        falsy = tuple(item.strings("falsy", required=False) or ())
        if not set(falsy) <= set(members):
            raise item.error("falsy", "must be among the members")
        enums.append(EnumClass(item.str("class"), members, falsy, item.bool("plain", required=False) is not False,
                               tuple(item.strings("aliases", required=False) or ())))
        item.done()
    text = fields.str("when")
    try:
        expression = parse_when(text, [p.name for p in parameters])
    except WhenError as error:
        raise fields.error("when", str(error)) from None
    if not names_read(expression) & {p.name for p in parameters}:
        raise fields.error("when", "reads no parameter: it would fail every call")
    shown = []
    written_all = fields.any("shown", required=False) or []
    if not isinstance(written_all, list) or not all(isinstance(t, str) for t in written_all):
        raise fields.error("shown", "must be a list of expressions (\"\" for a value not known)")
    for written in written_all:
        try:
            shown.append(parse_when(written, [p.name for p in parameters]) if written else None)
        except WhenError as error:
            raise fields.error("shown", f"{written!r}: {error}") from None
    return FailsWhen(fields.str("summary"), text, expression, tuple(parameters), tuple(records), tuple(enums),
                     tuple(shown))


# --- the values a call passes ---------------------------------------------------------------

def bind(params: FailsWhen, found, value_of, extra_keywords, from_receiver) -> dict[str, object]:
    """Each parameter the expression reads, bound as the call binds it: ``found(name,
    position)`` finds its argument (None: left out; NOT_FOUND: cannot tell), ``value_of`` reads
    it, ``extra_keywords()`` is the dict a ``**kwargs`` parameter receives (or UNKNOWN);
    ``from_receiver(parameter)``: a receiver parameter's value (or UNKNOWN)."""
    env: dict[str, object] = {}
    read = names_read(params.expression)
    for parameter in params.parameters:
        if parameter.receiver:
            if parameter.name in read:
                env[parameter.name] = from_receiver(parameter)
            continue
        if parameter.name not in read:
            continue
        if parameter.var == "**":
            env[parameter.name] = extra_keywords(set(parameter.others))
            continue
        if parameter.var == "*":
            env[parameter.name] = UNKNOWN
            continue
        env[parameter.name] = argument_value(parameter, found, value_of)
    return env


def argument_value(parameter: Parameter, found, value_of) -> object:
    """A named parameter's value as a call binds it: ``found(name, position)`` gives its
    argument (None: left out, then the literal default; NOT_FOUND: cannot tell), ``value_of``
    reads it."""
    arg = found(parameter.name if parameter.keyword else None, parameter.position)
    if arg is NOT_FOUND:
        return UNKNOWN
    if arg is None:
        return UNKNOWN if parameter.default is NOT_LITERAL else parameter.default
    return value_of(arg)


class CallValues:
    """What the engine knows of a call's arguments (LibCST, through the file's resolver)."""

    def __init__(self, site, records=(), enums=(), receivers=()):
        self.site = site
        self.model = site.model
        self.records = dict(records)
        # an enum class by each name it is imported by: its members' references are told apart
        self.enums = {name: enum for enum in enums for name in (enum.qualified, *enum.aliases)}
        self.receivers = frozenset(receivers)  # the classes whose constructor a receiver parameter is of
        self._receiver_call = None  # (constructor call, its scope, where), once looked for

    def from_receiver(self, parameter: Parameter) -> object:
        """A receiver parameter's value: the argument the receiver's constructor call passed for
        it (or its literal default), where that call is of the rule's class itself (a subclass
        may have an ``__init__`` of its own) and nothing in the file sets an attribute of the
        receiver or hands it on under another name."""
        if self._receiver_call is None:
            self._receiver_call = self._receiver_made() or ()
        if not self._receiver_call:
            return UNKNOWN
        call, scope, where = self._receiver_call

        def found(name, position):
            result = find_in_call(call, name, position, None)
            return result if result is None or result is NOT_FOUND else result[0].value

        return argument_value(parameter, found, lambda node: self.value(node, 0, scope, where))

    def _receiver_made(self) -> tuple | None:
        receiver, scope, where = self.site.receiver, self.site.scope, self.site.where
        if isinstance(receiver, cst.Name):
            name = receiver.value
            if any(text.startswith(f"{name}.") for _, text, _ in self.model.facts.attribute_writes) or any(
                    write.kind in ("setitem", "delitem", "aliased") for write in self.model.facts.writes.get(name, ())):
                return None
            found = self.model.reaching(name, scope, where)
            if found is None or len(found[0]) != 1 or not isinstance(found[0][0].value, cst.Call):
                return None
            receiver, scope, where = found[0][0].value, found[1], found[0][0].where
        if not isinstance(receiver, cst.Call) or self.model.qualify(receiver.func, scope) not in self.receivers:
            return None
        return receiver, scope, where

    def found(self, name, position):
        result = find_in_call(self.site.node, name, position, self.site)
        if result is None or result is NOT_FOUND:
            return result
        return result[0].value

    def extra_keywords(self, named: set[str]):
        if any(arg.star for arg in self.site.node.args):
            return UNKNOWN
        return {arg.keyword.value: self.value(arg.value) for arg in self.site.node.args
                if arg.keyword is not None and arg.keyword.value not in named}

    def value(self, node: cst.BaseExpression, depth: int = 0, scope=None, where=None) -> object:
        """What ``node`` certainly is (seen from ``scope`` at ``where``: the call's by default):
        a literal, a display of values, a tensor or device a call makes, a name every reaching
        binding of which is one such value, an enum member or dtype. Anything else, and a
        value that only some branches or bindings give, is UNKNOWN."""
        if depth > MAX_DEPTH:
            return UNKNOWN
        scope = scope if scope is not None else self.site.scope
        where = where if scope is not self.site.scope or where is not None else self.site.where
        literal = literal_value(node)
        if literal is not NOT_LITERAL:
            return literal
        if isinstance(node, (cst.Tuple, cst.List)):
            if any(not isinstance(e, cst.Element) or isinstance(e, cst.StarredElement) for e in node.elements):
                return UNKNOWN
            items = [self.value(e.value, depth + 1, scope, where) for e in node.elements]
            return tuple(items) if isinstance(node, cst.Tuple) else items
        if isinstance(node, cst.Dict):
            result = {}
            for element in node.elements:
                if isinstance(element, cst.StarredDictElement):  # {**base, "k": v}
                    base = self.value(element.value, depth + 1, scope, where)
                    if not isinstance(base, dict):
                        return UNKNOWN
                    result.update(base)
                    continue
                key = literal_value(element.key)
                if key is NOT_LITERAL:
                    return UNKNOWN
                result[key] = self.value(element.value, depth + 1, scope, where)
            return result
        if isinstance(node, cst.Call):
            return self._made(node, depth, scope, where)
        if isinstance(node, cst.BinaryOperation):  # ``steps * top_k`` of names bound to numbers
            op_type = CST_OPERATORS.get(type(node.operator).__name__)
            if op_type is None:
                return UNKNOWN
            left, right = (self.value(n, depth + 1, scope, where) for n in (node.left, node.right))
            try:
                return arithmetic(op_type, left, right)
            except (ArithmeticError, ValueError, MemoryError):
                return UNKNOWN
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            operand = self.value(node.expression, depth + 1, scope, where)
            return -operand if isinstance(operand, (int, float)) and not isinstance(operand, bool) else UNKNOWN
        if isinstance(node, cst.IfExp):
            # both branches the same value, or unknown
            body, orelse = (self.value(n, depth + 1, scope, where) for n in (node.body, node.orelse))
            return body if equal(body, orelse) is True else UNKNOWN
        if isinstance(node, cst.Name):
            return self._name(node.value, depth, scope, where)
        if isinstance(node, cst.Attribute):
            known = self.model.evaluate(node, scope, where)
            if len(known) == 1 and isinstance(known[0].value, Ref):
                owner, _, name = known[0].value.qualified.rpartition(".")
                enum = self.enums.get(owner)
                if enum is not None:
                    return enum.member(name) if name in enum.members else UNKNOWN
                return scalar_ref(known[0].value)
        return UNKNOWN

    def _name(self, name: str, depth: int, scope, where) -> object:
        if scope is self.site.scope and guarded_on(self.site, name):
            return UNKNOWN  # a test in force reads it: its value here is not guessed at
        found = self.model.reaching(name, scope, where)
        if found is None or not found[0]:
            return UNKNOWN
        sites, owner = found
        values = []
        for binding in sites:
            if not isinstance(binding.value, cst.BaseExpression):
                return UNKNOWN  # a parameter, an import, a loop variable, an augmented assignment...
            values.append(self.value(binding.value, depth + 1, owner, binding.where))
        first = values[0]
        if any(equal(first, other) is not True for other in values[1:]):
            return UNKNOWN
        if name in self.model.mutated_names and not (isinstance(first, Tensor) and len(values) == 1
                                                     and self._shape_kept(name)):
            return UNKNOWN
        return first

    def _shape_kept(self, name: str) -> bool:
        """Does nothing in the file change the tensor ``name`` in place in a way a check reads?
        Its methods are called (``x.view(...)`` makes another tensor) and it is handed to calls, but
        never resized, re-strided or transposed in place, nor written through."""
        return all(
            write.kind == "passed" or write.kind == "method" and isinstance(write.node, cst.Call)
            and isinstance(write.node.func, cst.Attribute) and write.node.func.attr.value not in IN_PLACE_SHAPE
            for write in self.model.facts.writes.get(name, ())
        )

    def _made(self, call: cst.Call, depth: int, scope, where) -> object:
        """A tensor or device a call makes: ``torch.zeros(2, 3, dtype=...)``, ``x.cuda()``."""
        if isinstance(call.func, cst.Attribute) and self.model.qualify(call.func, scope) is None:
            method = call.func.attr.value
            base = self.value(call.func.value, depth + 1, scope, where)
            if isinstance(base, Tensor):
                return tensor_method(base, method, [self._argument(a, depth, scope, where) for a in call.args])
            return UNKNOWN
        name = self.model.qualify(call.func, scope)
        if name is None and isinstance(call.func, cst.Name) and call.func.value == "dict" \
                and self.model.lookup("dict", scope) is None:
            name = BUILTIN_DICT
        if not makes(name, self.records):
            return UNKNOWN
        return made_by(name, self.records, [self._argument(a, depth, scope, where) for a in call.args])

    def _argument(self, arg: cst.Arg, depth: int, scope, where) -> tuple[str | None, object]:
        if arg.star:
            return "*", UNKNOWN
        keyword = arg.keyword.value if arg.keyword is not None else None
        return keyword, self.value(arg.value, depth + 1, scope, where)


def _ast_value(node: ast.expr, depth: int = 0) -> object:
    """What the call-site screen knows of an argument: literals and displays of them."""
    literal = ast_literal(node)
    if literal is not NOT_LITERAL:
        return literal
    if depth < MAX_DEPTH and isinstance(node, (ast.Tuple, ast.List)) and not any(
            isinstance(e, ast.Starred) for e in node.elts):
        items = [_ast_value(e, depth + 1) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if depth < MAX_DEPTH and isinstance(node, ast.Dict):
        keys = [ast_literal(k) if k is not None else NOT_LITERAL for k in node.keys]
        if NOT_LITERAL in keys:
            return UNKNOWN
        return {k: _ast_value(v, depth + 1) for k, v in zip(keys, node.values)}
    return UNKNOWN


# --- the check ------------------------------------------------------------------------------

def run(site, rule, check, target):
    if not isinstance(site.node, cst.Call) or site.partial is not None:
        return
    params: FailsWhen = check.params
    values = CallValues(site, params.records, params.enums, getattr(target, "receivers", ()))
    env = bind(params, values.found, values.value, values.extra_keywords, values.from_receiver)
    if not certain(params.expression, env, True):
        return
    shown = "; ".join(f"{name} = {value!r}" for name, value in env.items())
    prefix = "." if target.kind in ("method", "attribute") else ""
    said = with_values(params.summary, [UNKNOWN if e is None else evaluate(e, env) for e in params.shown])
    yield Finding(site.node, f"{prefix}{target.display}(...) fails at run time: {said} ({shown}; "
                             f"sglang raises this when {params.when}, unless an earlier check raises first)")


def _screen(params: FailsWhen, constructor: bool = False):
    """A call can fire only where the expression may be true. With the values written at the
    call (literals and displays), and UNKNOWN for the rest: false rules the call out; true
    means a finding; unknown means one only if the engine may know one of the rest (a name
    bound to a literal or to a tensor made in the file), which :func:`_may_know` tells.

    Receiver parameters (the constructor's) are unknown at a method call, and may be known
    where its receiver is a name or a call; ``constructor``: the call screened is the one that
    makes the receiver (the trigger of a method run by calling an instance, whose call ``m(x)``
    names no catalog name): the receiver parameters are its arguments, the method's unknown."""

    # the calls whose value the engine may read for this rule: its record classes' too
    calls = _READ_CALLS | {name.rpartition(".")[2] for name, _ in params.records}
    records = dict(params.records)
    enums = {name: enum for enum in params.enums for name in (enum.qualified, *enum.aliases)}

    def screen(call: ast.Call, facts) -> bool:
        hidden: list[ast.expr] = []
        mapping = []  # arguments in a ``**name`` mapping the engine may read
        later = []  # values the engine may know that this call does not show

        def from_receiver(parameter):
            if constructor:
                return argument_value(parameter, found, value_of)
            # (the text screen parses the call's arguments alone: its receiver is not there to see)
            if not isinstance(facts, ScopedFacts) or isinstance(call.func, ast.Attribute) and may_be_made(
                    call.func.value, facts):
                later.append(True)
            return UNKNOWN

        def found(name, position):
            value = argument(call, name, position, facts)
            if isinstance(value, bool):
                mapping.append(value)
                return NOT_FOUND
            return value

        def value_of(node):
            value = _ast_value(node)
            if value is UNKNOWN or not known_at_the_call(value):
                hidden.append(node)
            return value

        def keywords_read_by(read):
            def extra_keywords(named):
                if any(star for _, star, _ in ast_call_arguments(call)):
                    return UNKNOWN
                return {k.arg: read(k.value) for k in call.keywords if k.arg not in named}
            return extra_keywords

        extra_keywords = keywords_read_by(value_of)
        if constructor:
            if isinstance(facts, ScopedFacts) and not facts.syntax.bound_name_called(call, facts.scopes[-1]):
                return False  # no m(...) of an m this call makes: the engine runs no method of it
            env = bind(params, lambda name, position: NOT_FOUND, value_of, lambda named: UNKNOWN, from_receiver)
            return not certain(params.expression, env, False)  # the method's arguments are not here
        verdict = holds(params.expression, bind(params, found, value_of, extra_keywords, from_receiver))
        if verdict is not UNKNOWN:
            return verdict
        if any(mapping) or any(later):
            return True
        if isinstance(facts, ScopedFacts):
            values = AstValues(facts, records, enums)
        elif facts.tree is not None:
            # (the caller has the ast, flake8 or the language server: the second look reads the
            # bindings themselves, and reading their values off the text first only costs)
            return any(_may_know(node, facts, calls) for node in hidden)
        else:  # the text screen: a name's values, read off every statement binding it
            values = TextValues(facts, lambda node: _may_know(node, facts, calls))
        return _may_hold(params.expression, values,
                         lambda read: bind(params, found, read, keywords_read_by(read), from_receiver))

    return screen


def _may_hold(expression: ast.expr, values: AstValues, bind_with) -> bool:
    """Is ``expression`` true for some combination of the values the engine may give the
    call's arguments (checks/fails_when/screen_values.py)? ``bind_with(read)``: the environment, each argument's
    node read by ``read``."""
    nodes: list[ast.expr] = []
    bind_with(lambda node: nodes.append(node) or UNKNOWN)
    combinations = values.combinations(nodes)
    if combinations is MAYBE:
        return True
    for combination in combinations:
        given = iter(combination)
        if certain(expression, bind_with(lambda node: next(given)), True):
            return True
    return False


def known_at_the_call(value: object) -> bool:
    if isinstance(value, (tuple, list)):
        return all(known_at_the_call(v) for v in value)
    if isinstance(value, dict):
        return all(known_at_the_call(v) for v in value.values())
    return value is not UNKNOWN


# A tensor's methods the engine reads (``tensor_method``): they make a tensor from the receiver.
_TENSOR_METHODS = SAME_TENSOR | set(DTYPE_METHODS) | {"view", "reshape", "t", "to", "cuda", "cpu"}
# The calls whose value the engine reads (``_made``): torch's tensor makers, tensor methods, dict().
_READ_CALLS = frozenset(
    {name.rpartition(".")[2] for name in FACTORIES} | TENSOR_FUNCTIONS | SAME_TENSOR | set(DTYPE_METHODS)
    | {"device", "dict", "view", "reshape", "t", "to", "cuda", "cpu"} | {n.rpartition(".")[2] for n in NAMESPACES}
)


def _may_know(node: ast.expr, facts, calls: frozenset = _READ_CALLS, depth: int = 0) -> bool:
    """The text screen's question, before the file's ast is read: could the engine know the
    value of this argument (CallValues.value)? A superset: a name the file may assign (what
    it is bound to is read on the ast, checks/fails_when/screen_values.py), a call of a tensor maker, a record
    class or ``dict`` by its name or by a name the file may rename one to, a method of such a
    tensor, a dotted name whose head the file may import or define, a display or dict holding
    one."""
    if depth > MAX_DEPTH:
        return True
    if isinstance(node, ast.Name):  # AstValues._name: the value of an assignment
        return facts.may_hold_value(node.id, lambda value: _may_know(value, facts, calls, depth + 1), calls)
    if isinstance(node, ast.Attribute):  # an enum member or a dtype: a dotted name that qualifies
        dotted = ast_dotted_name(node)
        return dotted is not None and facts.may_qualify(dotted.partition(".")[0])
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id in calls or facts.may_rename(func.id)  # ``import X as Y``, ``Y = X``
        if not isinstance(func, ast.Attribute) or func.attr not in calls:
            return False
        return func.attr not in _TENSOR_METHODS or _may_know(func.value, facts, calls, depth + 1)
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_may_know(e, facts, calls, depth + 1) for e in node.elts)
    if isinstance(node, ast.BinOp):  # known where both sides are
        return all(_may_know(side, facts, calls, depth + 1) for side in (node.left, node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _may_know(node.operand, facts, calls, depth + 1)
    if isinstance(node, ast.Dict):
        return any(_may_know(v, facts, calls, depth + 1) for v in node.values) or None in node.keys
    if isinstance(node, ast.IfExp):
        return all(_may_know(branch, facts, calls, depth + 1) for branch in (node.body, node.orelse))
    return ast_literal(node) is not NOT_LITERAL


def triggers(check):
    found = [target_trigger(target, screen=_screen(check.params)) for target in check.targets]
    # ``m = Block(...); m(x)``: the call names no catalog name; the class's call is the trigger
    found += [Trigger(receiver.rpartition(".")[2], "callable", (), receiver.rpartition(".")[0],
                      _screen(check.params, constructor=True), receiver)
              for target in check.targets if target.called for receiver in target.receivers]
    return found


KIND = CheckKind(name="fails-when", site="call", parse=parse, run=run, triggers=triggers)
