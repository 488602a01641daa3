"""What a server argument's annotation and its flag's registration say of its values: the base
type an annotation allows (``Optional[int]``, ``Literal[...]``, ``A[T, Arg(...)]``), a list's
item type, a literal container default, and the converter argparse calls on the flag's word
(``type=int``, a ``type_parser``, the one ``add_cli_args_from_dataclass`` infers).
"""

from __future__ import annotations

import ast

from sglang_lint.derive.reading.guards import is_none
from sglang_lint.text.pynames import NOT_LITERAL, ast_literal


def list_item(node: ast.expr) -> str | None:
    """The item type of the list an annotation allows (``Optional[List[int]]``,
    ``Union[set[str], List[str]]``): its name where a builtin scalar, "str" for another
    item type, None where no list."""
    for part in ast.walk(node):
        if isinstance(part, ast.Subscript) and ast.unparse(part.value).rsplit(".", 1)[-1] in ("List", "list"):
            name = ast.unparse(part.slice)
            return name if name in ("int", "float") else "str"
    return None


def unwrap_type(node: ast.expr) -> tuple[str, bool, tuple]:
    """(base type, optional?, Literal values) of an annotation."""
    optional = False
    literal: tuple = ()
    while isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).rsplit(".", 1)[-1]
        inner = node.slice
        if head == "Optional":
            optional, node = True, inner
        elif head == "Union":
            parts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            kept = [p for p in parts if not is_none(p) and ast.unparse(p) != "None"]
            optional = optional or len(kept) < len(parts)
            if len(kept) != 1:
                return "other", optional, ()
            node = kept[0]
        elif head == "Literal":
            parts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            values = [ast_literal(p) for p in parts]
            if any(v is NOT_LITERAL for v in values):
                return "other", optional, ()
            optional = optional or None in values
            literal = tuple(v for v in values if v is not None)
            kinds = {type(v).__name__ for v in literal}
            return (kinds.pop() if len(kinds) == 1 else "other"), optional, literal
        elif head in ("List", "list"):
            return "list", optional, ()
        else:
            return "other", optional, ()
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = node.left, node.right
        if is_none(right) or ast.unparse(right) == "None":
            base, _, lit = unwrap_type(left)
            return base, True, lit
        return "other", optional, ()
    name = ast.unparse(node)
    return (name if name in ("str", "int", "float", "bool") else "other"), optional, literal


# argparse's actions that take no word after the flag
WORDLESS_ACTIONS = frozenset({"store_true", "store_false", "store_const", "count", "BooleanOptionalAction"})


def declared_word(base: str, literal: tuple, item: str | None, given: dict) -> str:
    """The converter ``add_cli_args_from_dataclass`` gives a declared field's flag, in its
    order: an action's own; a ``Literal``'s ``type_parser`` or its first value's type; none
    for a bool (store_true); a list's item type where no ``type_parser``; else the
    ``type_parser`` or one inferred from the annotation (int, float, any other text)."""
    if "action" in given:
        action = given["action"]
        name = action.value if isinstance(action, ast.Constant) else ast.unparse(action).rsplit(".", 1)[-1]
        return "" if name in WORDLESS_ACTIONS else "other"
    if literal:
        return converter_word(given["type_parser"]) if "type_parser" in given \
            else {int: "int", float: "float"}.get(type(literal[0]), "str")
    if base == "bool":
        return ""
    if base == "list" and "type_parser" not in given:
        return item or "str"
    if "type_parser" in given:
        return converter_word(given["type_parser"])
    return base if base in ("int", "float") else "str"


def converter_word(node: ast.expr | None) -> str:
    """The word of a ``type=`` converter (see ServerField.word); "str" where none is given."""
    if node is None:
        return "str"
    name = ast.unparse(node)
    if name in ("int", "float", "str"):
        return name
    return "json" if name in ("json.loads", "loads") else "other"


def parse_of(node: ast.expr | None) -> str | None:
    """"json" where a flag's text is parsed by ``json.loads``."""
    return "json" if node is not None and ast.unparse(node) in ("json.loads", "loads") else None


MANY = ("*", "+")  # the nargs that take the words after the flag as a list


def item_of(name: str | None) -> str | None:
    return name if name in ("int", "float") else None


_FACTORIES = {"list": [], "dict": {}, "tuple": (), "set": frozenset()}


def container_default(node: ast.expr | None) -> tuple:
    """(value,) of a default that is a container of literals: ``[]``, ``("a", "b")``,
    ``dataclasses.field(default_factory=list)``; () for any other."""
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("field", "dataclasses.field") and not node.args:
        factory = next((k.value for k in node.keywords if k.arg == "default_factory"), None)
        if isinstance(factory, ast.Name) and factory.id in _FACTORIES:
            return (_FACTORIES[factory.id],)
        return ()
    if isinstance(node, (ast.List, ast.Tuple, ast.Dict)):
        try:
            return (ast.literal_eval(node),)
        except (ValueError, TypeError, SyntaxError):
            return ()
    return ()
