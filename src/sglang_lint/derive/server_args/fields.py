"""Server arguments: every field ``ServerArgs(...)`` / ``sgl.Engine(...)`` accepts and the
launch flags that set it, read from sglang's ``arg_groups`` namespace classes and the flags
``server_args.py`` registers by hand; their choices read by :class:`.choices.ChoiceReader`.
Written as ``rules/derived/server_args.toml``, the table the server-args rules check against.

Every scalar is read as the engine reads it (:func:`sglang_lint.text.pynames.ast_literal`);
values built from several (lists, sets, constants of other modules, class constants,
helpers' returns, Enum members) are the choice reader's.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass

from sglang_lint.derive.server_args.choices import ChoiceReader
from sglang_lint.derive.server_args.field_types import (
    MANY, container_default, converter_word, declared_word, item_of, list_item, parse_of, unwrap_type,
)
from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string, toml_value
from sglang_lint.derive.reading.guards import Skip
from sglang_lint.derive.source.tree import Module, walk_all
from sglang_lint.text.pynames import NOT_LITERAL, ast_literal

FIELDS_PACKAGE = "sglang.srt.arg_groups.fields"
SERVER_ARGS_TABLE = "server_args.toml"


@dataclass(frozen=True)
class ServerField:
    """One server argument: what ``ServerArgs(name=...)`` and ``--name`` accept."""

    name: str
    type: str  # str | int | float | bool | list | other
    optional: bool
    choices: tuple = ()
    extensible: bool = False  # choices a plugin may extend (add_*_choices = LIST.extend)
    flags: tuple = ()  # command-line spellings
    default: object = None
    literal_default: bool = False  # the default is a literal (``default`` is its value)
    container_default: tuple = ()  # (value,) where the default is an empty or literal list, tuple or dict
    nargs: str | None = None  # argparse's nargs of its flag ("*", "+"): the words after it are its items
    item: str | None = None  # what each item is converted to (int, float), where not a string
    parse: str | None = None  # how its flag's text is parsed where not as its type: "json" (json.loads)
    # What argparse converts the flag's word with: "int", "float", "json" (json.loads), "str"
    # (any text), "other" (a converter of sglang's own); "" where the flag takes no word.
    word: str = ""


SERVER_ARGS_MODULE = "sglang.srt.server_args"
ARG_GROUPS_PACKAGE = "sglang.srt.arg_groups"  # where later releases moved parts of it


def server_argument_trees(modules: list[Module]) -> list[ast.Module]:
    """The modules that declare the server's arguments (server_args.py, then the arg_groups
    package); none where the tree has no server_args.py."""
    if not any(m.name == SERVER_ARGS_MODULE for m in modules):
        return []
    return [m.tree for m in modules if m.name == SERVER_ARGS_MODULE or m.name.startswith(ARG_GROUPS_PACKAGE)]


def derive_server_fields(modules: list[Module]) -> list[ServerField]:
    """Every field ``ServerArgs`` accepts, as sglang assembles it: each annotated attribute
    of the namespace classes in ``arg_groups/fields`` (``A[T, Arg(...)]`` ones get their
    flags from ``add_cli_args_from_dataclass``; a plain ``name: T = v`` has none), then the
    flags ``ServerArgs.add_cli_args`` registers by hand with ``parser.add_argument``."""
    by_name = {m.name: m for m in modules}
    reader = ChoiceReader(by_name)
    fields: dict[str, ServerField] = {}
    for module, cls in _field_classes(modules, by_name):
        for statement in cls.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                found = _declared_field(statement, module, reader)
                if found is not None:
                    fields[found.name] = found
    server_args = by_name.get(SERVER_ARGS_MODULE)
    if server_args is not None:
        _add_registered_flags(server_args, fields, reader, _true_storing_actions(modules))
    return [fields[name] for name in sorted(fields)]


def _true_storing_actions(modules: list[Module]) -> frozenset[str]:
    """sglang's argparse actions that, given no value, store ``True`` in their destination
    and stop nothing (``DeprecatedStoreTrueAction``: a deprecated spelling that still sets its
    field): their ``__init__`` defaults ``nargs`` to 0 and ``const`` to True, and their
    ``__call__`` sets ``self.dest`` to ``True`` and raises nothing."""
    found = set()
    for module in modules:
        if module.name != SERVER_ARGS_MODULE and not module.name.startswith(ARG_GROUPS_PACKAGE):
            continue
        for cls in module.tree.body:
            methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)} \
                if isinstance(cls, ast.ClassDef) else {}
            if "__init__" not in methods or "__call__" not in methods:
                continue
            init = methods["__init__"].args
            defaults = dict(zip([a.arg for a in init.args][-len(init.defaults):] if init.defaults else [],
                                init.defaults))
            if not (isinstance(defaults.get("nargs"), ast.Constant) and defaults["nargs"].value == 0):
                continue
            call = list(walk_all(methods["__call__"]))
            stores_true = any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "setattr" and len(n.args) == 3
                and ast.unparse(n.args[1]) == "self.dest" and isinstance(n.args[2], ast.Constant)
                and n.args[2].value is True for n in call)
            stops = any(isinstance(n, ast.Raise) or isinstance(n, ast.Attribute) and n.attr == "error" for n in call)
            if stores_true and not stops:
                found.add(cls.name)
    return frozenset(found)


def _field_classes(modules: list[Module], by_name: dict[str, Module]):
    """The classes whose annotated attributes are ServerArgs' fields, in each of sglang's
    layouts: the namespace classes of ``arg_groups/fields`` (0.5.20 on), and before them the
    ``@dataclass class ServerArgs`` of ``server_args.py`` itself (with ``A[T, Arg(...)]``
    fields from 0.5.15, plain ``name: T = v`` ones, flagged by ``add_cli_args``, before)."""
    for module in modules:
        if module.name.startswith(FIELDS_PACKAGE + "."):
            for cls in module.tree.body:
                if isinstance(cls, ast.ClassDef):
                    yield module, cls
    server_args = by_name.get(SERVER_ARGS_MODULE)
    if server_args is None:
        return
    for cls in server_args.tree.body:
        if isinstance(cls, ast.ClassDef) and cls.name == "ServerArgs" and any(
            ast.unparse(d).rsplit(".", 1)[-1].startswith("dataclass") for d in cls.decorator_list
        ):
            yield server_args, cls


def _declared_field(statement: ast.AnnAssign, module: Module, reader: ChoiceReader) -> ServerField | None:
    """One field of a namespace class: ``name: A[T, Arg(...)] = v``, ``name: A[T, "help"]``
    or a plain ``name: T = v`` (no flag)."""
    name, annotation = statement.target.id, statement.annotation
    if ast.unparse(annotation).split("[")[0].rsplit(".", 1)[-1] == "ClassVar":
        return None
    annotated = isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in ("A", "Annotated")
    if annotated:
        parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    else:
        parts = [annotation]
    base, optional, choices = unwrap_type(parts[0])
    literal = choices
    meta = parts[1] if len(parts) > 1 else None
    flags = ["--" + name.replace("_", "-")]
    grows = False
    cli = annotated and meta is not None
    nargs = None
    if isinstance(meta, ast.Call):
        given = {k.arg: k.value for k in meta.keywords if k.arg}
        if isinstance(given.get("nargs"), ast.Constant):
            nargs = str(given["nargs"].value)
        elif base == "list" and "type_parser" not in given and "action" not in given:
            nargs = "+"  # add_cli_args_from_dataclass: a List[X] field takes its items as words
    elif base == "list" and cli:
        nargs = "+"
    if isinstance(meta, ast.Call):
        for keyword in meta.keywords:
            if keyword.arg == "choices":
                try:
                    found, grows = reader.values(keyword.value, module)
                    optional = optional or None in found
                    choices = tuple(v for v in found if v is not None)
                except Skip:
                    choices = ()
            elif keyword.arg == "aliases" and isinstance(keyword.value, (ast.List, ast.Tuple)):
                flags += [e.value for e in keyword.value.elts if isinstance(e, ast.Constant)]
            elif keyword.arg == "cli_name" and isinstance(keyword.value, ast.Constant):
                flags[0] = keyword.value.value
            elif keyword.arg == "no_cli" and isinstance(keyword.value, ast.Constant):
                cli = cli and not keyword.value.value
    default = None if statement.value is None else ast_literal(statement.value)
    return ServerField(
        name, base, optional, tuple(choices), grows, tuple(flags) if cli else (),
        None if default is NOT_LITERAL else default,
        statement.value is not None and default is not NOT_LITERAL,
        container_default(statement.value),
        nargs if cli and nargs in MANY else None,
        item_of(list_item(parts[0])) if cli and nargs in MANY else None,
        parse_of(given.get("type_parser")) if cli and isinstance(meta, ast.Call) else None,
        declared_word(base, literal, list_item(parts[0]), given if isinstance(meta, ast.Call) else {}) if cli else "",
    )


def _add_registered_flags(module: Module, fields: dict[str, ServerField], reader: ChoiceReader,
                          true_storing: frozenset = frozenset()) -> None:
    """``parser.add_argument("--x", choices=..., dest=...)`` in ``ServerArgs.add_cli_args``
    and the module's other functions: a plain (action-less) flag whose destination is a
    field gives that field its flag and, where they can be read, its choices: argparse's, so a
    flag registered without ``choices=`` (or with ones not read) leaves its field's values open,
    whatever its annotation says (``Literal[...]`` is a hint argparse never reads). A flag whose
    action stores True as ``store_true`` does (``true_storing``: a deprecated spelling that still
    sets its bool field, ``--enable-dp-attention`` from 0.5.23) is that field's too; flags with
    another action stay hand-registered flags only."""
    renamed = _namespace_renames(module)
    unchecked: set[str] = set()  # fields one of whose flags takes any value
    for function in module.functions:
        scope = None
        for node in walk_all(function):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            if node.func.attr != "add_argument":
                continue
            spellings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            keywords = {k.arg: k.value for k in node.keywords if k.arg}
            longs = [f for f in spellings if f.startswith("--")]
            action = keywords.get("action")
            plain_action = isinstance(action, ast.Constant) and action.value in ("store_true", "store_false")
            storing_true = isinstance(action, ast.Name) and action.id in true_storing and not (
                {"nargs", "const", "type"} & set(keywords))
            if not longs or (action is not None and not plain_action and not storing_true):
                continue
            dest = keywords.get("dest")
            name = dest.value if isinstance(dest, ast.Constant) else longs[0][2:].replace("-", "_")
            name = renamed.get(name, name)
            field = fields.get(name)
            if field is None or storing_true and field.type != "bool":
                continue
            plain_action = plain_action or storing_true
            choices, grows = (), False
            if "choices" in keywords:
                scope = scope if scope is not None else reader.locals_of(function, module)
                try:
                    found, grows = reader.values(keywords["choices"], module, scope)
                    choices = tuple(v for v in found if v is not None)
                except Skip:
                    pass
            if not choices:
                unchecked.add(name)
            flags = tuple(dict.fromkeys(field.flags + tuple(spellings)))
            nargs, item = field.nargs, field.item
            word = "" if plain_action else converter_word(keywords.get("type"))
            if isinstance(keywords.get("nargs"), ast.Constant):
                nargs = str(keywords["nargs"].value) if keywords["nargs"].value in MANY else None
                kind = keywords.get("type")
                item = item_of(kind.id) if nargs and isinstance(kind, ast.Name) else None
            fields[name] = dataclasses.replace(field, choices=tuple(choices), extensible=grows, flags=flags,
                                               nargs=nargs, item=item,
                                               parse=parse_of(keywords.get("type")) or field.parse, word=word)
    for name in unchecked:
        fields[name] = dataclasses.replace(fields[name], choices=(), extensible=False)


def _namespace_renames(module: Module) -> dict[str, str]:
    """``args.tp_size = args.tensor_parallel_size`` in ``ServerArgs.from_cli_args``: the
    parser's destination (``tensor_parallel_size``) -> the field it becomes (``tp_size``)."""
    renamed = {}
    for function in module.functions:
        if function.name != "from_cli_args":
            continue
        for node in walk_all(function):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Attribute) and isinstance(node.value, ast.Attribute) \
                    and isinstance(node.targets[0].value, ast.Name) and isinstance(node.value.value, ast.Name) \
                    and node.targets[0].value.id == node.value.value.id:
                renamed[node.value.attr] = node.targets[0].attr
    return renamed


