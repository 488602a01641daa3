"""The table of the modules run with ``python -m`` over sglang's releases
(``rules/derived/scripts.toml``): each release read once (:mod:`.scripts`, from its tree fetched
through pip) and kept in the cache; ``catalog derive --releases`` merges them, each module with
the runs of releases that have it and of each fact of its parser; where a module leaves, the
module it moved to (the one its last stub ran, or the one of the same file name that came in
its place)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from sglang_lint.core.places import keep_file
from sglang_lint.catalog.rules import version_key
from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string
from sglang_lint.derive.commands.launchers import SCRIPTS_TABLE
from sglang_lint.derive.source.wheels import cache_dir, fetch_tree
from sglang_lint.derive.source.presence import presence_runs
from sglang_lint.derive.commands.scripts import Script, tree_scripts
from sglang_lint.derive.commands.serve import inline_table, runs_text

# bump when derive/commands/scripts.py or derive/server_args/parsers.py change what they read of a script
SCRIPTS_FORMAT = "v1"


# --- one release, cached --------------------------------------------------------------------

def release_scripts(version: str) -> tuple[Script, ...]:
    """One release's runnable modules, derived from its tree and kept in the cache as JSON."""
    path = cache_dir() / "scripts" / f"{SCRIPTS_FORMAT}-{version}.json"
    if path.is_file():
        return tuple(_from_json(item) for item in json.loads(path.read_text(encoding="utf-8")))
    found = tree_scripts(fetch_tree(version))
    keep_file(path, json.dumps([dataclasses.asdict(s) for s in found]).encode())  # (whole or not at all)
    return found


def _from_json(data: dict) -> Script:
    return Script(**{k: tuple(tuple(i) if isinstance(i, list) else i for i in v) if isinstance(v, list) else v
                     for k, v in data.items()})


# --- the merged table -------------------------------------------------------------------------

@dataclass(frozen=True)
class Move:
    """Where a module that left went: the module, and whether running it there is running what
    the old path ran (its last stub called that module's main, or the two parse alike)."""

    to: str
    unchanged: bool


def moves(history: dict[str, tuple[Script, ...]]) -> dict[str, Move]:
    """module -> where it went, for each module that some release has and the newest lacks: the
    module its last release's stub ran, else the one module of its file name that the release
    after its last brought (``sglang.bench_x`` -> ``sglang.benchmark.bench_x``); it must be there
    in the newest release."""
    releases = sorted(history, key=version_key)
    by_release = [{s.module: s for s in history[r]} for r in releases]
    newest = by_release[-1]
    found = {}
    for name in sorted({n for scripts in by_release for n in scripts} - set(newest)):
        last = max(i for i, scripts in enumerate(by_release) if name in scripts)
        old = by_release[last][name]
        if old.runs and old.runs in newest:
            found[name] = Move(old.runs, True)
            continue
        if last + 1 >= len(releases):
            continue
        after = by_release[last + 1]
        leaf = name.rpartition(".")[2]
        came = [n for n in after if n.rpartition(".")[2] == leaf and n not in by_release[last] and n in newest]
        if len(came) == 1:
            new = after[came[0]]
            same = old.judged and new.judged and (old.flags, old.server_args, old.exact) == (
                new.flags, new.server_args, new.exact)
            found[name] = Move(came[0], same)
    return found


def write_scripts(out: Path, history: dict[str, tuple[Script, ...]]) -> None:
    """scripts.toml of these releases (release -> its runnable modules) into the derived folder."""
    (out / SCRIPTS_TABLE).write_text(scripts_text(history), encoding="utf-8")


