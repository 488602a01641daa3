"""The shape of the code, read from the code: the layers below, no import circle, no import
from a lower layer to a higher one, no function-level import of our own modules but the
few lazy ones listed, and no source file over 700 lines."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "src" / "sglang_lint"

# Lowest first. A module may import only from its own layer or lower ones (and not in a circle).
LAYERS = [
    # leaves: shared types and readings, nothing of ours below them
    # (__init__, the package root: __version__; lint is lazy)
    {"launch_wrappers"},  # the commands that run a command after them (a table, no imports)
    {"subcommands"},  # sglang-lint's subcommands and how a command line names one (both entry points)
    {"model", "pynames", "noqa", "__init__", "launch_text", "versions", "places", "gcpolicy", "lazycst",
     "ast_guards", "ast_flow"},  # (ast_guards: the names the guards in force at a call test, on ast;
    # ast_flow: which of a name's bindings reach a call, on ast)
    # the rule file reader (over places); a file's ast read for the screen; the flake8 plugin's
    # result cache (over places)
    {"rulefile", "ast_scopes", "plugin_cache"},
    {"image_pins"},  # the release a project's container images and setup scripts name (over launch_text's splitter)
    {"yaml_env"},  # the environment variables a YAML file gives a command (over launch_text's YAML reading)
    {"shell_env"},  # the environment variables a shell launch runs with (over launch_text's splitter)
    {"launch_prefixes"},  # server flags a framework passes on under its prefix (over launch_text's splitter)
    {"ast_reparse"},  # a document's ast kept between edits (the language server's screen)
    # the rule files' schema; LibCST syntax helpers; the ast call-site screen
    {"index"},  # the compiled rule index: what the cheap stage reads
    {"textscan"},  # source read as bytes: a call's text, a logical line, a whole word
    {"text_bindings"},  # the values a file's statements bind a name to, read from its text
    {"catalog", "syntax", "screen", "launch_paths", "positions"},
    {"argv_screen"},  # the screen of a list of launch flags (over screen's facts)
    # the bindings of a file, and the resolver that reads them
    {"bindings"},
    {"resolve"},
    {"built"},  # lists and dicts built in steps
    # the check kinds
    {"checks.base", "checks.server_table", "checks.api_table"},
    {"checks.launch_flags", "checks.flag_advice"},  # flag_advice: what a finding on a flag says to do
    {"checks.launch_scripts"},  # python -m of sglang's scripts: their parsers, the modules gone
    {"launch_env"},  # the environment variables a launch from Python runs with
    {"checks.allowed_values", "checks.not_none", "checks.value_tests", "checks.forbidden_combination",
     "checks.guarded_member", "checks.chain_sync", "checks.server_args", "checks.values", "checks.when",
     "checks.makers", "checks.fails_when", "checks.when_grammar", "checks.when_instances", "checks.when_members",
     "checks.ast_values", "checks.when_tests",
     "checks.startup",
     "checks.server_relations", "checks.api_signature"},
    {"checks.sampling_params"},  # a request's sampling parameters (over the start-up checks' evaluator)
    {"checks"},  # the table of check kinds
    # the rule table and its prefilter
    {"prefilter"},
    {"ruletable"},
    # which sglang release(s) a file is judged against (the known releases are read from the rules)
    {"target"},
    # the walk's collectors, value following, dispatch, diagnostics, the source reader
    {"walk", "guards", "source", "reparse"},
    {"sites"},
    {"reach"},
    {"dispatch"},
    {"diagnostics", "launch_files"},
    # the engine: one file through the stages
    {"engine"},
    # what uses the engine: fixes, cache, runner, configuration, catalog tools, output
    {"fixes", "cache", "config", "docs", "output"},
    # the deriver: sglang's source to rule files, its parts lowest first
    {"derive.generated", "derive.tree"},
    {"derive.constants", "derive.expressions"},  # module constants as literal displays; path helpers
    # the start-up run's symbolic values; the exception and message of a raise
    {"derive.symbolic", "derive.exceptions"},
    {"derive.parsers"},  # the argparse parsers a module builds, read without running it
    {"derive.commands"},  # the `sglang` command's launch subcommands in one release
    {"derive.scripts"},  # the modules run with `python -m` in one release, and what each one parses
    {"derive.exports", "derive.launchers"},
    {"derive.guards"},
    {"derive.paths", "derive.records"},  # the path to a raise as one expression; record classes
    # what a call not run may write into the server arguments; the launch's environment and model
    {"derive.call_effects", "derive.startup_inputs"},
    {"derive.declarations"},  # the dicts of fields passes and model overrides declare
    {"derive.startup_flow"},  # the start-up run's branches, try statements and loops
    {"derive.startup"},  # the symbolic run of the start-up validation
    {"derive.startup_sequence"},  # what a launch runs on its arguments, in each layout
    {"derive.startup_rules"},  # from the run's sites to rules
    {"derive.solve", "derive.state"},  # a local search for a path's examples; a receiver's state
    {"derive.keyword_launchers"},  # the classes and functions whose keywords build ServerArgs
    {"derive.api_surface"},  # the public Python API of one release
    {"derive.examples", "derive.hierarchy"},  # the example calls of a path; a method's receiver classes
    {"derive.path_rules"},  # which raises get a fails-when rule, and their examples
    {"derive.path_files"},  # a fails-when rule's file
    {"derive.server_args", "derive.deprecations"},  # the server arguments; their deprecated flags and values
    {"derive.sites"},
    {"derive.writing", "derive.drift"},
    {"derive.releases"},
    {"derive.startup_table", "derive.api_table"},  # the start-up rules, the public API: every release, one table
    {"derive.sampling_table"},  # the sampling parameters' checks, every release (the start-up run over another class)
    {"derive.serve"},  # the subcommands' table, release by release
    {"derive.scripts_table"},  # the runnable modules' table, release by release
    {"derive.merge"},  # the catalog over releases: written from each release's facts, read back from it
    {"derive"},
    {"runner", "project"},  # project: the command's pass over the project's launch helpers
    # the front ends
    {"cli", "server", "flake8_plugin"},
    {"front", "__main__"},  # the entry point: the quick answer from the index, else the command
]
# Function-level imports of our modules that are on purpose: loaded only when asked for.
LAZY = {
    ("__init__", "engine"), ("__init__", "model"),  # the package root stays a leaf
    ("cli", "server"),  # the language server needs pygls, an optional dependency
    ("cli", "docs"), ("cli", "derive"),  # subcommands
    ("cli", "project"),  # a run over several files only
    ("index", "prefilter"), ("index", "ruletable"), ("index", "target"),  # the index builds on first need only
    ("index", "rulefile"),  # the rule data beside the index are written from the rule files on first need
    # the plugin loads the catalog and LibCST only for a file the index says may call a catalog name
    ("flake8_plugin", "target"), ("flake8_plugin", "ruletable"), ("flake8_plugin", "catalog"),
    ("flake8_plugin", "pynames"), ("flake8_plugin", "engine"), ("flake8_plugin", "model"),
    ("flake8_plugin", "plugin_cache"), ("flake8_plugin", "places"),  # a file that may call one
    ("target", "index"),  # the shipped releases are read from the compiled index on first need
    ("target", "image_pins"),  # images and setup scripts are read only where no pip pin names the release
    ("image_pins", "launch_text"),  # the shell splitter, only for a setup script that names sglang
    ("ruletable", "index"),  # rules_of finds each rule's file there
    ("cli", "index"), ("cli", "pynames"),  # a run over a few files reads only the rules they need
    ("config", "ruletable"),  # the rules of a configuration: loaded only for a full run
    ("front", "cli"), ("front", "config"), ("front", "index"), ("front", "places"),  # the quick answer
}
MAX_LINES = 700


def _module_name(path: Path) -> str:
    """checks/base.py -> checks.base; checks/__init__.py -> checks; __init__.py -> __init__."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _layer_of(name: str) -> int:
    for index, layer in enumerate(LAYERS):
        if name in layer:
            return index
    raise AssertionError(f"sglang_lint.{name} is in no layer of tests/test_architecture.py: place it")


