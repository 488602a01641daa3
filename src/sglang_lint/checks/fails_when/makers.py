"""What a call that makes a value gives, for the fails-when check (checks/fails_when/check.py): a
tensor torch makes (its factories, ``torch.tensor(data)``, a tensor's methods), an mlx array,
a device. Each reads the call's argument values (``CallValues._argument``: (keyword, value)
pairs) and gives UNKNOWN wherever the call is not one it can read for certain."""

from __future__ import annotations

import ast

from sglang_lint.checks.fails_when.language import UNKNOWN, Device, Record, Tensor, dtype_ref, is_dtype, reshaped
from sglang_lint.checks.fails_when.values import NAMESPACES
from sglang_lint.text.pynames import NOT_LITERAL, Ref

MAX_DEPTH = 6  # nested displays and name hops before a value is unknown
# The arithmetic operators the engine computes with (``when.arithmetic``), by LibCST's class
# name (the table is made before LibCST is imported); the :mod:`ast` side reads the values.
CST_OPERATORS = {
    "Add": ast.Add, "Subtract": ast.Sub, "Multiply": ast.Mult, "Divide": ast.Div,
    "FloorDivide": ast.FloorDiv, "Modulo": ast.Mod, "Power": ast.Pow, "LeftShift": ast.LShift,
    "RightShift": ast.RShift, "BitAnd": ast.BitAnd, "BitOr": ast.BitOr, "BitXor": ast.BitXor,
}

# torch's factories: a tensor of the shape written at the call (floats unless told).
FACTORIES = frozenset({"torch.empty", "torch.zeros", "torch.ones", "torch.randn", "torch.rand", "torch.full"})
# mlx.core's array makers whose shape and dtype the call says.
MLX_FACTORIES = frozenset({"mlx.core.zeros", "mlx.core.ones", "mlx.core.full"})
# a tensor's methods that give a tensor like it, and those that change its dtype
SAME_TENSOR = frozenset({"contiguous", "clone"})
DTYPE_METHODS = {"float": "float32", "half": "float16", "bfloat16": "bfloat16", "double": "float64",
                 "long": "int64", "int": "int32", "bool": "bool"}


def split_arguments(args: list[tuple[str | None, object]]) -> tuple[list, dict] | None:
    """A call's argument values (``CallValues._argument``) as positional ones and keywords;
    None after a ``*``/``**`` splat (the arguments are then not known)."""
    if any(keyword == "*" for keyword, _ in args):
        return None
    return ([value for keyword, value in args if keyword is None],
            {keyword: value for keyword, value in args if keyword is not None})


def mlx_array(name: str, args: list[tuple[str | None, object]]) -> object:
    """``mx.zeros((8, 768), dtype=mx.float16)``: an MLX array of that shape and dtype."""
    split = split_arguments(args)
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


def named_device(text: str) -> Device:
    """``torch.device("cuda:1")``: type and index (None where the text names none)."""
    kind, _, index = text.partition(":")
    return Device(kind, int(index) if index.isdigit() else None if not index else UNKNOWN)


def device_of(value: object) -> Device:
    """The device a tensor is made on: an accelerator named without an index is the current
    one, whose index is not known here (a tensor's device always has one)."""
    device = value if isinstance(value, Device) else named_device(value) if isinstance(value, str) else None
    if device is None or device.type is UNKNOWN:
        return Device(UNKNOWN, UNKNOWN)
    if device.type != "cpu" and device.index is None:
        return Device(device.type, UNKNOWN)
    return device


def factory(name: str, args: list[tuple[str | None, object]]) -> object:
    """The tensor ``torch.<factory>(sizes..., dtype=, device=)`` makes."""
    split = split_arguments(args)
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
    return Tensor(tuple(positional), dtype, device_of(keywords.get("device", "cpu")),
                  keywords.get("requires_grad", False))


def made_by_torch(name: str, args: list[tuple[str | None, object]]) -> object:
    """``torch.tensor([...])``, ``torch.arange(n)``, ``torch.randint(lo, hi, size)``,
    ``torch.zeros_like(x)``: the tensors whose shape the call says; any other torch function
    that makes a tensor gives one of unknown shape and dtype (still a tensor: never None)."""
    split = split_arguments(args)
    if split is None:
        return UNKNOWN
    positional, keywords = split
    device = device_of(keywords.get("device", "cpu"))
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
                          device_of(keywords["device"]) if "device" in keywords else source.device, requires_grad)
    if name[6:] in TENSOR_FUNCTIONS:
        return Tensor(UNKNOWN, UNKNOWN, Device(UNKNOWN), UNKNOWN)
    return UNKNOWN


