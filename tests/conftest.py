from __future__ import annotations

import contextlib
import difflib
import gc
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIX_FIXTURES = FIXTURES / "fixes"
EXPECT = re.compile(r"#\s*expect:\s*(.+)$")
EXPECT_ITEM = re.compile(r"^(SGL[0-9]{3,4})@([0-9]+)$")
# One finding as the command and flake8 print it: ``path:line:col: CODE message``.
FINDING = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) ")
UPDATE_GOLDEN = "--update-golden"

sys.path.insert(0, str(ROOT / "scripts"))


# Files whose tests share no costly module or session fixture and run long: under
# ``--dist loadgroup`` (scripts/test) their tests are spread over the workers one by one. Every
# other file is one unit, kept on one worker, so its module fixtures are made once.
SPREAD_FILES = frozenset({
    "test_screen_agreement.py", "test_screen_respaced.py", "test_argv_screen_agreement.py", "test_index.py",
    "test_catalog.py", "test_launch_text.py", "test_reparse.py", "test_target.py",
})


# Files that read a costly session fixture another file makes, with that file: one unit, so the
# fixture is made once (a worker's session fixtures are its own).
UNIT_OF = {
    "tests/test_derive_launchers.py": "tests/test_derive.py",  # sglang_derivation
}


def pytest_xdist_make_scheduler(config, log):
    """The units of work: a file (or the file of :data:`UNIT_OF` it goes with), or one test of the
    :data:`SPREAD_FILES`. (Scheduled here, not by ``xdist_group`` marks: pytest-xdist 3.8 names no
    group in a node id under pytest 9.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileOrTest(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return nodeid if path.rsplit("/", 1)[-1] in SPREAD_FILES else UNIT_OF.get(path, path)

    return FileOrTest(config, log)


def pytest_collection_finish(session):
    """The collector's work in a test process: the objects the test modules made on import (the
    catalog's rules, their rule sets: half a million) are set aside for good, so that no
    collection scans them again, and a young collection waits for 20,000 new objects, not 700
    (the lint-heavy tests make and drop millions). A slice of the screen-agreement and catalog
    tests: 16.1 -> 13.8 s of CPU. The commands the tests start keep Python's own settings."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def pytest_addoption(parser):
    parser.addoption(
        UPDATE_GOLDEN, action="store_true", default=False,
        help="rewrite the golden output files (tests/fixtures/**/*.out) from the current output; "
             "review them in the git diff",
    )


def engine_table():
    """The server-argument table of the shipped catalog's ``sglang.Engine`` rule (SGL006), as
    the engine judges keywords and flags by it."""
    from sglang_lint.checks.server_args.params import ServerArgsCheck
    from sglang_lint.engine.ruletable import default_rules

    rule = next(r for r in default_rules() if r.code == "SGL006")
    return next(c.params for c in rule.checks if isinstance(c.params, ServerArgsCheck)).table


def fixture_files() -> list[Path]:
    """The curated fixtures, one per curated rule: ``tests/fixtures/SGL0xx_<rule name>.py``."""
    return sorted(FIXTURES.glob("SGL*.py"))


def fix_fixture_files() -> list[Path]:
    """Every file of the fix pairs: the inputs and their expected results."""
    return sorted(FIX_FIXTURES.glob("SGL*.py"))


def unsafe_mode(path: Path) -> bool:
    """The mode a fix input's ``X.fixed.py`` is made in: its first line says."""
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header in ("# fix: safe", "# fix: unsafe"), f"{path.name}: first line must say the fix mode"
    return header == "# fix: unsafe"


def fix_pairs() -> list[tuple[Path, Path, bool]]:
    """(input, expected output, unsafe): ``X.fixed.py`` in the mode X's first line names, and
    ``X.unsafe.fixed.py``, where there is one, with --unsafe-fixes."""
    found = []
    for path in fix_fixture_files():
        if path.name.endswith(".fixed.py"):
            continue
        found.append((path, path.with_name(path.stem + ".fixed.py"), unsafe_mode(path)))
        unsafe = path.with_name(path.stem + ".unsafe.fixed.py")
        if unsafe.exists():
            found.append((path, unsafe, True))
    return found


