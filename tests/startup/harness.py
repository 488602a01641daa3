"""sglang's own start-up validation of a launch's server arguments, run for real from an
unpacked release with everything heavy stubbed, in a separate interpreter.

Parent side (imported by the tests and scripts): ``run(release, argv, env=None)`` returns one
verdict dict::

    {"outcome": "passed" | "raised" | "argparse" | "unclear",
     "exception": "ValueError", "message": "...",
     "site": "srt/server_args.py:1234", "function": "_handle_x", "detail": "..."}

- ``passed``: ``prepare_server_args(argv)`` (argparse, then ``ServerArgs`` and its
  ``__post_init__``), ``resolve_once()`` where the release has it (0.5.20 on), and
  ``check_server_args()`` all returned.
- ``argparse``: the parser rejected the command line (the message argparse prints).
- ``raised``: a ``raise`` or ``assert`` statement of sglang's own code raised, with nothing
  stubbed in the raising frame: the exception is sglang's verdict on the arguments.
- ``unclear`` ("could not tell"): the run ended some other way, so its outcome says nothing
  about the arguments: an error inside a stub or the harness, an error that is not a raise
  or assert statement of sglang (``TypeError`` from arithmetic on a stub ...), a raise whose
  frame holds stubbed values, or a crash / hang of the interpreter.

Child side (``python -I -S -B harness.py TREE ARGV_JSON DEPS GPU``, run by ``run``): the
interpreter is isolated from the test venv; sglang's subpackages are imported from the
unpacked wheel (its ``__init__`` is not run, as in ``tests/real_parsers.py``); every module
that is neither the standard library nor sglang is a stub (real_parsers' ``Stub`` and stub
modules, reused, with three additions: a stub's ``.name`` is a string, ``torch.Tensor``,
``numpy.ndarray`` and a few other classes of TYPE_NAMES are stand-in classes, and a stub in
a JSON document is written as its name), but for a few pure packages taken for real from a
small folder pip fills once in sglang-lint's cache (``deps_dir``: msgspec, which 0.5.20's
``ServerArgs`` is built with, packaging, PyYAML). The machine is faked as one typical CUDA
host: ``torch`` says CUDA 12.9 is available with 8 GPUs of compute capability 9.0 (H100,
80 GB; ``gpu="B200"``: 10.0, 180 GB; ``gpu="A100"``: 8.0, 80 GB), ``torch.version.hip`` is None, triton's driver reports
a CUDA target, an ``nvidia-smi`` first on PATH prints the same GPUs, and the packages of
other platforms (ROCm's aiter, Ascend's torch_npu, Habana, Intel's IPEX, MUSA's torchada ...)
are absent; every other package is "installed" (a stub). The model is a fixed
Llama-3.1-8B-Instruct Hugging Face config (``FAKE_HF_CONFIG``): sglang's ``get_config``
(wherever the release keeps it) and ``transformers.AutoConfig.from_pretrained`` return it
for any model path, ``--json-model-override-args`` applied; the path itself is never read
(``huggingface_hub`` and ``modelscope`` are stubs). HOME is a folder of the harness's in the
cache: no Hugging Face cache, no configuration of the user's. argparse's ``error`` raises
instead of exiting, so its message is the verdict.

Known limits: a check is confirmed only as far as this machine and model reach it. One
that needs another GPU than H100/B200, another platform, another architecture (DeepSeek,
Qwen MoE ...), a real file or the network is not reached, or raises a different, earlier
check. What sglang computes with a stubbed library (pydantic models such as
KVEventsConfig, torch arithmetic, package versions, which are all "2.9.0") comes out
"unclear" when a stub reaches the raising frame, but a stub that silently takes a branch
(stubs are falsy, compare equal to nothing, iterate empty) can make sglang pass a check it
would fail on a real host, or skip a default it would set: "passed" means "raised nothing
here", the good launches are confirmed to that extent. Only what ``prepare_server_args``,
``resolve_once`` and ``check_server_args`` run is covered; what ``Engine`` does later with
the arguments (ports, ``_set_envs_and_config``'s package versions, the model's weights) is not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
ROOT = TESTS.parent

# pure packages run for real in the child (the rest of the third-party world is stubbed)
REAL_THIRD_PARTY = ("msgspec", "packaging", "yaml")
DEPS = ("msgspec==0.19.0", "packaging==24.2", "PyYAML==6.0.2")
# packages of other platforms than the faked CUDA host: absent, as on a CUDA machine
ABSENT_PACKAGES = {
    "aiter", "torch_npu", "habana_frameworks", "intel_extension_for_pytorch", "torchada", "mindspore",
    "vllm", "ixformer", "torch_mlu", "sgl_kernel_npu", "deep_ep_npu", "mlx", "mlx_lm", "hpu_extension",
    "torch_musa", "amdsmi", "pyrsmi", "vllm_ascend",
}
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
# classes of stubbed modules that sglang uses as types (annotations msgspec reads, isinstance)
TYPE_NAMES = {"ndarray", "dtype", "device", "generic", "number", "Tensor", "Size", "Parameter"}
# The GPUs the fake host may have (8 of one kind): name, compute capability, memory in MiB.
GPUS = {
    "H100": ("NVIDIA H100 80GB HBM3", (9, 0), 81559),
    "B200": ("NVIDIA B200", (10, 0), 183359),
    "A100": ("NVIDIA A100-SXM4-80GB", (8, 0), 81920),
}
DEFAULT_GPU = "H100"
TIMEOUT = 300  # seconds a run may take before it is "unclear" (a hang, not a verdict)
# The one Hugging Face config every model path resolves to (Llama-3.1-8B-Instruct's).
FAKE_HF_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "head_dim": 128,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "rms_norm_eps": 1e-05,
    "rope_theta": 500000.0,
    "rope_scaling": None,
    "torch_dtype": "bfloat16",
    "dtype": "bfloat16",
    "tie_word_embeddings": False,
    "bos_token_id": 128000,
    "eos_token_id": [128001, 128008, 128009],
    "hidden_act": "silu",
    "attention_bias": False,
    "mlp_bias": False,
}


# --- parent side ---------------------------------------------------------------------------

def _project() -> None:
    """This project's package importable (the harness may run without it installed)."""
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))


