"""The values the fails-when evaluator (checks/fails_when/language.py) computes with, beside Python's own
scalars and containers: :data:`UNKNOWN`, tensors and MLX arrays made at a call, devices,
torch's and mlx's dtypes (:class:`~sglang_lint.text.pynames.Ref`), objects made at a call
(:class:`Record`) and values whose truth alone is known (:class:`TruthOnly`)."""

from __future__ import annotations

from dataclasses import dataclass

from sglang_lint.text.pynames import Ref


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "?"

    def __reduce__(self) -> str:  # (kept rules, ruletable.load_rules: unpickled as the one instance)
        return "UNKNOWN"

    def __bool__(self) -> bool:  # never decided by Python's truth: a bug if it is
        raise TypeError("an unknown value has no truth")


UNKNOWN = _Unknown()

# torch's dtype aliases, each to the one name a tensor's dtype is shown by.
DTYPE_ALIASES = {
    "float": "float32", "half": "float16", "double": "float64", "long": "int64", "int": "int32",
    "short": "int16", "cfloat": "complex64", "cdouble": "complex128", "bool": "bool",
}
DTYPES = frozenset({
    "float32", "float16", "bfloat16", "float64", "int64", "int32", "int16", "int8", "uint8", "bool",
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "complex64", "complex128",
    "uint16", "uint32", "uint64", "float4_e2m1fn_x2",
})
FLOAT_DTYPES = frozenset({"float32", "float16", "bfloat16", "float64"} | {d for d in DTYPES if d.startswith("float8")})


# mlx.core's dtypes (no aliases among them).
MLX_DTYPES = frozenset({"bool_", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16",
                        "float32", "float64", "bfloat16", "complex64"})


def is_dtype(ref: Ref) -> bool:
    """Is the Ref one dtype of torch (as :func:`dtype_ref` names it) or of mlx? Two such of
    other names are other dtypes."""
    library, _, name = ref.qualified.rpartition(".")
    return library == "torch" and dtype_ref(name) == ref or library == "mlx.core" and name in MLX_DTYPES


def dtype_ref(name: str) -> Ref | None:
    """``torch.<name>`` as the one Ref of its dtype (``torch.float`` -> ``torch.float32``)."""
    name = DTYPE_ALIASES.get(name, name)
    return Ref(f"torch.{name}") if name in DTYPES else None


@dataclass(frozen=True)
class Device:
    type: object  # "cuda", "cpu", ... or UNKNOWN
    index: object = None

    def __repr__(self) -> str:
        return f"device({self.type!r})"


@dataclass(frozen=True)
class Tensor:
    """A tensor whose making the linter saw: its shape (each size a number or UNKNOWN, or the
    whole shape UNKNOWN), dtype (a Ref) and device. Fresh tensors are contiguous."""

    shape: object
    dtype: object
    device: Device
    requires_grad: object = False
    strides: object = None  # None: contiguous (row-major) strides; else a tuple, or UNKNOWN
    library: str = "torch"  # "mlx": an ``mlx.core`` array (shape, ndim and dtype alone are read)

    def __repr__(self) -> str:
        shape = "?" if self.shape is UNKNOWN else "(" + ", ".join(map(repr, self.shape)) + ")"
        dtype = repr(self.dtype) if self.dtype is not UNKNOWN else "?"
        if self.library != "torch":
            return f"{self.library} array of shape {shape}, {dtype}"
        return f"tensor of shape {shape}, {dtype} on {self.device.type if self.device.type is not UNKNOWN else '?'}"


# Classes whose instances' attributes are the keywords they are made with.
NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})


@dataclass(frozen=True)
class Record:
    """An object made at the call whose attributes are the arguments it was made with:
    ``SimpleNamespace(a=1)``, or one of sglang's dataclasses, msgspec structs or named tuples
    whose fields a rule lists (``attributes``: the passed values and literal defaults). Any
    other attribute is unknown; the object is never None, and its truth is not guessed."""

    kind: str  # the class, qualified
    attributes: tuple  # ((name, value), ...)

    def attribute(self, name: str) -> object:
        return next((value for field, value in self.attributes if field == name), UNKNOWN)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.attributes)
        return f"{self.kind.rpartition('.')[2]}({shown})"


@dataclass(frozen=True)
class Member:
    """A member of an sglang enum a rule lists (``[[check.enum]]``): its members are told apart
    by name (no two share a value), and it is equal to nothing else when the enum has no int
    or str mixin (``plain``)."""

    enum: str  # the class, qualified where sglang defines it
    name: str
    truthy: bool = True
    plain: bool = True

    def __repr__(self) -> str:
        return f"{self.enum.rpartition('.')[2]}.{self.name}"


def member_equal(member: "Member", other: object) -> object:
    """``member == other``: True, False or None (not known)."""
    if isinstance(other, Member):
        return member.name == other.name if other.enum == member.enum else None
    if getattr(other, "qualified", None) is not None:  # a Ref: the rule's own ``sglang.x.E.NAME``
        owner, _, name = other.qualified.rpartition(".")
        return member.name == name if owner == member.enum else None
    if other is None:
        return False
    return False if member.plain and isinstance(other, (str, int, float, bool, tuple)) else None


@dataclass(frozen=True)
class TruthOnly:
    """A value whose truth is known but not the value itself: ``x or "auto"`` with ``x``
    unknown is true, but it is ``x`` or ``"auto"``."""

    truth: bool
