"""The held-out set of Python calls that build the diffusion server's ServerArgs
(sglang.multimodal_gen) with a keyword their release does not take (heldout.json), written before
sglang-lint read those keywords: its confirmation with each release's own code, and what
sglang-lint catches of it.

    python tests/diffusion_keywords/heldout.py confirm    each probe run by the release's code, both ways
    python tests/diffusion_keywords/heldout.py measure    caught (a finding on the bad keyword's line) and
                                                          good twins flagged, against the shipped catalog

``confirm`` imports ``sglang.multimodal_gen.runtime.server_args`` from the release's wheel in a
child interpreter (tests/startup/harness.py: every other package stubbed) and calls the probe's
entry point with the keywords: ``DiffGenerator.from_pretrained``, ``ServerArgs.from_kwargs`` or
``ServerArgs`` itself. What needs a model is stood in: ``PipelineConfig.from_kwargs`` (it reads
the model's files) returns None and takes nothing out of the keywords (sglang's takes out those
that are attributes of the model's pipeline config: no bad keyword of the set is an attribute of
any pipeline config of its release, serve.toml's ``diffusion_config_keywords``), and the
generator's start (``from_server_args``/``_create``: processes, GPUs) returns at once. A side is refused where
sglang raises on the keyword: a ``TypeError`` naming it as unexpected, or the ``ValueError`` of
the keywords a release retired (``_reject_retired_args``); anything else the stubbed run meets
later says nothing about the keyword.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(TESTS / "startup"), str(TESTS)]

import harness  # noqa: E402 (the start-up harness: its child's setup and its spawner)

CASES = TESTS / "diffusion_keywords" / "heldout.json"
REFUSALS = ("unexpected keyword argument", "Removed server argument")


def confirm() -> int:
    from heldout_kit import confirm as confirmed

    verdicts = {}
    data = json.loads(CASES.read_text())
    for release in sorted({case["release"] for case in data["cases"]}):
        mine = [case for case in data["cases"] if case["release"] == release]
        found = harness.spawn(Path(__file__), release, [case["probe"] for case in mine])
        for case, verdict in zip(mine, found.get("probes") or [{"bad": str(found), "good": str(found)}] * len(mine)):
            verdicts[case["id"]] = verdict
    return confirmed(CASES, lambda case, side: verdicts[case["id"]][side])


def _child(tree: str, payload, deps: str, gpu: str) -> dict:
    import importlib

    import importlib.util

    # (before setup, which stubs what it does not know: the registries set's stand-ins for
    # typing_extensions and regex; this file's own name is taken)
    spec = importlib.util.spec_from_file_location("registries_heldout", TESTS / "registries" / "heldout.py")
    registries = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(registries)

    harness.ABSENT_PACKAGES.add("sphinx")  # (cuda.py tests isinstance against sphinx's mock class)
    harness.setup(tree, deps, gpu)
    registries._standard_stand_ins()
    module = importlib.import_module("sglang.multimodal_gen.runtime.server_args")
    server_args = module.ServerArgs
    config = sys.modules[server_args.__module__].PipelineConfig
    config.from_kwargs = classmethod(lambda cls, kwargs, config_cli_prefix="": None)
    generator = importlib.import_module("sglang.multimodal_gen.runtime.entrypoints.diffusion_generator").DiffGenerator
    for name in ("from_server_args", "_create"):
        if hasattr(generator, name):
            setattr(generator, name, classmethod(lambda cls, *args, **kwargs: "created"))
    entries = {"from_pretrained": generator.from_pretrained, "from_kwargs": server_args.from_kwargs,
               "class": server_args}
    found = []
    for probe in payload:
        found.append({side: _refusal(entries[probe["entry"]], probe[side]) for side in ("bad", "good")})
    return {"probes": found}


def _refusal(entry, keywords: dict) -> str:
    """What sglang said refusing one of the keywords; "" where it took them all."""
    try:
        entry(**dict(keywords))
    except BaseException as exc:  # noqa: BLE001
        said = f"{type(exc).__name__}: {exc}"
        return said[:300] if any(words in said for words in REFUSALS) else ""
    return ""


def measure() -> int:
    from heldout_kit import case_texts, measure as measured

    data = json.loads(CASES.read_text())
    measured(data["cases"], case_texts, lambda d: d.code == "SGL009")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 4:
        harness.child_main(_child)  # (the child: TREE PAYLOAD DEPS GPU)
    elif sys.argv[1] == "confirm":
        sys.exit(confirm())
    else:
        sys.exit(measure())
