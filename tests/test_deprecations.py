"""Deprecated flags as sglang deprecates them (derive/server_args/deprecations.py): the action that registers
each, what that action does (read from its class: stops the launch, ignores the flag, sets its
value), the replacement it names and sglang's own words on what to do instead, per run of
releases that deprecate it alike; and, held out, a sample of the shipped table's deprecations
checked against sglang's own code: each action class run from the release's tree on the flag as
the release registers it."""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import random
import re
from pathlib import Path

import pytest

from conftest import ROOT
from sglang_lint import lint
from sglang_lint.checks.server_args.table import load_table
from sglang_lint.derive.server_args.deprecations import DeprecatedFlag, advice, deprecated_flags
from sglang_lint.derive.source.wheels import fetch_tree
from sglang_lint.derive.releases.history import merge_deprecated, registered_flags, release_server_args
from sglang_lint.engine.ruletable import RuleSet, default_rules

TABLE_PATH = ROOT / "rules" / "derived" / "server_args.toml"

ACTIONS = '''
import argparse


class DeprecatedAction(argparse.Action):
    def __init__(self, option_strings, dest, error_message=None, nargs=0, **kwargs):
        self.error_message = error_message
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        if self.error_message is not None:
            parser.error(self.error_message)
        print_deprecated_warning(f"'{option_string}' is deprecated")


class DeprecatedRaisingAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        raise ValueError(self.help)


class DeprecatedStoreTrueAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        print_deprecated_warning(f"'{option_string}' is deprecated. Use '{self.new_flag}' instead.")
        setattr(namespace, self.dest, True)
'''
REGISTERING = '''
def add_cli_args(parser):
    parser.add_argument("--old-no-op", action=DeprecatedAction,
                        help="Deprecated. Metrics are collected with --enable-metrics.")
    parser.add_argument("--old-gone", action=DeprecatedAction,
                        error_message="--old-gone is no longer supported. Use --new-mode auto.")
    parser.add_argument("--old-raising", action=DeprecatedRaisingAction,
                        help="NOTE: --old-raising is deprecated. Please set `--ep-size` instead.")
    parser.add_argument("--old-bool", action=DeprecatedStoreTrueAction, new_flag="--new-bool",
                        help="[Deprecated] Use --new-bool instead.")
    parser.add_argument("--nan-check", action="store_true",
                        help="[Deprecated] Use SGLANG_NAN=1 and SGLANG_OOB=1 instead.")
    parser.add_argument("--fp4-backend",
                        help="The FP4 backend. NOTE: This replaces the deprecated environment variable SGLANG_FP4.")


def handle_deprecated_args(cfg):
    if cfg.grpc_mode:
        logger.warning("--grpc-mode is deprecated and will be removed in a future version. "
                       "Use --smg-grpc-mode instead.")
    if cfg.keep_old:
        logger.warning("--keep-old is deprecated; use --transport=ipc instead.")
'''


def test_each_deprecated_flag_with_what_its_action_does_and_what_sglang_says():
    found = deprecated_flags([ast.parse(ACTIONS), ast.parse(REGISTERING)], frozenset({"--grpc-mode", "--keep-old"}))
    assert found == {
        "--old-no-op": DeprecatedFlag("DeprecatedAction", None, "ignored",
                                      "Metrics are collected with --enable-metrics."),
        "--old-gone": DeprecatedFlag("DeprecatedAction", None, "stops", "Use --new-mode auto."),
        "--old-raising": DeprecatedFlag("DeprecatedRaisingAction", None, "stops", "Please set `--ep-size` instead."),
        "--old-bool": DeprecatedFlag("DeprecatedStoreTrueAction", "--new-bool", "", None),
        "--nan-check": DeprecatedFlag("store_true", None, "", "Use SGLANG_NAN=1 and SGLANG_OOB=1 instead."),
        "--grpc-mode": DeprecatedFlag("field", None, "", "Use --smg-grpc-mode instead."),
        "--keep-old": DeprecatedFlag("field", None, "", "use --transport=ipc instead."),
    }  # not --fp4-backend: its help names a deprecated variable, not a deprecated flag


STORING_TREE = '''
import argparse
import dataclasses


class DeprecatedStoreTrueAction(argparse.Action):
    def __init__(self, option_strings, dest, new_flag=None, nargs=0, const=True, default=False, **kwargs):
        self.new_flag = new_flag
        super().__init__(option_strings, dest, nargs=nargs, const=const, default=default, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print_deprecated_warning(f"'{option_string}' is deprecated. Use '{self.new_flag}' instead.")
        setattr(namespace, self.dest, True)


class DeprecatedAction(argparse.Action):
    def __init__(self, option_strings, dest, nargs=0, **kwargs):
        super().__init__(option_strings, dest, nargs=nargs, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print_deprecated_warning(f"'{option_string}' is deprecated")


@dataclasses.dataclass
class ServerArgs:
    enable_dp_attention: bool = False
    old_no_op: bool = False
    old_level: int = 0

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--enable-dp-attention", action=DeprecatedStoreTrueAction, new_flag="--attn-dp-size N")
        parser.add_argument("--old-no-op", action=DeprecatedAction)
        parser.add_argument("--old-level", action=DeprecatedStoreTrueAction)
'''


