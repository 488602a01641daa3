"""Launch-flag words the launcher cannot convert (SGL008 on launch commands): the converter
each release registers for each flag, derived into the server-argument table (``word``,
``word_ranges``), compared with the parser sglang itself builds; and the findings, with
argparse's own message, however the launch is written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import ROOT
from sglang_lint.checks.server_args.table import load_table
from sglang_lint.engine.lint import lint
from sglang_lint.engine.ruletable import default_ruleset

sys.path.insert(0, str(Path(__file__).parent / "startup"))

TABLE = ROOT / "rules" / "derived" / "server_args.toml"


def words_at(release: str) -> dict[str, tuple]:
    table = load_table(TABLE).for_releases([release])
    return {flag: field.words for flag, field in table.by_flag.items()}


@pytest.mark.parametrize("release", ["0.5.6", "0.5.10.post1", "0.5.23"])
def test_each_flags_converter_is_the_one_sglangs_own_parser_registers(release):
    from parser_types import parser_types

    real = parser_types(release)
    mine = words_at(release)
    # json.loads and sglang's own converters are "other" to the parser's reader; "other" is never
    # judged, so it may stand for any converter (an action of sglang's own that converts with str)
    as_real = {"int": "int", "float": "float", "str": "str", "json": "other", "other": "other", "": None}
    compared = {flag: (as_real[words[0]], real[flag]["type"]) for flag, words in mine.items()
                if flag in real and len(words) == 1}
    wrong = {flag: pair for flag, pair in compared.items() if pair[0] != pair[1] and pair[0] != "other"}
    assert not wrong, wrong
    assert len(compared) > 250
    assert {"int", "float", "str", "other", None} <= {pair[1] for pair in compared.values()}


def test_a_converter_that_changed_is_judged_only_where_every_target_release_refuses_the_word():
    assert words_at("0.5.6")["--context-length"] == ("int",)
    assert words_at("0.5.23")["--context-length"] == ("other",)
    both = load_table(TABLE).for_releases(["0.5.6", "0.5.23"])
    assert set(both.by_flag["--context-length"].words) == {"int", "other"}


def findings(text: str, name: str, release: str) -> list[tuple]:
    ruleset = default_ruleset().for_releases((release,))
    return [(d.line, d.col + 1, d.code, d.message) for d in lint(text.encode(), name, ruleset) if d.code == "SGL008"]


def test_the_message_is_argparses_with_the_launchs_word():
    script = "python -m sglang.launch_server --model-path m --tp-size two --mem-fraction-static=85%\n"
    assert findings(script, "serve.sh", "0.5.23") == [
        (1, 57, "SGL008", "launch flag --tp-size two: sglang 0.5.23's launcher takes an int here and stops with "
                          "\"argument --tp-size/--tensor-parallel-size: invalid int value: 'two'\""),
        (1, 61, "SGL008", "launch flag --mem-fraction-static 85%: sglang 0.5.23's launcher takes a float here and "
                          "stops with \"argument --mem-fraction-static: invalid float value: '85%'\""),
    ]


def test_a_word_a_converter_takes_or_one_not_known_is_never_judged():
    script = ("PORT=${PORT:-30000}\n"
              "python -m sglang.launch_server --model-path m --port \"$PORT\" --tp-size 2 --max-total-tokens 1_000\n"
              "python -m sglang.launch_server --model-path m --context-length 32k --mem-fraction-static 1e-1\n")
    assert findings(script, "serve.sh", "0.5.23") == []
    assert [f[:3] for f in findings(script, "serve.sh", "0.5.6")] == [(3, 64, "SGL008")]
