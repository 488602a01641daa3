"""Which sglang release(s) a file is judged against (catalog/target.py): each way of finding it, their
order, the walk up to the first folder that pins sglang, ranges against the known releases, a
release newer than the catalog; and end to end, a rule of later releases only, through the
command, flake8 and the language server's settings."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from conftest import ROOT, env_with_hooks, lint_in_process
from snippets import CAPTURE_IMPORT, CAPTURE_PRE
from sglang_lint.catalog import target
from sglang_lint.core.rulefile import tomllib
from sglang_lint.engine.ruletable import RuleSet, load_rules
from sglang_lint.frontends.cache import ruleset_fingerprint
from sglang_lint.launch import image_pins
from sglang_lint.catalog.target import (
    TargetRelease, find_target, known_releases, parse_requirement, releases_in, satisfies,
)
from sglang_lint.frontends.indexes import rule_index

REAL_VERSION = metadata.version
KNOWN = tuple(f"0.5.{n}" for n in range(1, 11)) + ("0.5.10.post1",) + tuple(f"0.5.{n}" for n in range(11, 24))
NOTHING = TargetRelease()


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """No sglang installed (whatever this environment has), and nothing cached from another test."""
    real = metadata.version

    def version(name):
        if name == "sglang":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "version", version)
    target.clear_cache()
    yield
    target.clear_cache()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository root (``.git``): the walk never goes above it."""
    (tmp_path / ".git").mkdir()
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def find(path: Path, cli: str | None = None, config: str | None = None, known=KNOWN) -> TargetRelease:
    return find_target(path, cli_version=cli, config_version=config, known=known)


def install_sglang(folder: Path, version: str, monkeypatch) -> list[str]:
    """A distribution of sglang ``version`` installed in ``folder``, first on the path: its
    package (which fails if imported) and its metadata. Returns the names whose metadata is
    asked for."""
    write(folder / "sglang" / "__init__.py", "raise ImportError('sglang-lint never imports sglang')\n")
    write(folder / f"sglang-{version}.dist-info" / "METADATA",
          f"Metadata-Version: 2.1\nName: sglang\nVersion: {version}\n")
    monkeypatch.syspath_prepend(str(folder))
    asked: list[str] = []

    def version_of(name):
        asked.append(name)
        return REAL_VERSION(name)

    monkeypatch.setattr(metadata, "version", version_of)
    return asked


def pyproject(folder: Path, *dependencies: str, optional: str = "") -> Path:
    listed = ", ".join(f'"{d}"' for d in dependencies)
    return write(folder / "pyproject.toml", f'[project]\nname = "x"\ndependencies = [{listed}]\n{optional}')


# ---- each way of finding the release ----

def test_the_command_line_flag(repo):
    assert find(repo / "a.py", cli="0.5.6") == TargetRelease(("0.5.6",), "--sglang-version 0.5.6")


def test_the_configuration_key(repo):
    assert find_target(
        repo / "a.py", cli_version=None, config_version="0.5.7", known=KNOWN, config_source="/p/pyproject.toml"
    ) == TargetRelease(("0.5.7",), 'sglang-version = "0.5.7" in /p/pyproject.toml')


def test_the_installed_sglang(repo, tmp_path_factory, monkeypatch):
    asked = install_sglang(tmp_path_factory.mktemp("site"), "0.5.8+cu124", monkeypatch)
    assert find(repo / "a.py") == TargetRelease(
        ("0.5.8",), f"sglang 0.5.8 installed in this environment ({sys.prefix})"
    )
    find(repo / "b.py")
    assert asked == ["sglang"] and "sglang" not in sys.modules  # read once, and sglang is never imported


def test_no_metadata_is_read_where_python_would_not_find_sglang(repo, tmp_path_factory, monkeypatch):
    # importlib.metadata's import and search cost tens of milliseconds: an editor's flake8 on
    # save pays them only where sglang may be installed.
    # (metadata left behind by a package since removed: no sglang Python would import)
    site = tmp_path_factory.mktemp("site")
    asked = install_sglang(site, "0.5.8", monkeypatch)
    (site / "sglang" / "__init__.py").unlink()
    (site / "sglang").rmdir()
    assert find(repo / "a.py") == NOTHING and asked == []
    assert "sglang" not in sys.modules


