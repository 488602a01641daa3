"""sglang's public Python API over its releases as one table (``rules/derived/api.toml``): each
callable's signatures with the runs of releases that have them, each class and module with the
runs in which it is there and those in which its names are all known, and the targets the
signature rule (SGL013) is matched on. Read back as each release's surface, a newer release is
merged into it without deriving the older ones again."""

from __future__ import annotations

import json
from pathlib import Path

from sglang_lint.core.places import keep_file
from sglang_lint.catalog.rules import version_key
from sglang_lint.derive.api.surface import OPAQUE, Surface, tree_surface
from sglang_lint.derive.server_args.keyword_launchers import KeywordLauncher
from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string
from sglang_lint.derive.source.wheels import cache_dir, fetch_tree
from sglang_lint.derive.source.presence import in_runs, presence_runs, read_merged
from sglang_lint.derive.source.tree import LazyTree

API_FORMAT = "v1"  # bump when the derivation changes what a release's surface holds
TABLE = "api.toml"


def release_surface(version: str, launchers: list[KeywordLauncher] | None = None) -> Surface:
    """A release's public API (tree_surface of its wheel's tree, ``launchers`` its keyword
    launchers if found already), kept in the cache as JSON."""
    path = cache_dir() / "api" / f"{API_FORMAT}-{version}.json"
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        return Surface(data["callables"], data["containers"], {k: tuple(v) for k, v in data["defined"].items()},
                       set(data["methods"]))
    surface = tree_surface(LazyTree(fetch_tree(version)), launchers)
    # (whole or not at all: another worker may read it)
    keep_file(path, json.dumps({"callables": surface.callables, "containers": surface.containers,
                                "defined": surface.defined, "methods": sorted(surface.methods)}).encode())
    return surface


def api_text(per_release: dict[str, Surface]) -> str:
    releases = sorted(per_release, key=version_key)
    surfaces = [per_release[r] for r in releases]

    def runs(flags) -> str:
        spans = presence_runs(list(flags), releases)
        return "[" + ", ".join(f"[{toml_string(a)}, {toml_string(b)}]" for a, b in spans) + "]"

    lines = [
        GENERATED_MARK,
        "# sglang's public Python API, release by release: each public function, class (its constructor)",
        "# and method of a public class, under the name users call it by, with its signature as Python",
        "# writes it (defaults elided; (*args, **kwargs) where the deriver cannot read it) and the runs of",
        "# releases that have that signature; each class and module with the runs it is there and those",
        "# in which its names are all known (closed: a name it lacks fails). Read by SGL013.",
        f"releases = [{', '.join(toml_string(r) for r in releases)}]",
    ]
    containers = sorted({name for s in surfaces for name in s.containers})
    callables = sorted({name for s in surfaces for name in s.callables})
    methods = {name for s in surfaces for name in s.methods}
    defined = {}
    for surface in surfaces:
        for name, where in surface.defined.items():
            defined.setdefault(name, set()).update(where)
    for name in _targets(surfaces, callables, methods, containers):
        lines += ["", "[[entry_point]]"]
        owner, _, last = name.rpartition(".")
        if name in methods:
            receivers = [owner, *sorted(defined.get(owner, set()) - {owner})]
            lines += [f"method = {toml_string(last)}",
                      "receivers = [" + ", ".join(toml_string(r) for r in receivers) + "]"]
        elif name in containers:
            lines.append(f"class = {toml_string(name)}")
        else:
            lines.append(f"function = {toml_string(name)}")
    for name in containers:
        lines += ["", "[[container]]", f"name = {toml_string(name)}",
                  f"releases = {runs(name in s.containers for s in surfaces)}"]
        closed = [s.containers.get(name, False) for s in surfaces]
        if any(closed):
            lines.append(f"closed = {runs(closed)}")
        if name not in defined:
            lines.append("module = true")
        elif defined[name] != {name}:
            lines.append("defined = [" + ", ".join(toml_string(d) for d in sorted(defined[name])) + "]")
    for name in callables:
        signatures = sorted({s.callables[name] for s in surfaces if name in s.callables})
        for signature in signatures:
            lines += ["", "[[callable]]", f"name = {toml_string(name)}", f"signature = {toml_string(signature)}",
                      f"releases = {runs(s.callables.get(name) == signature for s in surfaces)}"]
    return "\n".join(lines) + "\n"


def _targets(surfaces: list[Surface], callables: list[str], methods: set[str], containers: list[str]) -> list[str]:
    """The callables a call can fail: one whose signature some release reads, and a method some
    release of its class lacks while that class is closed there."""
    found = []
    for name in callables:
        readable = any(s.callables.get(name, OPAQUE) != OPAQUE for s in surfaces)
        owner = name.rpartition(".")[0]
        lacking = name in methods and any(s.containers.get(owner) and name not in s.callables for s in surfaces)
        if readable or lacking:
            found.append(name)
    return found


def api_history(rules: Path) -> dict[str, Surface] | None:
    """Each release of ``rules/derived/api.toml`` as its surface; None where there is no table.
    ValueError where the table does not read back as itself (edited by hand, or written by
    another deriver)."""
    return read_merged(rules / "derived" / TABLE, _surfaces, api_text,
                       "the public API of the releases it records writes")


def _surfaces(data: dict, releases: list[str]) -> dict[str, Surface]:
    per_release = {r: Surface() for r in releases}
    modules = set()
    for container in data.get("container", []):
        closed = set(in_runs(container.get("closed", []), releases))
        if container.get("module"):
            modules.add(container["name"])
        for release in in_runs(container["releases"], releases):
            surface = per_release[release]
            surface.containers[container["name"]] = release in closed
            if not container.get("module"):
                surface.defined[container["name"]] = tuple(container.get("defined", [container["name"]]))
    for entry in data.get("callable", []):
        owner = entry["name"].rpartition(".")[0]
        for release in in_runs(entry["releases"], releases):
            surface = per_release[release]
            surface.callables[entry["name"]] = entry["signature"]
            if owner in surface.containers and owner not in modules:
                surface.methods.add(entry["name"])
    return per_release


def write_api(rules: Path, releases: list[str], launchers: dict[str, list[KeywordLauncher]] | None = None) -> Path:
    """derived/api.toml of these releases (each derived once, then read from the cache;
    ``launchers``: release -> its keyword launchers, where the run found them already)."""
    launchers = launchers or {}
    return _write(rules, {release: release_surface(release, launchers.get(release)) for release in releases})


def merge_api(rules: Path, version: str, root: Path, alone: bool = False,
              launchers: list[KeywordLauncher] | None = None) -> Path:
    """Add the release ``version`` (its tree under ``root``; ``launchers``: its keyword
    launchers, if found already) to derived/api.toml, the table's other releases as it records
    them (``alone``, or no table: that release only)."""
    history = {} if alone else api_history(rules) or {}
    history[version] = tree_surface(LazyTree(root), launchers)
    return _write(rules, history)


def _write(rules: Path, per_release: dict[str, Surface]) -> Path:
    path = rules / "derived" / TABLE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(api_text(per_release), encoding="utf-8")
    return path
