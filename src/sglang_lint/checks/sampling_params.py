"""sampling-params: a request's sampling parameters that the target release rejects when it
validates the request (``rules/derived/sampling.toml``): a key ``SamplingParams`` does not take
(``TypeError``), or values its construction, ``normalize`` or ``verify`` refuse (``ValueError``:
``temperature`` below 0, ``top_p`` outside (0, 1], two grammars at once ...).

Where users write them: the ``sampling_params`` of ``Engine.generate``/``async_generate`` (a
dict, or a list of them for a batch), and the ``sampling_params`` of the JSON body posted to a
server's ``/generate`` endpoint (``requests.post(f"{url}/generate", json={...})``). Each dict is
read however it was built (keys added in steps, ``dict(...)``, ``**`` of another); only the
keys a dict certainly holds count, and the release's defaults stand for no key (a server may
set its own: ``--preferred-sampling-params``, the model's generation config)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.built import dict_versions
from sglang_lint.catalog.release_runs import JudgedReleases, in_runs
from sglang_lint.checks.base import CheckKind, argument_of, rename_hint, target_trigger
from sglang_lint.checks.server_args.startup import StartupTable, findings, keyword_launch, load_startup
from sglang_lint.core.model import Finding, Fix
from sglang_lint.core.rulefile import read_toml

GENERATE_PATH = "/generate"  # the native endpoint whose JSON body carries "sampling_params"
BODY_KEY = "sampling_params"


@dataclass(frozen=True)
class SamplingTable(JudgedReleases):
    checks: StartupTable
    fields: dict  # key -> runs of releases that take it
    releases: tuple  # every release of the table
    judged: tuple = ()

    def takes(self, key: str) -> bool:
        """Does some judged release take the key?"""
        runs = self.fields.get(key, ())
        return any(in_runs(runs, r) for r in self.targets)

    def keys(self) -> list[str]:
        return sorted(key for key in self.fields if self.takes(key))

    def change(self, key: str) -> str:
        return self.runs_change(self.fields.get(key, ()))


@dataclass(frozen=True)
class SamplingCheck:
    path: Path  # derived/sampling.toml, read on first need (once per process)
    judged: tuple = ()  # the target releases (empty: the newest)

    def for_releases(self, releases) -> "SamplingCheck":
        return dataclasses.replace(self, judged=tuple(releases))

    @property
    def table(self) -> SamplingTable:
        table = load_sampling(self.path)
        return table.for_releases(self.judged) if self.judged else table


@lru_cache(maxsize=4)
def load_sampling(path: Path) -> SamplingTable:
    data = read_toml(path)
    fields = {key: tuple(tuple(run) for run in runs) for key, runs in data.get("fields", {}).items()}
    return SamplingTable(load_startup(path), fields, tuple(data.get("releases", ())))


def parse(fields, targets):
    path = fields.path.parent / fields.str("table")
    if not path.is_file():
        raise fields.error("table", f"{path} does not exist (run `sglang-lint catalog derive`)")
    try:
        load_sampling(path)
    except ValueError as error:
        raise fields.error("table", str(error)) from None
    return SamplingCheck(path)


def _dicts(site, target) -> list:
    """The dict expressions that are a request's sampling parameters at this call: the argument
    (each item of a list of them), or the ``sampling_params`` of a ``/generate`` JSON body."""
    arg = argument_of(site.node, target.argument, target.position, site)
    if arg is None:
        return []
    if target.takes == "mapping":  # a request body: only where the call posts to /generate
        if not _posts_to_generate(site):
            return []
        found = []
        for version in dict_versions(site.model, arg.value, site.scope, site.where):
            entry = version.entries.get(BODY_KEY)
            if entry is not None and entry.value is not None and entry.certain:
                found.append((entry.value, entry.scope, entry.where))
        return found
    value = arg.value
    if isinstance(value, (cst.List, cst.Tuple)):
        return [(e.value, site.scope, site.where) for e in value.elements if isinstance(e, cst.Element)]
    return [(value, site.scope, site.where)]


def _posts_to_generate(site) -> bool:
    """Is the call's URL (its first argument, or ``url=``) written to end with /generate?"""
    arg = argument_of(site.node, "url", 0, site)
    if arg is None:
        return False
    node = arg.value
    known = site.model.evaluate(node, site.scope, site.where)
    if len(known) == 1 and isinstance(known[0].value, str):
        return known[0].value.rstrip("/").endswith(GENERATE_PATH)
    if isinstance(node, cst.FormattedString) and node.parts and isinstance(node.parts[-1], cst.FormattedStringText):
        return node.parts[-1].value.rstrip("/").endswith(GENERATE_PATH)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        right = site.model.evaluate(node.right, site.scope, site.where)
        return len(right) == 1 and isinstance(right[0].value, str) and right[0].value.endswith(GENERATE_PATH)
    return False


