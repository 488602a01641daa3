"""The keywords of the diffusion server's ``ServerArgs`` (``sglang.multimodal_gen``) in one
release, read from its source: a dataclass, so its keywords are its fields (those of its
dataclass bases too, the base's first), less what ``ClassVar`` annotates and what
``field(init=False)`` keeps out of ``__init__``. None where the release has no such class, or
one with an ``__init__`` of its own (its keywords are then not its fields).

``ServerArgs.from_kwargs`` first hands its keywords to ``PipelineConfig.from_kwargs``, which
takes out of them each one the model's pipeline config has as an attribute (and sets it there):
those names are :func:`config_attributes`, every attribute (field, class constant, method) of
``PipelineConfig`` and of every class of the tree below it, whichever the model picks.

Written beside the diffusion server's launch flags (serve.toml, ``[parsers.diffusion_keywords]``
and ``[parsers.diffusion_config_keywords]``, as parsers whose option strings are the names);
the keyword launchers that hand their ``**`` keywords to it are keyword_launchers.py's."""

from __future__ import annotations

import ast

from sglang_lint.derive.server_args.keyword_launchers import DIFFUSION_SERVER_ARGS
from sglang_lint.derive.server_args.parsers import ModuleSet
from sglang_lint.derive.reading.state import base_name
from sglang_lint.text.pynames import ast_dotted_name

DATACLASS = frozenset({"dataclass", "dataclasses.dataclass"})
MAX_BASES = 8
# where releases define the pipeline config (0.5.5-0.5.9, then from 0.5.10)
PIPELINE_CONFIGS = ("sglang.multimodal_gen.configs.pipelines.base.PipelineConfig",
                    "sglang.multimodal_gen.configs.pipeline_configs.base.PipelineConfig")
CONFIG_PACKAGE = "sglang.multimodal_gen."


def diffusion_keywords(modules: ModuleSet) -> tuple | None:
    """The keywords ``ServerArgs(...)`` of the diffusion server takes, sorted; None (see above)."""
    for name in DIFFUSION_SERVER_ARGS:
        found = _class(modules, name)
        if found is not None:
            return _fields(modules, *found, 0)
    return None


def _class(modules: ModuleSet, qualified: str):
    """(module, class node) where the tree defines ``qualified``."""
    module_name, _, class_name = qualified.rpartition(".")
    module = modules.get(module_name)
    node = next((n for n in module.tree.body if isinstance(n, ast.ClassDef) and n.name == class_name),
                None) if module is not None else None
    return (module, node) if node is not None else None


def _fields(modules: ModuleSet, module, node: ast.ClassDef, depth: int) -> tuple | None:
    if depth > MAX_BASES or not _is_dataclass(node) \
            or any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in node.body):
        return None if depth == 0 else ()
    found: list[str] = []
    for base in node.bases:
        qualified = base_name(base, module)
        inherited = _class(modules, qualified) if qualified else None
        if inherited is not None:
            more = _fields(modules, *inherited, depth + 1)
            found += more or ()
    for statement in node.body:
        if (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
                and not _class_variable(statement.annotation) and not _kept_out(statement.value)):
            found.append(statement.target.id)
    return tuple(sorted(set(found)))


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any(ast_dotted_name(d.func if isinstance(d, ast.Call) else d) in DATACLASS for d in node.decorator_list)


def _class_variable(annotation: ast.expr) -> bool:
    head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return ast_dotted_name(head) in ("ClassVar", "typing.ClassVar")


def _kept_out(value: ast.expr | None) -> bool:
    """``field(..., init=False)``: not a keyword of ``__init__``."""
    return (isinstance(value, ast.Call) and ast_dotted_name(value.func) in ("field", "dataclasses.field")
            and any(k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                    for k in value.keywords))


def config_attributes(modules: ModuleSet, root=None) -> tuple | None:
    """Every attribute name of the pipeline config classes (``PipelineConfig`` and the classes of
    the tree below it, with their bases in the tree), sorted; None where the release has none."""
    roots = [name for name in PIPELINE_CONFIGS if _class(modules, name) is not None]
    if not roots:
        return None
    classes = _subclasses(modules, set(roots))
    found: set[str] = set()
    for qualified in classes:
        module, node = _class(modules, qualified)
        found |= _attributes(modules, module, node, 0)
    return tuple(sorted(found))


def _subclasses(modules: ModuleSet, known: set[str]) -> set[str]:
    """``known`` and every class of the diffusion package whose bases lead to one of them."""
    defined = []
    for module in modules.under(CONFIG_PACKAGE):
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef) and node.bases:
                defined.append((f"{module.name}.{node.name}", [base_name(b, module) for b in node.bases]))
    for _ in range(MAX_BASES):
        more = {name for name, bases in defined if name not in known and any(b in known for b in bases)}
        if not more:
            break
        known |= more
    return known


def _attributes(modules: ModuleSet, module, node: ast.ClassDef, depth: int) -> set[str]:
    found = set()
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            found.add(statement.target.id)
        elif isinstance(statement, ast.Assign):
            found |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add(statement.name)
    for base in node.bases if depth < MAX_BASES else ():
        qualified = base_name(base, module)
        inherited = _class(modules, qualified) if qualified else None
        if inherited is not None:
            found |= _attributes(modules, *inherited, depth + 1)
    return found
