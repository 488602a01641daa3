"""Code that never reaches sglang lints with zero findings: the standard library of the Python
running the tests and the packages of the test environment (site-packages, sglang and this
project left out), about 4,100 files here, with no download. sglang's catalog shares names
with the rest of the Python world (``set_mode``, ``forward``, ``--model``): a rule that
matches the name alone reports code that has nothing to do with sglang.

The command runs once over all of it, as a user runs it on a project (folders; no
configuration file, no result cache), beside a small folder of this test's own (``snippets``)
with two real sglang bugs, which must be the only findings (the run is not blind), and calls
of a method sglang also has on objects that are not sglang's, which must not be reported.

Files the command cannot read or parse are errors, not findings of a rule; each must be a
file Python itself cannot compile (the standard library's ``bad_coding*`` test data), a
launch file that is not UTF-8 (zip test data behind a shell shebang) or one over the size
limit (scripts/sglang_corpus.py, ``excused_error``). Files the command never parses (lib2to3's
Python 2 test data) are passed over by its text prefilter and counted as linted.
``scripts/sglang_corpus.py --foreign-only`` does the same on a venv of torch, transformers and
diffusers (over 10,000 files); the test marked ``corpus`` here runs it."""

from __future__ import annotations

import sysconfig
import textwrap
from pathlib import Path

import pytest

from sglang_corpus import check_foreign, foreign_paths, lint_foreign
from sglang_lint.frontends.inputs import python_files

# Two bugs sglang raises on: a curated server-argument rule and a derived method rule whose
# receiver is shown to be sglang's class (a name bound to a call of it).
SGLANG_CALLS = textwrap.dedent('''\
    import sglang as sgl
    from sglang.multimodal_gen.runtime.models.dits.glm_image import GlmImageKVCache

    engine = sgl.Engine(model_path="Qwen/Qwen3-0.6B", tp_size="2")
    kv_caches = GlmImageKVCache(num_layers=4)
    kv_caches.set_mode("transformers")
''')
SGLANG_FINDINGS = [(4, 59, "SGL008"), (6, 1, "SGL2713")]

# The same method name on objects that are not sglang's: a class of the file, and an object
# another package's function returns.
OTHER_CALLS = textwrap.dedent('''\
    from swift.llm import get_template


    class Template:
        def set_mode(self, mode):
            self.mode = mode


    Template().set_mode("transformers")
    template = get_template("qwen", None)
    template.set_mode("transformers")
''')

MIN_STDLIB_FILES = 1_000  # CPython 3.11's has 1,790 .py files
MIN_FILES = 3_000  # with this project's test environment: about 4,100


def stdlib() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def site_packages() -> list[Path]:
    return sorted({Path(sysconfig.get_paths()[name]) for name in ("purelib", "platlib")})


@pytest.fixture(scope="module")
def snippets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("snippets")
    (folder / "sglang_calls.py").write_text(SGLANG_CALLS, encoding="utf-8")
    (folder / "other_calls.py").write_text(OTHER_CALLS, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def foreign_run(snippets: Path):
    run = lint_foreign([str(snippets), *foreign_paths([stdlib(), *site_packages()])])
    print(f"sglang-lint over the standard library and site-packages: {run.linted} files linted, "
          f"{len(run.findings)} findings, {len(run.errors)} files it cannot read, {run.seconds:.1f}s")
    return run


def test_no_finding_on_code_that_does_not_use_sglang(foreign_run, snippets: Path):
    ours = str(snippets / "sglang_calls.py")
    unexpected = foreign_run.finding_lines(lambda path: path != ours)
    assert unexpected == [], f"{len(unexpected)} findings on code that does not use sglang:\n" + "\n".join(unexpected)


def test_the_same_run_reports_the_real_sglang_bugs(foreign_run, snippets: Path):
    ours = str(snippets / "sglang_calls.py")
    found = [(f["line"], f["column"], f["code"]) for f in foreign_run.findings if f["path"] == ours]
    assert found == SGLANG_FINDINGS, "\n".join(foreign_run.finding_lines(lambda path: path == ours))


def test_thousands_of_files_are_linted(foreign_run):
    # The --verbose count of the files linted (parsed, or passed over by the prefilter or the
    # call-site screen), the standard library's share counted by the command's own walk.
    assert sum(1 for _ in python_files([str(stdlib())])) >= MIN_STDLIB_FILES
    assert foreign_run.linted >= MIN_FILES


def test_every_file_is_linted_or_one_python_rejects_too(foreign_run):
    # Every file walked is linted or reported as an error; every error is excused (Python
    # cannot compile the file either, or it is a launch file that is not UTF-8, or over the
    # size limit); nothing else on stderr; the exit status says findings (1) or errors (2).
    assert foreign_run.faults() == []


@pytest.mark.corpus
def test_no_finding_in_a_venv_of_torch_transformers_and_diffusers(capsys):
    # scripts/sglang_corpus.py --foreign-only: the venv is made once (through pip, cached).
    ok = check_foreign()
    out = capsys.readouterr().out
    print(out)
    assert ok, out
