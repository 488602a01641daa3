"""The catalog merged over sglang's releases, and a new release added to it without deriving
the older ones again.

:func:`write_merged` writes ``rules/derived/`` from what it reads of each release
(:class:`ReleaseFacts`: its server arguments, deprecated flags and values, launch subcommands
and one-parameter rules) and from the newest release's whole derivation: ``catalog derive
--releases`` gives it every release's facts, each derived from its wheel (and cached).

What it writes records, of the older releases, what it read of them: each server argument,
choice, flag and deprecation with its first release and the first release after its last
(``server_args.toml``), each subcommand item with its runs of releases (``serve.toml``), each
one-parameter rule with the runs of releases in which its raise site checked one thing (``since``,
``until``, its older ``[[check]]`` tables). :func:`catalog_facts` reads those files back as
each release's facts, in the form the writer takes, so that :func:`merge_release` (``catalog
derive --sglang`` with a release newer than the catalog's newest) writes what ``--releases
first..new`` writes: the catalog's releases' facts read back, the new release's derived.

What the files do not record, and what reading them back gives instead: a server argument,
choice, flag or deprecation that left in the middle of its range and came back is there in
between (the writer counts it so anyway: ``releases.presence``); a field's type, default, nargs and parser in
each older release are the newest one's (the writer reads only the newest's), and whether
plugins extend its choices is written only where it has choices (no release of 0.5.1-0.5.23
sets it without); a raise site's
runs of releases before a release without it are not there (the writer reads only the unbroken
run up to a site's last release). Two make a difference: a raise site a curated rule covers
has no file, so a site the new release moves to a callable no curated rule covers starts at the
new release (the full derive starts it at its first release); and a rule the new release drops
keeps its file's examples, made with its callable's fails-when checks in view, where the full
derive writes those of the older release's rules derived without them (the same check).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sglang_lint.catalog.rules import version_key
from sglang_lint.derive.commands.subcommands import Commands, ParserFacts
from sglang_lint.derive.server_args.deprecations import DeprecatedFlag
from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string
from sglang_lint.derive.commands.launchers import COMMANDS_TABLE, SCRIPTS_TABLE
from sglang_lint.derive.commands.scripts_table import release_scripts, scripts_history, scripts_text, write_scripts
from sglang_lint.derive.releases.history import (
    PLACEHOLDER_CODE,
    gone_rules,
    merged_server_args_text,
    registered_flags,
    release_deprecated,
    release_rules,
    release_server_args,
    rules_of,
    site_history,
    site_signature,
    tree_deprecated,
)
from sglang_lint.catalog.target import RELEASE_PATTERN
from sglang_lint.core.rulefile import tomllib
from sglang_lint.derive.api.table import api_history, merge_api
from sglang_lint.derive.api.sampling import merge_sampling, sampling_history
from sglang_lint.derive.commands.serve import PARSERS, commands_text, release_commands, write_commands
from sglang_lint.derive.server_args.fields import SERVER_ARGS_TABLE, ServerField
from sglang_lint.derive.sites.raise_sites import Derivation
from sglang_lint.derive.startup.table import merge_startup, startup_history
from sglang_lint.derive.source.tree import UNKNOWN_VERSION
from sglang_lint.derive.sites.writing import DERIVED_DIR, write_catalog

CHECK = "\n[[check]]\n"
DOCS = "\n[docs]\n"


@dataclass
class ReleaseFacts:
    """What the merge over releases reads of one release."""

    server_args: tuple  # (its fields, its hand-registered flags)
    deprecated_flags: dict  # flag -> deprecations.DeprecatedFlag
    deprecated_values: dict  # field -> {old value: (new value, exact)}
    commands: Commands
    rules: dict | None = None  # key -> releases.release_rules' entry; the newest's are its derivation's
    scripts: tuple = ()  # the modules run with `python -m` (derive/commands/scripts.py)


def release_facts(version: str, rules: bool = True) -> ReleaseFacts:
    """One release's facts from its wheel, fetched through pip and derived once (cached)."""
    flags, values = release_deprecated(version)
    return ReleaseFacts(release_server_args(version), flags, values, release_commands(version),
                        release_rules(version) if rules else None, release_scripts(version))


