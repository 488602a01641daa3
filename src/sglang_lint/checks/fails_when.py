"""fails-when: a call whose arguments make sglang reach a ``raise``, whatever the path to it.

Mirrors a raise site that a single test of one parameter does not describe: the test is of
several parameters (``if start >= end``), of something computed from them (``height % patch
!= 0`` with ``height`` unpacked from ``x.shape``), behind other tests (``if mode == "x": if
other not in {...}``), or after the function rebinds a parameter (``if n is None: n = 88``).
The deriver writes the whole path as one expression over the parameters (``when``,
checks/when.py); this check binds the parameters to what the call passes (literals, names
the resolver follows, displays, tensors made with ``torch.zeros(2, 3, dtype=...)``) or to
their defaults, and reports the call when the expression is certainly true. Anything
unknown is never guessed: the expression must be true whatever the unknown values are."""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from sglang_lint.checks.base import CheckKind, find_in_call, guarded_on, target_trigger
from sglang_lint.checks.when import (
    UNKNOWN,
    Device,
    Record,
    Tensor,
    WhenError,
    arithmetic,
    dtype_ref,
    equal,
    holds,
    is_dtype,
    names_read,
    parse_when,
)
from sglang_lint.model import Finding
from sglang_lint.pynames import NOT_LITERAL, UNKNOWN as NOT_FOUND, Ref, ast_literal
from sglang_lint.ast_scopes import GLOBAL, IMPORTED, VALUE
from sglang_lint.screen import ScopedFacts, argument, ast_call_arguments
from sglang_lint.syntax import literal_value

MAX_DEPTH = 6  # nested displays and name hops before a value is unknown
# torch's factories: a tensor of the shape written at the call (floats unless told).
FACTORIES = frozenset({"torch.empty", "torch.zeros", "torch.ones", "torch.randn", "torch.rand", "torch.full"})
# Methods that change a tensor's shape or strides in place (a dtype or device never changes in place).
IN_PLACE_SHAPE = frozenset({"resize_", "resize_as_", "set_", "unsqueeze_", "squeeze_", "transpose_", "t_",
                            "as_strided_", "swapdims_", "swapaxes_"})
# mlx.core's array makers whose shape and dtype the call says.
MLX_FACTORIES = frozenset({"mlx.core.zeros", "mlx.core.ones", "mlx.core.full"})
# Classes whose instances' attributes are the keywords they are made with.
NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})
# LibCST's arithmetic operators, as the :mod:`ast` classes ``when.arithmetic`` takes.
_CST_OPERATORS = {
    cst.Add: ast.Add, cst.Subtract: ast.Sub, cst.Multiply: ast.Mult, cst.Divide: ast.Div,
    cst.FloorDivide: ast.FloorDiv, cst.Modulo: ast.Mod, cst.Power: ast.Pow, cst.LeftShift: ast.LShift,
    cst.RightShift: ast.RShift, cst.BitAnd: ast.BitAnd, cst.BitOr: ast.BitOr, cst.BitXor: ast.BitXor,
}
_SAME_TENSOR = frozenset({"contiguous", "clone"})
_DTYPE_METHODS = {"float": "float32", "half": "float16", "bfloat16": "bfloat16", "double": "float64",
                  "long": "int64", "int": "int32", "bool": "bool"}


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


@dataclass(frozen=True)
class RecordClass:
    """One of sglang's classes whose instances are records (a dataclass, msgspec struct or named
    tuple with no ``__init__`` or ``__post_init__`` of its own): made at a call, an instance's
    attributes are the arguments, or the fields' literal defaults."""

    fields: tuple[str, ...]  # in order
    positional: int  # how many of them may be passed by position
    defaults: dict  # field -> literal default (fields without one must be passed)