def test_a_deprecated_spelling_that_still_stores_true_is_its_bool_field_s_flag(tmp_path):
    from sglang_lint.derive.server_args.fields import derive_server_fields
    from sglang_lint.derive.source.tree import read_modules

    srt = tmp_path / "sglang" / "srt"
    srt.mkdir(parents=True)
    for package in (tmp_path / "sglang", srt):
        (package / "__init__.py").write_text("")
    (srt / "server_args.py").write_text(STORING_TREE)
    flags = {f.name: f.flags for f in derive_server_fields(read_modules(tmp_path))}
    # the start-up checks read the field the flag sets; an action that sets nothing, or a
    # field that is no bool, keeps the flag the hand-registered one it is
    assert flags == {"enable_dp_attention": ("--enable-dp-attention",), "old_no_op": (), "old_level": ()}


def test_a_warning_about_a_flag_the_release_does_not_register_is_not_one():
    assert deprecated_flags([ast.parse(REGISTERING)]).keys() == {
        "--old-no-op", "--old-gone", "--old-raising", "--old-bool", "--nan-check"}


@pytest.mark.parametrize("text, said", [
    ("Note: --x is deprecated now.", None),
    ("Note: --x is deprecated now. Please use --y instead.", "Please use --y instead."),
    ("--x is deprecated; use --y=pil instead.", "use --y=pil instead."),
    ("--x is deprecated, use --y recover instead.", "use --y recover instead."),
    ("(Deprecated: use --y=auto) Enable the fusion.", "use --y=auto"),
    ("Deprecated: on by default. Use --y to force it.", "Use --y to force it."),
    ("[Deprecated] Use SGLANG_A=1 and SGLANG_B=1 instead.", "Use SGLANG_A=1 and SGLANG_B=1 instead."),
])
def test_sglang_s_words_start_where_they_name_something_else(text, said):
    assert advice(text, "--x") == said


def test_a_flag_deprecated_differently_over_releases_has_a_run_for_each():
    history = {"0.1": {}, "0.2": {"--x": DeprecatedFlag("store_true", None, "", "Set --y.")},
               "0.3": {"--x": DeprecatedFlag("DeprecatedAction", None, "stops", "Set --y.")},
               "0.4": {"--x": DeprecatedFlag("DeprecatedAction", None, "stops", "Set --y.")}, "0.5": {}}
    assert merge_deprecated(history) == {"--x": [(history["0.2"]["--x"], "0.2", "0.3"),
                                                 (history["0.3"]["--x"], "0.3", "0.5")]}


def test_the_table_s_runs_give_each_release_its_own_replacement():
    table = load_table(TABLE_PATH)
    # 0.5.13 named --enable-dsa-prefill-context-parallel, 0.5.14 on --enable-prefill-cp
    assert table.for_releases(["0.5.13"]).deprecates("--enable-nsa-prefill-context-parallel").new \
        == "--enable-dsa-prefill-context-parallel"
    later = table.for_releases(["0.5.14"]).deprecates("--enable-nsa-prefill-context-parallel")
    assert (later.new, later.span) == ("--enable-prefill-cp", ("0.5.13", "0.5.20"))
    # a range of releases: what its newest says; an effect only where all of them do the same
    both = table.for_releases(["0.5.2", "0.5.3"]).deprecates("--enable-ep-moe")
    assert (both.action, both.effect) == ("DeprecatedAction", "")
    assert table.for_releases(["0.5.3", "0.5.4"]).deprecates("--enable-ep-moe").effect == "stops"


# --- held out: a sample of the shipped deprecations, against sglang's own code ---------------------------

SEED = 20260722
SAMPLE = 10


def _pairs() -> list[tuple[str, str]]:
    table = load_table(TABLE_PATH)
    return sorted((release, flag) for release in table.derived_from for flag in table.deprecated
                  if table.for_releases([release]).deprecates(flag))


def _sources(release: str) -> dict[Path, str]:
    srt = fetch_tree(release) / "sglang" / "srt"
    return {path: path.read_text(encoding="utf-8")
            for path in [srt / "server_args.py", *sorted((srt / "arg_groups").glob("*.py"))] if path.is_file()}