def tree_facts(root: Path, derivation: Derivation, rules: bool = False) -> ReleaseFacts:
    """The facts of the release whose tree under ``root`` gave ``derivation``; ``rules``, its
    rules too (an older release's: for the newest the writer reads the derivation itself)."""
    flags, values = tree_deprecated(root, registered_flags(derivation.server_fields, derivation.manual_flags))
    return ReleaseFacts((derivation.server_fields, derivation.manual_flags), flags, values, derivation.commands,
                        rules_of(derivation, derivation.version) if rules else None, derivation.scripts)


def write_merged(derivation: Derivation, rules_dir: Path, facts: dict[str, ReleaseFacts]) -> tuple:
    """rules/derived/ for the releases of ``facts``: the rules of the newest (``derivation``)
    with the release each starts in and its older checks, the rules of raise sites only older
    releases have, the server-argument and subcommand tables with every release's items.
    Returns (rules written, skipped by reason) as :func:`write_catalog` does."""
    releases = sorted(facts, key=version_key)
    newest = releases[-1]
    older = {release: facts[release].rules for release in releases[:-1]}
    table = merged_server_args_text({r: facts[r].server_args for r in releases},
                                    {r: facts[r].deprecated_flags for r in releases},
                                    {r: facts[r].deprecated_values for r in releases})
    newest_rules = {site.key: {"signature": site_signature(site)} for site in derivation.rules}
    since, older_checks = site_history(derivation, {**older, newest: newest_rules})
    result = write_catalog(derivation, rules_dir, table, since, gone_rules(derivation, older), older_checks)
    write_commands(rules_dir / DERIVED_DIR, {release: facts[release].commands for release in releases})
    write_scripts(rules_dir / DERIVED_DIR, {release: facts[release].scripts for release in releases})
    return result


def release_to_add(version: str, releases: tuple[str, ...]) -> None:
    """Raise ValueError, saying why, unless ``version`` is a release newer than every one of
    ``releases`` (a catalog's, oldest first): the one kind of release a merge adds."""
    first, last = releases[0], releases[-1]
    merged = f"the catalog merges sglang {first} to {last}"
    if version == UNKNOWN_VERSION:
        raise ValueError(f"the sglang release of this tree is unknown (no sglang-*.dist-info, no "
                         f"sglang/_version.py; --wheel names it): {merged}, and a tree merged into it "
                         "must name its release")
    if not RELEASE_PATTERN.match(version):
        raise ValueError(f"{version!r} is not an sglang release like 0.5.23 or 0.5.10.post1: {merged}, "
                         "and only a release can be merged into it")
    if version_key(version) <= version_key(last):
        raise ValueError(f"{merged}; sglang {version} is older than {last} and not one of them: a release "
                         "is merged after the newest only (`sglang-lint catalog derive --releases "
                         f"{first}..{last}` derives every release of pip's index again, {version} with them)")


def merge_release(root: Path, derivation: Derivation, rules_dir: Path, history: dict | None = None) -> tuple:
    """Merge the release whose tree under ``root`` gave ``derivation`` (newer than every
    release of the catalog in ``rules_dir``) into that catalog. ``history``: the catalog's
    facts, if :func:`catalog_facts` read them already. Returns what :func:`write_merged` does."""
    history = catalog_facts(rules_dir) if history is None else history
    release_to_add(derivation.version, tuple(history))
    startup_history(rules_dir)  # (refused before anything is written where it does not read back)
    api_history(rules_dir)
    sampling_history(rules_dir)
    # (first: the signature rule reads its targets from it; the launchers derive_sites found)
    merge_api(rules_dir, derivation.version, root, launchers=derivation.keyword_launchers)
    merge_sampling(rules_dir, derivation.version, root)
    result = write_merged(derivation, rules_dir, {**history, derivation.version: tree_facts(root, derivation)})
    merge_startup(rules_dir, derivation.version, root)
    return result