def test_a_pyproject_pin(repo):
    path = pyproject(repo, "numpy>=1", "sglang==0.5.6", "sglang-router==0.1.0")
    assert find(repo / "src" / "a.py") == TargetRelease(("0.5.6",), f"sglang==0.5.6 in {path}")


def test_an_extras_pin_with_a_marker(repo):
    path = pyproject(repo, "sglang[all]==0.5.6; python_version >= '3.10'")
    assert find(repo / "a.py") == TargetRelease(("0.5.6",), f"sglang[all]==0.5.6 in {path}")


def test_optional_dependencies(repo):
    path = pyproject(repo, "torch", optional='[project.optional-dependencies]\nserve = ["SGLang[srt] >= 0.5.20"]\n')
    assert find(repo / "a.py") == TargetRelease(
        ("0.5.20", "0.5.21", "0.5.22", "0.5.23"), f"SGLang[srt] >= 0.5.20 in {path}"
    )


def test_a_requirements_pin(repo):
    path = write(repo / "requirements.txt", """\
        # serving
        numpy
        sglang==0.5.9 --hash=sha256:abc  # the one we test with
    """)
    assert find(repo / "a.py") == TargetRelease(("0.5.9",), f"sglang==0.5.9 in {path}")


def test_a_requirements_include(repo):
    write(repo / "requirements-dev.txt", "pytest\n-r base/requirements-core.txt\n-r requirements-dev.txt\n")
    included = write(repo / "base" / "requirements-core.txt", "--index-url https://x\nsglang[all]==0.5.4\n")
    assert find(repo / "a.py") == TargetRelease(("0.5.4",), f"sglang[all]==0.5.4 in {included}")


def test_setup_cfg(repo):
    path = write(repo / "setup.cfg", """\
        [metadata]
        name = x

        [options]
        install_requires =
            numpy
        [options.extras_require]
        serve =
            sglang==0.5.3
    """)
    assert find(repo / "a.py") == TargetRelease(("0.5.3",), f"sglang==0.5.3 in {path}")


def test_setup_py_literal_lists_read_never_run(repo):
    path = write(repo / "setup.py", """\
        raise SystemExit("never run")
        REQUIRES = ["numpy", "sglang>=0.5.10,<0.5.13"]
        setup(name="x", install_requires=REQUIRES)
    """)
    assert find(repo / "a.py") == TargetRelease(
        ("0.5.10", "0.5.10.post1", "0.5.11", "0.5.12"), f"sglang>=0.5.10,<0.5.13 in {path}"
    )


def test_a_range_resolves_to_every_known_release_in_it(repo):
    path = pyproject(repo, "sglang>=0.5.10,<0.5.16,!=0.5.12")
    assert find(repo / "a.py") == TargetRelease(
        ("0.5.10", "0.5.10.post1", "0.5.11", "0.5.13", "0.5.14", "0.5.15"), f"sglang>=0.5.10,<0.5.16,!=0.5.12 in {path}"
    )


@pytest.mark.parametrize("spec, expected", [
    ("~=0.5.21", ("0.5.21", "0.5.22", "0.5.23")),
    ("==0.5.*", KNOWN),
    ("== 0.5.2", ("0.5.2",)),
    ("<=0.5.2", ("0.5.1", "0.5.2")),
    (">0.5.10,<0.5.12", ("0.5.11",)),  # > leaves out the named release's post-releases
    (">=0.5.10.post1,<0.5.12", ("0.5.10.post1", "0.5.11")),
    ("(>=0.5.22)", ("0.5.22", "0.5.23")),
    ("!=0.5.*", ()),
])
def test_specifiers(spec, expected):
    assert releases_in(parse_requirement("sglang" + spec, "x").clauses, KNOWN) == expected


@pytest.mark.parametrize("text", ["sglang==0.5.2*", "sglang===", "sglang>=latest", "sglang-router==0.1", "sglang"])
def test_not_a_pin(text):
    assert parse_requirement(text, "x") is None