def deps_dir() -> Path:
    """A folder holding :data:`DEPS`, installed once through pip (``pip install --target``)
    into sglang-lint's cache."""
    import fcntl
    import hashlib

    _project()
    from sglang_lint.core.places import cache_home

    key = hashlib.sha256("\n".join(DEPS).encode()).hexdigest()[:12]
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    root = cache_home() / f"startup-deps-{tag}-{key}"
    done = root / ".installed"
    if done.exists():
        return root
    cache_home().mkdir(parents=True, exist_ok=True)
    with open(root.with_name(root.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            import shutil

            shutil.rmtree(root, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            "--no-deps", "--target", str(root), *DEPS], check=True)
            done.write_text("".join(f"{d}\n" for d in DEPS))
    return root


def release_tree(release: str) -> Path:
    """The unpacked wheel of ``release`` (fetched through pip once, if missing)."""
    _project()
    from sglang_lint.derive.source.wheels import fetch_tree

    return fetch_tree(release)


def _scratch() -> Path:
    """The harness's own folder in sglang-lint's cache (the fake tools, the child's HOME)."""
    _project()
    from sglang_lint.core.places import cache_home

    return cache_home() / "startup-harness"


def _fake_bin(gpu: str) -> Path:
    """A folder with a fake ``nvidia-smi`` (8 GPUs of kind ``gpu``) to put first on PATH."""
    name, (major, minor), memory = GPUS[gpu]
    folder = _scratch() / "bin" / gpu
    tool = folder / "nvidia-smi"
    text = "#!/bin/sh\n" \
           "case \"$*\" in\n" \
           f"  *memory.total*) for i in 0 1 2 3 4 5 6 7; do echo {memory}; done ;;\n" \
           f"  *compute_cap*) for i in 0 1 2 3 4 5 6 7; do echo {major}.{minor}; done ;;\n" \
           f"  *name*) for i in 0 1 2 3 4 5 6 7; do echo '{name}'; done ;;\n" \
           "  *) echo 'NVIDIA-SMI 570.00  Driver Version: 570.00  CUDA Version: 12.9' ;;\n" \
           "esac\n"
    if not tool.exists() or tool.read_text() != text:
        folder.mkdir(parents=True, exist_ok=True)
        tool.write_text(text)
        tool.chmod(0o755)
    return folder


def run(release: str, argv: list[str], env: dict[str, str] | None = None, timeout: float = TIMEOUT,
        gpu: str = DEFAULT_GPU) -> dict:
    """sglang ``release``'s verdict on the launch ``python -m sglang.launch_server *argv``,
    with ``env`` added to the environment, on a host of 8 ``gpu`` (see the module's docstring)."""
    return spawn(Path(__file__), release, argv, env, timeout, gpu)


def spawn(script: Path, release: str, payload, env: dict[str, str] | None = None, timeout: float = TIMEOUT,
          gpu: str = DEFAULT_GPU) -> dict:
    """``python -I -S -B script TREE PAYLOAD_JSON DEPS GPU`` in the faked host's environment (the
    start-up run's child, or another run over :func:`setup`): the last JSON line it prints."""
    tree = release_tree(release)
    child_env = {k: v for k, v in os.environ.items() if not k.startswith(("SGLANG_", "SGL_", "PYTHON"))}
    child_env["PATH"] = f"{_fake_bin(gpu)}{os.pathsep}{child_env.get('PATH', '')}"
    home = _scratch() / "home"
    home.mkdir(parents=True, exist_ok=True)
    child_env["HOME"] = str(home)  # no HF cache, no configuration of the user's
    child_env["HF_HUB_OFFLINE"] = "1"
    child_env.update(env or {})
    command = [sys.executable, "-I", "-S", "-B", str(Path(script).resolve()), str(tree), json.dumps(payload),
               str(deps_dir()), gpu]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=child_env, timeout=timeout,
                              cwd=str(home))
    except subprocess.TimeoutExpired:
        return {"outcome": "unclear", "detail": f"no verdict within {timeout} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"outcome": "unclear", "detail": f"the child died (exit {done.returncode}): {done.stderr[-2000:]}"}
    return json.loads(lines[-1])


# --- child side ----------------------------------------------------------------------------

def _child(tree: str, argv: list[str], deps: str, gpu: str) -> dict:
    """The child's run: the machine and model faked (:func:`setup`), then the launch's arguments parsed and
    validated as sglang does."""
    import importlib
    import traceback

    machine = setup(tree, deps, gpu)
    try:
        server_args_module = importlib.import_module("sglang.srt.server_args")
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "unclear", "exception": type(exc).__name__, "message": str(exc)[:2000],
                "detail": "importing sglang.srt.server_args failed", "traceback": traceback.format_exc()[-6000:]}
    try:
        server_args = server_args_module.prepare_server_args(list(argv))
        if hasattr(server_args, "resolve_once"):
            server_args.resolve_once()
        server_args.check_server_args()
    except machine.ParserError as exc:
        return {"outcome": "argparse", "exception": "SystemExit", "message": str(exc)}
    except SystemExit as exc:
        return {"outcome": "unclear", "exception": "SystemExit", "message": str(exc.code),
                "detail": "exit outside argparse's error"}
    except BaseException as exc:  # noqa: BLE001
        result = machine.verdict_of(exc)
        result["traceback"] = "".join(traceback.format_exception(exc))[-6000:]
        return result
    return {"outcome": "passed"}


