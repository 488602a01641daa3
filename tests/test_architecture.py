"""The shape of the code, read from the code. The package is cut into subpackages by stage of
the pipeline (``STAGES``, lowest first); every import of our own modules, wherever it stands (at
module level, in a function, under ``if TYPE_CHECKING:``), goes from a stage to the same stage or
a lower one, and no imports form a circle. Imports inside functions (loaded on first need) stand
in the front layer only: the entry points decide what a run loads. No module reads another's
private names. No source file is over 700 lines."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "src" / "sglang_lint"

# Lowest first: what each stage takes in and gives out is its package's docstring.
STAGES = [
    "core",       # the types, places and readers every stage shares
    "text",       # Python source as bytes and text, before anything is parsed
    "launch",     # launch commands in shell, Markdown and YAML: split, read, their environment
    "catalog",    # the rule files as data, the compiled index, the release a file is judged against
    "screen",     # the cheap stages: the text prefilter and the call-site screen
    "analysis",   # the LibCST engine: parse, one walk, bindings, values followed to a call
    "checks",     # the check kinds and their verdicts
    "engine",     # the rule table, dispatch, findings, one file through the stages, fixes
    "derive",     # the maintainers' deriver: sglang's source to rule files
    "frontends",  # the command, the flake8 plugin, the language server, caches, configuration
    "",           # the package root (the public face: lint, Diagnostic) and __main__
]
FRONT = {"frontends", ""}  # where an import inside a function may stand
MAX_LINES = 700
MAX_MODULES = 20  # in one folder

# The deriver's groups (derive/<group>/), lowest first, by what they derive; each says in its
# docstring what it writes into rules/.
DERIVE_GROUPS = [
    "source",       # which releases, each one's tree, its modules parsed, exports, exceptions
    "reading",      # a function read without running it: guards, paths, constants, state, symbols
    "server_args",  # server_args.toml
    "startup",      # startup.toml
    "api",          # api.toml, sampling.toml
    "commands",     # launchers.toml, serve.toml, scripts.toml
    "sites",        # the rule files, codes.lock, INDEX.md, exports.toml; catalog verify
    "releases",     # each release's facts cached, merged over releases; release_dates.toml
]


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """checks/base.py -> checks.base; checks/__init__.py -> checks; __init__.py -> __init__."""
    parts = path.relative_to(package).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def stage_of(module: str) -> str:
    stage = module.split(".")[0] if "." in module or module in STAGES else ""
    assert stage in STAGES, f"sglang_lint.{module} is in no stage of tests/test_architecture.py: place it"
    return stage


def _is_module(name: str, package: Path) -> bool:
    where = package / name.replace(".", "/")
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def _ours(node: ast.AST, importer: str, package: Path) -> list[str]:
    """The modules of ours an import statement loads."""
    if isinstance(node, ast.Import):
        return [a.name[len("sglang_lint."):] for a in node.names if a.name.startswith("sglang_lint.")]
    if not isinstance(node, ast.ImportFrom):
        return []
    assert node.level == 0, f"sglang_lint.{importer}: a relative import (write sglang_lint.x)"
    if not (node.module or "").startswith("sglang_lint"):
        return []
    module = node.module[len("sglang_lint."):] if node.module != "sglang_lint" else ""
    found = []
    for alias in node.names:
        candidate = f"{module}.{alias.name}" if module else alias.name
        found.append(candidate if _is_module(candidate, package) else (module or "__init__"))
    return found


def imports_of(path: Path, package: Path = PACKAGE) -> list[tuple[str, str, int]]:
    """(module of ours, where the import stands: "module", "function" or "type-checking", line)
    for every import statement in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    checking = {
        id(node) for statement in ast.walk(tree)
        if isinstance(statement, ast.If) and "TYPE_CHECKING" in ast.unparse(statement.test)
        for node in ast.walk(statement)
    }
    top = {id(node) for node in tree.body}
    name = module_name(path, package)
    return [
        (imported, "type-checking" if id(node) in checking else "module" if id(node) in top else "function",
         node.lineno)
        for node in ast.walk(tree)
        for imported in _ours(node, name, package) if imported != name
    ]


def import_graph(package: Path = PACKAGE) -> dict[str, list[tuple[str, str, int]]]:
    return {module_name(path, package): imports_of(path, package) for path in sorted(package.rglob("*.py"))}


