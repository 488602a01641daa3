"""``sglang-lint catalog derive | verify | docs``: the rule catalog against sglang's source, for
maintainers (docs/catalog.md). Everything it needs is imported when it runs: a lint run never
loads the deriver."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from sglang_lint.core.places import default_rules_dir
from sglang_lint.engine.ruletable import load_rules


def catalog_command(argv: Sequence[str], out, err) -> int:
    """``catalog derive`` / ``catalog verify``: the catalog against an sglang tree."""
    from sglang_lint.derive.sites.drift import verify
    from sglang_lint.derive.sites.raise_sites import derive_sites, derive_to_verify
    from sglang_lint.derive.source.tree import UNKNOWN_VERSION, locate_sglang, sglang_version
    from sglang_lint.derive.sites.writing import DERIVED_DIR, catalog_history, write_catalog, write_over_history

    parser = argparse.ArgumentParser(prog="sglang-lint catalog", description="Derive or verify the rule catalog.")
    parser.add_argument("action", choices=["derive", "verify", "docs"])
    parser.add_argument("--output", metavar="FILE", type=Path, default=None,
                        help="docs: write here (default: stdout); the repository keeps docs/rules.md")
    parser.add_argument(
        "--sglang", metavar="PATH", help="the folder holding the sglang package (default: the installed one)"
    )
    parser.add_argument(
        "--rules", metavar="DIR", type=Path, default=None, help="the rules folder (default: the shipped one)"
    )
    parser.add_argument(
        "--wheel", metavar="FILE", default=None,
        help="the wheel the tree was unpacked from: names the release where the tree has no "
        "sglang-*.dist-info and no sglang/_version.py",
    )
    parser.add_argument(
        "--release", metavar="X", default=None,
        help="instead of --sglang: the tree of sglang release X, fetched through pip into the cache "
        "(derive over a merged catalog merges a release newer than its newest into it)",
    )
    parser.add_argument(
        "--releases", metavar="SPEC", default=None,
        help="derive: merge these sglang releases (0.5.1..0.5.23, or 0.5.22,0.5.23), each fetched through pip "
        "into the cache; the rules come from the newest, with the release each starts in, and the "
        "server-argument table records the releases of every field, choice and flag",
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    rules_dir = args.rules or default_rules_dir()
    if args.action == "docs":
        from sglang_lint.frontends.docs import catalog_markdown

        text = catalog_markdown(load_rules([rules_dir]))
        if args.output is None:
            out.write(text)
        else:
            args.output.write_text(text, encoding="utf-8")
        return 0
    if args.releases is not None:
        if args.action != "derive" or args.sglang or args.wheel or args.release:
            err.write("sglang-lint: error: --releases goes with `catalog derive` alone (it fetches each tree)\n")
            return 2
        return _derive_releases(args.releases, rules_dir, out, err)
    if args.release is not None and (args.sglang or args.wheel):
        err.write("sglang-lint: error: --release fetches its own tree: not with --sglang or --wheel\n")
        return 2
    try:
        root, wheel = _fetched(args.release) if args.release else (locate_sglang(args.sglang), args.wheel)
    except (FileNotFoundError, RuntimeError) as exc:
        err.write(f"sglang-lint: error: {exc}\n")
        return 2
    verifying = args.action == "verify"  # (verify compares no fails-when rule: their paths are not derived)
    # A catalog merged over releases keeps what it records of them: its newest release's tree
    # is written over it (each file as it was, on the tree it was made from), a newer release
    # is merged into it (derive/releases/merge.py), an older one it merges changes nothing.
    history = catalog_history(rules_dir) if args.action == "derive" else None
    version = sglang_version(root, wheel)
    merging = None  # the catalog's releases, read back, where the tree's release is merged into them
    if history is not None and version != history.releases[-1]:
        from sglang_lint.derive.releases import merge

        first, last = history.releases[0], history.releases[-1]
        if version in history.releases:
            out.write(f"sglang {version} is one of the {len(history.releases)} releases the catalog merges "
                      f"({first} to {last}), not its newest: nothing to write\n")
            return 0
        try:
            merge.release_to_add(version, history.releases)
            merging = merge.catalog_facts(rules_dir)
        except ValueError as exc:
            err.write(f"sglang-lint: error: {exc}\n")
            return 2
    derivation = derive_to_verify(root, wheel) if verifying else derive_sites(root, wheel=wheel)
    if args.action == "derive":
        try:
            if history is None and derivation.version != UNKNOWN_VERSION:  # (first: SGL013 reads its targets)
                from sglang_lint.derive.api.table import merge_api
                from sglang_lint.derive.api.sampling import merge_sampling

                merge_api(rules_dir, derivation.version, root, alone=True, launchers=derivation.keyword_launchers)
                merge_sampling(rules_dir, derivation.version, root, alone=True)
            if merging is not None:
                written, skipped = merge.merge_release(root, derivation, rules_dir, merging)
            elif history is not None:  # (its launch subcommands' table, merged too, stays as it is)
                written, skipped = write_over_history(derivation, rules_dir, history)
            else:
                written, skipped = write_catalog(derivation, rules_dir)
        except ValueError as exc:
            err.write(f"sglang-lint: error: {root}: {exc}\n")
            return 2
        if history is None:
            from sglang_lint.derive.commands.serve import write_commands

            write_commands(rules_dir / DERIVED_DIR, {derivation.version: derivation.commands})
            if derivation.scripts:
                from sglang_lint.derive.commands.scripts_table import write_scripts

                write_scripts(rules_dir / DERIVED_DIR, {derivation.version: derivation.scripts})
            from sglang_lint.derive.startup.table import merge_startup

            merge_startup(rules_dir, derivation.version, root, alone=True)
        if merging is not None and args.release:  # (a release from pip's index: its upload day is there)
            from sglang_lint.derive.releases.dates import write_release_dates

            write_release_dates(rules_dir)
        if merging is not None:
            out.write(f"sglang {derivation.version} merged into the catalog of sglang {first} to {last}: "
                      f"{len(merging) + 1} releases ({first} to {derivation.version}); rules from "
                      f"{derivation.version}\n")
        found = len(derivation.sites)
        out.write(f"sglang {derivation.version} at {root}: {found} raise sites guarded by a parameter\n")
        out.write(f"{written} rules written to {rules_dir / DERIVED_DIR}\n")
        out.write(f"{sum(skipped.values())} skipped:\n")
        for reason, count in skipped.most_common():
            out.write(f"  {count:5d}  {reason}\n")
        return 0
    drift = verify(list(load_rules([rules_dir])), derivation)
    out.write("".join(line + "\n" for line in drift.report(derivation.version)))
    return 1 if drift.any else 0


def _fetched(release: str) -> tuple[Path, Path | None]:
    """``--release X``: its tree, fetched through pip into the cache, and the wheel it came from
    (by name)."""
    import subprocess

    from sglang_lint.derive.source.wheels import fetch_tree, tree_wheel

    try:
        root = fetch_tree(release)
    except (subprocess.CalledProcessError, OSError) as exc:
        raise RuntimeError(f"sglang {release} could not be fetched through pip ({exc})") from None
    return root, tree_wheel(root)


def _derive_releases(spec: str, rules_dir: Path, out, err) -> int:
    """``catalog derive --releases SPEC``: every release's tree (pip, cached), merged."""
    from sglang_lint.derive.source import wheels
    from sglang_lint.derive.api.table import write_api
    from sglang_lint.derive.releases.merge import release_facts, write_merged
    from sglang_lint.derive.releases.dates import write_release_dates
    from sglang_lint.derive.api.sampling import write_sampling
    from sglang_lint.derive.sites.raise_sites import derive_sites
    from sglang_lint.derive.startup.table import write_startup
    from sglang_lint.derive.source.tree import UNKNOWN_VERSION
    from sglang_lint.derive.sites.writing import DERIVED_DIR

    try:
        chosen = wheels.releases_in(spec, wheels.available_releases())
    except (ValueError, RuntimeError, OSError) as exc:
        err.write(f"sglang-lint: error: {exc}\n")
        return 2
    newest = chosen[-1]
    derivation = derive_sites(wheels.fetch_tree(newest))
    if derivation.version == UNKNOWN_VERSION:
        derivation.version = newest  # a wheel unpacked by us: its name says the release
    err.write("the public Python API of each release (cached after its first run)\n")
    # (first: the signature rule reads its targets from it; the newest's keyword launchers found once)
    write_api(rules_dir, chosen, {newest: derivation.keyword_launchers})
    write_sampling(rules_dir, chosen)
    facts = {}
    for release in chosen:
        err.write(f"sglang {release}: server arguments, launch subcommands and raise sites\n")
        facts[release] = release_facts(release, rules=release != newest)
    written, _ = write_merged(derivation, rules_dir, facts)
    err.write("start-up validation of each release (cached after its first run)\n")
    write_startup(rules_dir, chosen)
    write_release_dates(rules_dir)  # the day each release reached PyPI: it dates nightly images
    out.write(f"{len(chosen)} sglang releases merged ({chosen[0]} to {newest}); rules from {newest}\n")
    out.write(f"{written} rules written to {rules_dir / DERIVED_DIR}\n")
    return 0
