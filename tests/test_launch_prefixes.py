"""Server flags a framework takes under a prefix and hands on to sglang (launch/prefixes.py):
the shipped table (rules/prefixes.toml: slime's --sglang-<flag>, its fork miles's, the diffusion
server's flags miles-diffusion takes) read only in a project that is the framework
(catalog/frameworks.py), and a project's own prefixes (``prefixes`` in [tool.sglang-lint]); only
the checks of a flag by itself run on them. The projects of tests/fixtures/prefixes/ each file
with its golden output (``.out``): a project that is no framework reports nothing on
sglang-lint's own ``--sglang-version`` (its pre-commit hook, a CI step, a README)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT, check_golden, findings_of, lines_by_file, run_lint
from sglang_lint.catalog import frameworks
from sglang_lint.catalog.frameworks import project_frameworks
from sglang_lint.engine.fixes import fix_text
from sglang_lint.engine.lint import lint
from sglang_lint.frontends.config import ConfigError, load_config
from sglang_lint.launch.prefixes import file_prefixes, prefixed_commands, shipped_prefixes

SLIME = shipped_prefixes()[0]
PROJECTS = ROOT / "tests" / "fixtures" / "prefixes"
PROJECT_FILES = ("pyproject.toml", "requirements.txt")
FIXTURES = sorted(p for p in PROJECTS.rglob("*") if p.is_file() and p.suffix != ".out" and p.name not in PROJECT_FILES)
OURS = [ROOT / "README.md", ROOT / ".pre-commit-hooks.yaml"]  # sglang-lint's own: its --sglang-version
EXPECTED = {  # (line, column, code) of each fixture that reports anything
    # slime's --sglang-<flag>: in a bash array and on the trainer's line; not its own, withheld or echoed ones
    "slime_user/train.sh": {(8, 31, "SGL007"), (9, 4, "SGL009"), (10, 4, "SGL009"), (13, 4, "SGL007"),
                            (15, 60, "SGL006")},
    "slime_checkout/run.sh": {(5, 4, "SGL009")},  # runs /root/slime/train.py: slime's; its router flag its own
    # miles: not its router policy, nor the diffusion server's --sglang-dit-precision; its --eval-sglang-<flag> too
    "miles/docs/recipes.md": {(10, 27, "SGL006"), (18, 1, "SGL009"), (24, 56, "SGL009")},
    "configured/run.sh": {(2, 55, "SGL009")},  # prefixes = ["--sglang-"]: every framework of it
}


def _server_flags(text: str, path: str = "run.sh") -> list[list[str]]:
    """The words each command hands on, as the server reads them."""
    return [[SLIME.server_word(w.text) for w in c.words] for c in prefixed_commands(path, text, (SLIME,))]


def test_the_shipped_prefix_is_slimes_with_its_own_flags_and_the_ones_it_sets_itself():
    assert (SLIME.text, SLIME.framework) == ("--sglang-", "slime")
    assert "--sglang-router-ip" in SLIME.own and "tp_size" in SLIME.withheld


def test_prefixed_flags_become_the_server_flags_with_their_values():
    text = "python3 train.py --lr 1e-6 --sglang-mem-fraction-static 0.7 --sglang-enable-metrics --sglang-dp=2\n"
    assert _server_flags(text) == [["--mem-fraction-static", "0.7", "--enable-metrics", "--dp=2"]]
    # each word kept as written, in its place: what a finding points at and a fix rewrites
    [command] = prefixed_commands("run.sh", text, (SLIME,))
    assert [text[w.start:w.end] for w in command.words] == [w.text for w in command.words] == [
        "--sglang-mem-fraction-static", "0.7", "--sglang-enable-metrics", "--sglang-dp=2"]


def test_own_flags_echoed_words_and_sglang_launches_are_not_read_as_prefixed():
    text = ("train.py --sglang-router-ip 1.2.3.4 --sglang-server-concurrency 8\n"
            "echo --sglang-mem-fraction-static 2\n"
            "python -m sglang.launch_server --sglang-foo 1\n")
    assert _server_flags(text) == []


def test_a_markdown_block_and_a_yaml_command_are_read_as_the_shell_is():
    markdown = "Train:\n\n```bash\npython train.py \\\n  --sglang-page-size 16\n```\n\n--sglang-prose 1\n"
    assert _server_flags(markdown, "README.md") == [["--page-size", "16"]]
    yaml = "command: [python, train.py, --sglang-page-size, '16']\n"
    assert _server_flags(yaml, "job.yaml") == [["--page-size", "16"]]


def test_a_project_prefix_is_judged_and_named_in_the_finding(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.sglang-lint]\nprefixes = ["--srv-"]\nsglang-version = "0.5.23"\n')
    (tmp_path / "run.sh").write_text("python trainer.py --srv-kv-cache-dtype fp9 --srv-page-size 16\n")
    result = run_lint("--no-cache", "run.sh", cwd=tmp_path)
    assert result.stdout.splitlines() == [
        "run.sh:1:40: SGL006 launch flag --srv-kv-cache-dtype 'fp9': not a choice of sglang 0.5.23's kv_cache_dtype;"
        " expected one of 'auto', 'fp8_e5m2', 'fp8_e4m3', 'mxfp8', 'bf16', 'bfloat16', 'nvfp4', 'fp4_mx_block16'"
        " (the project's configuration passes --srv-* flags on to sglang)"]
    assert run_lint("--no-cache", "--isolated", "--sglang-version", "0.5.23", "run.sh", cwd=tmp_path).stdout == ""


def test_only_the_checks_of_a_flag_by_itself_run(tmp_path):
    # --dp 3 does not divide --tp 8: sglang's start-up check fails the launch; slime sets the
    # tensor-parallel size itself (from --rollout-num-gpus-per-engine) and leaves --sglang-tp-size unread
    flags = "--dp-size 3 --enable-dp-attention --tp-size 8"
    (tmp_path / "serve.sh").write_text(f"python -m sglang.launch_server --model-path m {flags}\n")
    (tmp_path / "run.sh").write_text("python train.py " + flags.replace("--", "--sglang-") + "\n")
    lint = ("--no-cache", "--isolated", "--sglang-version", "0.5.9")
    assert " SGL012 " in run_lint(*lint, "serve.sh", cwd=tmp_path).stdout
    assert run_lint(*lint, "run.sh", cwd=tmp_path).stdout == ""


@pytest.mark.parametrize("value", ['["sglang-"]', '["--"]', '["--a b-"]', '"--x-"'])
def test_a_malformed_prefix_in_the_configuration_names_the_key(tmp_path, value):
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[tool.sglang-lint]\nprefixes = {value}\n")
    with pytest.raises(ConfigError, match=r"\[tool.sglang-lint\]\.prefixes: "):
        load_config(path)


def test_a_configured_prefix_the_table_has_stands_for_every_framework_of_it():
    sglang, srv = file_prefixes([], ("--sglang-", "--srv-"), frozenset())
    assert (sglang.text, sglang.framework, sglang.backend) == ("--sglang-", "slime or miles or miles-diffusion", "auto")
    assert {"--sglang-router-ip", "--sglang-router-policy"} <= sglang.own
    assert (srv.text, srv.framework, srv.backend) == ("--srv-", "the project's configuration", "")


def test_the_table_names_each_frameworks_source_at_a_commit():
    table = (ROOT / "rules" / "prefixes.toml").read_text(encoding="utf-8")
    for repo in ("THUDM/slime", "radixark/miles", "radixark/miles_diffusion"):
        assert re.search(f'source = "https://github.com/{repo}/blob/[0-9a-f]{{40}}/', table), repo
    by_name = {(p.framework, p.text): p for p in shipped_prefixes()}
    assert "--sglang-router-policy" in by_name["miles", "--sglang-"].own - SLIME.own
    assert by_name["miles-diffusion", "--sglang-"].backend == "diffusion"
    assert by_name["miles", "--eval-sglang-"].withheld >= {"tp_size"}


def test_no_prefix_is_read_in_a_project_that_is_no_framework():
    assert file_prefixes([], (), frozenset()) == ()
    assert project_frameworks(str(PROJECTS / "plain" / "README.md")) == frozenset()
    assert project_frameworks(str(ROOT / "README.md")) == frozenset()


@pytest.mark.parametrize("requirement", [
    "slime", "Slime==0.2", "slime @ git+https://github.com/THUDM/slime.git@624b824a",
    "git+https://github.com/THUDM/slime.git", "git+https://github.com/THUDM/slime#egg=slime",
])
def test_a_requirement_naming_the_framework_makes_the_project_its(tmp_path, requirement):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text(f"torch\n{requirement}\n")
    (tmp_path / "scripts").mkdir()
    frameworks.clear_cache()
    assert project_frameworks(str(tmp_path / "scripts" / "run.sh")) == {"slime"}


@pytest.mark.parametrize("files", [
    {"setup.py": "from setuptools import setup\nsetup(name='miles', packages=[])\n"},
    {"setup.cfg": "[metadata]\nname = miles\n"},
    {"pyproject.toml": '[project]\nname = "miles"\n'},
    {"miles/__init__.py": ""},
    {"pyproject.toml": '[project]\nname = "x"\ndependencies = ["miles>=0.2"]\n'},
])
def test_the_framework_itself_and_a_project_requiring_it(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    frameworks.clear_cache()
    assert project_frameworks(str(tmp_path / "run.sh")) == {"miles"}


@pytest.mark.parametrize("text", ["slimes\n", "slime-tools\n", "git+https://github.com/x/slime-tools.git\n"])
def test_a_like_named_requirement_is_not_the_framework(tmp_path, text):
    (tmp_path / "requirements.txt").write_text(text)
    frameworks.clear_cache()
    assert project_frameworks(str(tmp_path / "run.sh")) == frozenset()


@pytest.mark.parametrize("path", [p for p in FIXTURES if p.parent.name != "configured"],  # (the command's)
                         ids=lambda p: str(p.relative_to(PROJECTS)))
def test_a_prefix_is_read_only_where_the_project_is_its_framework(path: Path):
    found = lint(path.read_bytes(), str(path))
    assert {(d.line, d.col + 1, d.code) for d in found} == EXPECTED.get(str(path.relative_to(PROJECTS)), set())
    text = path.read_text(encoding="utf-8").splitlines()
    for d in found:  # the column is the flag's (or value's) own in the file
        assert text[d.line - 1][d.col:].startswith(("--", "flash_attn", "fp9"))


def test_the_command_prints_the_golden_text_and_nothing_on_its_own_files(update_golden):
    lines = {}
    configured = [p for p in FIXTURES if p.parent.name == "configured"]  # (a run reads one configuration)
    for paths in ([p for p in FIXTURES if p not in configured] + OURS, configured):
        result = run_lint("--no-cache", *(str(p.relative_to(ROOT)) for p in paths), cwd=ROOT)
        assert result.returncode == 1, result.stderr
        lines.update(lines_by_file(result.stdout))
    for path in FIXTURES:
        mine = lines.get(str(path.relative_to(ROOT)), [])
        assert findings_of(mine) == EXPECTED.get(str(path.relative_to(PROJECTS)), set())
        check_golden(path.with_name(path.name + ".out"), "".join(line + "\n" for line in mine), update_golden)
    assert set(lines) == {str((PROJECTS / name).relative_to(ROOT)) for name in EXPECTED}


def test_a_fix_rewrites_a_prefixed_flag_under_its_prefix():
    # the flag's own word is rewritten, its prefix kept: a misspelt flag, an inline value
    path = PROJECTS / "slime_user" / "train.sh"
    text = path.read_text(encoding="utf-8")
    result = fix_text(text, str(path), unsafe=True)
    assert result.text == text.replace("--sglang-mem-fraction-statc 0.7", "--sglang-mem-fraction-static 0.7") \
        .replace("--sglang-quantization=fp9", "--sglang-quantization=fp8")
    assert [(d.line, d.code) for d in result.fixed] == [(10, "SGL009"), (13, "SGL007")]
    again = fix_text(result.text, str(path), unsafe=True)
    assert again.text == result.text and not again.fixed


def test_the_command_fixes_prefixed_flags_once_and_only_where_the_word_is_the_flag(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "requirements.txt").write_text("slime\n")
    (tmp_path / "pyproject.toml").write_text('[tool.sglang-lint]\nsglang-version = "0.5.14"\n')
    script = tmp_path / "train.sh"
    script.write_text("python3 train.py --sglang-stream-output --sglang-Enable-Metrics \\\n"
                      "  --sglang-kv-cache-dtype=FP8_E5M2 \"--sglang-Enable-Metrics\" --sglang-router-ip 1.2.3.4\n")
    first = run_lint("--no-cache", "--fix", "train.sh", cwd=tmp_path)
    assert script.read_text() == (
        "python3 train.py --sglang-incremental-streaming-output --sglang-enable-metrics \\\n"
        "  --sglang-kv-cache-dtype=fp8_e5m2 \"--sglang-Enable-Metrics\" --sglang-router-ip 1.2.3.4\n")
    assert "fixed 3 findings in 1 file, 1 remaining" in first.stderr + first.stdout
    second = run_lint("--no-cache", "--fix", "train.sh", cwd=tmp_path)
    assert script.read_text().startswith("python3 train.py --sglang-incremental-streaming-output ")
    assert "fixed 0 findings" in second.stderr + second.stdout
    # the quoted flag is no word a fix may rewrite: still reported, as written, with no fix offered
    assert second.stdout.splitlines()[0] == (
        "train.sh:2:36: SGL009 launch flag --sglang-Enable-Metrics: sglang 0.5.14 has no such server argument "
        "(did you mean '--sglang-enable-metrics'?) (slime passes --sglang-* flags on to sglang)")


def test_a_malformed_prefix_table_names_the_file_and_field(tmp_path):
    (tmp_path / "prefixes.toml").write_text('[[prefix]]\nprefix = "sglang"\n')
    with pytest.raises(ValueError, match=r"prefixes.toml: prefix\[0\].prefix: must be a flag prefix"):
        shipped_prefixes(str(tmp_path))


def test_the_result_cache_knows_the_project_became_the_framework(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "run.sh").write_text("python3 train.py --sglang-mem-fraction-statc 0.7\n")
    lint = ("--cache-dir", str(tmp_path / "cache"), "--sglang-version", "0.5.23", "run.sh")
    assert run_lint(*lint, cwd=tmp_path).stdout == ""
    (tmp_path / "requirements.txt").write_text("slime\n")
    assert " SGL009 launch flag --sglang-mem-fraction-statc" in run_lint(*lint, cwd=tmp_path).stdout
