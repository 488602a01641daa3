"""Inventory of sglang's start-up checks of a server's arguments, per release group.

Reads each release's unpacked wheel with ``ast`` (nothing of sglang is imported or copied:
only facts are written — files, functions, lines, exceptions, messages, the fields and
environment variables a check tests) and writes ``tests/startup/inventory.json``; prints the
per-group counts table.

    python tests/startup/inventory.py [--releases 0.5.1..0.5.23] [--check]

What counts as a start-up check: every ``raise`` (but a bare re-raise) and ``assert`` in a
function reached, by a static walk of calls, from what a launch runs on its ServerArgs
before the model loads:

- ``prepare_server_args`` (argparse: its actions and ``type=`` callables included),
- ``ServerArgs.__post_init__``, ``ServerArgs.resolve_once`` (0.5.20 on: the resolution
  pipeline of ``arg_groups/``), ``ServerArgs.check_server_args``,
- the per-architecture model overrides of ``arg_groups/model_overrides`` (registered by a
  decorator and dispatched on the model's architecture, which a static walk cannot follow).

The walk follows, from a function: ``self.m()`` (the ServerArgs method, or the class's own),
``server_args.m()`` on the arguments object, plain and imported functions and classes of
sglang (``__init__``, ``__post_init__``, an argparse action's ``__call__``), ``Cls.m()``,
``module.f()``, and functions handed to a call (``run_hook(handle_x, server_args)``). Within
``server_args.py`` and ``arg_groups/`` it follows every call; elsewhere only calls that pass
the arguments object or one of its fields (``ModelConfig.from_server_args(self)``), at most
three calls deep outside them. A raise inside the function that catches it is left out.

Each check is classed by what its condition reads (the tests of the ``if``/``while``
statements around it, an assert's own test, the body of the ``try`` whose handler raises,
with the function's local names expanded to what they were computed from, and what the
helpers the condition calls read, two deep):

- *depends on something a linter cannot know*, with the reason: the model's config
  (``model_config``, ``hf_config``, the architecture ...), the GPU / platform (``is_cuda()``,
  ``torch.cuda``, device memory, ``current_platform`` ...), an installed package
  (``find_spec``, versions, an ``ImportError`` handler), a file (``os.path.exists``,
  ``open`` ...), the network (ports, hubs, sockets) or the run's state (torch.distributed).
  A check is model- or platform-dependent too when every way of reaching its function runs
  under such a condition (``if model_arch == ...: self._handle_mamba(...)``), when the
  function takes the architecture or model config as a parameter, is named for a platform
  (``_check_xpu_dcp``) or a model family (``validate_deepseek_v4_cp``, ``deepseek_v4_hook.py``),
  is a model override, or when its message names the architecture. Also skipped: *no server
  argument in its condition* (it reads neither a field nor an environment variable), and
  *removed flag* (an argparse action that raises whenever its flag is given: an unknown-flag
  matter, not validation).
- otherwise *linter-judgeable*, with a family, the first that applies: ``env var`` (reads an
  environment variable: ``envs.SGLANG_X``, ``os.environ``, ``get_bool_env_var``; sglang's CI
  variables taken as unset), ``divisibility`` (``%``), ``string form`` (string methods,
  regular expressions, parsing, ``isinstance``, a parse in a ``try``), ``range`` (``<``,
  ``<=`` ...), ``combination`` (two or more fields: a feature that excludes or needs another),
  ``string form`` again for one field compared with strings, else ``combination``.

A check is one (file, function, exception, message) in a group (an assert without a message:
its test), with the line it has in each release of the group; where releases read it
differently, the newest one's reading is kept.

These are heuristics over the syntax; the held-out set (``heldout.json``) is the check that
they pick real, reachable checks: each of its cases was confirmed by running sglang.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "src"))

OUT = HERE / "inventory.json"
GROUPS = (("0.5.1-0.5.9", "0.5.1", "0.5.10"), ("0.5.10-0.5.19", "0.5.10", "0.5.20"),
          ("0.5.20-0.5.23", "0.5.20", "0.5.24"))
READ_AT_LEAST = ("0.5.2", "0.5.10.post1", "0.5.15.post1", "0.5.19", "0.5.23")
CORE = ("srt/server_args.py", "srt/arg_groups/")  # every call followed from here
OUTSIDE_DEPTH = 3  # calls followed outside CORE, when they pass the arguments object or a field
ARGS_NAMES = {"server_args", "args", "cfg", "sa", "config", "server_config"}  # the arguments object's names
VIEW_CALLS = {"resolving_view", "resolved_view", "record_of", "get_global_server_args", "get_server_args"}
MODEL_REGISTRY = "model override registry"
# a function or file named after a model family runs for that family's models only
MODEL_NAMED = re.compile(r"(deepseek|nemotron|kimi|muse|glm|qwen|llama|gemma|minimax|mimo|gpt_oss|iquest|inkling|"
                         r"interns|ernie|falcon|granite|olmo|minicpm|exaone|cohere|bailing|lfm|gigachat|beam|"
                         r"moss|longcat|mistral|phi|internvl|step3|hunyuan|dots|gptoss)", re.I)
MODEL_PARAMETERS = {"model_arch", "arch", "architecture", "model_config", "hf_config", "hf_text_config",
                    "model_type"}
OVERRIDE_DECORATORS = {"register_model_override", "register_model_override_predicate", "_register_for"}

# --- what a linter cannot know: names read in a condition, by reason ---
MODEL_NAMES = {
    "model_config", "hf_config", "hf_text_config", "get_hf_config", "model_config_of", "architectures",
    "model_arch", "get_model_arch", "_get_model_arch", "arch", "is_multimodal", "is_multimodal_model",
    "use_mla_backend", "get_model_config", "ModelConfig", "text_config", "vision_config", "model_type",
    "get_config", "is_hybrid_model", "is_deepseek_nsa", "is_deepseek_dsa", "quant_config", "kv_lora_rank",
    "num_attention_heads", "num_key_value_heads", "num_hidden_layers", "hidden_size", "head_dim",
    "is_encoder_decoder", "architecture", "context_len", "get_context_length", "hf_draft_config",
    "draft_model_config", "is_generation", "model_arch_of", "attention_arch", "is_hybrid_gdn",
    "_is_hybrid_gdn", "is_mamba_model", "is_qwen3_next", "get_hf_text_config", "hybrid_gdn_config",
    "mamba2_config", "linear_attn_config", "is_diffusion_model", "is_audio_model", "is_embedding_model",
    "model_override_args", "is_nsa", "uses_mla", "is_mla", "_is_mla", "num_experts", "n_routed_experts",
    "quantization_config", "is_draft_model_eagle3", "get_draft_hf_config", "draft_arch", "get_arch",
    "is_deepseek_v4", "is_multimodal_gen",
}
PLATFORM_NAMES = {
    "is_cuda", "is_hip", "is_npu", "is_cpu", "is_xpu", "is_hpu", "is_musa", "is_mps", "is_cuda_alike",
    "get_device_sm", "get_device_capability", "device_count", "get_device_memory_capacity", "gpu_mem",
    "current_platform", "get_platform", "use_mlx", "get_device_name", "get_device", "mem_get_info",
    "get_cuda_version", "is_host_cpu_x86", "cpu_has_amx_support", "get_device_core_count",
    "get_nvgpu_memory_capacity", "get_amdgpu_memory_capacity", "is_flashinfer_available", "_use_aiter",
    "is_triton_kernels_available", "is_blackwell", "is_blackwell_supported", "sm_version", "device_sm",
    "get_bool_env_var_hip", "is_arch_support_pdl", "supports_custom_op", "torch_release", "is_sail",
    "platform", "machine", "cuda", "get_device_properties", "is_gfx95_supported", "get_device_module",
    "device_capability", "compute_capability", "is_sm_supported", "get_compiler_backend",
}
PLATFORM_PATTERN = re.compile(r"^_?(is|use)_(cuda|hip|npu|cpu|xpu|hpu|musa|mps|sm\d+|gfx|blackwell|hopper|ampere|"
                              r"flashinfer|triton|aiter|mlx|sail|rocm|cuda_alike|ascend|nvidia|amd)")
PLATFORM_FUNCTION = re.compile(r"(^|_)(xpu|npu|hip|rocm|amd|hpu|musa|mps|ascend|blackwell|sm100|mlx|cpu|aiter)(_|$)")
PACKAGE_NAMES = {
    "find_spec", "is_package_installed", "importlib", "pkg_version", "assert_pkg_version",
    "check_pkg_version_at_least", "__version__", "is_flashinfer_available", "metadata", "module_available",
    "is_module_available", "get_package_version", "is_installed",
}
FILE_NAMES = {
    "exists", "isfile", "isdir", "open", "listdir", "glob", "check_gguf_file", "is_gguf_file", "getsize",
    "read_text", "is_dir", "is_file", "access", "islink", "scandir", "walk", "load", "safe_open",
    "read_json", "load_json", "iterdir",
}
NETWORK_NAMES = {
    "socket", "is_port_available", "requests", "urlopen", "get_ip", "HfApi", "hf_hub_download",
    "snapshot_download", "get_free_port", "bind", "connect", "gethostbyname", "getaddrinfo", "gethostname",
    "try_to_connect", "file_exists", "model_info", "list_repo_files", "get_local_ip_auto",
}
# read by sglang's own test runs only (is_in_ci()): taken as unset, as on a user's machine
CI_ENV = {"SGLANG_IS_IN_CI", "SGLANG_IS_IN_CI_AMD", "CI", "GITHUB_ACTIONS", "SGLANG_TEST_RETRACT",
          "SGLANG_AMD_CI"}
STATE_NAMES = {"dist", "is_initialized", "get_world_group", "get_tp_group", "get_rank", "get_world_size",
               "_resolution_finished", "_resolution_failed", "_input_frozen"}
ENV_HELPERS = {"get_bool_env_var", "get_int_env_var", "get_float_env_var", "get_str_env_var", "getenv",
               "get_env_var", "env_bool", "get_bool_env"}
STRING_METHODS = {"startswith", "endswith", "split", "rsplit", "strip", "isdigit", "isnumeric", "match",
                  "fullmatch", "search", "loads", "partition", "rpartition", "urlparse", "count", "isalnum",
                  "isidentifier", "lstrip", "rstrip", "splitlines", "removeprefix", "removesuffix", "decode",
                  "encode", "literal_eval", "fromisoformat", "lower", "upper", "casefold", "int", "float"}


@dataclass
class Module:
    name: str
    path: Path
    relative: str  # under sglang/
    tree: ast.Module
    defs: dict = field(default_factory=dict)  # top-level functions
    classes: dict = field(default_factory=dict)  # name -> ClassDef
    imports: dict = field(default_factory=dict)  # local name -> (module, attr | None)
    assigns: dict = field(default_factory=dict)  # module-level name -> value expression


@dataclass
class Reached:
    module: Module
    cls: ast.ClassDef | None
    node: ast.FunctionDef
    qualname: str
    depth: int
    outside: int  # calls followed outside CORE to get here
    via: str
    origins: set = field(default_factory=set)  # the entry points it is reached from
    objects: set = field(default_factory=set)  # names holding the arguments object
    param_fields: dict = field(default_factory=lambda: defaultdict(set))  # parameter -> fields


class Release:
    """One release's tree, read with ast on demand."""

    def __init__(self, version: str, tree: Path, fields: set[str]):
        self.version = version
        self.base = tree / "sglang"
        self.fields = fields
        self.modules: dict[str, Module | None] = {}

    def module(self, name: str) -> Module | None:
        if name in self.modules:
            return self.modules[name]
        found = None
        if name == "sglang" or name.startswith("sglang."):
            parts = name.split(".")[1:]
            for candidate in (self.base.joinpath(*parts).with_suffix(".py") if parts else None,
                              self.base.joinpath(*parts, "__init__.py")):
                if candidate is not None and candidate.is_file():
                    found = self._read(name, candidate)
                    break
        self.modules[name] = found
        return found

    def _read(self, name: str, path: Path) -> Module | None:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            return None
        relative = path.relative_to(self.base).as_posix()
        module = Module(name, path, relative, tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                module.defs[node.name] = node
            elif isinstance(node, ast.ClassDef):
                module.classes[node.name] = node
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        module.assigns[target.id] = node.value
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and _is_top_level_import(tree, node):
                _record_import(module.imports, node, package)
        return module

    def resolve_name(self, module: Module, name: str, local_imports: dict, depth: int = 0):
        """What a name of ``module`` is: ("function", Module, FunctionDef) / ("class", Module,
        ClassDef) / ("module", Module) / None."""
        if depth > 4:
            return None
        if name in local_imports:
            return self._resolve_import(*local_imports[name], depth)
        if name in module.defs:
            return ("function", module, module.defs[name])
        if name in module.classes:
            return ("class", module, module.classes[name])
        if name in module.imports:
            return self._resolve_import(*module.imports[name], depth)
        if name in module.assigns:  # ServerArgs = msgspec.defstruct(...): the class body of the same name
            value = module.assigns[name]
            if isinstance(value, ast.Name) and value.id != name:
                return self.resolve_name(module, value.id, {}, depth + 1)
        return None

    def _resolve_import(self, source: str, attr: str | None, depth: int):
        if attr is None:
            found = self.module(source)
            return ("module", found) if found else None
        target = self.module(source)
        if target is None:
            return None
        found = self.resolve_name(target, attr, {}, depth + 1)
        if found is None:
            sub = self.module(f"{source}.{attr}")
            if sub is not None:
                return ("module", sub)
        return found


def _is_top_level_import(tree: ast.Module, node) -> bool:
    return node in tree.body or any(node in getattr(parent, "body", ()) or node in getattr(parent, "orelse", ())
                                    or any(node in h.body for h in getattr(parent, "handlers", ()))
                                    for parent in tree.body if isinstance(parent, (ast.If, ast.Try)))


def _record_import(table: dict, node, package: str) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                table[alias.asname] = (alias.name, None)
            else:
                table[alias.name.split(".")[0]] = (alias.name.split(".")[0], None)
        return
    if node.level:
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - node.level + 1])
        source = f"{base}.{node.module}" if node.module else base
    else:
        source = node.module or ""
    for alias in node.names:
        table[alias.asname or alias.name] = (source, alias.name)


