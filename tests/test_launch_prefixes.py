"""Server flags a framework takes under a prefix and hands on to sglang (launch/prefixes.py):
the shipped table (rules/prefixes.toml: slime's --sglang-<flag>) and a project's own prefixes
(``prefixes`` in [tool.sglang-lint]); only the checks of a flag by itself run on them."""

from __future__ import annotations

import pytest

from conftest import run_lint
from sglang_lint.frontends.config import ConfigError, load_config
from sglang_lint.launch.prefixes import all_prefixes, prefixed_commands, shipped_prefixes

SLIME = shipped_prefixes()[0]


def _server_flags(text: str, path: str = "run.sh") -> list[list[str]]:
    return [[w.text for w in c.words] for c in prefixed_commands(path, text, (SLIME,))]


def test_the_shipped_prefix_is_slimes_with_its_own_flags_and_the_ones_it_sets_itself():
    assert (SLIME.text, SLIME.framework) == ("--sglang-", "slime")
    assert "--sglang-router-ip" in SLIME.own and "tp_size" in SLIME.withheld


def test_prefixed_flags_become_the_server_flags_with_their_values():
    text = "python3 train.py --lr 1e-6 --sglang-mem-fraction-static 0.7 --sglang-enable-metrics --sglang-dp=2\n"
    assert _server_flags(text) == [["--mem-fraction-static", "0.7", "--enable-metrics", "--dp=2"]]


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


def test_a_configured_prefix_the_table_has_is_its_entry():
    assert all_prefixes(("--sglang-", "--srv-")) == (SLIME, all_prefixes(("--srv-",))[1])


def test_a_malformed_prefix_table_names_the_file_and_field(tmp_path):
    (tmp_path / "prefixes.toml").write_text('[[prefix]]\nprefix = "sglang"\n')
    with pytest.raises(ValueError, match=r"prefixes.toml: prefix\[0\].prefix: must be a flag prefix"):
        shipped_prefixes(str(tmp_path))