def test_pre_releases_only_when_the_specifier_names_one():
    known = ("0.5.15", "0.5.16rc1", "0.5.16")
    assert releases_in([(">=", "0.5.15")], known) == ("0.5.15", "0.5.16")
    assert releases_in([("<", "0.5.16")], known) == ("0.5.15",)
    assert releases_in([(">=", "0.5.16rc1")], known) == ("0.5.16rc1", "0.5.16")
    assert satisfies("0.5", "==", "0.5.0") and not satisfies("0.5.1", "==", "0.5")


def test_a_release_newer_than_the_catalog(repo):
    path = pyproject(repo, "sglang==0.6.0")
    newer = TargetRelease(
        ("0.5.23",),
        f"sglang==0.6.0 in {path}: newer than every release the catalog knows; judged by the newest, 0.5.23",
        newer_than_catalog=True,
    )
    assert find(repo / "a.py") == newer
    target.clear_cache()
    pyproject(repo, "sglang>=0.6,<0.7")
    assert find(repo / "a.py").newer_than_catalog
    assert find(repo / "a.py", cli="0.5.24rc1").newer_than_catalog
    assert find(repo / "a.py", cli="0.5.23") == TargetRelease(("0.5.23",), "--sglang-version 0.5.23")


def test_nothing_found_is_the_newest_rules(repo):
    pyproject(repo, "numpy", "sglang", "sglang @ git+https://github.com/sgl-project/sglang")  # no version
    write(repo / "requirements.txt", "sglang-router==0.1.0\n")
    assert find(repo / "src" / "a.py") == NOTHING
    assert NOTHING.releases == () and NOTHING.label == "the newest rules"


def test_several_pins_in_one_folder_are_every_release_they_allow(repo):
    first = pyproject(repo, "sglang==0.5.9")
    second = write(repo / "requirements-old.txt", "sglang>=0.5.5,<0.5.7\n")
    assert find(repo / "a.py") == TargetRelease(
        ("0.5.5", "0.5.6", "0.5.9"), f"sglang==0.5.9 in {first}; sglang>=0.5.5,<0.5.7 in {second}"
    )


def test_an_unknown_older_release_is_taken_as_pinned(repo):
    pyproject(repo, "sglang==0.4.9")
    assert find(repo / "a.py").releases == ("0.4.9",)


# ---- their order, and the walk ----

def test_precedence(repo, tmp_path_factory, monkeypatch):
    pyproject(repo, "sglang==0.5.6")
    install_sglang(tmp_path_factory.mktemp("site"), "0.5.8", monkeypatch)
    assert find(repo / "a.py", cli="0.5.5", config="0.5.7").releases == ("0.5.5",)
    assert find(repo / "a.py", config="0.5.7").releases == ("0.5.7",)
    assert find(repo / "a.py").releases == ("0.5.8",)
    target.clear_cache()
    monkeypatch.setattr(metadata, "version", lambda name: (_ for _ in ()).throw(metadata.PackageNotFoundError()))
    assert find(repo / "a.py").releases == ("0.5.6",)


def test_the_walk_stops_at_the_first_folder_that_pins(repo):
    pyproject(repo, "sglang==0.5.2")
    inner = pyproject(repo / "services" / "serve", "sglang==0.5.6")
    pyproject(repo / "services" / "serve" / "pkg", "sglang")  # unpinned: the walk goes on
    deep = repo / "services" / "serve" / "pkg" / "mod" / "a.py"
    assert find(deep) == TargetRelease(("0.5.6",), f"sglang==0.5.6 in {inner}")
    assert find(repo / "services" / "other.py").releases == ("0.5.2",)
    # never above a folder holding .git
    (repo / "vendored" / ".git").mkdir(parents=True)
    assert find(repo / "vendored" / "src" / "a.py") == NOTHING


def test_the_walk_is_cached_per_folder(repo):
    path = pyproject(repo, "sglang==0.5.6")
    assert find(repo / "a" / "x.py").releases == ("0.5.6",)
    path.write_text('[project]\nname = "x"\ndependencies = ["sglang==0.5.9"]\n')
    assert find(repo / "a" / "y.py").releases == ("0.5.6",)  # the folders were read once
    target.clear_cache()
    assert find(repo / "a" / "y.py").releases == ("0.5.9",)


# ---- container images and setup scripts: after the pip pins ----

def image_pin(path: Path, line: int, text: str) -> str:
    return f"{text} in {path}:{line}"