@dataclass(frozen=True)
class FailsWhen:
    summary: str
    when: str
    expression: ast.expr
    parameters: tuple[Parameter, ...]
    records: tuple[tuple[str, RecordClass], ...] = ()  # (qualified class, its fields)


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
            default, item.str("var", required=False) or "", tuple(item.strings("others", required=False) or ())))
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
    text = fields.str("when")
    try:
        expression = parse_when(text, [p.name for p in parameters])
    except WhenError as error:
        raise fields.error("when", str(error)) from None
    if not names_read(expression) & {p.name for p in parameters}:
        raise fields.error("when", "reads no parameter: it would fail every call")
    return FailsWhen(fields.str("summary"), text, expression, tuple(parameters), tuple(records))


# --- the values a call passes ---------------------------------------------------------------

def bind(params: FailsWhen, found, value_of, extra_keywords) -> dict[str, object]:
    """Each parameter the expression reads, bound as the call binds it: ``found(name,
    position)`` finds its argument (None: left out; NOT_FOUND: cannot tell), ``value_of`` reads
    it, ``extra_keywords()`` is the dict a ``**kwargs`` parameter receives (or UNKNOWN)."""
    env: dict[str, object] = {}
    read = names_read(params.expression)
    for parameter in params.parameters:
        if parameter.name not in read:
            continue
        if parameter.var == "**":
            env[parameter.name] = extra_keywords(set(parameter.others))
            continue
        if parameter.var == "*":
            env[parameter.name] = UNKNOWN
            continue
        arg = found(parameter.name if parameter.keyword else None, parameter.position)
        if arg is NOT_FOUND:
            env[parameter.name] = UNKNOWN
        elif arg is None:
            env[parameter.name] = UNKNOWN if parameter.default is NOT_LITERAL else parameter.default
        else:
            env[parameter.name] = value_of(arg)
    return env


def _scalar(value: object) -> object:
    if isinstance(value, Ref):
        if value.qualified.startswith("torch."):
            return dtype_ref(value.qualified[6:]) or value
        return value
    return value


class CallValues:
    """What the engine knows of a call's arguments (LibCST, through the file's resolver)."""

    def __init__(self, site, records=()):
        self.site = site
        self.model = site.model
        self.records = dict(records)

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
            op_type = _CST_OPERATORS.get(type(node.operator))
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
                return _scalar(known[0].value)
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
                return _tensor_method(base, method, [self._argument(a, depth, scope, where) for a in call.args])
            return UNKNOWN
        name = self.model.qualify(call.func, scope)
        if name is None and isinstance(call.func, cst.Name) and call.func.value == "dict" \
                and self.model.lookup("dict", scope) is None:
            return _dict_call([self._argument(a, depth, scope, where) for a in call.args])
        if name in NAMESPACES or name in self.records:
            return _record(name, self.records.get(name), [self._argument(a, depth, scope, where) for a in call.args])
        if name in MLX_FACTORIES:
            return _mlx_array(name, [self._argument(a, depth, scope, where) for a in call.args])
        if name is None or not name.startswith("torch."):
            return UNKNOWN
        args = [self._argument(a, depth, scope, where) for a in call.args]
        if name == "torch.device":
            return _named_device(args[0][1]) if args and args[0][0] is None and isinstance(args[0][1], str) \
                else UNKNOWN
        if name in FACTORIES:
            return _factory(name, args)
        return _made_by_torch(name, args)

    def _argument(self, arg: cst.Arg, depth: int, scope, where) -> tuple[str | None, object]:
        if arg.star:
            return "*", UNKNOWN
        keyword = arg.keyword.value if arg.keyword is not None else None
        return keyword, self.value(arg.value, depth + 1, scope, where)


def _split(args: list[tuple[str | None, object]]) -> tuple[list, dict] | None:
    """A call's argument values (``CallValues._argument``) as positional ones and keywords;
    None after a ``*``/``**`` splat (the arguments are then not known)."""
    if any(keyword == "*" for keyword, _ in args):
        return None
    return ([value for keyword, value in args if keyword is None],
            {keyword: value for keyword, value in args if keyword is not None})


