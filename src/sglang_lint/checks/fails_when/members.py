"""What the fails-when evaluator (checks/fails_when/language.py) reads of a value's members: its attributes
(a tensor's shape and dtype, a device's type, torch's names) and the methods it calls on
tensors, strings, dicts and sequences; with :func:`known`, the test of a value known all
through."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sglang_lint.checks.fails_when.values import (
    FLOAT_DTYPES, NAMESPACES, UNKNOWN, Device, Member, Record, Tensor, TruthOnly, dtype_ref,
)
from sglang_lint.text.pynames import Ref


def known(value: object) -> bool:
    """Is the value known all through (no UNKNOWN inside a container)?"""
    if value is UNKNOWN:
        return False
    if isinstance(value, (tuple, list)):
        return all(known(v) for v in value)
    if isinstance(value, dict):
        return all(known(v) for v in value.values())
    if isinstance(value, (Tensor, Method, Device, TruthOnly, Record)):
        return False  # a tensor's data is never known; a method is no value; devices compare apart
    return True


def attribute(value: object, name: str) -> object:
    if isinstance(value, Ref):
        key = (value.qualified, name)
        found = _OF_REFS.get(key)
        if found is None:
            if len(_OF_REFS) > 10_000:
                _OF_REFS.clear()
            found = _OF_REFS[key] = _ref_attribute(value, name)
        return found
    return _value_attribute(value, name)


_OF_REFS: dict = {}  # (a dotted name, an attribute) -> what the attribute is: the paths read the same few


def _ref_attribute(value: Ref, name: str) -> object:
    if value.qualified == "torch":
        ref = dtype_ref(name)
        # torch's classes and constants; anything else (torch.version.hip) is the install's
        return ref if ref is not None else Ref(f"torch.{name}") if name in TORCH_NAMES else UNKNOWN
    if value.qualified == "math" and name in ("inf", "pi", "e"):
        return getattr(math, name)
    return Ref(f"{value.qualified}.{name}")


def _value_attribute(value: object, name: str) -> object:
    if isinstance(value, Tensor) and value.library != "torch":
        if name == "shape":
            return value.shape
        if name == "ndim":
            return len(value.shape) if value.shape is not UNKNOWN else UNKNOWN
        return value.dtype if name == "dtype" else UNKNOWN
    if isinstance(value, Tensor):
        if name == "shape":
            return value.shape
        if name == "ndim":
            return len(value.shape) if value.shape is not UNKNOWN else UNKNOWN
        if name == "dtype":
            return value.dtype
        if name == "device":
            return value.device
        if name == "is_cuda":
            return UNKNOWN if value.device.type is UNKNOWN else value.device.type == "cuda"
        if name == "is_cpu":
            return UNKNOWN if value.device.type is UNKNOWN else value.device.type == "cpu"
        if name == "requires_grad":
            return value.requires_grad
        if name == "layout":
            return Ref("torch.strided")  # every tensor the engine follows is made dense
        return Method(value, name) if name in TENSOR_METHODS else UNKNOWN
    if isinstance(value, Record):
        return value.attribute(name)
    if isinstance(value, Member):
        return value.name if name == "name" else UNKNOWN
    if isinstance(value, Device):
        return value.type if name == "type" else value.index if name == "index" else UNKNOWN
    if isinstance(value, (dict, str, tuple, list)) and (name in VALUE_METHODS or name in MORE_VALUE_METHODS):
        return Method(value, name)
    return UNKNOWN


def attribute_or(value: object, name: str, default: object) -> object:
    """``getattr(value, name, default)``: a record's attribute, or the default where a namespace
    made at the call (which has no attribute but the keywords it was made with) lacks it; else
    unknown (a record class's instance has methods and class attributes besides its fields)."""
    if isinstance(value, Record):
        if any(field == name for field, _ in value.attributes):
            return value.attribute(name)
        if value.kind in NAMESPACES and not name.startswith("__"):
            return default
    return UNKNOWN


# torch's names a path may read: classes (for isinstance) and layout constants.
TORCH_NAMES = frozenset({"Tensor", "dtype", "device", "strided", "Size", "nn", "Generator", "sparse_coo"})
TENSOR_METHODS = frozenset({"dim", "ndimension", "size", "numel", "is_contiguous", "stride", "is_floating_point",
                            "element_size", "view", "reshape", "contiguous"})
VALUE_METHODS = frozenset({"get", "keys", "values", "startswith", "endswith", "lower", "upper", "strip", "count",
                           "index"})
# More methods of strings and dicts the evaluator knows, which only the start-up rules use
# (derive/startup/run.py); the fails-when paths of derive/reading/paths.py read VALUE_METHODS alone.
MORE_VALUE_METHODS = frozenset({"split", "rsplit", "lstrip", "rstrip", "isdigit", "isalnum", "isidentifier",
                                "replace", "items"})


@dataclass(frozen=True)
class Method:
    """``receiver.name``, waiting for its call."""

    receiver: object
    name: str


def index(value: object, key: object) -> object:
    if key is UNKNOWN or value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, dict):
        if not known(key):
            return UNKNOWN
        if key in value:
            return value[key]
        return UNKNOWN  # a KeyError: sglang fails, but not at the raise the rule is for
    if isinstance(value, (tuple, list, str)) and isinstance(key, int) and not isinstance(key, bool):
        return value[key] if -len(value) <= key < len(value) else UNKNOWN
    if isinstance(value, (tuple, list, str)) and isinstance(key, slice):
        return value[key]
    return UNKNOWN