def expected_findings(path: Path) -> set[tuple[int, int, str]]:
    """(line, 1-based column, code) for every ``# expect: CODE@COL`` annotation."""
    expected = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = EXPECT.search(line)
        if not match:
            continue
        for item in match.group(1).split(","):
            parsed = EXPECT_ITEM.match(item.strip())
            assert parsed, f"{path.name}:{number}: bad annotation {item!r}"
            expected.add((number, int(parsed.group(2)), parsed.group(1)))
    return expected


def found_and_annotated(output: str, files: list[Path]) -> tuple[set, set]:
    """What a command's output reports, (file name, line, column, code) each, and what the
    files' ``# expect:`` annotations say it should."""
    found = set()
    for line in output.splitlines():
        path, number, column, rest = line.split(":", 3)
        found.add((Path(path).name, int(number), int(column), rest.split()[0]))
    return found, {(p.name, line, column, code) for p in files for line, column, code in expected_findings(p)}


def run(*args: str, cwd: Path | None = None, stdin: str | None = None,
        env: dict | None = None) -> subprocess.CompletedProcess:
    """This Python with ``args``; the environment (PYTHONPATH included) is this session's."""
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=600, env=env,
    )


def run_lint(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The ``sglang-lint`` command."""
    return run("-m", "sglang_lint", *args, cwd=cwd, stdin=stdin)


def lint_in_process(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The ``sglang-lint`` command run by this process: ``sglang_lint.frontends.cli.main``, what the
    console script and ``python -m sglang_lint`` call, with this cwd, stdin, stdout and
    stderr; the same exit status and text as :func:`run_lint` without starting an
    interpreter. For the tests of options, configuration, formats and subcommands; the
    command as a process (exit status, pipes, workers, files written) keeps its own tests."""
    from sglang_lint.frontends import cli

    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True) for _ in range(2))
    given = io.TextIOWrapper(io.BytesIO((stdin or "").encode("utf-8")), encoding="utf-8")
    before = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            saved, sys.stdin = sys.stdin, given
            try:
                code = cli.main(list(args))
            finally:
                sys.stdin = saved
    finally:
        os.chdir(before)

    def text(stream) -> str:  # as subprocess.run(text=True) reads a pipe: universal newlines
        stream.flush()
        return stream.buffer.getvalue().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")

    return subprocess.CompletedProcess(["sglang-lint", *args], code, text(out), text(err))