# --- the catalog's files read back as each release's facts ------------------------------------

class _Order:
    """The catalog's releases, oldest first, and the releases of a recorded range."""

    def __init__(self, releases: list[str]):
        self.releases = releases
        self.position = {release: index for index, release in enumerate(releases)}

    def within(self, scope, since: str, until: str) -> list[str]:
        """The releases of ``scope`` (a list of them, in order) from ``since`` ("": its first)
        up to, not including, ``until`` ("": to its last)."""
        low = self._at(since) if since else -1
        high = self._at(until) if until else len(self.releases)
        return [release for release in scope if low <= self.position[release] < high]

    def runs(self, value, scope) -> set[str]:
        """The releases of ``scope`` in a recorded range ``[since, until]`` or list of them."""
        spans = [value] if value and isinstance(value[0], str) else value
        return {release for since, until in spans for release in self.within(scope, since, until)}

    def _at(self, release: str) -> int:
        if release not in self.position:
            raise ValueError(f"{release!r} is named as a release but the catalog does not list it")
        return self.position[release]


def catalog_facts(rules_dir: Path) -> dict[str, ReleaseFacts]:
    """Each release of the merged catalog in ``rules_dir``, as the facts :func:`write_merged`
    reads (what its files record of them). ValueError when the folder records no merge, or
    when its tables do not come out of their own facts as they are (a file edited by hand, or
    written by another deriver): a merge over them would not be the merge of the releases."""
    out = rules_dir / DERIVED_DIR
    table_path = out / SERVER_ARGS_TABLE
    table_text = table_path.read_text(encoding="utf-8") if table_path.is_file() else ""
    table = tomllib.loads(table_text)
    releases = list(table.get("releases", ()))
    if len(releases) < 2:
        raise ValueError(f"{table_path} lists no releases: the catalog is not merged over releases")
    order = _Order(releases)
    rebuild = f"run `sglang-lint catalog derive --releases {releases[0]}..{releases[-1]}` to rebuild it"
    commands_path = out / COMMANDS_TABLE
    commands_text_now = commands_path.read_text(encoding="utf-8") if commands_path.is_file() else None
    scripts_path = out / SCRIPTS_TABLE
    scripts_text_now = scripts_path.read_text(encoding="utf-8") if scripts_path.is_file() else ""
    try:
        servers, deprecated, values = _server_args_history(table, order)
        commands = _commands_history(tomllib.loads(commands_text_now or ""), order)
        scripts = scripts_history(tomllib.loads(scripts_text_now), order)
        rules = _rules_history(out, order)
    except (KeyError, TypeError, IndexError, AttributeError, StopIteration) as exc:  # (a file edited by hand)
        raise ValueError(f"{out} does not read back as its releases ({type(exc).__name__}: {exc}): {rebuild}") from None
    if merged_server_args_text(servers, deprecated, values) != table_text:
        raise ValueError(f"{table_path} is not what the merge of the releases it records writes: {rebuild}")
    if commands_text_now != (commands_text(commands) if any(commands.values()) else None):
        raise ValueError(f"{commands_path} is not what the merge of the releases it records writes: {rebuild}")
    if scripts_text_now and scripts_text(scripts) != scripts_text_now:
        raise ValueError(f"{scripts_path} is not what the merge of the releases it records writes: {rebuild}")
    return {r: ReleaseFacts(servers[r], deprecated[r], values[r], commands[r], rules[r], scripts[r]) for r in releases}