def test_a_dockerfile_from(repo):
    path = write(repo / "Dockerfile", "FROM lmsysorg/sglang:v0.5.4-cu126\nRUN pip install x\n")
    assert find(repo / "src" / "a.py") == TargetRelease(
        ("0.5.4",), image_pin(path, 1, "the image lmsysorg/sglang:v0.5.4-cu126")
    )


def test_a_dockerfile_from_with_arg_defaults_platform_and_stage(repo):
    path = write(repo / "docker" / "serve.Dockerfile", """\
        # FROM lmsysorg/sglang:v0.5.2 (a comment: not read)
        ARG SGLANG_VERSION=0.5.4.post1
        ARG BASE="lmsysorg/sglang:v${SGLANG_VERSION}"
        ARG CUDA
        FROM --platform=linux/amd64 \\
            ${BASE}-cu126 AS serve
        FROM serve
        FROM lmsysorg/sglang:v0.5.9-${CUDA}
    """)
    assert find(repo / "a.py") == TargetRelease(
        ("0.5.4.post1",), image_pin(path, 5, "the image lmsysorg/sglang:v0.5.4.post1-cu126")
    )


def test_a_compose_image_with_a_default(repo):
    path = write(repo / "docker-compose.yaml", """\
        services:
          sglang:
            image: "lmsysorg/sglang:${SGLANG_TAG:-v0.5.6}"  # the serving image
            command: python3 -m sglang.launch_server --model-path m
    """)
    assert find(repo / "a.py") == TargetRelease(("0.5.6",), image_pin(path, 3, "the image lmsysorg/sglang:v0.5.6"))


def test_a_kubernetes_manifest(repo):
    path = write(repo / "k8s" / "deployment.yaml", """\
        apiVersion: apps/v1
        kind: Deployment
        spec:
          template:
            spec:
              containers:
                - name: server
                  image: docker.io/lmsysorg/sglang:v0.5.7-cu128-amd64
    """)
    assert find(repo / "a.py") == TargetRelease(
        ("0.5.7",), image_pin(path, 8, "the image docker.io/lmsysorg/sglang:v0.5.7-cu128-amd64")
    )


@pytest.mark.parametrize("job, line", [
    ("    container: lmsysorg/sglang:v0.5.8-cu126\n", 4),
    ("    container:\n      image: 'lmsysorg/sglang:v0.5.8-cu126'\n      options: --gpus all\n", 5),
])
def test_a_github_actions_container(repo, job, line):
    path = write(repo / ".github" / "workflows" / "test.yml", "on: push\njobs:\n  test:\n" + job)
    assert find(repo / "a.py") == TargetRelease(
        ("0.5.8",), image_pin(path, line, "the image lmsysorg/sglang:v0.5.8-cu126")
    )


@pytest.mark.parametrize("name, script, line, text", [
    ("setup.sh", "#!/bin/bash\nset -e\nSGLANG_VERSION=0.5.9\npip install sglang==$SGLANG_VERSION\n", 3,
     "SGLANG_VERSION=0.5.9"),
    ("scripts/install.sh", "export SGLANG_TAG=v0.5.9-cu126\ndocker pull lmsysorg/sglang:$SGLANG_TAG\n", 1,
     "SGLANG_TAG=v0.5.9-cu126"),
    ("serve.sh", 'declare -x SGLANG_VERSION="${SGLANG_VERSION:-0.5.9}"\n', 1, "SGLANG_VERSION=0.5.9"),
    ("run.sh", "IMAGE=lmsysorg/sglang:v0.5.9\n# docker run lmsysorg/sglang:v0.5.2\ndocker run --gpus all $IMAGE \\\n"
     "  python3 -m sglang.launch_server\n", 1, "the image lmsysorg/sglang:v0.5.9"),
])
def test_a_setup_script(repo, name, script, line, text):
    path = write(repo / name, script)
    assert find(repo / "a.py") == TargetRelease(("0.5.9",), image_pin(path, line, text))


