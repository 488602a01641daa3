"""The table of the ``sglang`` command's launch subcommands (``rules/derived/serve.toml``):
``sglang serve``'s backends and the flag that picks one, and the flags the diffusion server's
parser and ``sglang generate``'s take, each with the releases that have it (as
``server_args.toml`` records its fields'). Each release is read once (:mod:`.subcommands`, from
its tree fetched through pip) and kept in the cache; ``catalog derive --releases`` merges them,
``catalog derive`` writes the table of the one tree it reads. The server-args check reads it
(checks/server_args/table.py ``load_commands``), named by launchers.toml's ``[serve] table``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from sglang_lint.core.places import keep_file
from sglang_lint.catalog.rules import version_key
from sglang_lint.derive.commands.subcommands import Commands, ParserFacts, tree_commands
from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string
from sglang_lint.derive.commands.launchers import COMMANDS_TABLE
from sglang_lint.derive.source.wheels import cache_dir, fetch_tree
from sglang_lint.derive.source.presence import presence_runs as runs_of

# bump when derive/commands/subcommands.py, server_args/parsers.py or server_args/diffusion.py change what they read
COMMANDS_FORMAT = "v2"
# the parsers of the table: Commands' attributes (diffusion_keywords: the diffusion ServerArgs' keywords;
# diffusion_config_keywords: the names its pipeline config takes out of them first)
PARSERS = ("diffusion", "generate", "diffusion_keywords", "diffusion_config_keywords")


def release_commands(version: str) -> Commands:
    """One release's subcommands, derived from its tree and kept in the cache as JSON (a
    release never changes; the file is named after :data:`COMMANDS_FORMAT`)."""
    path = cache_dir() / "commands" / f"{COMMANDS_FORMAT}-{version}.json"
    if path.is_file():
        return _from_json(json.loads(path.read_text(encoding="utf-8")))
    found = tree_commands(fetch_tree(version))
    keep_file(path, json.dumps(dataclasses.asdict(found)).encode())  # (whole or not at all: another worker may read it)
    return found


def _from_json(data: dict) -> Commands:
    parsers = {name: ParserFacts(**{k: tuple(v) if isinstance(v, list) else v for k, v in data[name].items()})
               if data[name] is not None else None for name in PARSERS}
    return Commands(data["serve"], tuple(data["backends"]), tuple(data["selector"]), parsers["diffusion"],
                    parsers["generate"], tuple(data["unresolved"]), parsers["diffusion_keywords"],
                    parsers["diffusion_config_keywords"])


def write_commands(out: Path, history: dict[str, Commands]) -> None:
    """serve.toml of these releases (release -> its subcommands) into the derived folder; none
    (and an older one removed) when no release has the ``sglang`` command."""
    path = out / COMMANDS_TABLE
    if any(history.values()):
        path.write_text(commands_text(history), encoding="utf-8")
    else:
        path.unlink(missing_ok=True)


def commands_text(history: dict[str, Commands]) -> str:
    """The table: every item with the releases that have it, as runs of consecutive releases
    ``[since, until]`` ("" an open end: from the oldest merged, to the newest), several where it
    left and came back; a parser's flags that all its releases have are listed without one."""
    releases = sorted(history, key=version_key)
    ordered = [history[r] for r in releases]

    def span(present: list[bool]) -> str:
        return runs_text(runs_of(present, releases))

    lines = [
        GENERATED_MARK,
        "# The `sglang` command's launch subcommands, read from sglang's source: `sglang serve`, which runs",
        "# the LLM server (its flags: server_args.toml) or the diffusion server (detected from the model,",
        "# or picked by --model-type), and `sglang generate`. For each parser, the option strings it",
        "# registers, and of the other flags those taken all the same: any (open: its unknown words are",
        "# ignored), or those with one of its prefixes or suffixes (--component-paths.vae, --vae-path).",
        "# parsers.diffusion_keywords: the keywords of the diffusion server's ServerArgs from Python",
        "# (DiffGenerator.from_pretrained, ServerArgs.from_kwargs: its dataclass fields), as option strings;",
        "# parsers.diffusion_config_keywords: the names ServerArgs.from_kwargs lets its pipeline config take.",
        "# The releases of each are [since, until) (\"\" an open end), or a list of them. Read by SGL009.",
        f"sglang_version = {toml_string(releases[-1])}",
        "releases = [" + ", ".join(toml_string(r) for r in releases) + "]",
    ]
    if any(c.serve for c in ordered):
        backends = sorted({b for c in ordered for b in c.backends})
        selector = sorted({f for c in ordered for f in c.selector})
        lines += ["", "[serve]", f"range = {span([c.serve for c in ordered])}",
                  "backends = " + inline_table({b: span([b in c.backends for c in ordered]) for b in backends}),
                  "selector = " + inline_table({f: span([f in c.selector for c in ordered]) for f in selector})]
    for name in PARSERS:
        facts = [getattr(c, name) for c in ordered]
        if not any(facts):
            continue
        where = [i for i, f in enumerate(facts) if f is not None]
        own = [releases[i] for i in where]  # the releases of the parser: its flags' ranges are within them

        def within(test) -> str:
            return runs_text(runs_of([test(facts[i]) for i in where], own))

        flags = sorted({flag for f in facts if f is not None for flag in f.flags})
        lines += ["", f"[parsers.{name}]", f"range = {span([f is not None for f in facts])}"]
        if any(f is not None and f.open for f in facts):
            lines.append(f"open = {within(lambda f: f.open)}")
        for key in ("prefixes", "suffixes"):
            items = sorted({item for f in facts if f is not None for item in getattr(f, key)})
            found = {item: within(lambda f: item in getattr(f, key)) for item in items}
            lines.append(f"{key} = " + inline_table(found))
        lines += ["flags = ["] + [f"    {toml_string(flag)}," for flag in flags] + ["]"]
        partial = {flag: within(lambda f: flag in f.flags) for flag in flags}
        partial = {flag: text for flag, text in partial.items() if text != runs_text([("", "")])}
        if partial:
            lines += ["", f"[parsers.{name}.flag_ranges]"] + [f"{toml_string(f)} = {t}" for f, t in partial.items()]
    return "\n".join(lines) + "\n"


def runs_text(runs: list) -> str:
    """Runs of releases as TOML: one ``[since, until]``, or a list of them."""
    spans = [f"[{toml_string(since)}, {toml_string(until)}]" for since, until in runs]
    return spans[0] if len(spans) == 1 else "[" + ", ".join(spans) + "]"


def inline_table(items: dict) -> str:
    """An inline TOML table of items whose values are written already."""
    return "{ " + ", ".join(f"{toml_string(k)} = {v}" for k, v in items.items()) + " }" if items else "{}"