# torch functions that always return a tensor (of a shape not followed here).
TENSOR_FUNCTIONS = frozenset({
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


def tensor_method(tensor: Tensor, method: str, args: list[tuple[str | None, object]]) -> object:
    if any(keyword == "*" for keyword, _ in args) or tensor.library != "torch":
        return UNKNOWN
    if method in ("view", "reshape") and args and all(keyword is None for keyword, _ in args):
        if tensor.strides is not None:
            return UNKNOWN
        return reshaped(tensor, [value for _, value in args])
    if method == "t" and not args and tensor.shape is not UNKNOWN and len(tensor.shape) == 2:
        strides = tensor.strides if tensor.strides is not None else (tensor.shape[1], 1)
        return Tensor(tensor.shape[::-1], tensor.dtype, tensor.device, tensor.requires_grad,
                      strides[::-1] if strides is not UNKNOWN else UNKNOWN)
    if method in SAME_TENSOR:
        return tensor if method != "contiguous" else Tensor(tensor.shape, tensor.dtype, tensor.device,
                                                            tensor.requires_grad)
    if method in DTYPE_METHODS and not args:
        return Tensor(tensor.shape, dtype_ref(DTYPE_METHODS[method]), tensor.device, tensor.requires_grad,
                      tensor.strides)
    if method in ("cuda", "cpu") and not args:
        return Tensor(tensor.shape, tensor.dtype, device_of(method), tensor.requires_grad, tensor.strides)
    if method == "to" and len(args) == 1 and args[0][0] in (None, "device", "dtype"):
        value = args[0][1]
        if isinstance(value, Ref) and dtype_ref(value.qualified.rpartition(".")[2]) is not None:
            return Tensor(tensor.shape, value, tensor.device, tensor.requires_grad, tensor.strides)
        if isinstance(value, (str, Device)):
            return Tensor(tensor.shape, tensor.dtype, device_of(value), tensor.requires_grad, tensor.strides)
    return UNKNOWN


def scalar_ref(value: object) -> object:
    """A qualified name's value: a dtype for ``torch.<dtype>``, else the reference itself."""
    if isinstance(value, Ref) and value.qualified.startswith("torch."):
        return dtype_ref(value.qualified[6:]) or value
    return value


def record_made(name: str, record, args: list[tuple[str | None, object]]) -> object:
    """The object ``SimpleNamespace(a=1)`` or a record class's call makes (``record``: the
    fails-when rule's RecordClass, None for a namespace); UNKNOWN where the call does not match
    the fields (Python would raise a TypeError, not sglang its error)."""
    split = split_arguments(args)
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


def dict_made(args: list[tuple[str | None, object]]) -> object:
    """``dict(a=1, b=2)`` / ``dict(base, c=3)`` of known values."""
    split = split_arguments(args)
    if split is None or len(split[0]) > 1:
        return UNKNOWN
    positional, keywords = split
    base = positional[0] if positional else {}
    if not isinstance(base, dict):
        return UNKNOWN
    return {**base, **keywords}


BUILTIN_DICT = "<builtin dict>"  # the callee name of ``dict(...)`` where ``dict`` is Python's own


def makes(name: str | None, records) -> bool:
    """Does a call of ``name`` (a qualified name, :data:`BUILTIN_DICT`, or None) make a value
    :func:`made_by` reads (a fails-when rule's ``records`` are its record classes)?"""
    return name is not None and (name == BUILTIN_DICT or name in NAMESPACES or name in records
                                 or name in MLX_FACTORIES or name.startswith("torch."))


def made_by(name: str, records, args: list[tuple[str | None, object]]) -> object:
    """What a call of ``name`` (one :func:`makes` accepts) makes from these argument values:
    a dict, a record or namespace, an mlx array, a torch device or tensor. The engine
    (checks/fails_when/check.py ``CallValues._made``) and the screen
    (checks/fails_when/screen_values.py) read calls through it."""
    if name == BUILTIN_DICT:
        return dict_made(args)
    if name in NAMESPACES or name in records:
        return record_made(name, records.get(name), args)
    if name in MLX_FACTORIES:
        return mlx_array(name, args)
    if name == "torch.device":
        return named_device(args[0][1]) if args and args[0][0] is None and isinstance(args[0][1], str) else UNKNOWN
    if name in FACTORIES:
        return factory(name, args)
    return made_by_torch(name, args)
