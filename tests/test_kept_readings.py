"""What the engine reads once and keeps (a literal token's value per text, the last modules
parsed per text, the known flags in order, a start-up check's words per check) reads the same
as reading it afresh, and is read afresh where the text differs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, engine_table
from sglang_lint.analysis import source
from sglang_lint.analysis.syntax import literal_value, token_value
from sglang_lint.checks.server_args.startup_table import load_startup
from sglang_lint.core.lazycst import libcst as cst
from sglang_lint.core.model import SourceError

TOKENS = ["'a'", '"a"', "'''a\nb'''", "r'\\d+'", "b'\\x00'", "rb'x'", "u'é'", "'\\N{BULLET}'", "'\\t'",
          "0", "1_000", "0x1F", "0o17", "0b101", "1.5", "1e-3", ".5", "1_0.0_1"]


def _token(text: str):
    return cst.parse_expression(text)


@pytest.mark.parametrize("text", TOKENS)
def test_a_token_s_value_is_libcst_s(text):
    node = _token(text)
    assert token_value(node) == node.evaluated_value
    assert type(token_value(node)) is type(node.evaluated_value)
    assert token_value(_token(text)) == node.evaluated_value  # (read again from the kept text)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.one_of(st.text(max_size=12), st.binary(max_size=8), st.integers(),
                 st.floats(allow_nan=False, allow_infinity=False)))
def test_a_written_value_reads_back(value):
    node = _token(repr(value))
    if isinstance(node, cst.UnaryOperation):  # a negative number: the minus and its operand
        assert literal_value(node) == value
        return
    assert token_value(node) == node.evaluated_value == value
    assert literal_value(node) == value


def test_the_same_text_parses_once_and_another_text_anew():
    first = "import sglang as sgl\nsgl.Engine(tp_size=2)\n"
    module = source.parse(first)
    assert source.parse("".join([first])) is module  # an equal text, another string
    assert module.code == first
    other = source.parse(first + "x = 1\n")
    assert other is not module and other.code == first + "x = 1\n"
    # two texts are kept: a third pushes out the oldest
    source.parse("y = 2\n")
    assert source.parse(first + "x = 1\n") is other
    assert source.parse(first) is not module
    assert source.parse(first).code == first


def test_a_big_text_is_not_kept_and_a_bad_one_raises_each_time(monkeypatch):
    monkeypatch.setattr(source, "_RECENT_LARGEST", 60)
    big = "x = 1\n" * 11
    assert source.parse(big) is not source.parse(big)
    for _ in range(2):
        with pytest.raises(SourceError, match="cannot parse"):
            source.parse("def (:\n")


def test_the_flags_a_prefix_begins_are_those_of_a_scan():
    table = engine_table()
    prefixes = {flag[:cut] for flag in sorted(table.known_flags)[::7] for cut in range(2, len(flag) + 1)}
    prefixes |= {"--", "--zz", "--tp", "--tensor-parallel-siz", "-", ""}
    for prefix in sorted(prefixes):
        assert table.flags_beginning(prefix) == sorted(f for f in table.known_flags if f.startswith(prefix)), prefix


def test_a_parser_of_the_sglang_command_takes_the_prefixes_a_scan_finds():
    parser = engine_table().commands.diffusion
    assert len(parser.flags) > 20 and not parser.open
    words = {flag[:cut] for flag in sorted(parser.flags)[::5] for cut in range(3, len(flag) + 1)}
    words |= {"--zz-not-a-flag", "--tp-size"}
    for word in sorted(words):
        scanned = word in parser.flags or any(known.startswith(word) for known in parser.flags) \
            or word.startswith(parser.prefixes) or (word.startswith("--") and word.endswith(parser.suffixes))
        assert parser.takes(word) is scanned, word
    assert parser.takes("--tp-size") and not parser.takes("--zz-not-a-flag")


def test_a_startup_check_s_words_are_read_from_its_texts():
    table = load_startup(Path(ROOT) / "rules" / "derived" / "startup.toml")
    assert len(table.checks) > 100
    for check in table.checks:
        assert check.variable_words == tuple(w for w in check.input_words if w.isupper())
        assert check.may_read_a_variable is any(w.isupper() for w in check.words)
        assert check.words is check.words  # (read once)
        assert all(w in check.words for w in check.input_words)
    assert any(check.variable_words for check in table.checks)