def _local_imports(function: ast.FunctionDef, package: str) -> dict:
    table: dict = {}
    for node in ast.walk(function):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            _record_import(table, node, package)
    return table


def _package_of(module: Module) -> str:
    return module.name if module.path.name == "__init__.py" else module.name.rpartition(".")[0]


def _own_nodes(function):
    """The nodes of ``function``'s body, but not of functions, lambdas or classes inside it."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(child)


def _parents(function) -> dict:
    parents = {}
    for node in ast.walk(function):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return parents


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    if isinstance(node, ast.Call):
        return _dotted(node.func) + "()"
    return ""


def _method(release: Release, module: Module, cls: ast.ClassDef, name: str, depth: int = 0):
    """``name`` of class ``cls`` (or of a base class sglang defines): (Module, ClassDef, FunctionDef)."""
    if depth > 5:
        return None
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return module, cls, node
    for base in cls.bases:
        if isinstance(base, ast.Name):
            found = release.resolve_name(module, base.id, {})
            if found and found[0] == "class":
                hit = _method(release, found[1], found[2], name, depth + 1)
                if hit:
                    return hit
    return None


def _flag_field(call: ast.Call, fields: set) -> str | None:
    """The field an ``add_argument("--x-y", ...)`` call sets (its ``dest=``, else its first long
    option), where the call hands an action or a type to argparse."""
    if _dotted(call.func).split(".")[-1] != "add_argument":
        return None
    if not any(k.arg in ("action", "type") for k in call.keywords):
        return None
    for k in call.keywords:
        if k.arg == "dest" and isinstance(k.value, ast.Constant):
            return k.value.value if k.value.value in fields else ""
    for a in call.args:
        if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"):
            name = a.value[2:].replace("-", "_")
            return name if name in fields else ""
    return ""  # an action or type for no field (a removed flag's)


def _call_reasons(call, function, parents: dict, locals_: dict) -> frozenset:
    """What a linter cannot know in the conditions a call runs under (its own function's)."""
    tests = []
    child, parent = call, parents.get(call)
    while parent is not None and parent is not function:
        if isinstance(parent, (ast.If, ast.While, ast.IfExp)) and child is not parent.test:
            tests.append(parent.test)
        child, parent = parent, parents.get(parent)
    names = set()
    frontier = tests
    seen = set()
    for _ in range(3):
        new = []
        for expr in frontier:
            for name in _names(expr):
                names.add(name)
                if name in locals_ and name not in seen:
                    seen.add(name)
                    new.extend(locals_[name])
        frontier = new
    return frozenset(r for r in _reasons(names) if r in ("model config", "GPU / platform"))


def _is_core(module: Module) -> bool:
    return module.relative == CORE[0] or module.relative.startswith(CORE[1])


class Walk:
    """The functions reached from the launch's entry points, with what they hold of the
    arguments (the object's names, parameters bound to fields)."""

    MAX_DEPTH = 12

    def __init__(self, release: Release):
        self.release = release
        self.reached: dict[tuple, Reached] = {}
        self.queue: list[tuple] = []
        self.server_args_cls = None
        self.edges: set[tuple] = set()  # (caller key, callee key, reasons of the call's own condition)
        self.roots: set[tuple] = set()

    def start(self) -> None:
        module = self.release.module("sglang.srt.server_args")
        found = self.release.resolve_name(module, "ServerArgs", {})
        cls = module.classes.get("ServerArgs") or (found[2] if found and found[0] == "class" else None)
        self.server_args_cls = (module, cls)
        if "prepare_server_args" in module.defs:
            self.visit(module, None, module.defs["prepare_server_args"], 0, 0, "entry: prepare_server_args",
                       set(), {}, {"prepare_server_args"})
        for name in ("__post_init__", "resolve_once", "check_server_args"):
            hit = _method(self.release, module, cls, name)
            if hit:
                self.visit(hit[0], hit[1], hit[2], 0, 0, f"entry: ServerArgs.{name}", {"self"}, {},
                           {f"ServerArgs.{name}"})
        overrides = self.release.base / "srt" / "arg_groups" / "model_overrides"
        if overrides.is_dir():
            for path in sorted(overrides.glob("*.py")):
                name = "sglang.srt.arg_groups.model_overrides." + path.stem
                if path.stem == "__init__":
                    name = name.rpartition(".")[0]
                over = self.release.module(name)
                for node in (over.defs.values() if over else ()):
                    if any(_dotted(d.func if isinstance(d, ast.Call) else d).split(".")[-1] in OVERRIDE_DECORATORS
                           for d in node.decorator_list):
                        params = [a.arg for a in node.args.args]
                        self.visit(over, None, node, 1, 0, "entry: model override registry (by architecture)",
                                   set(params[:1]), {}, {MODEL_REGISTRY})
        while self.queue:
            key = self.queue.pop(0)
            self.scan(self.reached[key])

    def visit(self, module, cls, node, depth, outside, via, objects, param_fields, origins) -> None:
        qualname = f"{cls.name}.{node.name}" if cls is not None else node.name
        key = (module.relative, qualname, node.lineno)
        if via.startswith("entry:"):
            self.roots.add(key)
        known = self.reached.get(key)
        if known is None:
            known = Reached(module, cls, node, qualname, depth, outside, via)
            self.reached[key] = known
            grew = True
        else:
            grew = False
            if depth < known.depth:
                known.depth, known.via = depth, via
        if not origins <= known.origins:
            known.origins |= origins
            grew = True
        if not objects <= known.objects:
            known.objects |= objects
            grew = True
        for name, fields in param_fields.items():
            if not fields <= known.param_fields[name]:
                known.param_fields[name] |= fields
                grew = True
        if grew and key not in self.queue:
            self.queue.append(key)

    def objects_of(self, reached: Reached) -> set:
        """Names holding the arguments object in the function: its own, parameters named as
        the object, and locals bound to a view of it (cfg = resolving_view(server_args))."""
        objects = set(reached.objects)
        params = [a.arg for a in reached.node.args.args + reached.node.args.kwonlyargs]
        objects |= {p for p in params if p in ARGS_NAMES and (reached.cls is None or p != "self")}
        if reached.cls is not None and self.server_args_cls and reached.cls is self.server_args_cls[1]:
            objects.add("self")
        for node in _own_nodes(reached.node):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = node.value
                if isinstance(value, ast.Call) and _dotted(value.func).split(".")[-1] in VIEW_CALLS:
                    objects.add(node.targets[0].id)
                elif isinstance(value, ast.Name) and value.id in objects:
                    objects.add(node.targets[0].id)
        return objects

    def fields_in(self, expr, objects: set, param_fields: dict) -> set:
        found = set()
        for node in ast.walk(expr):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in objects:
                if node.attr in self.release.fields:
                    found.add(node.attr)
            elif isinstance(node, ast.Name) and node.id in param_fields:
                found |= param_fields[node.id]
            elif isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == "getattr" and node.args:
                if isinstance(node.args[0], ast.Name) and node.args[0].id in objects and len(node.args) > 1 \
                        and isinstance(node.args[1], ast.Constant) and node.args[1].value in self.release.fields:
                    found.add(node.args[1].value)
        return found

    def scan(self, reached: Reached) -> None:
        if reached.depth >= self.MAX_DEPTH:
            return
        module, node = reached.module, reached.node
        local = _local_imports(node, _package_of(module))
        objects = self.objects_of(reached)
        core = _is_core(module)
        parents, locals_ = _parents(node), _locals_of(node)
        caller = (module.relative, reached.qualname, node.lineno)
        for call in _own_nodes(node):
            if not isinstance(call, ast.Call):
                continue
            arguments = list(call.args) + [k.value for k in call.keywords]
            carries = [bool(self.fields_in(a, objects, reached.param_fields))
                       or any(isinstance(n, ast.Name) and n.id in objects for n in ast.walk(a)) for a in arguments]
            passes = any(carries)
            if not core and not passes:
                continue
            outside = reached.outside if core else reached.outside + 1
            targets = [(call.func, call)]
            # functions and classes handed to a call are called by it (run_hook(step, server_args))
            targets += [(a, None) for a in arguments if isinstance(a, (ast.Name, ast.Attribute))]
            flag_field = _flag_field(call, self.release.fields)
            for func, real_call in targets:
                for target in self.targets(reached, func, local, objects):
                    t_module, t_cls, t_node, bound = target
                    if real_call is None and t_cls is not None and flag_field is None:
                        continue  # a class handed to a call is not thereby made (override_config(Cls, ...))
                    t_outside = outside if _is_core(t_module) else max(outside, reached.outside + 1)
                    if not _is_core(t_module) and (t_outside > OUTSIDE_DEPTH or not passes) \
                            and flag_field is None:
                        continue
                    t_objects, t_fields = self.bind(reached, t_node, real_call, arguments, objects, bound)
                    if flag_field and real_call is None:  # action= / type= of add_argument: the flag's value
                        params = [a.arg for a in t_node.args.args]
                        if t_node.name == "__call__":
                            value = "values"
                        elif bound:
                            value = params[1] if len(params) > 1 else None
                        else:
                            value = params[0] if params else None
                        if value:
                            t_fields[value] |= {flag_field}
                    self.visit(t_module, t_cls, t_node, reached.depth + 1, t_outside,
                               f"{reached.module.relative}:{reached.qualname}", t_objects, t_fields,
                               set(reached.origins))
                    qualname = f"{t_cls.name}.{t_node.name}" if t_cls is not None else t_node.name
                    self.edges.add((caller, (t_module.relative, qualname, t_node.lineno),
                                    _call_reasons(call, node, parents, locals_)))

    def contexts(self) -> dict[tuple, frozenset]:
        """Per function, what every way of reaching it depends on (the conditions around the
        calls on the way: a helper called only under ``if model_arch == ...`` or ``if is_npu()``
        runs for those models or platforms only)."""
        context: dict[tuple, frozenset | None] = {key: None for key in self.reached}
        for root in self.roots:
            context[root] = frozenset()
        for _ in range(50):
            changed = False
            for key in self.reached:
                if key in self.roots:
                    continue
                found = None
                for caller, callee, reasons in self.edges:
                    if callee != key or context.get(caller) is None:
                        continue
                    way = context[caller] | reasons
                    found = way if found is None else found & way
                if found is not None and found != context[key]:
                    context[key] = found
                    changed = True
            if not changed:
                break
        return {key: value or frozenset() for key, value in context.items()}

    def bind(self, reached, t_node, call, arguments, objects, bound) -> tuple[set, dict]:
        params = [a.arg for a in t_node.args.args]
        if bound and params:
            params = params[1:]
        t_objects, t_fields = set(), defaultdict(set)
        if bound == "args-self":
            t_objects.add("self")
        if call is None:  # handed on: its parameters take the call's other arguments
            for a in arguments:
                if any(isinstance(n, ast.Name) and n.id in objects for n in ast.walk(a)):
                    t_objects |= set(params[:1])
            return t_objects, t_fields
        for index, a in enumerate(call.args):
            if index >= len(params):
                break
            if isinstance(a, ast.Name) and a.id in objects:
                t_objects.add(params[index])
            fields = self.fields_in(a, objects, reached.param_fields)
            if fields:
                t_fields[params[index]] |= fields
        for k in call.keywords:
            if k.arg is None:
                continue
            if isinstance(k.value, ast.Name) and k.value.id in objects:
                t_objects.add(k.arg)
            fields = self.fields_in(k.value, objects, reached.param_fields)
            if fields:
                t_fields[k.arg] |= fields
        return t_objects, t_fields

    def targets(self, reached: Reached, func, local: dict, objects: set) -> list:
        """The sglang functions a call of ``func`` runs: (Module, ClassDef|None, FunctionDef, bound)."""
        release, module = self.release, reached.module
        out = []

        def of_class(c_module, c_cls, names=("__init__", "__post_init__", "__call__")):
            for name in names:
                hit = _method(release, c_module, c_cls, name)
                if hit:
                    out.append((hit[0], hit[1], hit[2], "self"))

        if isinstance(func, ast.Name):
            found = release.resolve_name(module, func.id, local)
            if found and found[0] == "function":
                out.append((found[1], None, found[2], None))
            elif found and found[0] == "class":
                of_class(found[1], found[2])
            return out
        if not isinstance(func, ast.Attribute):
            return out
        receiver = func.value
        if isinstance(receiver, ast.Name):
            if receiver.id in ("self", "cls") and reached.cls is not None:
                hit = _method(release, module, reached.cls, func.attr)
                if hit:
                    out.append((hit[0], hit[1], hit[2], "self" if receiver.id == "self" else "cls"))
                return out
            if receiver.id in objects and self.server_args_cls and self.server_args_cls[1] is not None:
                hit = _method(release, self.server_args_cls[0], self.server_args_cls[1], func.attr)
                if hit:
                    out.append((hit[0], hit[1], hit[2], "self"))
                return out
            found = release.resolve_name(module, receiver.id, local)
            if found and found[0] == "class":
                hit = _method(release, found[1], found[2], func.attr)
                if hit:
                    out.append((hit[0], hit[1], hit[2], "cls"))
            elif found and found[0] == "module":
                inner = release.resolve_name(found[1], func.attr, {})
                if inner and inner[0] == "function":
                    out.append((inner[1], None, inner[2], None))
                elif inner and inner[0] == "class":
                    of_class(inner[1], inner[2])
        return out


# --- the sites and their classes ---

def _message(node) -> str:
    """A raise's or assert's message as text: string parts kept, ``{...}`` for what is computed."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            else:
                out.append("{" + ast.unparse(part.value) + "}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _message(node.left) + ("" if isinstance(node.op, ast.Add) else " % ") + \
            (_message(node.right) if isinstance(node.op, ast.Add) else "{...}")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _message(node.func.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
            and node.args:
        return "{...}"
    if isinstance(node, ast.Tuple):
        return "".join(_message(e) for e in node.elts)
    return "{" + ast.unparse(node) + "}"


_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def _facts_only(message: str) -> str:
    """A message as written down: its text, and of what it computes only the name it shows
    (``{self.tp_size}`` -> ``{tp_size}``, ``{type(x)}`` -> ``{...}``), no code."""
    def name(match):
        inner = match.group(1).strip()
        dotted = re.fullmatch(r"[A-Za-z_][\w.]*(?:!r)?", inner)
        return "{" + inner.split("!")[0].rsplit(".", 1)[-1] + "}" if dotted else "{...}"

    return _PLACEHOLDER.sub(name, message)


def _exception(node: ast.Raise | ast.Assert) -> tuple[str, str]:
    if isinstance(node, ast.Assert):
        return "AssertionError", _message(node.msg)
    exc = node.exc
    if isinstance(exc, ast.Call):
        name = _dotted(exc.func).split(".")[-1]
        text = _message(exc.args[0]) if exc.args else ""
        if not exc.args:
            for k in exc.keywords:
                if k.arg in ("message", "msg"):
                    text = _message(k.value)
        return name, text
    return _dotted(exc).split(".")[-1], ""


def _names(expr) -> set[str]:
    """Every identifier an expression reads: names, attributes, called functions."""
    found = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
    return found


def _env_vars(expr) -> set[str]:
    found = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "envs" \
                and re.fullmatch(r"[A-Z][A-Z0-9_]+", node.attr):
            found.add(node.attr)
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if (name.split(".")[-1] in ENV_HELPERS or name in ("os.environ.get", "environ.get")) and node.args \
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
        elif isinstance(node, ast.Subscript) and _dotted(node.value) in ("os.environ", "environ") \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            found.add(node.slice.value)
        elif isinstance(node, ast.Compare) and any(_dotted(c) in ("os.environ", "environ")
                                                   for c in node.comparators) \
                and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            found.add(node.left.value)
    return found


def _reasons(names: set[str]) -> list[str]:
    reasons = []
    if names & MODEL_NAMES:
        reasons.append("model config")
    if names & PLATFORM_NAMES or any(PLATFORM_PATTERN.match(n) for n in names) or "torch" in names:
        reasons.append("GPU / platform")
    if names & PACKAGE_NAMES:
        reasons.append("installed package")
    if names & FILE_NAMES:
        reasons.append("file")
    if names & NETWORK_NAMES:
        reasons.append("network")
    if names & STATE_NAMES:
        reasons.append("run state")
    return reasons


class Site:
    def __init__(self, walk: Walk, reached: Reached, node, parents: dict, locals_: dict, context=frozenset()):
        self.walk, self.reached, self.node = walk, reached, node
        self.context = context
        self.exception, self.message = _exception(node)
        self.line = node.lineno
        self.tests: list = []
        self.handler_parse = False
        self.import_guard = False
        child = node
        parent = parents.get(child)
        while parent is not None and parent is not reached.node:
            if isinstance(parent, (ast.If, ast.While)):
                self.tests.append(parent.test)
            elif isinstance(parent, ast.IfExp):
                self.tests.append(parent.test)
            elif isinstance(parent, ast.ExceptHandler):
                caught = _dotted(parent.type) if parent.type is not None else ""
                if "ImportError" in caught or "ModuleNotFoundError" in caught:
                    self.import_guard = True
                try_node = parents.get(parent)
                if isinstance(try_node, ast.Try):
                    self.tests.extend(s for s in try_node.body)
                    self.handler_parse = True
            elif isinstance(parent, ast.match_case) if hasattr(ast, "match_case") else False:
                self.tests.append(parent.pattern)
            elif isinstance(parent, ast.Match) if hasattr(ast, "Match") else False:
                self.tests.append(parent.subject)
            child, parent = parent, parents.get(parent)
        if isinstance(node, ast.Assert):
            self.tests.append(node.test)
        self.locals = locals_

    def caught_inside(self, parents: dict) -> bool:
        """A raise inside a ``try`` of the same function whose handler takes it and does not raise."""
        child, parent = self.node, parents.get(self.node)
        while parent is not None and parent is not self.reached.node:
            if isinstance(parent, ast.Try) and child in parent.body:
                for handler in parent.handlers:
                    caught = _dotted(handler.type) if handler.type is not None else "BaseException"
                    names = {n.strip() for n in re.split(r"[(),]", ast.unparse(handler.type))} \
                        if handler.type is not None else {"BaseException"}
                    if names & {self.exception, "Exception", "BaseException"} or caught == self.exception:
                        if not any(isinstance(n, ast.Raise) for n in ast.walk(handler)):
                            return True
            child, parent = parent, parents.get(parent)
        return False

    def expanded(self) -> list:
        """The tests, with local names replaced by (joined to) what they were computed from."""
        out = list(self.tests)
        seen = set()
        frontier = [t for t in self.tests]
        for _ in range(4):
            new = []
            for expr in frontier:
                for name in _names(expr) if isinstance(expr, ast.AST) else ():
                    if name in self.locals and name not in seen:
                        seen.add(name)
                        new.extend(self.locals[name])
            out.extend(new)
            frontier = new
        return out

    def helper_names(self, exprs, depth: int = 0) -> set[str]:
        """What the sglang helpers the condition calls read (two deep): names and env vars."""
        found = set()
        if depth > 1:
            return found
        local = _local_imports(self.reached.node, _package_of(self.reached.module))
        for expr in exprs:
            for node in ast.walk(expr):
                if isinstance(node, ast.Call):
                    for target in self.walk.targets(self.reached, node.func, local, self.walk.objects_of(self.reached)):
                        body = target[2]
                        for inner in ast.walk(body):
                            if isinstance(inner, (ast.If, ast.Return, ast.Assert, ast.Assign)):
                                value = getattr(inner, "test", None) or getattr(inner, "value", None)
                                if value is not None:
                                    found |= _names(value)
                                    found |= {f"$env:{e}" for e in _env_vars(value)}
        return found

    def classify(self) -> dict:
        reached, walk = self.reached, self.walk
        objects = walk.objects_of(reached)
        exprs = [e for e in self.expanded() if isinstance(e, ast.AST)]
        fields, env, names = set(), set(), set()
        for expr in exprs:
            fields |= walk.fields_in(expr, objects, reached.param_fields)
            env |= _env_vars(expr)
            names |= _names(expr)
        helper = self.helper_names(exprs)
        env |= {n[5:] for n in helper if n.startswith("$env:")}
        env -= CI_ENV
        reasons = _reasons(names | {n for n in helper if not n.startswith("$env:")})
        if PLATFORM_FUNCTION.search(reached.node.name):  # _check_xpu_dcp: called on that platform only
            reasons.append("GPU / platform")
        reasons.extend(self.context)
        params = {a.arg for a in reached.node.args.args + reached.node.args.kwonlyargs}
        if params & MODEL_PARAMETERS:  # validate_x(view, model_arch): run for the model it is handed
            reasons.append("model config")
        if reached.origins == {MODEL_REGISTRY} or MODEL_NAMED.search(reached.node.name) \
                or MODEL_NAMED.search(reached.module.relative.rpartition("/")[2]):
            reasons.append("model config")
        if isinstance(self.node, ast.Raise) and self.node.exc is not None and _names(self.node.exc) & MODEL_NAMES:
            reasons.append("model config")  # a message naming the architecture: a check for some models
        if self.import_guard:
            reasons.append("installed package")
        reasons = sorted(set(reasons))
        message_fields = set()
        if isinstance(self.node, ast.Raise) and self.node.exc is not None:
            message_fields = walk.fields_in(self.node.exc, objects, reached.param_fields)
        action = reached.cls is not None and reached.node.name == "__call__" and any(
            _dotted(b).endswith("Action") for b in reached.cls.bases)
        out = {"fields": sorted(fields), "env": sorted(env)}
        if action and not self.tests:
            out.update({"class": "skipped", "reason": "removed flag (argparse action raising whenever given)"})
        elif reasons:
            out.update({"class": "cannot know", "reason": " + ".join(reasons)})
        elif not fields and not env:
            if message_fields and not self.tests:
                out["fields"] = sorted(message_fields)
                out.update({"class": "judgeable", "family": self.family(exprs, message_fields, env)})
            else:
                out.update({"class": "cannot know", "reason": "no server argument in its condition"})
        else:
            out.update({"class": "judgeable", "family": self.family(exprs, fields, env)})
        return out

    def family(self, exprs, fields, env) -> str:
        if env:
            return "env var"
        ops = set()
        string_call = False
        string_compare = False
        for expr in exprs:
            for node in ast.walk(expr):
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
                    ops.add("mod")
                elif isinstance(node, ast.Compare):
                    for op, right in zip(node.ops, node.comparators):
                        if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                            ops.add("order")
                        others = [node.left, right]
                        if any(isinstance(o, ast.Constant) and isinstance(o.value, str) for o in others) or any(
                                isinstance(o, (ast.Tuple, ast.List, ast.Set)) and o.elts and all(
                                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in o.elts)
                                for o in others):
                            string_compare = True
                elif isinstance(node, ast.Call):
                    name = _dotted(node.func).split(".")[-1].rstrip("()")
                    if name in STRING_METHODS or name == "isinstance" or _dotted(node.func).startswith("re."):
                        string_call = True
        if "mod" in ops:
            return "divisibility"
        if string_call or (self.handler_parse and not ops):
            return "string form"
        if "order" in ops:
            return "range"
        if len(fields) >= 2:
            return "combination"
        if string_compare:
            return "string form"
        return "combination"


def _bound_names(target) -> list[str]:
    """The local names an assignment target binds (not ``self.x``, not ``d[k]``)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _bound_names(e)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []


def _locals_of(function) -> dict:
    table = defaultdict(list)
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in _bound_names(target):
                    table[name].append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            table[node.target.id].append(node.value)
        elif isinstance(node, (ast.For, ast.comprehension)):
            for name in _bound_names(node.target):
                table[name].append(node.iter)
        elif isinstance(node, ast.NamedExpr):
            table[node.target.id].append(node.value)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            for name in _bound_names(node.optional_vars):
                table[name].append(node.context_expr)
    for node in ast.walk(function):
        if isinstance(node, ast.comprehension):
            for name in _bound_names(node.target):
                table[name].append(node.iter)
    return table


def release_sites(version: str) -> list[dict]:
    """Every start-up check of one release, with its class."""
    from sglang_lint.derive.source.wheels import fetch_tree
    from sglang_lint.derive.releases.history import release_server_args

    fields, _ = release_server_args(version)
    release = Release(version, fetch_tree(version), {f.name for f in fields})
    walk = Walk(release)
    walk.start()
    contexts = walk.contexts()
    sites = []
    for key, reached in walk.reached.items():
        parents = _parents(reached.node)
        locals_ = _locals_of(reached.node)
        for node in _own_nodes(reached.node):
            if isinstance(node, ast.Raise) and node.exc is None:
                continue  # a bare re-raise
            if not isinstance(node, (ast.Raise, ast.Assert)):
                continue
            site = Site(walk, reached, node, parents, locals_, contexts[key])
            if site.caught_inside(parents):
                continue
            identity = ast.dump(node.test if isinstance(node, ast.Assert) else node.exc)
            sites.append({
                "file": reached.module.relative,
                "function": reached.qualname,
                "line": site.line,
                "exception": site.exception,
                "message": _facts_only(site.message),
                "key": hashlib.sha256(
                    f"{reached.module.relative}|{reached.qualname}|{site.exception}|{site.message}|"
                    f"{identity if not site.message else ''}".encode()).hexdigest()[:16],
                "via": reached.via,
                **site.classify(),
            })
    sites.sort(key=lambda s: (s["file"], s["line"]))
    return sites


def _version_key(version: str):
    from packaging.version import Version

    return Version(version)


def group_of(version: str) -> str:
    for name, low, high in GROUPS:
        if _version_key(low) <= _version_key(version) < _version_key(high):
            return name
    raise ValueError(version)


def cached_releases() -> list[str]:
    """Every release whose wheel the cache holds unpacked (and those READ_AT_LEAST names)."""
    from sglang_lint.derive.source.wheels import cache_dir

    found = {p.name[len("sglang-"):] for p in cache_dir().glob("sglang-0.5.*")
             if p.is_dir() and (p / ".unpacked").exists()}
    return sorted(found | set(READ_AT_LEAST), key=_version_key)


def build(releases: list[str]) -> dict:
    groups: dict[str, dict] = {}
    for version in releases:
        name = group_of(version)
        group = groups.setdefault(name, {"releases": [], "checks": {}})
        group["releases"].append(version)
        seen_here = set()
        for site in release_sites(version):
            key = site["key"]
            if key in seen_here:  # the same message twice in one function: told apart by line
                key = f"{key}@{site['line']}"
            seen_here.add(key)
            check = group["checks"].get(key)
            if check is None:
                check = {k: v for k, v in site.items() if k not in ("key", "line")}
                check["lines"] = {}
                group["checks"][key] = check
            else:  # the newest release's reading wins (the lines say where each one has it)
                for stale in ("family", "reason"):
                    check.pop(stale, None)
                check.update({k: v for k, v in site.items() if k not in ("key", "line", "file", "function")})
            check["lines"][version] = site["line"]
    out = {"generated_by": "tests/startup/inventory.py", "groups": {}}
    for name, _, _ in GROUPS:
        if name not in groups:
            continue
        group = groups[name]
        checks = []
        for index, (key, check) in enumerate(sorted(group["checks"].items(),
                                                    key=lambda kv: (kv[1]["file"], kv[1]["function"],
                                                                    min(kv[1]["lines"].values())))):
            check = {"id": f"{name}#{index:04d}", **check}
            check["releases"] = sorted(check["lines"], key=_version_key)
            check["line"] = check["lines"][check["releases"][-1]]
            checks.append(_ordered(check))
        out["groups"][name] = {"releases": group["releases"], "checks": checks}
    return out


def _ordered(check: dict) -> dict:
    order = ("id", "file", "function", "line", "exception", "message", "class", "family", "reason", "fields",
             "env", "via", "releases", "lines")
    return {k: check[k] for k in order if k in check}


def table(data: dict) -> str:
    rows = []
    reasons_all = sorted({c.get("reason", "") for g in data["groups"].values() for c in g["checks"]
                          if c["class"] != "judgeable"})
    families = ("combination", "divisibility", "range", "string form", "env var")
    header = ["group", "releases", "sites", "judgeable", *families, "skipped"]
    rows.append(header)
    for name, group in data["groups"].items():
        checks = group["checks"]
        judged = [c for c in checks if c["class"] == "judgeable"]
        rows.append([name, str(len(group["releases"])), str(len(checks)), str(len(judged)),
                     *[str(sum(c.get("family") == f for c in judged)) for f in families],
                     str(len(checks) - len(judged))])
    width = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(width[i]) for i, cell in enumerate(row)) for row in rows]
    lines.append("")
    lines.append("skipped, by reason (a check may have several; counted under the joined reason):")
    for reason in reasons_all:
        counts = [sum(c.get("reason") == reason for c in g["checks"]) for g in data["groups"].values()]
        lines.append(f"  {reason:<60} " + "  ".join(f"{n:>5}" for n in counts))
    per_release = []
    for name, group in data["groups"].items():
        counts = defaultdict(lambda: [0, 0])
        for c in group["checks"]:
            for r in c["releases"]:
                counts[r][0] += 1
                counts[r][1] += c["class"] == "judgeable"
        per_release.append(f"{name}: " + ", ".join(f"{r} {counts[r][0]}/{counts[r][1]}" for r in group["releases"]))
    lines.append("")
    lines.append("sites / judgeable per release:")
    lines.extend("  " + p for p in per_release)
    return "\n".join(lines)


