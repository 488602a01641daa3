"""Launch flags judged where the command decides the server and in the words of those who know
(tests/fixtures/flags/<release>/, each folder pinned to its release by a requirements.txt):
``sglang serve`` lines get the choice and deprecation checks where the line fails whichever
server the model picks; another serving engine's flag is named with sglang's
(rules/foreign_flags.toml); a deprecated or removed flag with what sglang itself says to do.
Each bad fixture's ``# expect:`` annotations are exactly what the command reports (and flake8
for Python), with the text of its golden file (``X.out`` beside ``X``); a good one gives
nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, check_golden, expected_findings, findings_of, lines_by_file, run_flake8, run_lint
from sglang_lint import lint
from sglang_lint.checks.server_args.advice import load_foreign
from sglang_lint.checks.server_args.table import load_commands, load_table
from sglang_lint.derive.source.wheels import fetch_tree
from sglang_lint.engine.ruletable import RuleSet, default_rules

FLAGS = ROOT / "tests" / "fixtures" / "flags"
FILES = sorted(p for p in FLAGS.rglob("*") if p.suffix in (".sh", ".py"))
PYTHON = [p for p in FILES if p.suffix == ".py"]
FOREIGN = ROOT / "rules" / "foreign_flags.toml"
TABLE = load_table(ROOT / "rules" / "derived" / "server_args.toml")
REAL_PARSERS = Path(__file__).parent / "real_parsers.py"


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.fixture(scope="module")
def command_output() -> dict[str, list[str]]:
    result = run_lint("--no-cache", relative(FLAGS), cwd=ROOT)
    assert (result.returncode, result.stderr) == (1, ""), result.stderr
    return lines_by_file(result.stdout)


def test_each_release_folder_has_bad_and_good_fixtures_of_each_kind():
    for folder in (p for p in FLAGS.iterdir() if p.is_dir()):
        assert (folder / "requirements.txt").read_text().endswith(f"sglang=={folder.name}\n")
        stems = {p.stem for p in folder.iterdir() if p.suffix in (".sh", ".py")}
        assert all(stem.replace("_bad", "_good") in stems for stem in stems if stem.endswith("_bad"))
    names = {p.name for p in FILES}
    assert names >= {"serve_bad.sh", "serve_bad.py", "foreign_bad.sh", "foreign_bad.py", "deprecated_bad.sh",
                     "deprecated_bad.py"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: relative(p.parent)[len("tests/fixtures/flags/"):] + "/" + p.name)
def test_the_command_reports_exactly_the_annotations_as_the_golden_text(path: Path, command_output, update_golden):
    lines = command_output.get(relative(path), [])
    expected = expected_findings(path)
    assert bool(expected) == path.stem.endswith("_bad")  # a good fixture gives nothing
    assert findings_of(lines) == expected
    check_golden(path.with_name(path.name + ".out"), "".join(line + "\n" for line in lines), update_golden)


@pytest.mark.parametrize("path", PYTHON, ids=lambda p: relative(p.parent)[len("tests/fixtures/flags/"):] + "/" + p.name)
def test_the_call_site_screen_hides_none_of_them(path: Path):
    release = path.parent.name
    source = path.read_text(encoding="utf-8")
    screened = lint(source, str(path), RuleSet(default_rules()).for_releases([release]))
    assert {(d.line, d.col + 1, d.code) for d in screened} == expected_findings(path)
    assert lint(source, str(path), RuleSet(default_rules(), screen=False).for_releases([release])) == screened


def test_flake8_reports_the_same_on_the_python_fixtures():
    result = run_flake8("--select", "SGL", *map(relative, PYTHON), cwd=ROOT)
    assert result.returncode == 1, result.stderr
    lines = lines_by_file(result.stdout)
    for path in PYTHON:
        golden = path.with_name(path.name + ".out").read_text(encoding="utf-8").splitlines()
        assert lines.get(relative(path), []) == golden


# --- sgl.Engine keywords: the alias flag's field, another engine's keyword, in every release group ----

ENGINE = "import sglang as sgl\n\nsgl.Engine(model_path='m', tensor_parallel_size=2, max_model_len=4096)\n"


@pytest.mark.parametrize("release", ["0.5.2", "0.5.10", "0.5.23"])
def test_an_alias_flag_s_keyword_and_another_engine_s_are_named_with_sglang_s_field(release):
    ruleset = RuleSet(default_rules()).for_releases([release])
    found = [(d.col + 1, d.message, d.fix and (d.fix.new, d.fix.safe)) for d in lint(ENGINE, "x.py", ruleset)]
    assert found == [
        (28, f"Engine(tensor_parallel_size=...): sglang {release} has no server argument 'tensor_parallel_size'; "
             "--tensor-parallel-size is the launch flag of tp_size (did you mean 'tp_size'? fixable with "
             "`sglang-lint --fix`)", ("tp_size", True)),
        (52, f"Engine(max_model_len=...): sglang {release} has no server argument 'max_model_len'; vLLM's "
             "max_model_len is sglang's context_length (fixable with `sglang-lint --fix`)", ("context_length", True)),
    ]


NEWER = """import subprocess
import sglang as sgl
subprocess.Popen(["python", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2", "--attn-dp-size", "2"])
subprocess.Popen(["python", "-m", "sglang.launch_server", "--model-path", "m", "--enable-amd-monokernel"])
sgl.Engine(model_path="m", tp_size=2, attn_dp_size=2)
"""


def test_a_flag_of_a_later_release_names_the_older_spelling_and_guesses_no_like_spelled_one():
    # --attn-dp-size came in 0.5.22 as the replacement of --enable-dp-attention: on 0.5.19 the user
    # wrote a real flag too new for the pin, not a typo of --attn-cp-size (nothing is rewritten)
    found = [(d.line, d.col + 1, d.message, d.fix) for d in
             lint(NEWER, "x.py", RuleSet(default_rules()).for_releases(["0.5.19"]))]
    assert found == [
        (3, 93, "launch flag --attn-dp-size: sglang 0.5.19 has no such server argument (added in sglang 0.5.22);"
                " sglang 0.5.19 has --enable-dp-attention for it (sglang 0.5.22 deprecated it for --attn-dp-size"
                " <dp-size>)", None),
        (4, 80, "launch flag --enable-amd-monokernel: sglang 0.5.19 has no such server argument (added in sglang"
                " 0.5.23)", None),
        (5, 39, "Engine(attn_dp_size=...): sglang 0.5.19 has no server argument 'attn_dp_size' (added in sglang"
                " 0.5.22); sglang 0.5.19 has enable_dp_attention for it (sglang 0.5.22 deprecated it for"
                " --attn-dp-size <dp-size>)", None),
    ]
    assert lint(NEWER, "x.py", RuleSet(default_rules()).for_releases(["0.5.23"])) == []


# --- the table of other engines' flags ------------------------------------------------------------------

def test_each_foreign_flag_names_a_flag_of_sglang_that_some_release_has_and_is_none_of_its_own():
    entries = {entry.flag: entry for entry in load_foreign(FOREIGN).values()}
    assert len(entries) >= 20
    every = TABLE.for_releases(TABLE.derived_from)  # what any release has
    for entry in entries.values():
        assert entry.sglang in every.known_flags, entry
        # a flag every release takes is sglang's own: listing it would never be read
        assert not all(entry.flag in TABLE.for_releases([r]).known_flags for r in TABLE.derived_from), entry


def test_a_foreign_flag_sglang_reads_as_a_prefix_of_its_own_is_left_to_argparse():
    # from 0.5.4 argparse reads TGI's --quantize as the unique prefix of --quantize-and-serve
    source = b"python -m sglang.launch_server --model-path m --quantize\n"

    def found(release):
        return [d.message for d in lint(source, "serve.sh", RuleSet(default_rules()).for_releases([release]))]

    assert found("0.5.3") == ["launch flag --quantize: sglang 0.5.3 has no such server argument; TGI's --quantize is "
                              "close to sglang's --quantization: the method names differ in places (TGI's "
                              "bitsandbytes-nf4, exl2) (fixable with `sglang-lint --fix --unsafe-fixes`)"]
    assert found("0.5.4") == []


def test_the_fix_renames_only_where_the_meaning_is_the_same_or_close(tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text("python -m sglang.launch_server --model-path m --max-model-len 8 --max-num-seqs 4 "
                      "--gpu-memory-utilization 0.8\n")
    safe = run_lint("--no-cache", "--sglang-version", "0.5.23", "--fix", str(script))
    assert safe.returncode == 1, safe.stderr
    assert script.read_text() == ("python -m sglang.launch_server --model-path m --context-length 8 --max-num-seqs 4 "
                                  "--gpu-memory-utilization 0.8\n")
    unsafe = run_lint("--no-cache", "--sglang-version", "0.5.23", "--fix", "--unsafe-fixes", str(script))
    assert unsafe.returncode == 1, unsafe.stderr  # --gpu-memory-utilization: a hint, no fix
    assert script.read_text() == ("python -m sglang.launch_server --model-path m --context-length 8 "
                                  "--max-running-requests 4 --gpu-memory-utilization 0.8\n")


def test_a_replacement_sglang_deprecates_in_the_target_is_named_with_its_deprecation_and_not_written():
    source = "python -m sglang.launch_server --model-path m --enforce-eager\n"

    def found(release):
        ruleset = RuleSet(default_rules()).for_releases([release])
        return [(d.message.split("; ", 1)[1], d.fix and (d.fix.new, d.fix.safe))
                for d in lint(source.encode(), "serve.sh", ruleset)]

    close = ("vLLM's --enforce-eager is close to sglang's --disable-cuda-graph: vLLM's also turns torch.compile off "
             "(sglang compiles only with --enable-torch-compile)")
    assert found("0.5.13") == [(close + " (fixable with `sglang-lint --fix --unsafe-fixes`)",
                                ("--disable-cuda-graph", False))]
    assert found("0.5.14") == [(close + " (--disable-cuda-graph is deprecated since sglang 0.5.14; use "
                                        "--cuda-graph-backend-{decode,prefill}=disabled)", None)]


# --- sglang serve: the verdicts against sglang's own diffusion parser -------------------------------------

# Probes, each a value the LLM server rejects (flag=value) or a flag it deprecates (flag).
SERVE_PROBES = {
    "0.5.23": ["--kv-cache-dtype=fp8", "--attention-backend=bogus", "--quantization=bogus", "--dtype=bf16",
               "--load-format=safetensor", "--grammar-backend=xgramar", "--disable-cuda-graph", "--grpc-mode",
               "--enable-dp-attention"],
    "0.5.16": ["--kv-cache-dtype=fp8", "--dtype=bf16", "--enable-breakable-cuda-graph", "--stream-output",
               "--disable-cuda-graph"],
    "0.5.10": ["--kv-cache-dtype=fp8", "--dtype=bf16", "--stream-output", "--hybrid-kvcache-ratio"],
}


def _real_diffusion(version: str, probes: list[str]) -> dict:
    # -B: no bytecode written into the cached tree
    done = subprocess.run([sys.executable, "-I", "-S", "-B", str(REAL_PARSERS), str(fetch_tree(version)), "serve",
                           "probe", *probes], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.mark.corpus
@pytest.mark.parametrize("release", sorted(SERVE_PROBES))
def test_a_serve_line_s_value_or_deprecated_flag_is_reported_exactly_where_both_servers_reject_it(release):
    """A finding on ``sglang serve ... --flag [value]`` where the LLM server rejects the value
    (or deprecates the flag) and sglang's own diffusion server, run from the release's tree,
    rejects the flag (the line fails, or warns, whichever server the model picks)."""
    ruleset = RuleSet(default_rules()).for_releases([release])
    llm = TABLE.for_releases([release])
    diffusion = _real_diffusion(release, SERVE_PROBES[release])
    for probe in SERVE_PROBES[release]:
        flag, _, value = probe.partition("=")
        assert llm.by_flag[flag].refuses(value) if value else llm.deprecates(flag), probe
        line = f"sglang serve --model-path m {flag} {value}\n".encode()
        found = [d.code for d in lint(line, "serve.sh", ruleset)]
        assert bool(found) == (diffusion[probe] == "rejected"), (probe, found, diffusion[probe])
        assert lint(f"python -m sglang.launch_server --model-path m {flag} {value}\n".encode(), "serve.sh", ruleset)


def test_releases_whose_diffusion_server_takes_any_flag_leave_serve_values_alone():
    # 0.5.5-0.5.9: the diffusion server ignores the words it does not know
    assert load_commands(ROOT / "rules" / "derived" / "serve.toml").for_releases(["0.5.6"]).diffusion.open
    ruleset = RuleSet(default_rules()).for_releases(["0.5.6"])
    assert lint(b"sglang serve --model-path m --kv-cache-dtype fp8 --disable-radix-cache\n", "serve.sh", ruleset) == []
    launcher = lint(b"python -m sglang.launch_server --model-path m --kv-cache-dtype fp8\n", "serve.sh", ruleset)
    assert [d.code for d in launcher] == ["SGL006"]