def test_tags_that_name_no_release_are_no_pin(repo):
    write(repo / "compose.yml", """\
        services:
          b:
            image: lmsysorg/sglang:latest
          c:
            image: lmsysorg/sglang:dev
          d:
            image: lmsysorg/sglang:nightly-dev-cu13
          e:
            image: lmsysorg/sglang@sha256:0123abcd
          f:
            image: lmsysorg/sglang-router:v0.5.2
          g:
            image: myorg/sglang:v0.5.2
          h:
            image: lmsysorg/sglang:${TAG}
          i:
            image: lmsysorg/sglang:v0.5
    """)
    script = write(repo / "setup.sh", "SGLANG_VERSION=latest\nSGLANG_TAG=$(cat TAG)\nOTHER_VERSION=0.5.2\n"
                                      "SGLANG_VERSION=0.5.3\n")
    assert find(repo / "a.py") == TargetRelease(("0.5.3",), image_pin(script, 4, "SGLANG_VERSION=0.5.3"))


def test_an_image_of_a_release_the_catalog_does_not_know(repo):
    path = write(repo / "Dockerfile", "FROM lmsysorg/sglang:v0.4.9-cu124\n")
    assert find(repo / "a.py") == TargetRelease(
        ("0.4.9",), image_pin(path, 1, "the image lmsysorg/sglang:v0.4.9-cu124")
    )
    target.clear_cache()
    path.write_text("FROM lmsysorg/sglang:v0.6.0\n")
    assert find(repo / "a.py") == TargetRelease(
        ("0.5.23",),
        f"{image_pin(path, 1, 'the image lmsysorg/sglang:v0.6.0')}: newer than every release the catalog knows; "
        "judged by the newest, 0.5.23",
        newer_than_catalog=True,
    )


def test_images_of_several_releases_are_every_release_they_name(repo):
    dockerfile = write(repo / "Dockerfile", "FROM lmsysorg/sglang:v0.5.6 AS base\nFROM lmsysorg/sglang:v0.5.6-cu128\n")
    workflow = write(repo / ".github" / "workflows" / "nightly.yaml", "jobs:\n  old:\n    container: "
                     "lmsysorg/sglang:v0.5.3\n  new:\n    container: lmsysorg/sglang:v0.5.6\n")
    assert find(repo / "a.py") == TargetRelease(("0.5.3", "0.5.6"), "; ".join([
        image_pin(dockerfile, 1, "the image lmsysorg/sglang:v0.5.6"),  # a file's first mention of a release
        image_pin(workflow, 3, "the image lmsysorg/sglang:v0.5.3"),
        image_pin(workflow, 5, "the image lmsysorg/sglang:v0.5.6"),
    ]))


def reads(monkeypatch) -> list[str]:
    """The files the image reader opens, in order."""
    opened: list[str] = []
    real = image_pins._read
    monkeypatch.setattr(image_pins, "_read", lambda path: opened.append(os.path.basename(path)) or real(path))
    return opened


def test_a_pip_pin_wins_and_then_no_image_is_read(repo, monkeypatch):
    opened = reads(monkeypatch)
    dockerfile = write(repo / "services" / "serve" / "Dockerfile", "FROM lmsysorg/sglang:v0.5.4\n")
    assert find(repo / "services" / "serve" / "a.py") == TargetRelease(
        ("0.5.4",), image_pin(dockerfile, 1, "the image lmsysorg/sglang:v0.5.4")
    )
    assert opened == ["Dockerfile"]
    target.clear_cache()
    opened.clear()
    pin = pyproject(repo, "sglang==0.5.6")  # further up than the image, and still first
    assert find(repo / "services" / "serve" / "a.py") == TargetRelease(("0.5.6",), f"sglang==0.5.6 in {pin}")
    assert opened == []


def test_the_image_walk_stops_at_the_first_folder_naming_a_release_and_at_git(repo, monkeypatch):
    outer = write(repo / "Dockerfile", "FROM lmsysorg/sglang:v0.5.2\n")
    inner = write(repo / "serve" / "compose.yaml", "services:\n  s:\n    image: lmsysorg/sglang:v0.5.5\n")
    write(repo / "serve" / "pkg" / "Dockerfile", "FROM python:3.12\nRUN pip install sglang\n")
    opened = reads(monkeypatch)
    assert find(repo / "serve" / "pkg" / "a.py") == TargetRelease(
        ("0.5.5",), image_pin(inner, 3, "the image lmsysorg/sglang:v0.5.5")
    )
    assert find(repo / "other" / "b.py") == TargetRelease(
        ("0.5.2",), image_pin(outer, 1, "the image lmsysorg/sglang:v0.5.2")
    )
    assert opened == ["Dockerfile", "compose.yaml", "Dockerfile"]  # each folder read once
    (repo / "vendored" / ".git").mkdir(parents=True)
    assert find(repo / "vendored" / "src" / "a.py") == NOTHING