def run_flake8(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    """A real flake8, with no configuration file."""
    return run("-m", "flake8", "--isolated", *args, cwd=cwd, stdin=stdin)


def places(output: str) -> list[str]:
    """``path:line:col: CODE`` of each output line (the message left out)."""
    return [" ".join(line.split(" ", 2)[:2]) for line in output.splitlines()]


def lines_by_file(output: str) -> dict[str, list[str]]:
    """The output's finding lines, grouped by the path they start with, in their order."""
    grouped: dict[str, list[str]] = {}
    for line in output.splitlines():
        match = FINDING.match(line)
        assert match, f"not a finding line: {line!r}"
        grouped.setdefault(match["path"], []).append(line)
    return grouped


def findings_of(lines: list[str]) -> set[tuple[int, int, str]]:
    """(line, column, code) of finding lines, as ``# expect:`` annotations write them."""
    return {(int(m["line"]), int(m["col"]), m["code"]) for m in map(FINDING.match, lines)}


def env_with_hooks(hooks: Path) -> dict:
    """This session's environment with ``hooks`` (a folder with a sitecustomize.py) first on
    PYTHONPATH: subprocesses still import the sglang_lint under test."""
    path = os.pathsep.join(filter(None, [str(hooks), os.environ.get("PYTHONPATH", "")]))
    return dict(os.environ, PYTHONPATH=path)


def env_with_a_crashing_check(folder: Path, kind: str = "not-none") -> dict:
    """:func:`env_with_hooks` with a sitecustomize (in ``folder``/hooks) that makes the check
    kind ``kind`` raise ``RuntimeError('boom')`` in every process (flake8's workers too)."""
    hooks = folder / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(
        "import dataclasses\n"
        "from sglang_lint import checks\n"
        "def explode(*args):\n"
        "    raise RuntimeError('boom')\n"
        f"checks.CHECK_KINDS[{kind!r}] = dataclasses.replace(checks.CHECK_KINDS[{kind!r}], run=explode)\n"
    )
    return env_with_hooks(hooks)


def installed_env() -> dict:
    """This session's environment without PYTHONPATH: an installed copy of sglang-lint (a
    fresh virtual environment, a pre-commit hook) imports its own package, not this checkout."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def check_golden(golden: Path, actual: str, update: bool) -> None:
    """``actual`` must be ``golden``'s text exactly; with --update-golden it is written there
    instead (review the change in the git diff)."""
    if update:
        if not golden.exists() or golden.read_bytes() != actual.encode("utf-8"):
            golden.write_bytes(actual.encode("utf-8"))
        return
    relative = golden.relative_to(ROOT)
    regenerate = f"./scripts/test tests/test_fixtures.py {UPDATE_GOLDEN}, then review `git diff {relative.parent}`"
    if not golden.exists():
        pytest.fail(f"{relative} is missing; write it with {regenerate}", pytrace=False)
    expected = golden.read_bytes().decode("utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True),
            f"{relative} (golden)", f"{relative} (now)",
        ))
        pytest.fail(f"the output differs from {relative}:\n{diff}\nif the change is intended: {regenerate}",
                    pytrace=False)


@dataclass
class FixRuns:
    """The command over copies of every fix input of one mode, in one run each (paths as
    in the repository, ``tests/fixtures/fixes/X.py``, relative to ``fixed``/``diffed``).
    The first --fix is the command as a process (its output is what users read); the runs
    after it call the command in this process (:func:`lint_in_process`)."""

    unsafe: bool
    fixed: Path  # the copies, after the two --fix runs
    first: subprocess.CompletedProcess  # --fix
    second: subprocess.CompletedProcess  # --fix again, on what the first one wrote
    diffed: Path  # other copies, after --diff
    diff: subprocess.CompletedProcess  # --diff
    clean: subprocess.CompletedProcess  # --diff on copies of the expected results


@pytest.fixture(scope="session")
def fix_runs(tmp_path_factory) -> dict[bool, FixRuns]:
    """Per mode (False: safe, True: --unsafe-fixes), its fix pairs through the command."""
    runs = {}
    for unsafe in (False, True):
        pairs = [(source, expected) for source, expected, mode in fix_pairs() if mode is unsafe]
        base = tmp_path_factory.mktemp("unsafe-fixes" if unsafe else "safe-fixes")
        folders = {}
        for name in ("fixed", "diffed", "clean"):
            folders[name] = base / name
            for source, expected in pairs:
                copy = folders[name] / source.relative_to(ROOT)
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(expected if name == "clean" else source, copy)
        paths = [str(source.relative_to(ROOT)) for source, _ in pairs]
        fix = ["--no-cache", "--fix", "--unsafe-fixes"] if unsafe else ["--no-cache", "--fix"]
        diff = ["--no-cache", "--diff", "--unsafe-fixes"] if unsafe else ["--no-cache", "--diff"]
        runs[unsafe] = FixRuns(
            unsafe=unsafe,
            fixed=folders["fixed"],
            first=run_lint(*fix, *paths, cwd=folders["fixed"]),
            second=lint_in_process(*fix, *paths, cwd=folders["fixed"]),
            diffed=folders["diffed"],
            diff=lint_in_process(*diff, *paths, cwd=folders["diffed"]),
            clean=lint_in_process(*diff, *paths, cwd=folders["clean"]),
        )
    return runs


@pytest.fixture(scope="session")
def flake8_on_fixtures() -> subprocess.CompletedProcess:
    """A real flake8 over every curated fixture, from the repository's root, in two jobs."""
    return run_flake8("--select", "SGL", "-j", "2", *(str(p.relative_to(ROOT)) for p in fixture_files()), cwd=ROOT)


@pytest.fixture(scope="session")
def update_golden(request) -> bool:
    return request.config.getoption(UPDATE_GOLDEN)


@pytest.fixture(scope="session", autouse=True)
def private_result_cache(tmp_path_factory):
    """The command's result cache goes to a folder of this test session, never the user's."""
    os.environ["SGLANG_LINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("result-cache"))


@pytest.fixture(autouse=True)
def no_kept_verdicts():
    """Each test starts with no verdict kept (an in-process run of the command keeps them
    beside its results until told otherwise): what a test counts is evaluated."""
    from sglang_lint.core import verdict_log

    verdict_log.keep_in(None)
    yield
    verdict_log.keep_in(None)


@pytest.fixture(scope="session")
def sglang_tree() -> Path:
    """sglang 0.5.23's unpacked wheel, fetched through pip once and cached."""
    import sglang_corpus

    return sglang_corpus.fetch_tree()


@pytest.fixture(scope="session")
def sglang_derivation(sglang_tree):
    """What ``catalog derive`` makes of sglang 0.5.23's tree (some four minutes: made once per
    worker; the files that read it are one unit, :data:`UNIT_OF`)."""
    from sglang_lint.derive.sites.raise_sites import derive_sites

    return derive_sites(sglang_tree, index_raises=True)


@dataclass(frozen=True)
class ReleaseFixtures:
    """Fixtures linted against one release each, with a golden ``<folder>/<release>.out`` beside
    them: the files of ``<folder>/<release>/`` (``shared``: the files of ``folder`` itself, the
    same launches judged at every release), through the command (``--select codes``) and a real
    flake8 on the Python files."""

    folder: Path
    codes: str
    shared: bool = False
    options: tuple = ()  # the command's further options (a declared GPU: ("--gpu", "H100"))
    flake8_options: tuple = ()  # flake8's for the same

    def files(self, release: str) -> list[Path]:
        where = self.folder if self.shared else self.folder / release
        return sorted(p for p in where.iterdir() if p.is_file() and p.suffix != ".out")

    def lint(self, release: str) -> subprocess.CompletedProcess:
        where = self.folder if self.shared else self.folder / release
        return run_lint("--no-cache", "--isolated", "--select", self.codes, "--sglang-version", release,
                        *self.options, str(where.relative_to(ROOT)), cwd=ROOT)

    def check_command(self, release: str, update_golden: bool) -> None:
        """Exactly the annotated findings, and the golden text."""
        result = self.lint(release)
        assert result.returncode == 1 and result.stderr == ""
        check_golden(self.folder / f"{release}.out", result.stdout, update_golden)
        found, expected = found_and_annotated(result.stdout, self.files(release))
        assert found == expected

    def check_flake8(self, release: str) -> None:
        """flake8 reports on the Python files what the command does."""
        python = [str(p.relative_to(ROOT)) for p in self.files(release) if p.suffix == ".py"]
        result = run_flake8("--select", self.codes, f"--sglang-version={release}", "--sglang-no-cache",
                            *self.flake8_options, *python, cwd=ROOT)
        command = [line for line in self.lint(release).stdout.splitlines() if line.split(":", 1)[0].endswith(".py")]
        assert result.stdout.splitlines() == command
        assert command