def setup(tree: str, deps: str, gpu: str):  # noqa: C901 (one straight setup)
    """In a child interpreter: sglang's subpackages importable from ``tree`` with every other
    package stubbed, the machine one CUDA host of ``gpu``s, the model FAKE_HF_CONFIG's. Returns
    what a run reads back: ``verdict_of(exception)``, argparse's ``ParserError``, the stubs
    (``rp``) and ``is_stub(value)``."""
    import argparse
    import importlib
    import importlib.abc
    import importlib.machinery
    import traceback
    import types

    sys.path.insert(0, str(TESTS))
    import real_parsers as rp  # the stubs: reused, not copied

    class Stub(rp.Stub):
        """real_parsers' stub, but its ``.name`` is a string (torch.library's op names)."""

        def __getattr__(self, name):
            if name.startswith("__") and name.endswith("__"):
                raise AttributeError(name)
            if name in ("name", "__qualname__"):
                return self._name.rsplit(".", 1)[-1]
            return Stub(f"{self._name}.{name}")

    rp.Stub = Stub  # what real_parsers' stub modules and stubs now give

    def attribute(self, name):
        """A stub module's attribute: a stand-in class for the classes of TYPE_NAMES
        (``torch.Tensor``, ``numpy.ndarray``: msgspec and ``isinstance`` need a type), else a stub."""
        if (name.startswith("__") and name.endswith("__")) or name in rp.ABSENT:
            raise AttributeError(name)
        if name in TYPE_NAMES:
            value = rp._Meta(name, (rp._StubBase,), {"_stand_in": True, "__module__": self.__name__})
        else:
            value = Stub(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value

    rp._StubModule.__getattr__ = attribute

    def module(name: str, **attrs) -> types.ModuleType:
        """A stub module with ``attrs`` set, registered with its parents (made if need be)."""
        made = sys.modules.get(name)
        if made is None:
            made = rp._StubModule(name)
            made.__path__ = []
            made.__file__ = "<stub>"
            made.__version__ = "2.9.0"
            sys.modules[name] = made
            if "." in name:
                parent, _, child = name.rpartition(".")
                setattr(module(parent), child, made)
        for key, value in attrs.items():
            setattr(made, key, value)
        return made

    # the machine: one CUDA host, 8 GPUs of one kind
    gpu_name, capability, memory = GPUS[gpu]
    gib = memory << 20
    properties = types.SimpleNamespace(name=gpu_name, total_memory=gib, major=capability[0], minor=capability[1],
                                       multi_processor_count=132 if capability[0] == 9 else 148, gcnArchName="",
                                       L2_cache_size=50 << 20)
    module("torch", __version__="2.9.1")
    module("torch.version", cuda="12.9", hip=None, musa=None, xpu=None, git_version="0" * 40,
           __version__="2.9.1")
    module(
        "torch.cuda",
        is_available=lambda: True,
        device_count=lambda: 8,
        current_device=lambda: 0,
        get_device_capability=lambda device=None: capability,
        get_device_name=lambda device=None: gpu_name,
        get_device_properties=lambda device=None: properties,
        mem_get_info=lambda device=None: (gib, gib),
        is_bf16_supported=lambda *a, **k: True,
        set_device=lambda device: None,
    )
    target = types.SimpleNamespace(backend="cuda", arch=capability[0] * 10 + capability[1], warp_size=32)
    driver_utils = types.SimpleNamespace(get_device_properties=lambda *a: {
        "multiprocessor_count": 132, "max_shared_mem": 232448, "max_num_regs": 65536, "warpSize": 32})
    module("triton.runtime.driver", active=types.SimpleNamespace(
        get_current_target=lambda: target, utils=driver_utils, get_current_device=lambda: 0))

    # the model: every path has FAKE_HF_CONFIG's config
    class FakeHFConfig:
        """A transformers config as sglang reads one: attributes (an unknown one is an
        AttributeError, as on PretrainedConfig), ``to_dict``, ``update``, ``get_text_config``."""

        is_encoder_decoder = False
        is_decoder = False
        attribute_map: dict = {}
        output_hidden_states = False
        use_return_dict = True
        name_or_path = MODEL

        def __init__(self, **values):
            self.__dict__.update(values)

        def to_dict(self):
            return dict(vars(self))

        to_diff_dict = to_dict

        def update(self, values):
            self.__dict__.update(values)

        def get_text_config(self, *args, **kwargs):
            return self

        def __contains__(self, key):
            return key in self.__dict__

    def fake_config(*args, model_override_args=None, **kwargs):
        config = FakeHFConfig(**FAKE_HF_CONFIG)
        if model_override_args:
            config.update(model_override_args)
        return config

    auto = types.SimpleNamespace(from_pretrained=fake_config, register=lambda *a, **k: None)
    module("transformers", AutoConfig=auto, __version__="4.57.1")
    patches = {  # sglang's config loader, wherever the release keeps it
        name: {"get_config": fake_config}
        for name in ("sglang.srt.hf_transformers_utils", "sglang.srt.utils.hf_transformers_utils",
                     "sglang.srt.utils.hf_transformers.config")
    }

    absent = ABSENT_PACKAGES
    real = set(REAL_THIRD_PARTY)

    class Patched(importlib.abc.Loader):
        """sglang's own module, then some of its names replaced."""

        def __init__(self, loader, names):
            self.loader, self.names = loader, names

        def create_module(self, spec):
            return self.loader.create_module(spec)

        def exec_module(self, made):
            self.loader.exec_module(made)
            for key, value in self.names.items():
                setattr(made, key, value)

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            top = name.split(".")[0]
            if name in patches:
                spec = importlib.machinery.PathFinder.find_spec(name, path)
                if spec is not None:
                    spec.loader = Patched(spec.loader, patches[name])
                return spec
            if top in sys.stdlib_module_names or top == "sglang" or top in real or top in absent:
                return None  # the ordinary finders: the file, or not installed
            return importlib.machinery.ModuleSpec(name, rp._StubLoader(), is_package=True)

    import multiprocessing.connection  # noqa: F401

    sys.path.insert(0, tree)
    sys.path.insert(1, deps)
    sys.meta_path.insert(0, Finder())
    # as real_parsers does: sglang's __init__ (lazy imports of the frontend language, patches of
    # transformers) is not run; its subpackages are imported from the tree
    package = types.ModuleType("sglang")
    package.__path__ = [os.path.join(tree, "sglang")]
    sys.modules["sglang"] = package

    # argparse's verdict, caught before it exits
    class ParserError(Exception):
        pass

    def error(self, message):
        raise ParserError(message)

    argparse.ArgumentParser.error = error

    import json as json_module

    default = json_module.JSONEncoder.default

    def stub_as_text(self, value):  # a stub in a JSON document: its name
        return str(value) if _is_stub(value, rp) else default(self, value)

    json_module.JSONEncoder.default = stub_as_text

    tree_path = os.path.realpath(tree)
    stub_files = {os.path.realpath(rp.__file__), os.path.realpath(__file__)}

    def verdict_of(exc: BaseException) -> dict:
        frames = traceback.extract_tb(exc.__traceback__)
        tb = exc.__traceback__
        last = None
        while tb is not None:
            last = tb
            tb = tb.tb_next
        message = str(exc)
        found = {"exception": type(exc).__name__, "message": message[:4000]}
        if not frames:
            return {"outcome": "unclear", **found, "detail": "no traceback"}
        where = frames[-1]
        path = os.path.realpath(where.filename)
        found["function"] = where.name
        if path in stub_files or path == "<stub>":
            return {"outcome": "unclear", **found, "detail": "raised in a stub"}
        if not path.startswith(tree_path + os.sep):
            return {"outcome": "unclear", **found,
                    "detail": f"raised outside sglang: {where.filename}:{where.lineno}"}
        relative = os.path.relpath(path, os.path.join(tree_path, "sglang"))
        statement, start = _statement_at(path, where.lineno)
        found["site"] = f"{relative}:{start}"  # the statement's first line, as the inventory has it
        if statement not in ("raise", "assert"):
            return {"outcome": "unclear", **found, "detail": f"not a raise or assert statement ({statement})"}
        stubbed = sorted(key for key, value in last.tb_frame.f_locals.items() if _is_stub(value, rp))
        if stubbed or "<stub" in message:
            return {"outcome": "unclear", **found, "detail": f"stubbed values in the raising frame: {stubbed}"}
        return {"outcome": "raised", **found}

    return types.SimpleNamespace(verdict_of=verdict_of, ParserError=ParserError, rp=rp,
                                 is_stub=lambda value: _is_stub(value, rp))


_STATEMENTS: dict = {}


def _statement_at(path: str, line: int) -> tuple[str, int]:
    """The innermost statement of ``path`` that spans ``line``: its kind ("raise", "assert",
    another node's name) and first line."""
    import ast

    if path not in _STATEMENTS:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        spans = []
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.While,
                           ast.With, ast.Try, ast.AsyncFor, ast.AsyncWith, getattr(ast, "Match", ast.If))):
                spans.append((node.lineno, node.end_lineno, type(node).__name__.lower()))
        _STATEMENTS[path] = spans
    best = None
    for start, end, kind in _STATEMENTS[path]:
        if start <= line <= end and (best is None or end - start < best[1] - best[0]):
            best = (start, end, kind)
    return (best[2], best[0]) if best else ("unknown", line)


def _is_stub(value, rp) -> bool:
    return isinstance(value, rp.Stub) or isinstance(value, rp._StubModule) or \
        (isinstance(value, type) and isinstance(value, rp._Meta) and value.__dict__.get("_stand_in", False))


def child_main(run) -> None:
    """A child's whole life: ``run(tree, payload, deps, gpu)``'s verdict as the last line out."""
    tree, payload, deps, gpu = sys.argv[1:5]
    out = sys.stdout
    sys.stdout = sys.stderr  # sglang's prints
    result = run(tree, json.loads(payload), deps, gpu)
    out.write(json.dumps(result) + "\n")
    out.flush()
    os._exit(0)  # no atexit handlers of stubbed libraries


def main() -> None:
    child_main(_child)


if __name__ == "__main__":
    main()
