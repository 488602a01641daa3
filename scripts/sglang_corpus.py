#!/usr/bin/env python3
"""sglang's own tree as the test bed.

    python scripts/sglang_corpus.py [--flake8] [--keep DIR]

1. fetches the sglang 0.5.23 wheel through pip (cached in ``$SGLANG_LINT_CACHE``, default
   ``~/.cache/sglang-lint``) and unpacks it once;
2. lints the whole tree with ``sglang-lint`` (and, with ``--flake8``, ``flake8 --select SGL``)
   and requires zero findings;
3. plants each bad call of :data:`MUTATIONS` at a real call site, in a copy of the file
   (never in the cache), and requires exactly the expected finding at the expected line.

Exit 0 when all of that holds. The tests import this module for the same steps.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

SGLANG_VERSION = "0.5.23"


def cache_dir() -> Path:
    return Path(os.environ.get("SGLANG_LINT_CACHE", Path.home() / ".cache" / "sglang-lint"))


def fetch_tree(version: str = SGLANG_VERSION) -> Path:
    """The folder holding the unpacked ``sglang`` package (downloaded once, through pip)."""
    root = cache_dir() / f"sglang-{version}"
    done = root / ".unpacked"
    if done.exists():
        return root
    wheels = cache_dir() / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = next(wheels.glob(f"sglang-{version}-*.whl"), None)
    if wheel is None:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
             "--dest", str(wheels), f"sglang=={version}"],
            check=True,
        )
        wheel = next(wheels.glob(f"sglang-{version}-*.whl"))
    partial = root.with_name(root.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        members = [m for m in archive.namelist() if m.startswith("sglang/")]
        archive.extractall(partial, members)
    shutil.rmtree(root, ignore_errors=True)
    partial.rename(root)
    done.touch()
    return root


@dataclass(frozen=True)
class Mutation:
    """Replace ``old`` (found exactly once, on line ``line``) by ``new`` in ``path``; the
    linter must then report exactly ``code`` at ``expect_line``."""

    name: str
    path: str
    line: int
    old: str
    new: str
    code: str
    expect_line: int


REFINER = "sglang/multimodal_gen/runtime/pipelines_core/stages/model_specific_stages/sana_wm/streaming_refiner.py"
HYBRID = "sglang/srt/layers/attention/hybrid_linear_attn_backend.py"

MUTATIONS = [
    Mutation(
        "capture mode, positional, at the refiner's call of set_capture_flag_on_blocks",
        REFINER, 407,
        "set_capture_flag_on_blocks(self.transformer, capture_mode, enable=True)",
        'set_capture_flag_on_blocks(self.transformer, "pre", enable=True)',
        "SGL001", 407,
    ),
    Mutation(
        "capture mode, through the _capture_block_kv pass-through",
        REFINER, 484,
        'capture_mode="pre_rope",',
        'capture_mode="pre-rope",',
        "SGL001", 484,
    ),
    Mutation(
        "forward mode literal in MambaAttnBackendBase's own capture call (self receiver)",
        HYBRID, 576,
        "bs, req_pool_indices, forward_mode, spec_info",
        "bs, req_pool_indices, ForwardMode.EXTEND, spec_info",
        "SGL002", 576,
    ),
    Mutation(
        "replay chain drifts from the capture chain",
        HYBRID, 886,
        "elif forward_mode.is_target_verify():",
        "elif forward_mode.is_target_verify() or forward_mode.is_draft_extend_v2():",
        "SGL002", 692,
    ),
    Mutation(
        "gdn_backend literal in SanaWMBlock's construction of the attention block",
        "sglang/multimodal_gen/runtime/models/dits/sana_wm.py", 129,
        "gdn_backend=gdn_backend,",
        'gdn_backend="cuda",',
        "SGL003", 129,
    ),
    Mutation(
        "gdn_backend literal where the model builds each SanaWMBlock",
        "sglang/multimodal_gen/runtime/models/dits/sana_wm.py", 458,
        'gdn_backend=getattr(arch, "gdn_backend", "auto"),',
        'gdn_backend="fused",',
        "SGL003", 458,
    ),
    Mutation(
        "None forwarded to set_dflash_layers_to_capture in the attention-backend setup",
        "sglang/srt/model_executor/model_runner_components/attention_backend_setup.py", 66,
        "model.set_dflash_layers_to_capture(dflash_target_layer_ids)",
        "model.set_dflash_layers_to_capture(None)",
        "SGL004", 66,
    ),
    Mutation(
        "encoder-only Engine with a speculative algorithm in the test runner",
        "sglang/test/runners.py", 628,
        "            model_path=model_path,\n            tp_size=tp_size,\n            ep_size=ep_size,",
        '            model_path=model_path, encoder_only=True, speculative_algorithm="DSPARK",\n'
        "            tp_size=tp_size,\n            ep_size=ep_size,",
        "SGL005", 628,
    ),
    Mutation(
        "encoder-only ServerArgs (aliased, imported in the function) with aux hidden states",
        "sglang/multimodal_gen/runtime/pipelines_core/stages/model_specific_stages/llada_image/conditioning.py", 96,
        "model_path=text_encoder_path,",
        "model_path=text_encoder_path, encoder_only=True, enable_return_aux_hidden_states=True,",
        "SGL005", 96,
    ),
]


def apply_mutation(tree: Path, mutation: Mutation, workdir: Path) -> Path:
    """Copy the mutated file to ``workdir / mutation.path`` and plant the bug there, at the
    occurrence of ``old`` that starts on ``mutation.line`` (so the site is the real one)."""
    source = (tree / mutation.path).read_text(encoding="utf-8")
    start = 0
    while True:
        index = source.find(mutation.old, start)
        if index < 0:
            raise AssertionError(f"{mutation.name}: {mutation.old!r} not on line {mutation.line} of {mutation.path}")
        if source.count("\n", 0, index) + 1 == mutation.line:
            break
        start = index + 1
    target = workdir / mutation.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source[:index] + mutation.new + source[index + len(mutation.old):], encoding="utf-8")
    return target


def findings(command: list[str], cwd: Path) -> tuple[int, list[str]]:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}): {result.stderr}")
    return result.returncode, [line for line in result.stdout.splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flake8", action="store_true", help="also run flake8 --select SGL over the whole tree")
    parser.add_argument("--keep", type=Path, help="write the mutated copies here instead of a temporary folder")
    args = parser.parse_args(argv)

    tree = fetch_tree()
    files = sum(1 for _ in (tree / "sglang").rglob("*.py"))
    lint = [sys.executable, "-m", "sglang_lint"]
    ok = True

    start = time.perf_counter()
    _, lines = findings(lint + ["sglang"], tree)
    took = time.perf_counter() - start
    print(f"sglang-lint: {files} files of sglang {SGLANG_VERSION}, {len(lines)} findings, {took:.1f}s")
    for line in lines:
        print("  unexpected:", line)
    ok &= not lines

    if args.flake8:
        start = time.perf_counter()
        _, lines = findings(
            [sys.executable, "-m", "flake8", "--isolated", "--select", "SGL", "-j", str(os.cpu_count() or 1), "sglang"],
            tree,
        )
        took = time.perf_counter() - start
        print(f"flake8 --select SGL: {len(lines)} findings, {took:.1f}s")
        for line in lines:
            print("  unexpected:", line)
        ok &= not lines

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="sglang-lint-mutations-"))
    found = 0
    for index, mutation in enumerate(MUTATIONS):
        copy = workdir / f"m{index:02d}"
        apply_mutation(tree, mutation, copy)
        _, lines = findings(lint + [mutation.path], copy)
        hit = len(lines) == 1 and lines[0].startswith(f"{mutation.path}:{mutation.expect_line}:") and (
            f" {mutation.code} " in lines[0]
        )
        found += hit
        print(f"  {'found' if hit else 'MISSED'}: {mutation.code} line {mutation.expect_line}: {mutation.name}")
        if not hit:
            for line in lines:
                print("     got:", line)
    print(f"mutations: {found}/{len(MUTATIONS)} found")
    if args.keep is None:
        shutil.rmtree(workdir, ignore_errors=True)
    ok &= found == len(MUTATIONS)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