def scripts_history(table: dict, order) -> dict[str, tuple[Script, ...]]:
    """Each release's runnable modules as scripts.toml records them (``order``: merge._Order of
    the catalog's releases); aliases, written as those of any release, are each release's."""
    releases = order.releases
    if table and list(table.get("releases", ())) != releases:
        raise ValueError(f"{SCRIPTS_TABLE} does not list the catalog's releases")
    found: dict[str, list] = {release: [] for release in releases}
    for name, entry in table.get("modules", {}).items():
        own = [r for r in releases if r in order.runs(entry["range"], releases)]
        has = {key: order.runs(entry[key], own) if key in entry else set()
               for key in ("parses", "server_args", "judged", "exact")}
        runs = {target: order.runs(spans, own) for target, spans in entry.get("runs", {}).items()}
        parsed = [r for r in own if r in has["parses"]]
        ranges = entry.get("flag_ranges", {})
        flags = {f: order.runs(ranges[f], parsed) if f in ranges else set(parsed) for f in entry.get("flags", ())}
        aliases = tuple(sorted(entry.get("aliases", {}).items()))
        for release in own:
            parses = release in has["parses"]
            found[release].append(Script(
                name, parses, tuple(f for f in entry.get("flags", ()) if release in flags[f]),
                release in has["server_args"], release in has["judged"], release in has["exact"],
                aliases if parses else (), next((t for t, there in runs.items() if release in there), "")))
    return {release: tuple(scripts) for release, scripts in found.items()}


def scripts_text(history: dict[str, tuple[Script, ...]]) -> str:
    """The table: each module with the runs of releases ``[since, until]`` ("" an open end) that
    have it, and of its facts those that not all its releases share (see the header it writes)."""
    releases = sorted(history, key=version_key)
    by_release = [{s.module: s for s in history[r]} for r in releases]
    lines = [
        GENERATED_MARK,
        "# The modules of sglang run with `python -m` (those with a main block), read from sglang's source,",
        "# and what each main block parses. range: the releases that have the module. parses: those where",
        "# it parses the command line with an argparse parser of its own; server_args: those where",
        "# ServerArgs.add_cli_args filled that parser (every server flag, server_args.toml, is taken too);",
        "# judged: those where its option strings are all read (one parser, parse_args, every string",
        "# computed, no call it is handed to left unread); exact: allow_abbrev=False. flags: its own option",
        "# strings (flag_ranges: of those not in every release that parses); aliases: spellings of one",
        "# argument. runs: the module whose main a stub at an old path calls. moved_to: where a module",
        "# the newest release lacks went (unchanged: running it there runs what the old path ran).",
        "# Runs of releases are [since, until) (\"\" an open end), or a list of them; a fact's are within the",
        "# module's own releases (\"\": its first, its last). Read by SGL006-SGL011 and SGL015.",
        f"sglang_version = {toml_string(releases[-1])}",
        "releases = [" + ", ".join(toml_string(r) for r in releases) + "]",
    ]
    moved = moves(history)
    for name in sorted({n for scripts in by_release for n in scripts}):
        facts = [scripts.get(name) for scripts in by_release]
        where = [i for i, f in enumerate(facts) if f is not None]
        own = [releases[i] for i in where]

        def within(test, among=where, names=own) -> str:
            return runs_text(presence_runs([test(facts[i]) for i in among], names))

        lines += ["", f"[modules.{toml_string(name)}]",
                  f"range = {runs_text(presence_runs([f is not None for f in facts], releases))}"]
        for key in ("parses", "server_args", "judged", "exact"):
            if any(getattr(facts[i], key) for i in where):
                lines.append(f"{key} = {within(lambda f, key=key: getattr(f, key))}")
        targets = sorted({facts[i].runs for i in where if facts[i].runs})
        if targets:
            lines.append("runs = " + inline_table({t: within(lambda f, t=t: f.runs == t) for t in targets}))
        parsing = [i for i in where if facts[i].parses]
        flags = sorted({flag for i in parsing for flag in facts[i].flags})
        if flags:
            lines += ["flags = ["] + [f"    {toml_string(flag)}," for flag in flags] + ["]"]
            parsed = [releases[i] for i in parsing]
            partial = {flag: runs_text(presence_runs([flag in facts[i].flags for i in parsing], parsed))
                       for flag in flags}
            partial = {f: t for f, t in partial.items() if t != runs_text([("", "")])}
            if partial:
                lines.append("flag_ranges = " + inline_table(partial))
        aliases = sorted({pair for i in parsing for pair in facts[i].aliases})
        if aliases:
            lines.append("aliases = " + inline_table({flag: toml_string(main) for flag, main in aliases}))
        if name in moved:
            lines.append(f"moved_to = {toml_string(moved[name].to)}")
            lines.append(f"unchanged = {'true' if moved[name].unchanged else 'false'}")
    return "\n".join(lines) + "\n"
