"""The machine a project declares (``gpu``/``platform`` in ``[tool.sglang-lint]``, ``--gpu``,
``--platform``, flake8's ``--sglang-gpu``): the table of machines and probe answers
(rules/platforms.toml), its validation, the derivation of the start-up checks that need the
platform (on a stand-in tree, tests/platform_tree), and those checks judged only on a declared
machine: through the command and flake8 on fixtures whose launches fail on an H100 and pass on
a B200 (tests/fixtures/platform/<release>/)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, ReleaseFixtures, found_and_annotated, lint_in_process, run_flake8

from sglang_lint.catalog.platforms import MachineError, declared_machine, load_platforms
from sglang_lint.checks.server_args import startup
from sglang_lint.derive.startup.table import startup_text, tree_startup

TREE = Path(__file__).resolve().parent / "platform_tree"
PLATFORM = FIXTURES / "platform"
RELEASES = sorted(p.name for p in PLATFORM.iterdir() if p.is_dir())
ON_H100 = ReleaseFixtures(PLATFORM, "SGL012", options=("--gpu", "H100"), flake8_options=("--sglang-gpu=H100",))


# --- the table and the declaration ----------------------------------------------------------
def test_a_gpu_names_its_platform_and_answers_the_probes_its_capability_decides():
    h100 = declared_machine(None, "h100")  # (names and aliases: any case)
    assert (h100.platform, h100.gpu.name, h100.shown) == ("cuda", "H100", 'gpu = "H100"')
    answers = h100.answers()
    assert {k: answers[k] for k in ("is_cuda", "is_hip", "is_sm90_supported", "is_sm100_supported",
                                    "is_blackwell_supported", "get_device_sm", "get_device_capability")} == {
        "is_cuda": True, "is_hip": False, "is_sm90_supported": True, "is_sm100_supported": False,
        "is_blackwell_supported": False, "get_device_sm": 90, "get_device_capability": (9, 0)}
    assert declared_machine(None, "GB200").answers()["is_sm100_supported"] is True
    # a major some release answers otherwise is left unknown there
    rtx = declared_machine(None, "RTX5090").answers()
    assert "is_blackwell" not in rtx and rtx["is_blackwell_supported"] is True and rtx["is_sm100_supported"] is False


def test_a_platform_alone_answers_only_what_the_platform_decides():
    cuda = declared_machine("nvidia", None).answers()
    assert cuda["is_cuda"] is True and cuda["get_device"] == "cuda"
    assert not {"is_sm100_supported", "get_device_sm", "get_device_capability"} & set(cuda)
    rocm = declared_machine(None, "MI300X").answers()
    assert (rocm["is_hip"], rocm["is_cuda"], rocm["is_gfx942_supported"], rocm["is_gfx95_supported"]) == (
        True, False, True, False)
    assert "is_sm90_supported" not in rocm  # (sglang's older probes read a ROCm GPU's capability too)
    assert declared_machine(None, None) is None


@pytest.mark.parametrize("platform, gpu, key, problem", [
    ("tpu", None, "platform", "unknown platform 'tpu' (known: cuda, rocm, npu, xpu, hpu, musa, mps, cpu)"),
    (None, "H1OO", "gpu", "unknown GPU 'H1OO' (known: A100, A10, L40S, H100, H200, B200, B300, RTX5090, GB10, "
                          "MI300X, MI355X, Ascend910B; for another GPU, declare its platform alone)"),
    ("rocm", "H100", "gpu", "the GPU 'H100' is a cuda GPU, not a rocm one"),
])
def test_a_declaration_the_table_does_not_know_names_the_key_and_the_known_names(platform, gpu, key, problem):
    with pytest.raises(MachineError) as raised:
        declared_machine(platform, gpu)
    assert (raised.value.key, str(raised.value)) == (key, problem)


@pytest.mark.parametrize("body, problem", [
    ('[probe.is_x]\non_platforms = ["cuda"]\ncuda_majors = [9]\n',
     "probe.is_x: exactly one of on_platforms, cuda_majors, cuda_capability, gfx_prefix, value, "
     "got ['on_platforms', 'cuda_majors']"),
    ('[gpu.X]\nplatform = "tpu"\n', "gpu.X.platform: 'tpu' is not a [platform.*] of the table"),
    ('[gpu.X]\nplatform = "cuda"\ncapability = [9]\n', "gpu.X.capability: [major, minor], got [9]"),
    ('[probe.is_x]\nvalue = "memory"\n', "probe.is_x.value: one of capability, sm, device, got 'memory'"),
])
def test_a_malformed_table_names_the_file_and_the_entry(tmp_path, body, problem):
    table = tmp_path / "platforms.toml"
    table.write_text('[platform.cuda]\ntitle = "CUDA"\naliases = []\n' + body)
    with pytest.raises(ValueError) as raised:
        load_platforms(str(table))
    assert str(raised.value) == f"{table}: {problem}"


# --- the probes' answers against sglang's own definitions -----------------------------------
def _majors(tree: Path, probe: str) -> frozenset | None:
    """The CUDA majors a probe of sglang's utils answers true for, read from its definition:
    ``partial(_check_cuda_device_version, device_capability_majors=[...])`` or a body testing
    ``get_device_capability(...)[0]`` with ``==`` or ``in``; None where it is not defined so."""
    for name in ("utils/common.py", "utils.py"):
        path = tree / "sglang" / "srt" / name
        if path.is_file():
            break
    module = ast.parse(path.read_text(encoding="utf-8"))
    for node in module.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == probe for t in node.targets):
            for keyword in (k for n in ast.walk(node.value) if isinstance(n, ast.Call) for k in n.keywords):
                if keyword.arg == "device_capability_majors":
                    return frozenset(ast.literal_eval(keyword.value))
        if isinstance(node, ast.FunctionDef) and node.name == probe:
            for test in (n for n in ast.walk(node) if isinstance(n, ast.Compare)):
                left = test.left
                if isinstance(left, ast.Subscript) and "get_device_capability" in ast.unparse(left):
                    right = ast.literal_eval(test.comparators[0])
                    return frozenset(right if isinstance(test.ops[0], ast.In) else [right])
    return None


@pytest.mark.parametrize("release", ["0.5.1", "0.5.6", "0.5.10.post1", "0.5.23"])
def test_every_answer_of_a_cuda_gpu_is_what_the_release_s_own_probe_answers(release):
    from sglang_lint.derive.source.wheels import fetch_tree

    tree = fetch_tree(release)
    table = load_platforms()
    compared = 0
    for probe, (how, _, _) in table.probes.items():
        if how != "cuda_majors":
            continue
        majors = _majors(tree, probe)
        if majors is None:
            continue  # (not in this release)
        for gpu in table.gpus.values():
            answer = declared_machine(None, gpu.name).answers().get(probe)
            if answer is not None:
                assert answer is (gpu.capability[0] in majors), (release, probe, gpu.name)
                compared += 1
    assert compared >= {"0.5.1": 7}.get(release, 40)


def test_every_fact_of_get_platform_is_a_probe_of_the_table_or_one_left_unanswered():
    from sglang_lint.derive.startup.platform_probes import platform_facts
    from sglang_lint.derive.source.wheels import fetch_tree
    from sglang_lint.derive.source.tree import read_module

    path = fetch_tree("0.5.23") / "sglang" / "srt" / "runtime_context.py"
    module = read_module("sglang.srt.runtime_context", path, path.read_text(encoding="utf-8"))
    facts = platform_facts({module.name: module})
    # what the installed packages or the CPU say: no declaration decides them
    unanswered = {"cpu_has_amx_support", "is_flashinfer_available"}
    assert facts and set(facts.values()) - set(load_platforms().probes) == unanswered


# --- the derivation -------------------------------------------------------------------------
def test_a_check_that_needs_the_platform_is_a_rule_that_names_its_probes():
    rules, skipped, sites = tree_startup(TREE)
    platform = {(r.condition, r.platform) for r in rules if r.platform}
    assert platform == {
        # a probe bound at module level to a made function, imported through a package's *
        ("attention_backend == 'trtllm_mla' and (not unknown_is_blackwell_supported)", ("is_blackwell_supported",)),
        # get_platform()'s fact: the probe sglang's table of facts names
        ("kv_cache_dtype == 'mxfp8' and (not unknown_is_sm100_supported)", ("is_sm100_supported",)),
        # a def, tested in a branch: kept as written, for the machine to decide
        ("dcp_size > 1 and (not unknown_is_hip) and unknown_is_cuda", ("is_cuda", "is_hip")),
    }
    # a query the table does not list, and torch's own state, are never the declaration's
    assert "tp_size > 8 and torch.version.hip is not None" in {r.condition for r in rules if not r.platform}
    assert not [r for r in rules if "sparse" in r.message]
    assert skipped == ["depends on a value the derivation does not follow"] and sites == 9


@pytest.fixture(scope="module")
def stand_in_table(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("platform") / "startup.toml"
    path.write_text(startup_text({"0.5.0": tree_startup(TREE)}))
    return path


class _Table:
    releases, version, fields = ("0.5.0",), "0.5.0", {}


def _judged(path: Path, machine, **settings) -> list[str]:
    launch = startup.Launch({name: startup.Setting(value, name, f"{name}={value!r}")
                             for name, value in settings.items()}, complete=True, anchor="launch")
    return [finding.message for finding in startup.judge(path, _Table, [launch], machine=machine)]


def test_a_check_that_needs_the_platform_is_judged_only_on_a_declared_machine(stand_in_table):
    h100, b200 = declared_machine(None, "H100"), declared_machine(None, "B200")
    assert _judged(stand_in_table, h100, attention_backend="trtllm_mla") == [
        "attention_backend='trtllm_mla': sglang 0.5.0 raises ValueError at start-up on the declared gpu = \"H100\" "
        "(srt/server_args.py: __post_init__): \"TRTLLM MLA backend is only supported on Blackwell GPUs.\""]
    assert _judged(stand_in_table, b200, attention_backend="trtllm_mla") == []
    assert _judged(stand_in_table, None, attention_backend="trtllm_mla") == []
    # the platform alone decides what needs no GPU; what needs one stays silent
    cuda = declared_machine("cuda", None)
    assert len(_judged(stand_in_table, cuda, dcp_size=2)) == 1
    assert _judged(stand_in_table, cuda, kv_cache_dtype="mxfp8") == []
    assert len(_judged(stand_in_table, h100, kv_cache_dtype="mxfp8")) == 1
    assert _judged(stand_in_table, declared_machine("rocm", None), dcp_size=2) == []


# --- through the command and flake8 -----------------------------------------------------------
def test_every_release_has_every_form():
    assert len(RELEASES) >= 3
    for release in RELEASES:
        assert {p.suffix for p in ON_H100.files(release)} == {".py", ".sh", ".yaml"}, release


@pytest.mark.parametrize("release", RELEASES)
def test_on_a_declared_h100_the_command_reports_exactly_the_annotated_launches(release, update_golden):
    ON_H100.check_command(release, update_golden)


@pytest.mark.parametrize("release", RELEASES)
def test_on_a_declared_h100_flake8_reports_the_same_on_the_python_files(release):
    ON_H100.check_flake8(release)


@pytest.mark.parametrize("release", RELEASES)
def test_the_same_launches_on_a_b200_or_with_nothing_declared_are_silent(release):
    where = str((PLATFORM / release).relative_to(ROOT))
    for declared in (("--gpu", "B200"), ()):
        result = lint_in_process("--no-cache", "--isolated", "--select", "SGL012", "--sglang-version", release,
                                 *declared, where, cwd=ROOT)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), declared


def test_the_declaration_in_pyproject_and_its_errors(tmp_path: Path):
    launch = PLATFORM / "0.5.6" / "serve.sh"
    (tmp_path / ".git").mkdir()
    (tmp_path / "serve.sh").write_text(launch.read_text())
    config = tmp_path / "pyproject.toml"

    def lint(body: str, *options: str):
        config.write_text("[tool.sglang-lint]\nsglang-version = \"0.5.6\"\n" + textwrap.dedent(body))
        return lint_in_process("--no-cache", "--select", "SGL012", *options, "serve.sh", cwd=tmp_path)

    expected = found_and_annotated("", [launch])[1]
    assert found_and_annotated(lint('gpu = "H100"\n').stdout, [launch])[0] == expected
    assert lint('gpu = "H100"\n', "--gpu", "B200").stdout == ""  # (the command line's wins)
    assert lint('platform = "cuda"\n').stdout == ""  # (an SM100 test needs the GPU)
    result = lint('gpu = "H1OO"\n')
    assert result.returncode == 2 and result.stderr.startswith(
        f"sglang-lint: error: {config}: [tool.sglang-lint].gpu: unknown GPU 'H1OO' (known: A100,")
    result = lint('gpu = 100\n')
    assert result.returncode == 2 and '[tool.sglang-lint].gpu: must be a name like "H100", got 100' in result.stderr
    result = lint("", "--platform", "tpu")
    assert (result.returncode, result.stderr) == (2, "sglang-lint: error: --platform: unknown platform 'tpu' "
                                                     "(known: cuda, rocm, npu, xpu, hpu, musa, mps, cpu)\n")


def test_flake8_refuses_an_unknown_gpu():
    result = run_flake8("--select", "SGL012", "--sglang-gpu=H1OO", str((PLATFORM / "0.5.6" / "engine.py")), cwd=ROOT)
    assert result.returncode != 0 and "--sglang-gpu: unknown GPU 'H1OO'" in result.stdout + result.stderr
