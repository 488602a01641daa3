"""The held-out set of calls that name an entry of an sglang registry (heldout.json), written
before the deriver read such lookups: its confirmation with each release's own code, and what
sglang-lint catches of it.

    python tests/registries/heldout.py confirm        each probe run by the release's code, both ways
    python tests/registries/heldout.py derive OUT     OUT/<release>: the curated rules and the rules
                                                      derived from that release's own tree
    python tests/registries/heldout.py measure [OUT]  caught (a finding on the bad call's line) and
                                                      false alarms, against OUT/<release> (default:
                                                      the shipped catalog)

A case: the release, the registry (the dict's qualified name), the file with the bad call and
its good twin, the line of the bad call, and the probe: the callable, the arguments it is
given, the argument the name goes to, the bad and the good name, and the start of the message
the lookup raises. ``confirm`` runs the callable of the release (tests/startup/harness.py's
child: the release's tree on sys.path, every other package stubbed) with each name, and
records what it raised; where the callable cannot be reached under the stubs, the dict is read
from the imported module instead. ``refused``: calls into registries a plugin may extend at run
time, which no finding may name.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(TESTS / "startup"), str(TESTS)]

import harness  # noqa: E402 (the start-up harness: its child's setup and its spawner)

CASES = TESTS / "registries" / "heldout.json"


def confirm() -> int:
    """Each case's probe run by its release's code; 'confirmed' written into the cases."""
    data = json.loads(CASES.read_text())
    wrong = 0
    releases = {case["release"] for case in data["cases"]}
    for release, mine in ((r, [c for c in data["cases"] if c["release"] == r]) for r in sorted(releases)):
        verdicts = harness.spawn(Path(__file__), release,
                                 {"probes": [{**case["probe"], "registry": case["registry"]} for case in mine]})
        if "probes" not in verdicts:
            print(f"BAD {release}: the child gave no verdicts: {verdicts}")
            wrong += len(mine)
            continue
        for case, verdict in zip(mine, verdicts["probes"]):
            ok = verdict["bad"]["fails"] and not verdict["good"]["fails"]
            wrong += not ok
            case["confirmed"] = {"by": verdict["by"], "bad": verdict["bad"]["said"], "good": verdict["good"]["said"]}
            print(f"{'ok ' if ok else 'BAD'} {release:<13} {case['id']:<24} by {verdict['by']:<6} "
                  f"{verdict['bad']['said']} | good: {verdict['good']['said']}")
    CASES.write_text(json.dumps(data, indent=1) + "\n")
    return 1 if wrong else 0


def _child(tree: str, payload, deps: str, gpu: str) -> dict:
    import importlib

    machine = harness.setup(tree, deps, gpu)
    _standard_stand_ins()
    found = []
    for probe in payload["probes"]:
        _stub_sglang_modules(machine.rp, probe.get("stubbed", ()))
        try:
            module = importlib.import_module(probe["module"])
        except BaseException as exc:  # noqa: BLE001
            found.append({"by": "none", **{side: {"fails": None, "said": f"import failed: {exc!r}"[:300]}
                                           for side in ("bad", "good")}})
            continue
        called = {side: _call(module, probe, probe[f"{side}_value"]) for side in ("bad", "good")}
        if called["bad"]["fails"] and called["good"]["fails"] is False:
            found.append({"by": "call", **called})
            continue
        # the callable is out of reach under the stubs: the dict itself, read from the module
        registry = module
        for part in probe["registry"][len(probe["module"]) + 1:].split("."):
            registry = getattr(registry, part)
        judged = {}
        for side in ("bad", "good"):
            value = probe[f"{side}_value"]
            key = value.lower() if probe.get("fold") == "lower" else value
            judged[side] = {"fails": key not in registry,
                            "said": f"{key!r} {'not ' if key not in registry else ''}in {probe['registry']}"}
        found.append({"by": "lookup", **judged})
    return {"probes": found}


def _standard_stand_ins() -> None:
    """Two packages the registries' modules use at import time, whose stubs break it: ``regex``
    (its patterns built from ``re.escape``) as the standard ``re``, and ``typing_extensions``
    (``ParamSpec`` in a ``Callable[...]``) as ``typing``, a stub for what ``typing`` lacks."""
    import re
    import types
    import typing

    sys.modules["regex"] = re
    extensions = types.ModuleType("typing_extensions")
    stub = sys.modules.get("typing_extensions")

    def missing(name):
        if hasattr(typing, name):
            return getattr(typing, name)
        if stub is not None:
            return getattr(stub, name)
        raise AttributeError(name)

    extensions.__getattr__ = missing
    sys.modules["typing_extensions"] = extensions


def _stub_sglang_modules(rp, names) -> None:
    """Modules of sglang itself stubbed for a probe (a platform's detection, run at import time,
    that the lookup does not read)."""
    import importlib.abc
    import importlib.machinery

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if any(name == stubbed or name.startswith(stubbed + ".") for stubbed in names):
                return importlib.machinery.ModuleSpec(name, rp._StubLoader(), is_package=True)
            return None

    if names:
        sys.meta_path.insert(0, Finder())


def _call(module, probe: dict, value: str) -> dict:
    """The callable run with the name: does it raise the lookup's error?"""
    function = getattr(module, probe["callable"])
    try:
        function(*probe["args"], **{probe["argument"]: value})
    except BaseException as exc:  # noqa: BLE001
        said = f"{type(exc).__name__}: {exc}"[:300]
        return {"fails": str(exc).startswith(probe["expect"]), "said": said}
    return {"fails": False, "said": "returned"}


def derive(out: Path) -> int:
    from heldout_kit import derive_releases

    data = json.loads(CASES.read_text())
    return derive_releases(out, {case["release"] for case in [*data["cases"], *data["refused"]]}, paths=False)


def measure(out: Path | None) -> int:
    from heldout_kit import case_texts, measure as measured

    data = json.loads(CASES.read_text())
    rules = (lambda release: out / release) if out is not None else None
    measured(data["cases"], case_texts, lambda d: True, rules)
    # a registry a plugin may extend: no finding on its names (each text is its own good twin)
    print("refused (registries a plugin may extend):")
    _, flagged = measured(data["refused"], lambda c: (c["file"], c["text"], c["text"], 0), lambda d: True, rules)
    print(f"calls into a registry a plugin may extend flagged: {len(flagged)}/{len(data['refused'])}")
    return 0


if __name__ == "__main__":
    from heldout_kit import main

    sys.exit(main(sys.argv, _child, confirm, derive, measure))
