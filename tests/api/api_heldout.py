"""The held-out set of mistakes in calls of sglang's Python API (``heldout.json``), each one
confirmed by making the call for real (api_harness.py) in the release it names.

    python tests/api/api_heldout.py [--cases N] [--seed S]

Cases are drawn with a fixed seed, independently of sglang-lint's own tables: a release (any of
the 42), a surface (the weights below), a callable of that surface as ``inspect`` reads the real
object in that release, and one kind of mistake users make with it:

- ``typo``: a keyword the callable takes, misspelt (a letter dropped or two swapped);
- ``other release``: a keyword the same callable takes in another release only;
- ``extra positional``: one argument more by position than it takes (of callables that take
  at most four);
- ``missing``: a required argument left out;
- ``absent``: a method the class has in another release only;
- ``server argument``: a keyword of a class that builds ServerArgs from its keywords, misspelt
  (confirmed by ``ServerArgs(**keywords)``, which that class calls with them);
- registries (``typo``, ``other release``): a parser's name on a launch flag
  (``--tool-call-parser``, ``--reasoning-parser``) that the release's registry does not hold:
  misspelt, or registered by another release only; confirmed by the launch's own parsing
  (tests/startup/harness.py): argparse's ``invalid choice``;
- sampling parameters (``unknown key``, ``value``, ``two grammars``): a key misspelt, a number
  drawn from edge values, two grammars at once, confirmed as sglang's tokenizer manager takes a
  request (``SamplingParams(**params)``, ``normalize``, ``verify``): kept where it raises.

The good twin is the same call written right. A case is kept when the harness confirms both:
the bad call raises ``TypeError`` before the body runs (or ``AttributeError``: ``absent``), the
good one binds. A case the harness cannot tell (an import that fails under the stubs) is
redrawn, and counted in the file."""

from __future__ import annotations

import argparse
import json
import random
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import api_harness  # noqa: E402

HELDOUT = HERE / "heldout.json"
RELEASES = tomllib.loads((ROOT / "rules" / "derived" / "server_args.toml").read_text())["releases"]
# (surface, module, class or None, how users reach it, weight)
SURFACES = [
    ("Engine methods", "sglang.srt.entrypoints.engine", "Engine", "engine", 40),
    ("launch helpers", "sglang.utils", None, "from", 15),
    ("test helpers", "sglang.test.test_utils", None, "from", 15),
    ("frontend language", "sglang.lang.api", None, "sgl", 15),
    ("RuntimeEndpoint", "sglang.lang.backend.runtime_endpoint", "RuntimeEndpoint", "endpoint", 5),
    ("Runtime keywords", "sglang.lang.backend.runtime_endpoint", "Runtime", "runtime", 10),
    ("sampling parameters", "sglang.srt.sampling.sampling_params", "SamplingParams", "sampling", 30),
    ("registries", "sglang.srt.server_args", None, "launch", 15),
]
REGISTRIES = ("tool_call_parser", "reasoning_parser")  # the parsers a launch names, by flag
MODEL = "meta-llama/Llama-3.1-8B-Instruct"
# Values a user may write for a numeric sampling parameter (drawn at random; a case is kept only
# where sglang raises on it).
EDGE_VALUES = (-2.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3, 100)
GRAMMARS = {"regex": "(yes|no)", "json_schema": '{"type": "object"}', "ebnf": 'root ::= "a"'}
# sglang.lang.api's own names that are not the frontend's calls (its re-exports, helpers)
SKIP = {"Runtime", "Engine", "set_default_backend", "flush_cache", "get_server_info"}
POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")
MOST_POSITIONAL = 4  # an extra argument by position is drawn for callables that take at most this many


def _describe(release: str, module: str, owner: str | None, cache: dict) -> dict | None:
    key = (release, module, owner)
    if key not in cache:
        done = api_harness.call(release, {"describe": True, "module": module, "owner": owner})
        cache[key] = done.get("members") if done.get("outcome") == "described" else None
    return cache[key]


def _typo(name: str, rng: random.Random) -> str:
    if len(name) > 4 and rng.random() < 0.5:
        at = rng.randrange(1, len(name) - 2)
        return name[:at] + name[at + 1] + name[at] + name[at + 2:]
    at = rng.randrange(1, len(name) - 1)
    return name[:at] + name[at + 1:]


def _required_call(params: list) -> tuple[list, dict]:
    """Arguments for every required parameter: by position where it may go so, else by keyword."""
    args, kwargs = [], {}
    for name, kind, default, _ in params:
        if default or kind in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            continue
        if kind in POSITIONAL and not kwargs:
            args.append("x")
        else:
            kwargs[name] = "x"
    return args, kwargs