def _record(name: str, record: RecordClass | None, args: list[tuple[str | None, object]]) -> object:
    """The object ``SimpleNamespace(a=1)`` or a record class's call makes; UNKNOWN where the
    call does not match the fields (Python would raise a TypeError, not sglang its error)."""
    split = _split(args)
    if split is None:
        return UNKNOWN
    positional, keywords = split
    if record is None:  # a namespace: its keywords are its attributes
        return UNKNOWN if positional else Record(name, tuple(keywords.items()))
    if len(positional) > record.positional or set(keywords) - set(record.fields):
        return UNKNOWN
    given = {**dict(zip(record.fields, positional)), **keywords}
    if len(given) != len(positional) + len(keywords):
        return UNKNOWN  # a field passed twice
    attributes = {**record.defaults, **given}
    if set(attributes) != set(record.fields):
        return UNKNOWN  # a required field left out
    return Record(name, tuple((field, attributes[field]) for field in record.fields))


def _mlx_array(name: str, args: list[tuple[str | None, object]]) -> object:
    """``mx.zeros((8, 768), dtype=mx.float16)``: an MLX array of that shape and dtype."""
    split = _split(args)
    if split is None:
        return UNKNOWN
    positional, keywords = split
    shape = keywords.get("shape", positional[0] if positional else UNKNOWN)
    shape = (shape,) if _is_int(shape) else tuple(shape) if isinstance(shape, (tuple, list)) else UNKNOWN
    if shape is UNKNOWN or not all(_is_int(v) or v is UNKNOWN for v in shape):
        return UNKNOWN
    dtype = keywords.get("dtype", NOT_LITERAL)
    if dtype is NOT_LITERAL:
        dtype = Ref("mlx.core.float32") if name != "mlx.core.full" else UNKNOWN  # (full: the fill value's)
    if not (isinstance(dtype, Ref) and is_dtype(dtype) or dtype is UNKNOWN):
        return UNKNOWN
    return Tensor(shape, dtype, Device(UNKNOWN, UNKNOWN), False, None, "mlx")


def _dict_call(args: list[tuple[str | None, object]]) -> object:
    """``dict(a=1, b=2)`` / ``dict(base, c=3)`` of known values."""
    split = _split(args)
    if split is None or len(split[0]) > 1:
        return UNKNOWN
    positional, keywords = split
    base = positional[0] if positional else {}
    if not isinstance(base, dict):
        return UNKNOWN
    return {**base, **keywords}


def _named_device(text: str) -> Device:
    """``torch.device("cuda:1")``: type and index (None where the text names none)."""
    kind, _, index = text.partition(":")
    return Device(kind, int(index) if index.isdigit() else None if not index else UNKNOWN)


def _device(value: object) -> Device:
    """The device a tensor is made on: an accelerator named without an index is the current
    one, whose index is not known here (a tensor's device always has one)."""
    device = value if isinstance(value, Device) else _named_device(value) if isinstance(value, str) else None
    if device is None or device.type is UNKNOWN:
        return Device(UNKNOWN, UNKNOWN)
    if device.type != "cpu" and device.index is None:
        return Device(device.type, UNKNOWN)
    return device


def _factory(name: str, args: list[tuple[str | None, object]]) -> object:
    """The tensor ``torch.<factory>(sizes..., dtype=, device=)`` makes."""
    split = _split(args)
    if split is None:
        return UNKNOWN
    positional, keywords = split
    if name == "torch.full":
        positional = positional[:1]
        fill = keywords.get("fill_value", args[1][1] if len(args) > 1 and args[1][0] is None else UNKNOWN)
    if "size" in keywords:
        positional = [keywords["size"]]
    if len(positional) == 1 and isinstance(positional[0], (tuple, list)):
        positional = list(positional[0])
    if not all(isinstance(v, int) and not isinstance(v, bool) or v is UNKNOWN for v in positional):
        return UNKNOWN
    dtype = keywords.get("dtype", NOT_LITERAL)
    if dtype is NOT_LITERAL:
        if name == "torch.full":
            dtype = (dtype_ref("float32") if isinstance(fill, float) else dtype_ref("int64")
                     if isinstance(fill, int) and not isinstance(fill, bool) else UNKNOWN)
        else:
            dtype = dtype_ref("float32")  # torch's default dtype (unless the program changes it)
    return Tensor(tuple(positional), dtype, _device(keywords.get("device", "cpu")),
                  keywords.get("requires_grad", False))


