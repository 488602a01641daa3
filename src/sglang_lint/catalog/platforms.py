"""The machine a project declares (``platform``, ``gpu`` in ``[tool.sglang-lint]``, or the
command's ``--platform``/``--gpu``), and what sglang's platform probes answer on it.

The machines and the probes are data: ``rules/platforms.toml``. The start-up derivation names
the probes a condition reads (derive/startup/rules.py); the start-up checks (SGL012) whose
condition needs them are judged only on a declared machine, each probe bound to its answer
there (checks/server_args/startup.py). A probe the declaration does not decide stays unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sglang_lint.core.places import rules_folder
from sglang_lint.core.rulefile import read_toml

TABLE = "platforms.toml"  # in the catalog's folder
ANSWERS = ("on_platforms", "cuda_majors", "cuda_capability", "gfx_prefix", "value")
VALUES = ("capability", "sm", "device")
# the torch device type sglang's get_device() names on each platform (none: not known here)
DEVICES = {"cuda": "cuda", "rocm": "cuda", "xpu": "xpu", "npu": "npu", "hpu": "hpu", "mps": "mps", "cpu": "cpu"}


class MachineError(ValueError):
    """A declaration the table does not know, or that contradicts itself: ``key`` is the one to
    change (``platform`` or ``gpu``)."""

    def __init__(self, key: str, problem: str):
        super().__init__(problem)
        self.key = key


@dataclass(frozen=True)
class Gpu:
    name: str
    platform: str
    capability: tuple | None = None  # (major, minor) on CUDA
    gfx: str | None = None  # the architecture on ROCm


@dataclass(frozen=True)
class Machine:
    """A declared machine: a platform, and the GPU where one is declared."""

    platform: str
    gpu: Gpu | None = None

    @property
    def shown(self) -> str:
        """The declaration as the user wrote it (what a finding says it assumed)."""
        return f'gpu = "{self.gpu.name}"' if self.gpu is not None else f'platform = "{self.platform}"'

    def answers(self, table: Path | None = None) -> dict[str, object]:
        """probe -> its answer on this machine, for every probe the declaration decides."""
        return dict(_answers(self, str(table or default_table())))


def default_table() -> Path:
    return Path(rules_folder()) / TABLE


@dataclass(frozen=True)
class Platforms:
    platforms: dict  # name -> (title, aliases)
    gpus: dict  # name -> Gpu
    probes: dict  # name -> (how, what, unsure majors)
    names: dict  # a lower-case name or alias -> (kind, name)


@lru_cache(maxsize=4)
def load_platforms(path: str | None = None) -> Platforms:
    """The table, each entry checked (ValueError naming the file and the entry)."""
    path = Path(path) if path else default_table()
    data = read_toml(path)
    platforms, gpus, probes, names = {}, {}, {}, {}
    for name, row in data.get("platform", {}).items():
        aliases = _strings(path, f"platform.{name}.aliases", row.get("aliases", []))
        platforms[name] = (str(row.get("title", name)), aliases)
        for alias in (name, *aliases):
            names[alias.lower()] = ("platform", name)
    for name, row in data.get("gpu", {}).items():
        where = f"gpu.{name}"
        platform = row.get("platform")
        if platform not in platforms:
            raise ValueError(f"{path}: {where}.platform: {platform!r} is not a [platform.*] of the table")
        capability = row.get("capability")
        if capability is not None and (not isinstance(capability, list) or len(capability) != 2
                                       or not all(isinstance(n, int) for n in capability)):
            raise ValueError(f"{path}: {where}.capability: [major, minor], got {capability!r}")
        gpus[name] = Gpu(name, platform, tuple(capability) if capability else None, row.get("gfx"))
        for alias in (name, *_strings(path, f"{where}.aliases", row.get("aliases", []))):
            names[alias.lower()] = ("gpu", name)
    for name, row in data.get("probe", {}).items():
        given = [key for key in ANSWERS if key in row]
        if len(given) != 1:
            raise ValueError(f"{path}: probe.{name}: exactly one of {', '.join(ANSWERS)}, got {given or 'none'}")
        how = given[0]
        what = row[how]
        if how == "value" and what not in VALUES:
            raise ValueError(f"{path}: probe.{name}.value: one of {', '.join(VALUES)}, got {what!r}")
        if how == "on_platforms" and not set(_strings(path, f"probe.{name}.on_platforms", what)) <= set(platforms):
            raise ValueError(f"{path}: probe.{name}.on_platforms: names a platform the table lacks: {what!r}")
        probes[name] = (how, tuple(what) if isinstance(what, list) else what, tuple(row.get("unsure_majors", ())))
    return Platforms(platforms, gpus, probes, names)


def _strings(path: Path, where: str, value) -> tuple:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{path}: {where}: a list of strings, got {value!r}")
    return tuple(value)


def declared_machine(platform: str | None, gpu: str | None, table: Path | None = None) -> Machine | None:
    """The machine a declaration names (None: nothing declared); MachineError for a name the
    table does not know (naming those it knows) or a GPU of another platform than the one declared."""
    if platform is None and gpu is None:
        return None
    known = load_platforms(str(table) if table else None)
    chosen_platform = None
    if platform is not None:
        found = known.names.get(platform.strip().lower())
        if found is None or found[0] != "platform":
            raise MachineError("platform", f"unknown platform {platform!r} (known: {', '.join(known.platforms)})")
        chosen_platform = found[1]
    if gpu is None:
        return Machine(chosen_platform)
    found = known.names.get(gpu.strip().lower())
    if found is None or found[0] != "gpu":
        raise MachineError("gpu", f"unknown GPU {gpu!r} (known: {', '.join(known.gpus)}; for another GPU, "
                                  f"declare its platform alone)")
    card = known.gpus[found[1]]
    if chosen_platform is not None and card.platform != chosen_platform:
        raise MachineError("gpu", f"the GPU {gpu!r} is a {card.platform} GPU, not a {chosen_platform} one")
    return Machine(card.platform, card)


@lru_cache(maxsize=16)
def _answers(machine: Machine, table: str) -> tuple:
    known = load_platforms(table)
    found = []
    for name, (how, what, unsure) in known.probes.items():
        answer = _answer(machine, how, what, unsure)
        if answer is not None:
            found.append((name, answer))
    return tuple(found)


def _answer(machine: Machine, how: str, what, unsure: tuple):
    """The probe's answer on the machine (None: the declaration does not decide it)."""
    gpu = machine.gpu
    on_cuda = machine.platform == "cuda" and gpu is not None and gpu.capability is not None
    if how == "on_platforms":
        return machine.platform in what
    if how == "cuda_majors":
        if not on_cuda or gpu.capability[0] in unsure:
            return None
        return gpu.capability[0] in what
    if how == "cuda_capability":
        return gpu.capability == tuple(what) if on_cuda else None
    if how == "gfx_prefix":
        if machine.platform != "rocm":
            return False  # (sglang asks torch.version.hip first)
        return gpu.gfx.startswith(what) if gpu is not None and gpu.gfx else None
    if what == "capability":
        return gpu.capability if on_cuda else None
    if what == "sm":
        return gpu.capability[0] * 10 + gpu.capability[1] if on_cuda else None
    return DEVICES.get(machine.platform)