def test_the_files_read_in_a_folder_are_bounded(repo, monkeypatch):
    for n in range(60):
        write(repo / f"config-{n:02}.yaml", f"name: {n}\n")
        write(repo / "scripts" / f"step-{n:02}.sh", "echo step\n")
    write(repo / "notes.txt", "FROM lmsysorg/sglang:v0.5.2\n")  # not a file this reading looks at
    dockerfile = write(repo / "Dockerfile", "FROM lmsysorg/sglang:v0.5.4\n")
    opened = reads(monkeypatch)
    assert find(repo / "a.py").reason == image_pin(dockerfile, 1, "the image lmsysorg/sglang:v0.5.4")
    assert len(opened) == image_pins.MAX_FILES == 24
    assert opened[:3] == ["Dockerfile", "step-00.sh", "step-01.sh"]  # Dockerfiles first, then scripts


@pytest.mark.parametrize("tag, release", [
    ("v0.5.4", "0.5.4"), ("v0.5.4-cu126", "0.5.4"), ("v0.5.4.post1", "0.5.4.post1"),
    ("v0.5.4.post1-cu128-b200", "0.5.4.post1"), ("v0.5.4-cu126-amd64", "0.5.4"), ("v0.5.5rc0", "0.5.5rc0"),
    ("0.5.4", "0.5.4"), ("latest", None), ("dev", None), ("nightly-dev-20250101", None), ("v0.5", None),
    ("blackwell", None), ("v0.5.4cu126", None),
])
def test_the_release_a_tag_names(tag, release):
    assert image_pins.tag_release(tag) == release
    assert image_pins.image_release(f"lmsysorg/sglang:{tag}@sha256:00ff") == release
    assert image_pins.image_release(f"ghcr.io/lmsysorg/sglang:{tag}") is None


def test_known_releases_come_from_the_rules_and_their_data_tables(tmp_path):
    shipped = rule_index().releases
    table = tomllib.loads((ROOT / "rules" / "derived" / "server_args.toml").read_text())
    assert set(table.get("releases", [])) | {table["sglang_version"]} <= set(shipped)
    assert list(shipped) == sorted(shipped, key=target.version_key) and len(set(shipped)) == len(shipped)
    folder = team_rules(tmp_path, since="0.5.20")
    assert known_releases(load_rules([folder])) == ("0.5.20", "0.5.23")
    write(folder / "table.toml",
          'sglang_version = "0.5.23"\nreleases = ["0.5.2", "0.5.10.post1"]\n[fields.x]\ntype = "str"\n')
    assert known_releases(load_rules([folder])) == ("0.5.2", "0.5.10.post1", "0.5.20", "0.5.23")


def test_the_cache_of_results_is_per_release():
    ruleset = RuleSet(load_rules())
    assert ruleset_fingerprint(ruleset, ("0.5.6",)) != ruleset_fingerprint(ruleset, ())


# ---- end to end: a rule of sglang 0.5.20 and later ----

BAD = CAPTURE_IMPORT + CAPTURE_PRE  # SGL950 (the team's copy of SGL001) at 2:31


def team_rules(folder: Path, since: str) -> Path:
    rules = folder / "lint_rules"
    rules.mkdir(exist_ok=True)
    text = (ROOT / "rules" / "SGL001-unsupported-capture-mode.toml").read_text()
    text = text.replace('code = "SGL001"', 'code = "SGL950"').replace(
        'name = "unsupported-capture-mode"', 'name = "team-capture-mode"'
    ).replace('since = "0.5.13"', f'since = "{since}"')
    (rules / "SGL950-team-capture-mode.toml").write_text(text)
    return rules