def manual_flags(modules: list[Module]) -> list[str]:
    """Flags registered by hand (``parser.add_argument("--x", ...)``) in server_args and
    arg_groups: deprecated spellings, ``--config`` and the like."""
    flags = set()
    for module in modules:
        if module.name != SERVER_ARGS_MODULE and not module.name.startswith(ARG_GROUPS_PACKAGE):
            continue
        for node in walk_all(module.tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("-"):
                        flags.add(arg.value)
    return sorted(flags)


def server_args_text(
    fields: list[ServerField], flags: list[str], version: str, deprecated: dict | None = None,
    values: dict | None = None,
) -> str:
    """The table file. ``deprecated``: flag -> its runs of releases deprecating it alike, each
    (deprecations.DeprecatedFlag, since, until);
    ``values``: field -> {deprecated value -> (replacement, exact[, since, until])}."""
    lines = [
        GENERATED_MARK,
        "# The server arguments of sglang: what ServerArgs(...), sgl.Engine(...) and the",
        "# launch flags accept. Read by the server-args rules (SGL006-SGL011).",
        f"sglang_version = {toml_string(version)}",
        "manual_flags = [" + ", ".join(toml_string(f) for f in flags) + "]",
        "",
    ]
    if deprecated:
        lines.append("[deprecated_flags]")
        for flag, runs in sorted(deprecated.items()):
            tables = [_deprecation_text(kind, since, until) for kind, since, until in runs]
            lines.append(f"{toml_string(flag)} = {tables[0] if len(tables) == 1 else '[' + ', '.join(tables) + ']'}")
        lines.append("")
    if values:
        lines.append("[deprecated_values]")
        for name, olds in sorted(values.items()):
            entries = []
            for old, (new, exact, *span) in sorted(olds.items()):
                since, until = span or ("", "")
                entries.append(f"{toml_string(old)} = {_inline({'new': new, 'exact': exact}, since, until)}")
            lines.append(f"{name} = {{ {', '.join(entries)} }}")
        lines.append("")
    for f in fields:
        lines.append(f"[fields.{f.name}]")
        lines.append(f"type = {toml_string(f.type)}")
        lines.append(f"optional = {toml_value(f.optional)}")
        if f.choices:
            lines.append("choices = [" + ", ".join(toml_value(v) for v in f.choices) + "]")
            lines.append(f"extensible = {toml_value(f.extensible)}")
        lines.append("flags = [" + ", ".join(toml_string(v) for v in f.flags) + "]")
        if f.nargs:
            lines.append(f"nargs = {toml_string(f.nargs)}")
        if f.item:
            lines.append(f"item = {toml_string(f.item)}")
        if f.parse:
            lines.append(f"parse = {toml_string(f.parse)}")
        if f.word:
            lines.append(f"word = {toml_string(f.word)}")
        if f.default is not None:
            lines.append(f"default = {toml_value(f.default)}")
        lines.append("")
    return "\n".join(lines)


def _deprecation_text(kind, since: str, until: str) -> str:
    """One run of a flag's deprecation, as an inline table."""
    return _inline({"action": kind.action, "new": kind.new, "effect": kind.effect, "says": kind.says}, since, until)


def _inline(items: dict, since: str, until: str) -> str:
    """An inline table of the items that have a value (a boolean always), then the releases."""
    parts = [f"{key} = {toml_value(value)}" for key, value in
             [*items.items(), ("since", since), ("until", until)] if value or isinstance(value, bool)]
    return "{ " + ", ".join(parts) + " }"