def _made_by_torch(name: str, args: list[tuple[str | None, object]]) -> object:
    """``torch.tensor([...])``, ``torch.arange(n)``, ``torch.randint(lo, hi, size)``,
    ``torch.zeros_like(x)``: the tensors whose shape the call says; any other torch function
    that makes a tensor gives one of unknown shape and dtype (still a tensor: never None)."""
    split = _split(args)
    if split is None:
        return UNKNOWN
    positional, keywords = split
    device = _device(keywords.get("device", "cpu"))
    dtype = keywords.get("dtype", NOT_LITERAL)
    requires_grad = keywords.get("requires_grad", False)
    if name == "torch.tensor" and positional:
        shape, kind = _data_shape(positional[0])
        if shape is UNKNOWN:
            return Tensor(UNKNOWN, UNKNOWN if dtype is NOT_LITERAL else dtype, device, requires_grad)
        default = {bool: "bool", int: "int64", float: "float32"}.get(kind)
        return Tensor(shape, dtype if dtype is not NOT_LITERAL else (dtype_ref(default) if default else UNKNOWN),
                      device, requires_grad)
    if name == "torch.arange" and 1 <= len(positional) <= 3 and all(_is_int(v) for v in positional):
        start, end, step = (0, positional[0], 1) if len(positional) == 1 else (*positional, 1)[:3]
        length = max(0, -(-(end - start) // step)) if step else UNKNOWN
        return Tensor((length,), dtype if dtype is not NOT_LITERAL else dtype_ref("int64"), device, requires_grad)
    if name == "torch.randint" and len(positional) in (2, 3):
        size = keywords.get("size", positional[-1])
        shape = tuple(size) if isinstance(size, (tuple, list)) and all(_is_int(v) for v in size) else UNKNOWN
        return Tensor(shape, dtype if dtype is not NOT_LITERAL else dtype_ref("int64"), device, requires_grad)
    if name.endswith("_like") and name[6:-5] in ("empty", "zeros", "ones", "full", "rand", "randn") and positional:
        source = positional[0]
        if isinstance(source, Tensor):
            return Tensor(source.shape, dtype if dtype is not NOT_LITERAL else source.dtype,
                          _device(keywords["device"]) if "device" in keywords else source.device, requires_grad)
    if name[6:] in _TENSOR_FUNCTIONS:
        return Tensor(UNKNOWN, UNKNOWN, Device(UNKNOWN), UNKNOWN)
    return UNKNOWN


# torch functions that always return a tensor (of a shape not followed here).
_TENSOR_FUNCTIONS = frozenset({
    "tensor", "arange", "randint", "randperm", "linspace", "cat", "stack", "softmax", "empty_like", "zeros_like",
    "ones_like", "full_like", "rand_like", "randn_like", "from_numpy", "as_tensor", "eye", "matmul",
})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _data_shape(data: object) -> tuple[object, type | None]:
    """The shape of nested lists of numbers, and the widest kind of number in them."""
    if isinstance(data, (bool, int, float)):
        return (), type(data)
    if not isinstance(data, (list, tuple)):
        return UNKNOWN, None
    if not data:
        return (0,), float
    shapes = [_data_shape(item) for item in data]
    if any(shape is UNKNOWN for shape, _ in shapes) or len({shape for shape, _ in shapes}) != 1:
        return UNKNOWN, None
    kinds = {kind for _, kind in shapes}
    kind = float if float in kinds else int if int in kinds else bool
    return (len(data), *shapes[0][0]), kind


def _reshaped(tensor: Tensor, sizes: list) -> object:
    """``x.view(a, -1)`` / ``x.reshape((a, b))`` of a tensor whose shape is known."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = list(sizes[0])
    if tensor.shape is UNKNOWN or not all(_is_int(v) for v in tensor.shape) or not all(_is_int(v) for v in sizes):
        return Tensor(UNKNOWN, tensor.dtype, tensor.device, tensor.requires_grad)
    total = 1
    for size in tensor.shape:
        total *= size
    known = 1
    for size in sizes:
        if size != -1:
            known *= size
    if sizes.count(-1) > 1 or known == 0:
        return UNKNOWN
    shape = tuple(total // known if size == -1 else size for size in sizes)
    if total != known * (total // known if -1 in sizes else 1):
        return UNKNOWN  # the view itself fails
    return Tensor(shape, tensor.dtype, tensor.device, tensor.requires_grad)


def _tensor_method(tensor: Tensor, method: str, args: list[tuple[str | None, object]]) -> object:
    if any(keyword == "*" for keyword, _ in args) or tensor.library != "torch":
        return UNKNOWN
    if method in ("view", "reshape") and args and all(keyword is None for keyword, _ in args):
        if tensor.strides is not None:
            return UNKNOWN
        return _reshaped(tensor, [value for _, value in args])
    if method == "t" and not args and tensor.shape is not UNKNOWN and len(tensor.shape) == 2:
        strides = tensor.strides if tensor.strides is not None else (tensor.shape[1], 1)
        return Tensor(tensor.shape[::-1], tensor.dtype, tensor.device, tensor.requires_grad,
                      strides[::-1] if strides is not UNKNOWN else UNKNOWN)
    if method in _SAME_TENSOR:
        return tensor if method != "contiguous" else Tensor(tensor.shape, tensor.dtype, tensor.device,
                                                            tensor.requires_grad)
    if method in _DTYPE_METHODS and not args:
        return Tensor(tensor.shape, dtype_ref(_DTYPE_METHODS[method]), tensor.device, tensor.requires_grad,
                      tensor.strides)
    if method in ("cuda", "cpu") and not args:
        return Tensor(tensor.shape, tensor.dtype, _device(method), tensor.requires_grad, tensor.strides)
    if method == "to" and len(args) == 1 and args[0][0] in (None, "device", "dtype"):
        value = args[0][1]
        if isinstance(value, Ref) and dtype_ref(value.qualified.rpartition(".")[2]) is not None:
            return Tensor(tensor.shape, value, tensor.device, tensor.requires_grad, tensor.strides)
        if isinstance(value, (str, Device)):
            return Tensor(tensor.shape, tensor.dtype, _device(value), tensor.requires_grad, tensor.strides)
    return UNKNOWN


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
    values = CallValues(site, params.records)
    env = bind(params, values.found, values.value, values.extra_keywords)
    if holds(params.expression, env) is not True:
        return
    shown = "; ".join(f"{name} = {value!r}" for name, value in env.items())
    prefix = "." if target.kind in ("method", "attribute") else ""
    yield Finding(site.node, f"{prefix}{target.display}(...) fails at run time: {params.summary} ({shown}; "
                             f"sglang raises this when {params.when}, unless an earlier check raises first)")


def _screen(params: FailsWhen):
    """A call can fire only where the expression may be true. With the values written at the
    call (literals and displays), and UNKNOWN for the rest: false rules the call out; true
    means a finding; unknown means one only if the engine may know one of the rest (a name
    bound to a literal or to a tensor made in the file), which :func:`_may_know` tells."""

    # the calls whose value the engine may read for this rule: its record classes' too
    calls = _READ_CALLS | {name.rpartition(".")[2] for name, _ in params.records}

    def screen(call: ast.Call, facts) -> bool:
        hidden: list[ast.expr] = []
        mapping = []  # arguments in a ``**name`` mapping the engine may read

        def found(name, position):
            value = argument(call, name, position)
            if isinstance(value, bool):
                mapping.append(value)
                return NOT_FOUND
            return value

        def value_of(node):
            value = _ast_value(node)
            if value is UNKNOWN or not known_at_the_call(value):
                hidden.append(node)
            return value

        def extra_keywords(named):
            if any(star for _, star, _ in ast_call_arguments(call)):
                return UNKNOWN
            return {k.arg: value_of(k.value) for k in call.keywords if k.arg not in named}

        verdict = holds(params.expression, bind(params, found, value_of, extra_keywords))
        if verdict is not UNKNOWN:
            return verdict
        return any(mapping) or any(_may_know(node, facts, calls) for node in hidden)

    return screen


def known_at_the_call(value: object) -> bool:
    if isinstance(value, (tuple, list)):
        return all(known_at_the_call(v) for v in value)
    if isinstance(value, dict):
        return all(known_at_the_call(v) for v in value.values())
    return value is not UNKNOWN


# A tensor's methods the engine reads (``_tensor_method``): they make a tensor from the receiver.
_TENSOR_METHODS = _SAME_TENSOR | set(_DTYPE_METHODS) | {"view", "reshape", "t", "to", "cuda", "cpu"}
# The calls whose value the engine reads (``_made``): torch's tensor makers, tensor methods, dict().
_READ_CALLS = frozenset(
    {name.rpartition(".")[2] for name in FACTORIES} | _TENSOR_FUNCTIONS | _SAME_TENSOR | set(_DTYPE_METHODS)
    | {"device", "dict", "view", "reshape", "t", "to", "cuda", "cpu"} | {n.rpartition(".")[2] for n in NAMESPACES}
)


def _may_know(node: ast.expr, facts, calls: frozenset = _READ_CALLS, depth: int = 0,
              seen: frozenset = frozenset()) -> bool:
    """Could the engine know the value of this argument (CallValues.value)? A superset: a name
    with a binding it may know, a tensor maker, a method of such a tensor, a dotted name that
    starts at an import (an enum member, a dtype), a display or dict holding one."""
    if depth > MAX_DEPTH:
        return True
    if isinstance(node, ast.Name):
        if not isinstance(facts, ScopedFacts):
            return True  # the text screen alone cannot tell what a name is bound to: the ast look will
        if node.id in seen:
            return False  # (its other bindings are being looked at already)
        found = facts.syntax.lookup(node.id, facts.scopes)
        if found is None:
            return False
        bindings, owner = found
        inner = ScopedFacts(facts.facts, facts.syntax, owner)
        for binding in bindings:
            if binding[0] == GLOBAL:
                return True
            if binding[0] == VALUE and _may_know(binding[1], inner, calls, depth + 1, seen | {node.id}):
                return True
        return False  # parameters (never known to this check), loop and unpacking targets
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id in calls  # dict(...), or a torch maker imported by name
        if not isinstance(func, ast.Attribute) or func.attr not in calls:
            return False
        if func.attr in _TENSOR_METHODS:  # x.view(...): known only where x is
            return _may_know(func.value, facts, calls, depth + 1, seen)
        return _imported_head(func.value, facts)  # torch.zeros(...), th.tensor(...)
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_may_know(e, facts, calls, depth + 1, seen) for e in node.elts)
    if isinstance(node, ast.BinOp):  # known where both sides are
        return all(_may_know(side, facts, calls, depth + 1, seen) for side in (node.left, node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _may_know(node.operand, facts, calls, depth + 1, seen)
    if isinstance(node, ast.Dict):
        return any(_may_know(v, facts, calls, depth + 1, seen) for v in node.values) or None in node.keys
    if isinstance(node, ast.IfExp):
        return all(_may_know(branch, facts, calls, depth + 1, seen) for branch in (node.body, node.orelse))
    if isinstance(node, ast.Attribute):
        return _imported_head(node, facts)  # an enum member or a dtype
    return ast_literal(node) is not NOT_LITERAL


def _imported_head(node: ast.expr, facts) -> bool:
    """Does the dotted name start at an import (or a module-level def or class)? Only then can
    the engine qualify it."""
    while isinstance(node, ast.Attribute):
        node = node.value
    if not isinstance(node, ast.Name):
        return False
    if not isinstance(facts, ScopedFacts):
        return True
    found = facts.syntax.lookup(node.id, facts.scopes)
    return found is not None and any(binding[0] in (IMPORTED, GLOBAL) for binding in found[0])


def triggers(check):
    return [target_trigger(target, screen=_screen(check.params)) for target in check.targets]


KIND = CheckKind(name="fails-when", site="call", parse=parse, run=run, triggers=triggers)