@pytest.fixture
def projects(repo: Path) -> Path:
    """Two projects in one repository: ``new`` pins 0.5.23 (pyproject), ``old`` 0.5.10
    (requirements.txt); the repository's configuration adds SGL950 (since 0.5.20)."""
    team_rules(repo, since="0.5.20")
    write(repo / "pyproject.toml", '[tool.sglang-lint]\nextra-rules = ["lint_rules"]\nselect = ["SGL950"]\n')
    pyproject(repo / "new", "sglang==0.5.23")
    write(repo / "old" / "requirements.txt", "sglang==0.5.10\n")
    for name in ("new", "old"):
        write(repo / name / "app.py", BAD)
    return repo


def places(result) -> list[str]:
    return sorted(" ".join(line.split()[:2]) for line in result.stdout.splitlines())


def test_the_command_judges_each_project_by_its_pin(projects):
    result = lint_in_process("--no-cache", "--verbose", "new", "old", cwd=projects)
    assert (result.returncode, places(result)) == (1, ["new/app.py:2:31: SGL950"])
    verbose = [line for line in result.stderr.splitlines() if " judged against " in line]
    assert verbose == [
        f"sglang-lint: 1 file judged against sglang 0.5.23: sglang==0.5.23 in {projects / 'new' / 'pyproject.toml'}",
        f"sglang-lint: 1 file judged against sglang 0.5.10: sglang==0.5.10 in {projects / 'old' / 'requirements.txt'}",
    ]
    # The flag, then the configuration key, judge every file.
    both = ["new/app.py:2:31: SGL950", "old/app.py:2:31: SGL950"]
    assert places(lint_in_process("--no-cache", "--sglang-version", "0.5.23", "new", "old", cwd=projects)) == both
    assert places(lint_in_process("--no-cache", "--sglang-version", "0.5.10", "new", "old", cwd=projects)) == []
    write(projects / "pyproject.toml",
          '[tool.sglang-lint]\nextra-rules = ["lint_rules"]\nselect = ["SGL950"]\nsglang-version = "0.5.21"\n')
    assert places(lint_in_process("--no-cache", "new", "old", cwd=projects)) == both
    assert places(lint_in_process("--no-cache", "--sglang-version", "0.5.19", "new", "old", cwd=projects)) == []


def test_the_command_with_the_result_cache_and_stdin(projects, tmp_path):
    cache = ["--cache-dir", str(tmp_path / "cache")]
    for _ in range(2):  # the second run reads the cache: the same findings
        assert places(lint_in_process(*cache, "new", "old", cwd=projects)) == ["new/app.py:2:31: SGL950"]
    assert places(lint_in_process(*cache, "--stdin-filename", "old/b.py", "-", cwd=projects, stdin=BAD)) == []
    assert places(lint_in_process(*cache, "--stdin-filename", "new/b.py", "-", cwd=projects, stdin=BAD)) == [
        "new/b.py:2:31: SGL950"
    ]


def test_the_command_judges_a_launch_script_by_the_projects_image(repo):
    # --ssl-certfile/--ssl-keyfile came in sglang 0.5.10: the image's release decides.
    dockerfile = write(repo / "Dockerfile", "FROM lmsysorg/sglang:v0.5.4-cu126\n")
    write(repo / "launch.sh",
          "python -m sglang.launch_server --model-path m --ssl-certfile c.pem --ssl-keyfile k.pem\n")
    result = lint_in_process("--no-cache", "--verbose", "launch.sh", cwd=repo)
    assert (result.returncode, result.stdout.splitlines()) == (1, [
        "launch.sh:1:47: SGL009 launch flag --ssl-certfile: sglang 0.5.4 has no such server argument "
        "(added in sglang 0.5.10)",
        "launch.sh:1:68: SGL009 launch flag --ssl-keyfile: sglang 0.5.4 has no such server argument "
        "(added in sglang 0.5.10)",
    ])
    assert result.stderr.splitlines()[0] == (
        f"sglang-lint: 1 file judged against sglang 0.5.4: the image lmsysorg/sglang:v0.5.4-cu126 in {dockerfile}:1"
    )
    target.clear_cache()
    dockerfile.write_text("FROM lmsysorg/sglang:v0.5.10\n")
    result = lint_in_process("--no-cache", "launch.sh", cwd=repo)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    target.clear_cache()
    dockerfile.write_text("FROM lmsysorg/sglang:v0.5.4-cu126\n")
    write(repo / "requirements.txt", "sglang[all]==0.5.10\n")  # the pip pin wins
    result = lint_in_process("--no-cache", "launch.sh", cwd=repo)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_the_command_warns_once_for_a_release_newer_than_the_catalog(projects):
    pyproject(projects / "new", "sglang==0.6.0")
    write(projects / "new" / "more.py", BAD)
    result = lint_in_process("--no-cache", "new", cwd=projects)
    assert places(result) == ["new/app.py:2:31: SGL950", "new/more.py:2:31: SGL950"]
    assert result.stderr.splitlines() == [
        f"sglang-lint: warning: sglang==0.6.0 in {projects / 'new' / 'pyproject.toml'}: newer than every "
        f"release the catalog knows; judged by the newest, {rule_index().releases[-1]}"
    ]