def _is_module(name: str) -> bool:
    where = PACKAGE / name.replace(".", "/")
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def _ours(node: ast.AST) -> list[str]:
    """The modules of ours an import statement loads."""
    if isinstance(node, ast.Import):
        return [a.name[len("sglang_lint."):] for a in node.names if a.name.startswith("sglang_lint.")]
    if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("sglang_lint"):
        return []
    module = node.module[len("sglang_lint."):] if node.module != "sglang_lint" else ""
    found = []
    for alias in node.names:
        candidate = f"{module}.{alias.name}" if module else alias.name
        found.append(candidate if _is_module(candidate) else (module or "__init__"))
    return found


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module of ours, imported at module level?) for each import in the file; imports under
    ``if TYPE_CHECKING:`` (annotations only) do not count."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    annotations_only = {
        id(n) for statement in tree.body
        if isinstance(statement, ast.If) and "TYPE_CHECKING" in ast.unparse(statement.test)
        for n in ast.walk(statement)
    }
    top = {id(node) for node in tree.body}
    return [
        (name, id(node) in top)
        for node in ast.walk(tree) if id(node) not in annotations_only
        for name in _ours(node)
    ]


def _graph() -> dict[str, list[tuple[str, bool]]]:
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        graph[name] = [(imported, top) for imported, top in _imports(path) if imported != name]
    return graph


def test_every_import_goes_down_the_layers():
    upward = []
    for module, imports in _graph().items():
        for imported, top in imports:
            if (module, imported.split(".")[0]) in LAZY and not top:
                continue
            if _layer_of(imported) > _layer_of(module):
                upward.append(f"{module} -> {imported}")
    assert not upward, "imports from a lower layer to a higher one: " + ", ".join(upward)


def test_no_import_circle():
    graph = {m: {i for i, top in imports if top} for m, imports in _graph().items()}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                raise AssertionError("import circle: " + " -> ".join(trail[trail.index(nxt):] + [node, nxt])
                                     if nxt in trail else f"import circle through {node} -> {nxt}")
            if nxt not in state:
                visit(nxt, trail + [node])
        state[node] = 2

    for module in graph:
        if module not in state:
            visit(module, [])


def test_function_level_imports_are_only_the_lazy_ones():
    found = [
        (module, imported) for module, imports in _graph().items() for imported, top in imports
        if not top and (module, imported.split(".")[0]) not in LAZY
    ]
    assert not found, f"function-level imports of our modules: {found}"


def test_no_source_file_is_over_the_limit():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"over {MAX_LINES} lines: {long}"


def test_the_leaves_import_nothing_of_ours():
    graph = _graph()
    for leaf in LAYERS[0]:
        assert not [i for i, top in graph[leaf] if top], f"{leaf} is a leaf but imports {graph[leaf]}"
    # (model: the crash code, a type every layer shares)
    assert {i for i, _ in graph["catalog"]} == {"rulefile", "versions", "gcpolicy", "model"}