def _server_args_history(table: dict, order: _Order) -> tuple[dict, dict, dict]:
    """Each release's (fields, hand-registered flags), deprecated flags and deprecated values."""
    releases = order.releases
    fields: dict[str, list] = {release: [] for release in releases}
    for name, entry in table.get("fields", {}).items():
        where = order.within(releases, entry.get("since", ""), entry.get("until", ""))
        choices, flags = tuple(entry.get("choices", ())), tuple(entry["flags"])
        choice_ranges, flag_ranges = entry.get("choice_ranges", {}), entry.get("flag_ranges", {})
        has_choice = {c: order.runs(choice_ranges.get(str(c), ["", ""]), where) for c in choices}
        has_flag = {f: order.runs(flag_ranges.get(f, ["", ""]), where) for f in flags}
        open_choices = order.runs(entry.get("open_choices", []), where)
        # each release's converter: the word one of whose runs holds it
        has_word = [(order.runs(runs, where), word) for word, runs in entry.get("word_ranges", {}).items()]
        hooked = order.runs(entry["extensible_runs"], where) if "extensible_runs" in entry \
            else set(where) if entry.get("extensible", False) else set()
        for release in where:
            fields[release].append(ServerField(
                name, entry["type"], entry["optional"],
                () if release in open_choices else tuple(c for c in choices if release in has_choice[c]),
                release in hooked, tuple(f for f in flags if release in has_flag[f]),
                entry.get("default"), nargs=entry.get("nargs"), item=entry.get("item"),
                parse=entry.get("parse"),
                word=next((word for there, word in has_word if release in there), entry.get("word", "")),
            ))
    manual_ranges = table.get("manual_flag_ranges", {})
    has_manual = {f: order.runs(manual_ranges.get(f, ["", ""]), releases) for f in table.get("manual_flags", ())}
    servers = {release: (fields[release], [f for f, there in has_manual.items() if release in there])
               for release in releases}
    deprecated: dict[str, dict] = {release: {} for release in releases}
    for flag, runs in table.get("deprecated_flags", {}).items():
        for entry in runs if isinstance(runs, list) else [runs]:
            kind = DeprecatedFlag(entry["action"], entry.get("new"), entry.get("effect", ""), entry.get("says"))
            for release in order.within(releases, entry.get("since", ""), entry.get("until", "")):
                deprecated[release][flag] = kind
    values: dict[str, dict] = {release: {} for release in releases}
    for name, olds in table.get("deprecated_values", {}).items():
        for old, entry in olds.items():
            for release in order.within(releases, entry.get("since", ""), entry.get("until", "")):
                values[release].setdefault(name, {})[old] = (entry["new"], entry["exact"])
    return servers, deprecated, values


def _commands_history(table: dict, order: _Order) -> dict[str, Commands]:
    """Each release's launch subcommands, from serve.toml (none where there is no table)."""
    releases = order.releases
    if table and list(table.get("releases", ())) != releases:
        raise ValueError(f"{COMMANDS_TABLE} and {SERVER_ARGS_TABLE} do not list the same releases")
    serve = table.get("serve", {})
    serving = order.runs(serve["range"], releases) if serve else set()
    backends = {b: order.runs(v, releases) for b, v in serve.get("backends", {}).items()}
    selector = {f: order.runs(v, releases) for f, v in serve.get("selector", {}).items()}
    parsers: dict[str, dict] = {}
    for name in PARSERS:
        entry = table.get("parsers", {}).get(name)
        if entry is None:
            parsers[name] = {}
            continue
        own = [r for r in releases if r in order.runs(entry["range"], releases)]
        opened = order.runs(entry["open"], own) if "open" in entry else set()
        prefixes = {p: order.runs(v, own) for p, v in entry["prefixes"].items()}
        suffixes = {s: order.runs(v, own) for s, v in entry["suffixes"].items()}
        ranges = entry.get("flag_ranges", {})
        has_flag = {f: order.runs(ranges[f], own) if f in ranges else set(own) for f in entry["flags"]}
        parsers[name] = {release: ParserFacts(
            tuple(f for f in entry["flags"] if release in has_flag[f]), release in opened,
            tuple(p for p, there in prefixes.items() if release in there),
            tuple(s for s, there in suffixes.items() if release in there),
        ) for release in own}
    return {release: Commands(
        release in serving, tuple(b for b, there in backends.items() if release in there),
        tuple(f for f, there in selector.items() if release in there),
        parsers["diffusion"].get(release), parsers["generate"].get(release),
        diffusion_keywords=parsers["diffusion_keywords"].get(release),
        diffusion_config_keywords=parsers["diffusion_config_keywords"].get(release),
    ) for release in releases}