@pytest.mark.parametrize("version", ["latest", "0.5", "0.5.10.post1"])
def test_the_flag_takes_only_a_release(projects, version):
    result = lint_in_process("--no-cache", "--sglang-version", version, "new", cwd=projects)
    if version == "latest":
        assert result.returncode == 2 and "'latest' is not an sglang release" in result.stderr
    else:
        assert result.returncode == 0 and result.stdout == ""  # before 0.5.20: SGL950 is off


def test_the_configuration_takes_a_post_release(projects):
    write(projects / "pyproject.toml",
          '[tool.sglang-lint]\nextra-rules = ["lint_rules"]\nselect = ["SGL950"]\nsglang-version = "0.5.10.post1"\n')
    result = lint_in_process("--no-cache", "new", cwd=projects)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def flake8_in(projects: Path, *args: str) -> subprocess.CompletedProcess:
    """A real flake8 whose shipped catalog is the team's rule alone (a sitecustomize points
    the rule folder there), with no sglang installed."""
    hooks = projects / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(
        "import importlib.metadata as metadata\n"
        "import sglang_lint.catalog.rules as catalog, sglang_lint.engine.ruletable as ruletable\n"
        "import sglang_lint.frontends.indexes as indexes\n"
        f"catalog.default_rules_dir = ruletable.default_rules_dir = "
        f"lambda: __import__('pathlib').Path({str(projects / 'lint_rules')!r})\n"
        f"indexes.rules_folder = lambda: {str(projects / 'lint_rules')!r}\n"
        "real = metadata.version\n"
        "def version(name):\n"
        "    if name == 'sglang':\n"
        "        raise metadata.PackageNotFoundError(name)\n"
        "    return real(name)\n"
        "metadata.version = version\n"
    )
    return subprocess.run(
        [sys.executable, "-m", "flake8", *args], cwd=projects, capture_output=True, text=True,
        env=env_with_hooks(hooks), timeout=600,
    )


def test_flake8_judges_each_project_by_its_pin_and_takes_the_option(projects):
    files = ("new/app.py", "old/app.py")
    result = flake8_in(projects, "--isolated", "--select", "SGL950", *files)
    assert places(result) == ["new/app.py:2:31: SGL950"], result.stderr
    both = ["new/app.py:2:31: SGL950", "old/app.py:2:31: SGL950"]
    assert places(flake8_in(projects, "--isolated", "--select", "SGL950", "--sglang-version", "0.5.23", *files)) == both
    assert places(flake8_in(projects, "--isolated", "--select", "SGL950", "--sglang-version", "0.5.10", *files)) == []
    # from flake8's configuration
    write(projects / ".flake8", "[flake8]\nselect = SGL950\nsglang-version = 0.5.23\n")
    assert places(flake8_in(projects, *files)) == both
    assert places(flake8_in(projects, "-j", "2", *files)) == both
    bad = flake8_in(projects, "--isolated", "--sglang-version", "latest", *files)
    assert bad.returncode != 0 and "'latest' is not an sglang release" in bad.stderr


def test_the_language_server_judges_each_document_by_its_path(projects, monkeypatch):
    pytest.importorskip("pygls")
    from sglang_lint.frontends.server import SglangLintServer

    server = SglangLintServer()
    monkeypatch.chdir(projects)
    _, new = server.settings_for(str(projects / "new" / "app.py"))
    _, old = server.settings_for(str(projects / "old" / "app.py"))
    assert [r.code for r in new.rules] == ["SGL950"] and old.rules == ()