def _an_object(site, node, table: SamplingTable) -> Finding | None:
    """``sampling_params=SamplingParams(temperature=0.5)``: sglang reads a dict there (``.get``,
    ``[0]``, ``SamplingParams(**params)``), and an object of the class raises TypeError. Fixed to
    the dict of its keywords where it passes keywords only."""
    if not isinstance(node, cst.Call):
        return None
    name = site.model.qualify(node.func, site.scope) or ""
    if not (name.startswith("sglang.") and name.rpartition(".")[2] == "SamplingParams") or "multimodal" in name:
        return None
    fix = None
    if all(arg.keyword is not None and not arg.star for arg in node.args):
        code = cst.Module([]).code_for_node
        text = "{" + ", ".join(f'"{arg.keyword.value}": {code(arg.value)}' for arg in node.args) + "}"
        fix = Fix(node, code(node), text, True)
    return Finding(node, f"a SamplingParams object where sglang {table.version} reads a dict of sampling parameters: "
                         "TypeError when the request is built (pass its keys as a dict"
                         f"{'; fixable with `sglang-lint --fix`' if fix else ''})", fix)


def run(site, rule, check, target):
    table: SamplingTable = check.params.table
    seen = set()
    for node, scope, where in _dicts(site, target):
        wrong = _an_object(site, node, table) if scope is site.scope else None
        if wrong is not None:
            yield wrong
            continue
        for version in dict_versions(site.model, node, scope, where):
            entries = [e for e in version.entries.values() if e.certain]
            for entry in entries:
                if not table.takes(entry.key) and (id(entry.key_node), entry.key) not in seen:
                    seen.add((id(entry.key_node), entry.key))
                    hint, fix = rename_hint(entry.key, table.keys(), entry.key_node)
                    hint = hint or _wider(entry.key, table.keys())
                    yield Finding(entry.key_node, f"sampling parameter {entry.key!r} is not one sglang "
                                                  f"{table.version} takes{table.change(entry.key)}{hint}: "
                                                  "SamplingParams raises TypeError", fix)
            launch = keyword_launch(site, entries, dict.fromkeys(table.fields), complete=False)
            launch = dataclasses.replace(launch, anchor=node)
            for found, message in findings(table.checks, launch, table.targets, table.version,
                                           when="when it validates the request"):
                if found is not None and (id(found), message) not in seen:
                    seen.add((id(found), message))
                    yield Finding(found, message)


def _wider(key: str, keys: list[str]) -> str:
    """`` (did you mean 'max_new_tokens'?)`` where one key, and one only, has every word of
    ``key`` in its order and more (``max_tokens``, as OpenAI's API and sglang's frontend call it)."""
    words = key.split("_")

    def holds(other: list[str]) -> bool:
        found = iter(other)
        return all(word in found for word in words)

    wider = [k for k in keys if len(k.split("_")) > len(words) and holds(k.split("_"))]
    return f" (did you mean {wider[0]!r}?)" if len(wider) == 1 else ""


def triggers(check):
    return [target_trigger(target, *((BODY_KEY, GENERATE_PATH) if target.takes == "mapping" else ()))
            for target in check.targets]


KIND = CheckKind(name="sampling-params", site="call", parse=parse, run=run, triggers=triggers,
                 fix_safety=lambda check: "safe fix: a SamplingParams object built of keywords becomes the dict of "
                                          "them (`sglang-lint --fix`); a misspelt key is not renamed")