@functools.lru_cache(maxsize=1)
def package_graph() -> dict[str, list[tuple[str, str, int]]]:
    """:func:`import_graph` of the package itself, read once for the tests that only read it."""
    return import_graph()


def upward_imports(graph: dict) -> list[str]:
    return [
        f"sglang_lint.{module} -> sglang_lint.{imported} ({where}, line {line})"
        for module, imports in graph.items() for imported, where, line in imports
        if STAGES.index(stage_of(imported)) > STAGES.index(stage_of(module))
    ]


def circles(graph: dict) -> list[list[str]]:
    """The import circles (strongly connected sets of two or more modules), every import counted."""
    edges = {module: sorted({imported for imported, _, _ in imports}) for module, imports in graph.items()}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        order[node] = low[node] = len(order)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            circle = []
            while True:
                member = stack.pop()
                circle.append(member)
                if member == node:
                    break
            if len(circle) > 1:
                found.append(sorted(circle))

    for module in edges:
        if module not in order:
            visit(module)
    return found


def lazy_imports(graph: dict) -> list[str]:
    return [
        f"sglang_lint.{module} -> sglang_lint.{imported} (line {line})"
        for module, imports in graph.items() if stage_of(module) not in FRONT
        for imported, where, line in imports if where == "function"
    ]


def test_every_module_is_in_a_stage_and_every_stage_says_what_it_does():
    graph = package_graph()
    for module in graph:
        stage_of(module)
    for stage in STAGES[:-1]:
        doc = ast.get_docstring(ast.parse((PACKAGE / stage / "__init__.py").read_text(encoding="utf-8")))
        assert doc and len(doc) > 120, f"sglang_lint/{stage}/__init__.py: say what enters the stage and what leaves"


def test_every_import_goes_down_the_stages():
    assert upward_imports(package_graph()) == []


def test_no_import_circle():
    assert circles(package_graph()) == []


def test_imports_inside_functions_stand_in_the_front_layer_only():
    assert lazy_imports(package_graph()) == []


def derive_group(module: str) -> str:
    """derive.startup.run -> startup; derive (the package itself) -> ""."""
    parts = module.split(".")
    assert len(parts) > 2 or module in ("derive", *(f"derive.{g}" for g in DERIVE_GROUPS)), \
        f"sglang_lint.{module} is in no group of derive/: place it"
    group = parts[1] if len(parts) > 1 else ""
    assert group in ("", *DERIVE_GROUPS), f"sglang_lint.{module}: derive/{group}/ is not in DERIVE_GROUPS"
    return group


def group_arrows(graph: dict) -> dict[tuple[str, str], int]:
    """(importing group, imported group) -> how many imports, between two groups of derive/."""
    arrows: dict[tuple[str, str], int] = {}
    for module, imports in graph.items():
        if not module.startswith("derive."):
            continue
        for imported, _, _ in imports:
            if imported.startswith("derive.") and derive_group(imported) != derive_group(module):
                key = (derive_group(module), derive_group(imported))
                arrows[key] = arrows.get(key, 0) + 1
    return arrows