def _registration(sources: dict, flag: str):
    """(its add_argument call, the source it is in) for ``flag``, or None."""
    for text in sources.values():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "add_argument" \
                    and any(isinstance(a, ast.Constant) and a.value == flag for a in node.args):
                return node, text
    return None


def _run_sglang(release: str, flag: str) -> dict:
    """What the release does with ``flag``: its own action class (exec'd from its source) on
    a parser that registers the flag with the literal keywords its add_argument passes; for
    a flag without a Deprecated* action, the deprecation words of its help or warnings."""
    sources = _sources(release)
    found = _registration(sources, flag)
    warnings = [s.value for text in sources.values() for s in ast.walk(ast.parse(text))
                if isinstance(s, ast.Constant) and isinstance(s.value, str)
                and s.value.startswith(f"{flag} is deprecated")]
    if found is None:
        return {"deprecated": bool(warnings), "action": None, "words": " ".join(warnings)}
    call, text = found
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    action = keywords.pop("action", None)
    name = getattr(action, "id", getattr(action, "attr", None))
    literal = {}
    for key, value in keywords.items():
        with contextlib.suppress(ValueError, TypeError, SyntaxError):
            literal[key] = ast.literal_eval(value)
    help_text = literal.get("help") or ""
    if not (name or "").startswith("Deprecated"):
        marked = bool(re.match(r"^\s*[(\[]?deprecated\b", help_text, re.I))
        return {"deprecated": marked or bool(warnings), "action": name, "words": " ".join([help_text, *warnings])}
    (cls,) = [node for t in sources.values() for node in ast.walk(ast.parse(t))
              if isinstance(node, ast.ClassDef) and node.name == name][:1]
    printed: list = []
    namespace = {"argparse": argparse, "json": json, "print_deprecated_warning": printed.append}
    exec(ast.get_source_segment(next(t for t in sources.values() if f"class {name}(" in t), cls), namespace)
    parser = argparse.ArgumentParser(prog="sglang")
    registered = parser.add_argument(flag, action=namespace[name], **literal)
    argv = [flag] if registered.nargs == 0 else [flag, str((literal.get("choices") or ["1"])[0])]
    error = io.StringIO()
    try:
        with contextlib.redirect_stderr(error):
            parsed = parser.parse_args(argv)
        stops, sets = False, getattr(parsed, registered.dest) != registered.default
    except (SystemExit, ValueError) as exc:
        stops, sets = True, False
        printed.append(str(exc) if isinstance(exc, ValueError) else error.getvalue())
    return {"deprecated": True, "action": name, "stops": stops, "sets": sets, "argv": argv,
            "words": " ".join([*printed, help_text, *warnings])}


@pytest.mark.corpus
def test_a_sample_of_deprecations_says_what_sglang_s_own_code_does_and_says():
    table = load_table(TABLE_PATH)
    sample = random.Random(SEED).sample(_pairs(), SAMPLE)
    assert len({flag for _, flag in sample}) >= 8  # (the sample spans flags, and releases)
    for release, flag in sample:
        real = _run_sglang(release, flag)
        assert real["deprecated"], (release, flag)
        found = table.for_releases([release]).deprecates(flag)
        argv = " ".join(real.get("argv") or [flag])
        ruleset = RuleSet(default_rules()).for_releases([release])
        [finding] = [d for d in lint(f"python -m sglang.launch_server --model-path m {argv}\n".encode(), "serve.sh",
                                     ruleset) if d.code == "SGL011"]
        message = finding.message
        # since: the first release that deprecated it (the release before did not)
        since = found.span[0]
        assert f"deprecated since sglang {since or table.derived_from[0] + ' or earlier'}" in message
        if since:
            before = table.derived_from[table.derived_from.index(since) - 1]
            assert not _run_sglang(before, flag)["deprecated"], (before, flag)
        if found.span[1]:  # removed: the release named has no such flag at all
            assert flag not in registered_flags(*release_server_args(found.span[1])), (found.span[1], flag)
            assert f"removed in sglang {found.span[1]}" in message
        # what the release does with it, run by its own action class
        if real["action"] and real["action"].startswith("Deprecated"):
            assert ("stops the launch on it" in message) == real["stops"], (release, flag, message)
            assert ("ignores it" in message) == (not real["stops"] and not real["sets"]), (release, flag, message)
        words = " ".join(real["words"].split())
        if found.new:  # the replacement its own warning names
            assert f"; use {found.new}" in message and f"'{found.new}'" in words, (release, flag, words)
        elif found.environment():
            assert all(variable in words for variable in found.environment())
            assert "in the environment instead" in message
        elif found.says:
            assert found.says in words and f'sglang says: "{found.says}"' in message, (release, flag, words)
        else:
            assert message.endswith("sglang names no replacement")