def draw(rng: random.Random, cache: dict) -> dict | None:
    surface, module, owner, reach, _ = rng.choices(SURFACES, weights=[s[4] for s in SURFACES])[0]
    release = rng.choice(RELEASES)
    members = _describe(release, module, owner, cache)
    if not members:
        return None
    if surface == "Runtime keywords":
        return _server_argument_case(rng, release, cache)
    if surface == "sampling parameters":
        return _sampling_case(rng, release, members[""]["params"]) if "" in members else None
    if surface == "registries":
        return _registry_case(rng, release)
    names = sorted(n for n in members if n and n not in SKIP) if owner != "RuntimeEndpoint" else sorted(members)
    kinds = ["typo", "other release", "extra positional", "missing"] + (["absent"] if owner == "Engine" else [])
    kind = rng.choice(kinds)
    if kind == "absent":
        other = _describe(rng.choice(RELEASES), module, owner, cache) or {}
        missing = sorted(set(other) - set(members) - {""})
        if not missing:
            return None
        name = rng.choice(missing)
        args, kwargs = _required_call(other[name]["params"])
        good_name = rng.choice(names)
        good_args, good_kwargs = _required_call(members[good_name]["params"])
        return _case(release, surface, module, owner, reach, kind, (name, args, kwargs),
                     (good_name, good_args, good_kwargs))
    name = rng.choice(names)
    params = members[name]["params"]
    args, kwargs = _required_call(params)
    good = (name, args, kwargs)
    keywords = [p for p, k, *_ in params if k in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")]
    takes_any = any(k == "VAR_KEYWORD" for _, k, *_ in params)
    if kind == "typo":
        optional = {p: value for p, k, d, value in params if d and k in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")}
        if not optional or takes_any:
            return None
        chosen = rng.choice(sorted(optional))
        wrong = _typo(chosen, rng)
        if wrong in keywords:
            return None
        value = optional[chosen] if optional[chosen] is not None else 1  # (its default where it has a plain one)
        return _case(release, surface, module, owner, reach, kind, (name, args, {**kwargs, wrong: value}),
                     (name, args, {**kwargs, chosen: value}))
    if kind == "other release":
        other = (_describe(rng.choice(RELEASES), module, owner, cache) or {}).get(name)
        if not other or takes_any:
            return None
        foreign = sorted({p for p, k, *_ in other["params"] if k in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")}
                         - set(keywords))
        if not foreign:
            return None
        return _case(release, surface, module, owner, reach, kind, (name, args, {**kwargs, rng.choice(foreign): 1}),
                     good)
    if kind == "extra positional":
        if any(k == "VAR_POSITIONAL" for _, k, *_ in params) or kwargs:
            return None
        most = sum(k in POSITIONAL for _, k, *_ in params)
        if most > MOST_POSITIONAL:
            return None  # (nobody passes thirty arguments by position)
        return _case(release, surface, module, owner, reach, kind, (name, ["x"] * (most + 1), {}), good)
    required = [p for p, k, d, *_ in params if not d and k not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
    if not required:
        return None
    drop = rng.choice(required)
    if drop in kwargs:
        bad = (name, args, {k: v for k, v in kwargs.items() if k != drop})
    else:
        at = [p for p, k, d, *_ in params if not d and k in POSITIONAL].index(drop)
        if at != len(args) - 1:
            return None  # (dropping a middle one shifts the others: another mistake)
        bad = (name, args[:-1], kwargs)
    return _case(release, surface, module, owner, reach, kind, bad, good)


def _server_argument_case(rng: random.Random, release: str, cache: dict) -> dict | None:
    fields = _describe(release, "sglang.srt.server_args", "ServerArgs", cache)
    if not fields or "" not in fields:
        return None
    defaults = {p: value for p, k, d, value in fields[""]["params"]
                if d and value is not None and k in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")}
    if not defaults:
        return None
    chosen = rng.choice(sorted(defaults))
    wrong = _typo(chosen, rng)
    if wrong in defaults:
        return None
    base = {"model_path": "meta-llama/Llama-3.1-8B-Instruct"}  # (the field's own default: a value it takes)
    return _case(release, "Runtime keywords", "sglang.lang.backend.runtime_endpoint", "Runtime", "runtime",
                 "server argument", (None, [], {**base, wrong: defaults[chosen]}),
                 (None, [], {**base, chosen: defaults[chosen]}))


def _sampling_case(rng: random.Random, release: str, params: list) -> dict | None:
    """A request's sampling parameters: a key misspelt, a number sglang refuses, or two
    grammars at once; beside ``temperature`` 0.7 (a usual request's), the good twin with the
    key spelt right, the parameter's default, or one grammar."""
    defaults = {p: value for p, _, d, value in params if d}
    base = {"temperature": 0.7}
    kind = rng.choice(["unknown key", "value", "value", "two grammars"])
    if kind == "unknown key":
        chosen = rng.choice(sorted(defaults))
        wrong = _typo(chosen, rng)
        if wrong in defaults:
            return None
        value = defaults[chosen] if defaults[chosen] is not None else 1
        bad, good = {**base, wrong: value}, {**base, chosen: value}
    elif kind == "value":
        numbers = sorted(p for p, value in defaults.items() if isinstance(value, (int, float))
                         and not isinstance(value, bool))
        chosen = rng.choice(numbers)
        bad = {**base, chosen: rng.choice(EDGE_VALUES)}
        good = {**base, chosen: defaults[chosen]}
    else:
        first, second = rng.sample(sorted(g for g in GRAMMARS if g in defaults), 2)
        bad, good = {**base, first: GRAMMARS[first], second: GRAMMARS[second]}, {**base, first: GRAMMARS[first]}
    return {"release": release, "surface": "sampling parameters", "module": "sglang.srt.sampling.sampling_params",
            "owner": "SamplingParams", "reach": "sampling", "kind": kind,
            "bad": {"sampling": bad}, "good": {"sampling": good}}


def _registry_case(rng: random.Random, release: str) -> dict | None:
    """A parser's name a launch flag looks up in sglang's registry: misspelt, or one that only
    another release registers; the good twin names one this release has."""
    dest = rng.choice(REGISTRIES)
    here = api_harness.call(release, {"module": "sglang.srt.server_args", "choices": dest})
    if here.get("outcome") != "described" or not here["choices"]:
        return None
    names, flag = here["choices"], here["flags"][0]
    kind = rng.choice(["typo", "other release"])
    if kind == "typo":
        chosen = rng.choice(names)
        wrong = _typo(chosen, rng)
    else:
        other = api_harness.call(rng.choice(RELEASES), {"module": "sglang.srt.server_args", "choices": dest})
        foreign = sorted(set(other.get("choices", ())) - set(names))
        if not foreign:
            return None
        wrong, chosen = rng.choice(foreign), rng.choice(names)
    if wrong in names:
        return None
    return {"release": release, "surface": "registries", "module": "sglang.srt.server_args", "owner": None,
            "reach": "launch", "kind": kind, "bad": {"argv": ["--model-path", MODEL, flag, wrong]},
            "good": {"argv": ["--model-path", MODEL, flag, chosen]}}


def _case(release, surface, module, owner, reach, kind, bad, good) -> dict:
    def call(parts):
        name, args, kwargs = parts
        return {"name": name, "args": args, "kwargs": kwargs}

    return {"release": release, "surface": surface, "module": module, "owner": owner, "reach": reach,
            "kind": kind, "bad": call(bad), "good": call(good)}


def confirm(case: dict) -> dict:
    """The harness's verdicts on the bad and the good call."""
    if case["kind"] == "server argument":  # (Runtime hands them to ServerArgs(**keywords))
        module, owner = "sglang.srt.server_args", "ServerArgs"
    else:
        module, owner = case["module"], case["owner"]
    verdicts = {}
    for which in ("bad", "good"):
        if case["surface"] == "registries":  # (the launch's own parsing and validation: the start-up harness)
            verdicts[which] = {k: v for k, v in api_harness.harness.run(case["release"], case[which]["argv"]).items()
                               if k != "traceback"}
            continue
        if case["surface"] == "sampling parameters":
            verdicts[which] = {k: v for k, v in api_harness.call(
                case["release"], {"module": module, **case[which]}).items() if k != "traceback"}
            continue
        spec = {"module": module, "owner": owner, **case[which]}
        if case["kind"] == "server argument":
            spec["name"] = None
        verdicts[which] = {k: v for k, v in api_harness.call(case["release"], spec).items() if k != "traceback"}
    return verdicts


def confirmed(case: dict, verdicts: dict) -> bool:
    if case["surface"] == "registries":
        bad = verdicts["bad"]
        return bad["outcome"] == "argparse" and "invalid choice" in bad.get("message", "") \
            and verdicts["good"]["outcome"] == "passed"
    if case["surface"] == "sampling parameters":  # (sglang raised on the bad one, took the good one whole)
        wanted = ("binding",) if case["kind"] == "unknown key" else ("raised",)
        return verdicts["bad"]["outcome"] in wanted and verdicts["good"]["outcome"] == "passed"
    bad = verdicts["bad"]["outcome"] in (("absent",) if case["kind"] == "absent" else ("binding",))
    return bad and verdicts["good"]["outcome"] == "bound"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--seed", type=int, default=44)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    cache: dict = {}
    cases, redrawn, refused = [], 0, 0
    while len(cases) < options.cases:
        case = draw(rng, cache)
        if case is None:
            redrawn += 1
            continue
        verdicts = confirm(case)
        if case["kind"] == "value" and verdicts["bad"]["outcome"] == "passed":
            redrawn += 1  # (a value sglang takes: no mistake drawn)
            continue
        if not confirmed(case, verdicts):
            refused += 1
            print("not confirmed:", json.dumps(case), json.dumps(verdicts), file=sys.stderr)
            continue
        case["id"] = f"{len(cases):03d}"
        case["verdicts"] = verdicts
        cases.append(case)
        print(case["id"], case["release"], case["surface"], case["kind"], case["bad"], file=sys.stderr)
    HELDOUT.write_text(json.dumps({"seed": options.seed, "redrawn": redrawn, "not_confirmed": refused,
                                   "cases": cases}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