def contiguous_strides(shape: tuple) -> object:
    if not known(list(shape)):
        return UNKNOWN
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def reshaped(tensor: Tensor, sizes: list) -> object:
    """``x.view(a, -1)`` / ``x.reshape((a, b))`` of a tensor whose shape is known."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = list(sizes[0])
    whole = (int,)
    if tensor.shape is UNKNOWN or not all(isinstance(v, whole) and not isinstance(v, bool)
                                          for v in (*tensor.shape, *sizes)):
        return Tensor(UNKNOWN, tensor.dtype, tensor.device, tensor.requires_grad)
    total, given = math.prod(tensor.shape), math.prod(size for size in sizes if size != -1)
    if sizes.count(-1) > 1 or given == 0:
        return UNKNOWN
    shape = tuple(total // given if size == -1 else size for size in sizes)
    if total != given * (total // given if -1 in sizes else 1):
        return UNKNOWN  # the view itself fails
    return Tensor(shape, tensor.dtype, tensor.device, tensor.requires_grad)


def method(receiver: object, name: str, args: list, keywords: dict) -> object:
    if isinstance(receiver, Tensor) and receiver.library != "torch":
        return UNKNOWN
    if isinstance(receiver, Tensor):
        shape = receiver.shape
        if name in ("dim", "ndimension") and not args and not keywords:
            return len(shape) if shape is not UNKNOWN else UNKNOWN
        if name == "size" and not keywords:
            if not args:
                return shape
            if len(args) == 1 and shape is not UNKNOWN:
                return index(shape, args[0])
        if name == "numel" and not args and shape is not UNKNOWN and known(list(shape)):
            return math.prod(shape)
        if name == "is_contiguous" and not args and not keywords:
            if receiver.strides is None:
                return True
            contiguous = contiguous_strides(shape) if shape is not UNKNOWN else UNKNOWN
            strides = tuple(receiver.strides)
            return strides == contiguous if known(list(strides)) and contiguous is not UNKNOWN else UNKNOWN
        if name == "stride" and not keywords and shape is not UNKNOWN:
            strides = contiguous_strides(shape) if receiver.strides is None else receiver.strides
            if not args:
                return strides
            return index(strides, args[0]) if len(args) == 1 and strides is not UNKNOWN else UNKNOWN
        if name == "is_floating_point" and not args and isinstance(receiver.dtype, Ref):
            return receiver.dtype.qualified[6:] in FLOAT_DTYPES
        if name == "element_size" and not args and isinstance(receiver.dtype, Ref):
            return _ELEMENT_SIZE.get(receiver.dtype.qualified[6:], UNKNOWN)
        if name in ("view", "reshape") and args and not keywords:
            return reshaped(receiver, args) if receiver.strides is None else UNKNOWN
        if name == "contiguous" and not args and not keywords:
            return Tensor(shape, receiver.dtype, receiver.device, receiver.requires_grad)
        return UNKNOWN
    if isinstance(receiver, dict):
        if name == "get" and 1 <= len(args) <= 2 and not keywords and known(args[0]):
            if args[0] in receiver:
                return receiver[args[0]]
            return args[1] if len(args) == 2 else None
        if name in ("keys", "values") and not args:
            return list(receiver) if name == "keys" else list(receiver.values())
        if name == "items" and not args:
            return [(k, v) for k, v in receiver.items()]
        return UNKNOWN
    if isinstance(receiver, str) and not keywords and known(args):
        if name in ("startswith", "endswith") and len(args) == 1 and isinstance(args[0], (str, tuple)):
            return getattr(receiver, name)(args[0])
        if name in ("lower", "upper", "strip", "lstrip", "rstrip", "isdigit", "isalnum", "isidentifier") \
                and not args:
            return getattr(receiver, name)()
        if name in ("lstrip", "rstrip") and len(args) == 1 and isinstance(args[0], str):
            return getattr(receiver, name)(args[0])
        if name in ("split", "rsplit") and len(args) <= 2 and all(
                isinstance(a, (str, int)) or a is None for a in args):
            return getattr(receiver, name)(*args)
        if name == "replace" and len(args) == 2 and all(isinstance(a, str) for a in args):
            return receiver.replace(*args)
        return UNKNOWN
    if isinstance(receiver, (tuple, list)) and name in ("count", "index") and len(args) == 1 and known(
            list(receiver)) and known(args[0]):
        try:
            return getattr(receiver, name)(args[0])
        except ValueError:
            return UNKNOWN
    return UNKNOWN


_ELEMENT_SIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int64": 8, "int32": 4, "int16": 2,
                 "int8": 1, "uint8": 1, "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1}