def dump(data: dict) -> str:
    """inventory.json's text: one check a line."""
    lines = ["{", f' "generated_by": {json.dumps(data["generated_by"])},', ' "groups": {']
    names = list(data["groups"])
    for index, name in enumerate(names):
        group = data["groups"][name]
        lines.append(f'  {json.dumps(name)}: {{')
        lines.append(f'   "releases": {json.dumps(group["releases"])},')
        lines.append('   "checks": [')
        checks = group["checks"]
        for number, check in enumerate(checks):
            comma = "," if number < len(checks) - 1 else ""
            lines.append("    " + json.dumps(check, ensure_ascii=False) + comma)
        lines.append("   ]")
        lines.append("  }" + ("," if index < len(names) - 1 else ""))
    lines.extend([" }", "}"])
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--releases", default="", help="a..b: the releases to read (default: every cached one)")
    parser.add_argument("--check", action="store_true", help="fail if inventory.json differs from what is read")
    parser.add_argument("--out", default=str(OUT))
    options = parser.parse_args()
    releases = cached_releases()
    if options.releases:
        low, _, high = options.releases.partition("..")
        releases = [r for r in releases if _version_key(low) <= _version_key(r) <= _version_key(high or low)]
    data = build(releases)
    text = dump(data)
    if options.check:
        if Path(options.out).read_text(encoding="utf-8") != text:
            raise SystemExit(f"{options.out} is not what the releases read now: run inventory.py")
    else:
        Path(options.out).write_text(text, encoding="utf-8")
    print(table(data))


if __name__ == "__main__":
    main()
