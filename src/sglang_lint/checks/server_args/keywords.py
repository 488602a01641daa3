"""The keywords of a call that builds the LLM server's arguments (``sgl.Engine(...)``,
``ServerArgs(...)``, a mapping handed on), each once however the call passes it, and what the
``unknown`` aspect (a name no field has) and the value aspects (values.py) say of them."""

from __future__ import annotations

from sglang_lint.analysis.built import Entry, dict_versions
from sglang_lint.checks.base import argument_of, did_you_mean, rename_fix
from sglang_lint.checks.server_args import diffusion
from sglang_lint.checks.server_args.advice import foreign_hint, unexplained_hint
from sglang_lint.checks.server_args.params import ServerArgsCheck
from sglang_lint.checks.server_args.values import cst_items, judge_value
from sglang_lint.core.model import Finding


def call_keywords(site, target=None):
    """Each keyword of the call as a :class:`~sglang_lint.analysis.built.Entry` (a keyword written in
    it, or a key of a ``**`` dict however it was built, each key once); for a target that
    takes a mapping, the keys of that argument."""
    if target is not None and target.takes == "mapping":
        arg = argument_of(site.node, target.argument, target.position, site)
        if arg is not None:
            yield from _keys(site, arg.value, ())
        return
    exclude = target.exclude if target is not None else ()
    for arg in site.node.args:
        if arg.keyword is not None:
            if arg.keyword.value not in exclude:
                yield Entry(arg.keyword.value, arg.keyword, arg.value, site.scope, site.where)
        elif arg.star == "**":
            yield from _keys(site, arg.value, exclude)


def _keys(site, node, exclude):
    seen = set()
    for version in dict_versions(site.model, node, site.scope, site.where):
        for entry in version.entries.values():
            if id(entry.key_node) not in seen and entry.key not in exclude:
                seen.add(id(entry.key_node))
                yield entry


def run_keywords(site, params: ServerArgsCheck, target):
    fields = params.table.fields
    if diffusion.may_pass(site, target.unless):
        return  # (a keyword that may stop the hand-off: the others may not be server arguments)
    for keyword in call_keywords(site, target):
        name, name_node, value = keyword.key, keyword.key_node, keyword.value
        field = fields.get(name)
        if field is None:
            if params.aspect == "unknown" and name not in params.extra_names:
                aliased = params.table.by_flag.get("--" + name.replace("_", "-"))
                if aliased is not None:
                    # tensor_parallel_size=: the keyword of an alias flag (--tensor-parallel-size)
                    # is the field it sets, with certainty.
                    fix = rename_fix(name_node, aliased.name, True)
                    hint = did_you_mean(repr(aliased.name), fix)
                    hint = f"; --{name.replace('_', '-')} is the launch flag of {aliased.name}{hint}"
                else:
                    hint, fix = foreign_hint(params.foreign, name, params.table, name_node, keyword=True)
                change = params.table.field_change(name)
                if not hint:
                    newer = params.table.history.get(name)
                    hint, fix = unexplained_hint(name, change, params.table, fields, name_node, keyword=True,
                                                 flags=set(newer.flags) if newer is not None else None)
                yield Finding(
                    name_node,
                    f"{target.display}({name}=...): sglang {params.table.version} has no server argument "
                    f"{name!r}{change}{hint}",
                    fix,
                )
            continue
        if value is None:
            continue
        for item in cst_items(field, value):
            for known in site.model.evaluate(item, keyword.scope, keyword.where):
                judged = judge_value(params, field, known, f"{target.display}({name}=", ")")
                if judged is not None:
                    yield Finding(known.node, *judged)
