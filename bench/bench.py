#!/usr/bin/env python3
"""Speed and memory of sglang-lint on sglang 0.5.23's own tree, beside its peers.

    python bench/bench.py [--runs N] [--jobs N] [--skip-flake8] [--one-file] [--flake8-sample] [--flake8-runs N]
                          [--slime-git DIR]

Sets up, once, under ``$SGLANG_LINT_CACHE/bench`` (default ``~/.cache/sglang-lint/bench``):
the sglang wheel (through pip, as scripts/sglang_corpus.py does) and two virtual
environments with the same flake8, pyflakes, pycodestyle and mccabe, one of them with
sglang-lint installed from this checkout (and ruff, the same version as here if there is
one). Then, with each pair of commands run alternately (A B, B A, ...) ``--runs`` times:

* one file, as an editor or pre-commit runs it: flake8 with against without the plugin, on a
  file that calls no sglang API and on one with an ``Engine(...)`` call and an argv list, changed
  before each run (a comment added: its launches as an earlier run judged them, the plugin's
  cache kept); ``sglang-lint`` on one file against the bare interpreter (``python -c pass``)
  and against ``ruff check``: the clean file, the launch file changed (its cache kept), and the
  launch file with ``--no-cache`` (its launches judged anew); the fixed cost of a run (the full
  command on a clean file, over the interpreter's start);
* the language server over stdio: from a change of a 2,000-line document to its diagnostics,
  and from opening the one-file case's launch file to its first diagnostics in a server
  already started (lsp_latency.py);
* a project built on sglang (verl, at a fixed release, its wheel fetched through pip): its
  Python files that mention sglang, ``sglang-lint`` cold against ``ruff check --select F,E``;
* a project's CI on a fresh machine: flake8 (default checks) with the plugin, cold, against
  without, on slime's Python files that mention sglang (a fixed commit, from ``--slime-git`` or
  cloned from GitHub once);
* flake8 with the plugin installed against flake8 without it (default checks, and
  ``--select F``), on a 10% sample (every 10th file) and on the whole tree, ``-j`` jobs: the
  plugin's overhead, cold (a new, empty plugin cache each run) and, for the default checks,
  warm (the cache a first run left; nothing changed since);
* ``sglang-lint`` (cold: a new, empty cache) against ``ruff check --no-cache --select F,E``;
* ``sglang-lint`` again with the cache that run left (warm, nothing changed) against cold;
* the same on 10%, 25%, 50% and 100% of the files (every k-th file);
* on the whole tree, the floors any pure-Python linter pays (floors.py: the text stage alone,
  ``ast.parse`` of the files it keeps, of every file), each against ``ruff check``, and
  ``sglang-lint`` cold against the floor of reading and parsing every file;
* peak memory (largest resident set of the process tree's biggest process) of each, and for the
  flake8 pairs their CPU time (the workers' included) beside the wall clock;
* how many files LibCST parsed and why the others were skipped.

Prints medians, the spread (min-max) and ratios of medians, then every ratio together, each
against its target. The machine may be shared: read the spread before the ratio.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))

import sglang_corpus  # noqa: E402  (the wheel fetch and cache live there)
from lsp_latency import lsp_rows, open_latencies  # noqa: E402

FLAKE8_STACK = ("flake8", "pyflakes", "pycodestyle", "mccabe")
FRACTIONS = (0.10, 0.25, 0.50, 1.00)


def installed_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def pins(names) -> list[str]:
    return [f"{n}=={installed_version(n)}" if installed_version(n) else n for n in names]


def ensure_env(folder: Path, packages: list[str], stamp: str) -> Path:
    """A virtual environment with ``packages``, rebuilt when ``stamp`` changes."""
    marker = folder / ".bench-stamp"
    if not (marker.exists() and marker.read_text() == stamp):
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        subprocess.run(
            [str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             *packages],
            check=True,
        )
        marker.write_text(stamp)
    return folder / "bin"


@dataclass
class Sample:
    seconds: float
    peak_kb: int
    stdout: str = ""
    stderr: str = ""
    cpu: float = 0.0  # user and system CPU seconds, the processes it waited for included


@dataclass
class Series:
    label: str
    samples: list[Sample] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(s.seconds for s in self.samples)

    @property
    def cpu_median(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def spread(self) -> str:
        times = [s.seconds for s in self.samples]
        return f"{min(times):.2f}-{max(times):.2f}"

    @property
    def peak_mb(self) -> float:
        return max(s.peak_kb for s in self.samples) / 1024


# Commands are started by a small helper process, not by this one: a child's peak RSS counts
# the parent's pages until it execs, and this process holds the whole tree's text.
LAUNCHER = r"""
import json, os, subprocess, sys, time
for line in sys.stdin:
    job = json.loads(line)
    with open(job["out"], "wb") as out, open(job["err"], "wb") as err:
        env = dict(os.environ, **job["env"])
        start = time.perf_counter()
        child = subprocess.Popen(job["cmd"], cwd=job["cwd"], stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    print(json.dumps([seconds, usage.ru_maxrss, os.waitstatus_to_exitcode(status), cpu]), flush=True)
"""
_launcher: subprocess.Popen | None = None


def start_launcher() -> None:
    global _launcher
    _launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True)


def measure(command: list[str], cwd: Path, env: dict | None = None) -> Sample:
    """Wall time, peak RSS (``wait4``: the child, or its largest reaped descendant) and CPU time
    (the child's and its reaped descendants': flake8's workers); ``env``: variables set for the
    command."""
    with tempfile.TemporaryDirectory() as folder:
        out, err = Path(folder) / "out", Path(folder) / "err"
        job = {"cmd": command, "cwd": str(cwd), "out": str(out), "err": str(err), "env": env or {}}
        _launcher.stdin.write(json.dumps(job) + "\n")
        _launcher.stdin.flush()
        seconds, peak_kb, code, cpu = json.loads(_launcher.stdout.readline())
        sample = Sample(seconds, peak_kb, out.read_text(errors="replace"), err.read_text(errors="replace"), cpu)
    if code not in (0, 1):
        raise RuntimeError(f"{' '.join(command[:3])} ... exited {code}: {sample.stderr[-1500:]}")
    return sample


def alternate(pairs: list[tuple], runs: int, cwd: Path) -> None:
    """Run the commands of ``pairs`` in turn, ``runs`` times, reversing the order each round.
    A pair is (series, command), or (series, command, a function called before each run, giving
    its variables: a new, empty plugin cache, or the one kept, the file edited first)."""
    for round_index in range(runs):
        for series, command, *env in pairs if round_index % 2 == 0 else list(reversed(pairs)):
            series.samples.append(measure(command, cwd, env[0]() if env else None))


# The flake8 plugin's result cache (frontends/plugin_cache.py) is where SGLANG_LINT_CACHE_DIR says: a
# folder of its own for each run that must find none (cold), one left by a run for those that
# may read it (warm).
_plugin_caches: list[str] = []


def new_plugin_cache() -> dict:
    _plugin_caches.append(tempfile.mkdtemp(prefix="sglang-lint-plugin-cache-"))
    return {"SGLANG_LINT_CACHE_DIR": _plugin_caches[-1]}


@atexit.register
def _remove_plugin_caches() -> None:
    for folder in _plugin_caches:
        shutil.rmtree(folder, ignore_errors=True)


# Every ratio the issue sets a target for (and the others worth watching), printed together at
# the end: (what, value, target or None, how it is shown).
RATIOS: list[tuple[str, float, float | None, str]] = []


def ratio(what: str, value: float, target: float | None = None, unit: str = "x") -> None:
    RATIOS.append((what, value, target, unit))


def print_ratios() -> None:
    print("\nratios of this run (medians; a target is an upper bound):")
    print(f"  {'what':<78} {'value':>10}  {'target':>9}  ")
    for what, value, target, unit in RATIOS:
        shown = f"{value:.0f} {unit}" if unit in ("ms", "MB") else f"{value:.3f} x" if value < 10 else f"{value:.1f} x"
        bound = "" if target is None else (f"{target:.0f} {unit}" if unit in ("ms", "MB") else f"{target:g} x")
        verdict = "" if target is None else "not measured" if value != value else (
            "met" if value <= target else f"missed by {value / target:.2f}x")
        print(f"  {what:<78} {shown:>10}  {bound:>9}  {verdict}")


def row(series: Series, extra: str = "") -> str:
    return f"  {series.label:<52} {series.median:9.2f} s  [{series.spread:>13}]  {series.peak_mb:8.0f} MB  {extra}"


# One file, as an editor on save or pre-commit on a changed file runs it: start-up is the cost.
NO_SGLANG = "import os\n\n\ndef main():\n    print(os.getcwd())\n"
WITH_SGLANG = ("import subprocess\nimport sys\n\nimport sglang as sgl\n\n\ndef main():\n"
               "    engine = sgl.Engine(model_path='Qwen/Qwen3-8B', tp_size=2, attention_backend='triton')\n"
               "    command = [sys.executable, '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B',"
               " '--tp', '2']\n"
               "    return engine, subprocess.Popen(command)\n")
# A project built on sglang, fixed by its release (fetched through pip like sglang's wheel):
# the files of it that mention sglang, as a CI or a pre-commit run over a project meets them.
PROJECT = ("verl", "0.9.1")


def one_file_rows(plain: Path, plugin: Path, tree: Path, runs: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="sglang-lint-one-"))
    (folder / "no_sglang.py").write_text(NO_SGLANG)
    (folder / "with_sglang.py").write_text(WITH_SGLANG)
    kept = folder / "cache"  # the command's cache folder, kept between runs: pre-commit's
    # Once, not timed: the first run after an install builds the compiled rule index, and
    # the first run on the launch file judges its launches (as the commit before this one did).
    measure([str(plugin / "python"), "-m", "flake8", "--isolated", "--exit-zero", "with_sglang.py"], folder)
    measure([str(plugin / "sglang-lint"), "--cache-dir", str(kept), "with_sglang.py"], folder)
    plugin_cache = new_plugin_cache()
    measure([str(plugin / "python"), "-m", "flake8", "--isolated", "--exit-zero", "with_sglang.py"], folder,
            plugin_cache)
    edits = iter(range(1_000_000))

    def edited(name: str, env: dict | None = None):
        """Before each run, the file changed (a comment line added: its launches as they were),
        as pre-commit or an editor's flake8 on save meets it; ``env``: the run's variables."""
        def before() -> dict:
            with open(folder / name, "a") as stream:
                stream.write(f"# edit {next(edits)}\n")
            return env or {}
        return before

    kinds = (("no_sglang.py", "a file that calls no sglang API"), ("with_sglang.py", "a file with an Engine call"))
    for name, label in kinds:
        without = Series(f"flake8 one file ({label}), without the plugin")
        with_plugin = Series(f"flake8 one file ({label}), with it")
        command = ["-m", "flake8", "--isolated", "--exit-zero", name]
        # (the file changed before each run: the plugin's result cache cannot answer it; for
        # the clean file a new, empty plugin cache each run)
        alternate([(without, [str(plain / "python"), *command], edited(name)),
                   (with_plugin, [str(plugin / "python"), *command],
                    edited(name, plugin_cache) if name == "with_sglang.py" else new_plugin_cache)], runs, folder)
        print(row(without))
        print(row(with_plugin, f"with / without = {with_plugin.median / without.median:.2f}"))
        ratio(f"flake8 one file ({label}, changed): with / without the plugin", with_plugin.median / without.median,
              1.15 if name == "no_sglang.py" else 1.5)
    bare = Series("python -c pass (the interpreter's start)")
    ruff = Series("ruff check one file")
    # The fixed cost of a run: the full command (an option: never the quick answer) on one file
    # no rule can fire on, start to exit, over the interpreter's start.
    fixed = Series("sglang-lint --no-cache, a file that calls no sglang API")
    alternate([(bare, [str(plugin / "python"), "-c", "pass"]),
               (fixed, [str(plugin / "sglang-lint"), "--no-cache", "no_sglang.py"])], runs, folder)
    print(row(fixed, f"- python -c pass = {(fixed.median - bare.median) * 1000:.0f} ms"))
    ratio("fixed cost of a run (the full command, one clean file) over the interpreter's start",
          (fixed.median - bare.median) * 1000, 60, "ms")
    cases = (("no_sglang.py", "calls no sglang API", [], None, 4.0),
             ("with_sglang.py", "an Engine call, changed", ["--cache-dir", str(kept)], edited("with_sglang.py"), 10.0),
             # its launches judged anew (no verdict kept): the first run after a launch is written
             ("with_sglang.py", "an Engine call, --no-cache", ["--no-cache"], None, None))
    for name, label, options, before, target in cases:
        lint = Series(f"sglang-lint one file ({label})")
        alternate([(bare, [str(plugin / "python"), "-c", "pass"]),
                   (lint, [str(plugin / "sglang-lint"), *options, name], *([before] if before else [])),
                   (ruff, [str(plugin / "ruff"), "check", "--no-cache", "--exit-zero", "--quiet", name])], runs, folder)
        ratios = f"/ python -c pass = {lint.median / bare.median:.1f}, / ruff = {lint.median / ruff.median:.1f}"
        print(row(lint, ratios))
        ratio(f"sglang-lint one file ({label}) / python -c pass", lint.median / bare.median, target)
        ratio(f"sglang-lint one file ({label}) / ruff check", lint.median / ruff.median)
    print(row(bare))
    print(row(ruff))
    shutil.rmtree(folder, ignore_errors=True)


def project_files(base: Path) -> tuple[Path, list[str]]:
    """The project's unpacked wheel (fetched once, through pip) and its Python files that
    mention sglang, relative to it."""
    name, version = PROJECT
    root = base / f"{name}-{version}"
    done = root / ".unpacked"
    if not done.exists():
        wheel = sglang_corpus.wheels.fetch_wheel(name, version)
        shutil.rmtree(root, ignore_errors=True)
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(root, [m for m in archive.namelist() if m.endswith(".py")])
        done.touch()
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if b"sglang" in p.read_bytes())
    return root, files


def project_rows(plugin: Path, base: Path, runs: int) -> None:
    """sglang-lint cold (a new, empty cache) on a real project's sglang files, beside ruff."""
    root, files = project_files(base)
    scratch = Path(tempfile.mkdtemp(prefix="sglang-lint-project-"))
    counter = iter(range(1_000_000))
    cold = Series(f"sglang-lint cold, {PROJECT[0]} {PROJECT[1]}'s {len(files)} files that mention sglang")
    ruff = Series(f"ruff check --no-cache --select F,E, the same {len(files)} files")
    for round_index in range(runs):
        pairs = [(cold, lambda: [str(plugin / "sglang-lint"), "--cache-dir", str(scratch / f"c{next(counter)}"),
                                 *files]),
                 (ruff, lambda: [str(plugin / "ruff"), "check", "--no-cache", "--select", "F,E", "--exit-zero",
                                 "--quiet", *files])]
        for series, command in pairs if round_index % 2 == 0 else reversed(pairs):
            series.samples.append(measure(command(), root))
    print(row(cold))
    print(row(ruff, f"sglang-lint / ruff = {cold.median / ruff.median:.1f}"), flush=True)
    ratio(f"sglang-lint cold / ruff check --select F,E, a project's sglang files ({len(files)})",
          cold.median / ruff.median, 10)
    shutil.rmtree(scratch, ignore_errors=True)


# A project's CI running flake8 with the plugin on a fresh machine: the Python files of slime
# (THUDM/slime, a fixed commit) that mention sglang, no result cache. Not on PyPI: read from a
# git repository holding the commit (--slime-git), else cloned from GitHub once.
SLIME = ("https://github.com/THUDM/slime", "624b824a898ab0ec1fcb4d373004c7f3852bf515")


def slime_files(base: Path, git_dir: str | None) -> tuple[Path, list[str]] | None:
    """The commit's tree, unpacked once under ``base``, and its Python files that mention
    sglang; None (said why) when no repository holds the commit."""
    url, commit = SLIME
    root = base / f"slime-{commit[:10]}"
    done = root / ".unpacked"
    if not done.exists():
        source = git_dir or str(base / "slime.git")
        try:
            if not git_dir and not Path(source).exists():
                subprocess.run(["git", "clone", "--quiet", "--bare", url, source], check=True, timeout=600)
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir(parents=True)
            archive = subprocess.run(["git", "--git-dir", source, "archive", commit], check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
        except (OSError, subprocess.SubprocessError) as error:
            print(f"  slime {commit[:8]} not measured: no repository holds it ({error}); "
                  "give one with --slime-git", flush=True)
            return None
        done.touch()
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py") if b"sglang" in p.read_bytes())
    return root, files


def slime_rows(plain: Path, plugin: Path, base: Path, runs: int, jobs: str, git_dir: str | None) -> None:
    """flake8 (default checks) with the plugin, a new, empty plugin cache each run, against
    without, on slime's files that mention sglang."""
    found = slime_files(base, git_dir)
    if found is None:
        ratio("flake8 default checks, slime's sglang files (cold): with / without the plugin (not measured)",
              float("nan"), 1.10)
        return
    root, files = found
    without = Series(f"flake8 default checks, slime {SLIME[1][:8]}'s {len(files)} sglang files, without the plugin")
    with_plugin = Series(f"flake8 default checks, the same {len(files)} files, with sglang-lint (cold)")
    command = ["-m", "flake8", "--isolated", "--exit-zero", "-j", jobs, *files]
    alternate([(without, [str(plain / "python"), *command]),
               (with_plugin, [str(plugin / "python"), *command], new_plugin_cache)], runs, root)
    print(row(without))
    print(row(with_plugin, f"with / without = {with_plugin.median / without.median:.3f}; CPU "
                           f"{with_plugin.cpu_median:.1f} s / {without.cpu_median:.1f} s"), flush=True)
    ratio(f"flake8 default checks, slime's {len(files)} sglang files (cold): with / without the plugin",
          with_plugin.median / without.median, 1.10)
    ratio(f"flake8 default checks, slime's {len(files)} sglang files (cold): CPU time with / without",
          with_plugin.cpu_median / without.cpu_median)


FLOORS = (
    ("text", "floor: the text stage alone (read, catalog names written as called)"),
    ("parse-named", "floor: ast.parse of the files the text stage keeps"),
    ("parse", "floor: ast.parse of every file"),
)


def floor_rows(plugin: Path, tree: Path, files: list[str], jobs: str, ruff_command: list[str],
               runs: int) -> dict[str, float]:
    """What a pure-Python linter pays before it judges one call (floors.py), beside ruff: how
    far below its target sglang-lint cold could ever get without a parser outside CPython.
    The median of each floor, by stage."""
    medians = {}
    for stage, label in FLOORS:
        floor = Series(f"{label}, 100%")
        ruff_again = Series("ruff check --no-cache --select F,E, 100%")
        command = [str(plugin / "python"), str(ROOT / "bench" / "floors.py"), stage, "-j", jobs, *files]
        alternate([(floor, command), (ruff_again, ruff_command)], runs, tree)
        kept = floor.samples[-1].stdout.strip().rpartition(": ")[2]
        print(row(floor, f"/ ruff = {floor.median / ruff_again.median:.2f} ({kept})"), flush=True)
        ratio(f"{label} / ruff check --select F,E (no target: a bound)", floor.median / ruff_again.median)
        medians[stage] = floor.median
    return medians


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs of each command (default 3)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="-j for flake8 and sglang-lint")
    parser.add_argument("--skip-flake8", action="store_true", help="leave out the flake8 pairs (the slow part)")
    parser.add_argument("--one-file", action="store_true", help="only the one-file and language-server rows")
    parser.add_argument("--flake8-sample", action="store_true", help="of the flake8 pairs, only the 10%% sample")
    parser.add_argument("--slime-git", default=None,
                        help="a git repository holding slime's commit (default: cloned from GitHub once)")
    parser.add_argument("--flake8-runs", type=int, default=None,
                        help="runs of each flake8 pair on the whole tree (default: --runs)")
    args = parser.parse_args(argv)
    start_launcher()  # first, while this process is small

    base = sglang_corpus.wheels.cache_dir() / "bench"
    tree = sglang_corpus.fetch_tree()
    files = sorted(str(p.relative_to(tree)) for p in (tree / "sglang").rglob("*.py"))
    lines = sum((tree / f).read_bytes().count(b"\n") for f in files)
    source_stamp = "".join(
        f"{p}:{p.stat().st_mtime_ns}" for p in sorted((ROOT / "src").rglob("*.py")) + sorted(ROOT.glob("rules/**/*"))
    )
    stack = pins(FLAKE8_STACK)
    plain = ensure_env(base / "env-plain", stack, " ".join(stack))
    extra = pins(["ruff"]) if installed_version("ruff") else ["ruff"]
    # (with the language server's extra: the latency rows start it)
    plugin = ensure_env(base / "env-plugin", stack + extra + [f"{ROOT}[server]"],
                        " ".join(stack + extra) + " [server]" + source_stamp)
    jobs = str(args.jobs)

    print(f"sglang {sglang_corpus.SGLANG_VERSION}: {len(files)} files, {lines:,} lines; "
          f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, -j {jobs}; "
          f"{args.runs} runs each, alternated")
    print(f"  {'command':<52} {'median':>11}  {'[min-max]':>15}  {'peak RSS':>11}")

    one_file_rows(plain, plugin, tree, max(args.runs, 21))  # (0.1 s commands: noise needs runs)
    lsp_folder = Path(tempfile.mkdtemp(prefix="sglang-lint-lsp-"))
    for line, label, median in lsp_rows(plugin / "python", tree, lsp_folder):
        print(line, flush=True)
        ratio(f"language server, change -> diagnostics: {label}", median, 100, "ms")
    opened = [t * 1000 for t in open_latencies(plugin / "python", lsp_folder, WITH_SGLANG, max(args.runs, 7))]
    print(f"  {'language server, open a launch file -> its first diagnostics (server started)':<52} "
          f"{statistics.median(opened):7.0f} ms  [{min(opened):.0f}-{max(opened):.0f} ms]  target <= 300 ms",
          flush=True)
    ratio("language server, open a launch file -> its first diagnostics", statistics.median(opened), 300, "ms")
    shutil.rmtree(lsp_folder, ignore_errors=True)
    project_rows(plugin, base, max(args.runs, 7))
    if args.one_file:
        print_ratios()
        return 0

    if not args.skip_flake8:
        slime_rows(plain, plugin, base, max(args.runs, 5), jobs, args.slime_git)
        sample = files[::10]
        scopes = [("10% sample", sample)] + ([] if args.flake8_sample else [("whole tree", ["sglang"])])
        for scope, paths in scopes:
            for label, select in (("default checks", []), ("--select F", ["--select", "F"])):
                without = Series(f"flake8 {label}, {scope}, without the plugin")
                with_plugin = Series(f"flake8 {label}, {scope}, with sglang-lint")
                command = ["-m", "flake8", "--isolated", "--exit-zero", "-j", jobs, *select, *paths]
                runs = args.flake8_runs if scope == "whole tree" and args.flake8_runs else args.runs
                # Cold: a new, empty plugin cache each run (flake8's first run over the tree).
                pairs = [(without, [str(plain / "python"), *command]),
                         (with_plugin, [str(plugin / "python"), *command], new_plugin_cache)]
                if not select:
                    # Warm: the cache a first run (not timed) left, nothing changed since: flake8
                    # run again over a tree, as a developer or a CI with a kept cache does.
                    warm = Series(f"flake8 {label}, {scope}, with sglang-lint, its cache warm")
                    primed = new_plugin_cache()
                    measure([str(plugin / "python"), *command], tree, primed)
                    pairs.append((warm, [str(plugin / "python"), *command], lambda primed=primed: primed))
                alternate(pairs, runs, tree)
                print(row(without))
                print(row(with_plugin, f"with / without = {with_plugin.median / without.median:.3f}"), flush=True)
                cold_note = "" if select else " (cold)"
                ratio(f"flake8 {label}, {scope}: with / without the plugin{cold_note}",
                      with_plugin.median / without.median, 1.03 if not select else None)
                # (CPU time, beside the wall clock: what the plugin adds, less the machine's scheduling)
                print(f"  {'':<52} CPU {with_plugin.cpu_median:.1f} s / {without.cpu_median:.1f} s = "
                      f"{with_plugin.cpu_median / without.cpu_median:.3f}{cold_note}", flush=True)
                ratio(f"flake8 {label}, {scope}: CPU time with / without the plugin{cold_note}",
                      with_plugin.cpu_median / without.cpu_median)
                if not select:
                    print(row(warm, f"warm / without = {warm.median / without.median:.3f}"), flush=True)
                    ratio(f"flake8 {label}, {scope}: with (its cache warm) / without the plugin",
                          warm.median / without.median, 1.02)
                    ratio(f"flake8 {label}, {scope}: CPU time with (its cache warm) / without the plugin",
                          warm.cpu_median / without.cpu_median)

    scratch = Path(tempfile.mkdtemp(prefix="sglang-lint-bench-"))
    counter = iter(range(1_000_000))
    verbose = None
    per_file: dict[float, float] = {}
    for fraction in FRACTIONS:
        subset = files[:: round(1 / fraction)] if fraction < 1 else files
        cold = Series(f"sglang-lint cold, {fraction:.0%} ({len(subset)} files)")
        ruff = Series(f"ruff check --no-cache --select F,E, {fraction:.0%}")
        last_cache = None

        def lint_command(cache: Path) -> list[str]:
            return [str(plugin / "sglang-lint"), "--verbose", "-j", jobs, "--cache-dir", str(cache), *subset]

        ruff_command = [str(plugin / "ruff"), "check", "--no-cache", "--select", "F,E", "--exit-zero", "--quiet",
                        *subset]
        for round_index in range(args.runs):
            order = ["cold", "ruff"] if round_index % 2 == 0 else ["ruff", "cold"]
            for which in order:
                if which == "ruff":
                    ruff.samples.append(measure(ruff_command, tree))
                else:
                    last_cache = scratch / f"cache{next(counter)}"  # a new, empty cache each cold run
                    cold.samples.append(measure(lint_command(last_cache), tree))
        print(row(cold))
        print(row(ruff, f"sglang-lint / ruff = {cold.median / ruff.median:.2f}"))
        ratio(f"sglang-lint cold / ruff check --select F,E, {fraction:.0%} of the tree", cold.median / ruff.median)
        if fraction == 1.0:
            warm = Series("sglang-lint warm (nothing changed), 100%")
            for _ in range(args.runs):
                warm.samples.append(measure(lint_command(last_cache), tree))
            print(row(warm, f"warm / cold = {warm.median / cold.median:.3f}"))
            ratio("sglang-lint warm / cold, whole tree", warm.median / cold.median, 0.1)
            verbose = [line for line in cold.samples[-1].stderr.splitlines() if line.startswith("sglang-lint:")]
            floors = floor_rows(plugin, tree, subset, jobs, ruff_command, args.runs)
            ratio("sglang-lint cold / the floor (read and ast.parse every file), whole tree",
                  cold.median / floors["parse"], 1.5)
            ratio("peak memory of one sglang-lint process, cold, whole tree", cold.peak_mb, 200, "MB")
        per_file[fraction] = cold.median / len(subset)
        if fraction != FRACTIONS[0]:
            ratio(f"sglang-lint cold, time per file: {fraction:.0%} / {FRACTIONS[0]:.0%} of the tree (linear: 1)",
                  per_file[fraction] / per_file[FRACTIONS[0]])
        print(f"  {'':<52} {cold.median / len(subset) * 1000:9.2f} ms per file (sglang-lint cold), "
              f"{ruff.median / len(subset) * 1000:.2f} ms (ruff)")
    if verbose:
        print("files, whole tree (sglang-lint --verbose, cold):", verbose[-1].split(": ", 1)[1])
    shutil.rmtree(scratch, ignore_errors=True)
    print_ratios()
    return 0


if __name__ == "__main__":
    sys.exit(main())