def test_the_deriver_is_grouped_by_what_it_derives_and_its_imports_go_down_the_groups():
    graph = package_graph()
    arrows = group_arrows(graph)
    up = {pair: n for pair, n in arrows.items() if DERIVE_GROUPS.index(pair[1]) > DERIVE_GROUPS.index(pair[0])}
    assert up == {}
    # every group is read by one above it, the top one by the command: none is an island
    assert {imported for _, imported in arrows} | {"releases"} == set(DERIVE_GROUPS)
    for group in DERIVE_GROUPS:
        doc = ast.get_docstring(ast.parse((PACKAGE / "derive" / group / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "rules/" in doc, f"derive/{group}/__init__.py: say what the group writes into rules/"


def test_the_design_page_s_map_names_every_module_of_each_group():
    lines = (ROOT / "docs" / "design.md").read_text(encoding="utf-8").splitlines()
    for group in DERIVE_GROUPS:
        [line] = [line for line in lines if line.startswith(f"  {group}/ ")]
        named = {word.strip(",()/") for word in line.split()[1:]}
        folder = PACKAGE / "derive" / group
        modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"} | {
            p.parent.name for p in folder.glob("*/__init__.py")}
        assert modules <= named, f"docs/design.md's map of derive/{group}/ leaves out {sorted(modules - named)}"


def test_a_planted_import_up_the_deriver_s_groups_is_found(tmp_path):
    copy = planted_copy(tmp_path, "derive/source/tree.py", "from sglang_lint.derive.sites import writing\n")
    assert group_arrows(import_graph(copy)).get(("source", "sites")) == 1


def test_no_folder_holds_more_than_twenty_modules():
    crowded = {str(folder.relative_to(ROOT)): n for folder in [PACKAGE, *PACKAGE.rglob("*/")]
               if folder.name != "__pycache__"
               and (n := len([p for p in folder.glob("*.py") if p.name != "__init__.py"])) > MAX_MODULES}
    assert not crowded, f"over {MAX_MODULES} modules: {crowded}"


def test_nothing_imports_the_package_root():
    # the root is the public face, above every stage: a module that read __version__ from it
    # would tie the whole package into one circle through its lazy lint()
    graph = package_graph()
    assert [m for m, imports in graph.items() for imported, _, _ in imports if imported == "__init__"] == []


def test_core_imports_nothing_else_of_ours():
    graph = package_graph()
    assert {(m, i) for m, imports in graph.items() if stage_of(m) == "core"
            for i, _, _ in imports if stage_of(i) != "core"} == set()


def planted_copy(tmp_path: Path, victim: str, planted: str) -> Path:
    """A copy of the package with ``planted`` added at the end of the module ``victim``."""
    copy = tmp_path / "sglang_lint"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    module = copy / victim
    module.write_text(module.read_text(encoding="utf-8") + "\n\n" + planted, encoding="utf-8")
    return copy


@pytest.mark.parametrize("planted, where", [
    ("def _late():\n    from sglang_lint.engine.lint import lint\n", "function"),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from sglang_lint.checks.base import CheckKind\n",
     "type-checking"),
    ("from sglang_lint.frontends.cli import main\n", "module"),
])
def test_a_planted_upward_import_is_found(tmp_path, planted, where):
    # the checks above read the copy of a lower module with one import added, however written
    graph = import_graph(planted_copy(tmp_path, "screen/calls.py", planted))
    upward = upward_imports(graph)
    assert len(upward) == 1 and upward[0].startswith("sglang_lint.screen.calls -> ") and f"({where}," in upward[0]
    assert circles(graph) != []  # (each of those modules imports the screen, so this closes a circle)
    assert (lazy_imports(graph) != []) is (where == "function")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_names_crossing(package: Path = PACKAGE) -> list[str]:
    """Each private name of one module that another reads: imported from it
    (``from sglang_lint.m import _x``), or read off it (``m._x`` where ``m`` is a module of ours)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        name = module_name(path, package)
        modules = {}  # local name -> module of ours it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sglang_lint."):
                source = node.module[len("sglang_lint."):]
                for alias in node.names:
                    if _private(alias.name) and source != name:
                        found.append(f"sglang_lint.{name} imports {alias.name} of sglang_lint.{source} "
                                     f"(line {node.lineno})")
                    elif _is_module(f"{source}.{alias.name}", package):
                        modules[alias.asname or alias.name] = f"{source}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("sglang_lint.") and alias.asname:
                        modules[alias.asname] = alias.name[len("sglang_lint."):]
        found += [f"sglang_lint.{name} reads {node.attr} of sglang_lint.{modules[node.value.id]} (line {node.lineno})"
                  for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id in modules and _private(node.attr) and modules[node.value.id] != name]
    return found


def test_no_private_name_is_read_across_modules():
    # where one module needs another's internals, the line between them is in the wrong place:
    # the boundary moves, or the name is made public on purpose
    assert private_names_crossing() == []


@pytest.mark.parametrize("planted", ["from sglang_lint.launch.shell_env import _Shell\n",
                                     "from sglang_lint.launch import shell_env\nx = shell_env._Shell\n"])
def test_a_planted_private_import_is_found(tmp_path, planted):
    [found] = private_names_crossing(planted_copy(tmp_path, "launch/shell_arrays.py", planted))
    assert found.startswith("sglang_lint.launch.shell_arrays ") and "_Shell of sglang_lint.launch.shell_env" in found


def test_no_source_file_is_over_the_limit():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"over {MAX_LINES} lines: {long}"