def _rules_history(out: Path, order: _Order) -> dict[str, dict[str, dict]]:
    """Each release's one-parameter rules (key -> releases.release_rules' entry: signature,
    name, text, target), from the derived rule files: each run of releases in which a raise
    site checked one thing has its check's tables; the newest run, the whole rule as the last
    release of the run wrote it (code SGL000, no releases), with its signature (the older
    runs' signatures only differ from their neighbours': nothing else compares them)."""
    history: dict[str, dict[str, dict]] = {release: {} for release in order.releases}
    for path in sorted(out.glob("SGL*.toml")):
        text = path.read_text(encoding="utf-8")
        if not text.startswith(GENERATED_MARK):
            continue
        rule = tomllib.loads(text)
        key, checks = rule.get("derived", {}).get("key"), rule.get("check", [])
        if key is None or not checks or checks[0]["kind"] == "fails-when":  # (no release's facts)
            continue
        target = checks[0]["target"][0]
        kind = next(k for k in ("function", "class", "method", "attribute") if k in target)
        signature = (f"{rule['derived']['constraint']} @ {kind} {target[kind]} {target.get('argument')} "
                     f"{target.get('position')}")
        site = rule["raise_site"]
        for index, (since, until, body) in enumerate(_check_runs(text, site)):
            entry = {"signature": signature if index == 0 else f"{key} older check {index}", "name": rule["name"],
                     "text": _lean_head(text[:text.index(CHECK)]) + CHECK + body + "\n" + text[text.index(DOCS):],
                     "target": [target[kind], target.get("argument", "")]}
            for release in order.within(order.releases, since, until):
                history[release][key] = entry
    return history


def _check_runs(text: str, site: dict) -> list[tuple[str, str, str]]:
    """A rule file's checks, newest first, each as (since, until, its tables without them)."""
    blocks = text[text.index(CHECK) + len(CHECK):text.index(DOCS)].rstrip("\n").split("\n" + CHECK)
    runs = []
    for block in blocks:
        lines = block.split("\n")
        at = 1  # (writing._with_check_range puts a check's releases after its kind)
        span = {"since": "", "until": ""}
        while at < len(lines) and lines[at].startswith(("since = ", "until = ")):
            span.update(tomllib.loads(lines[at]))
            at += 1
        runs.append((span["since"], span["until"], "\n".join(lines[:1] + lines[at:])))
    if len(runs) == 1:  # one check: the rule's releases are its
        return [(site.get("since", ""), site.get("until", ""), runs[0][2])]
    return [(runs[0][0], site.get("until", ""), runs[0][2]), *runs[1:]]


def _lean_head(head: str) -> str:
    """A rule file's lines before its checks as the release's own rule has them: no code yet
    (releases.PLACEHOLDER_CODE), no releases."""
    lines = head.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("sglang_version = ")) + 1
    end = at
    while end < len(lines) and lines[end].startswith(("since = ", "until = ")):
        end += 1
    lines = lines[:at] + lines[end:]
    code = next(i for i, line in enumerate(lines) if line.startswith("code = "))
    lines[code] = f"code = {toml_string(PLACEHOLDER_CODE)}"
    return "\n".join(lines)
