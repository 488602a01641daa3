"""A fails-when site (derive/sites/fails_when/rules.py) as a rule file: its text, name and examples."""

from __future__ import annotations

import hashlib

from sglang_lint.derive.sites.fails_when.examples import write_value
from sglang_lint.derive.sites.fails_when.examples import PathSite
from sglang_lint.derive.source.generated import GENERATED_MARK, toml_string, toml_value
from sglang_lint.derive.reading.guards import shown_message
from sglang_lint.text.pynames import NOT_LITERAL


def _example(site: PathSite, env: dict) -> str:
    """The call with these values (keywords where the parameter takes one)."""
    kind, name = site.target
    positional, keywords, made_with = [], [], []
    for parameter in site.parameters:
        if parameter.name not in env:
            continue
        value = env[parameter.name]
        if parameter.receiver:  # the constructor's: the receiver is made with it
            made_with.append(f"{parameter.name}={write_value(value)}")
            continue
        if parameter.var == "**":
            keywords += [f"{key}={write_value(item)}" for key, item in value.items()]
        elif parameter.keyword:
            keywords.append(f"{parameter.name}={write_value(value)}")
        else:
            positional.append((parameter.position, write_value(value)))
    # A positional-only argument needs every one before it: None stands for those the path does not read.
    written = {position: text for position, text in positional}
    arguments = [written.get(i, "None") for i in range(max(written) + 1)] if written else []
    shown = ", ".join(arguments + keywords)
    written_all = shown + ", ".join(made_with)
    # the standard library's imports, then torch, then sglang's (isort's order)
    first = [line for line, used in (("from types import SimpleNamespace", "SimpleNamespace(" in written_all),
                                     ("import torch", "torch." in written_all)) if used]
    # the enums whose members the values name, imported where sglang defines them
    first += [f"from {e.qualified.rpartition('.')[0]} import {e.qualified.rpartition('.')[2]}" for e in site.enums
              if f"{e.qualified.rpartition('.')[2]}." in written_all]
    if kind == "method":
        # the receiver made at the call, evidence of its class (its arguments unknown: no check of its own)
        module, _, cls = site.receivers[0].rpartition(".")
        made = ", ".join(made_with) if made_with else "*args, **kwargs"
        return "\n\n".join([*first, f"from {module} import {cls}", f"{cls}({made}).{name}({shown})"])
    module, _, callee = name.rpartition(".")
    return "\n\n".join([*first, f"from {module} import {callee}", f"{callee}({shown})"])


def path_rule_name(site: PathSite) -> str:
    words = f"{site.function.split('.')[-1] if not site.function.endswith('__init__') else site.function} " \
            f"{site.named_by or site.exception}"
    slug = "-".join(w for w in "".join(c.lower() if c.isalnum() else " " for c in words).split() if w not in ("init",))
    return slug[:60].rstrip("-") or "raise"


def path_rule_text(site: PathSite, code: str, version: str, since: str | None = None) -> str:
    kind, name = site.target
    summary = f"{site.exception}: {site.message}" if site.message else site.exception
    title = f"{site.function}: {site.message or site.exception}"
    lines = [
        GENERATED_MARK,
        f"code = {toml_string(code)}",
        f"name = {toml_string(path_rule_name(site))}",
        f"title = {toml_string(title if len(title) <= 100 else title[:97] + '...')}",
        f"catalog_id = {toml_string(hashlib.sha1(site.key.encode()).hexdigest()[:16])}",
        "",
        "[raise_site]",
        f"module = {toml_string(site.module)}",
        f"function = {toml_string(site.function)}",
        f"exception = {toml_string(site.exception.rsplit('.', 1)[-1] or 'Exception')}",
        f"message = {toml_string(shown_message(site.exception, site.message))}",
        f"line = {site.line}",
        f"sglang_version = {toml_string(version)}",
        f"since = {toml_string(since or version)}",
        "",
        "[derived]",
        f"key = {toml_string(site.key)}",
        f"constraint = {toml_string('not (' + site.when + ')')}",
        "",
        "[[check]]",
        "kind = \"fails-when\"",
        f"summary = {toml_string(summary)}",
        f"when = {toml_string(site.when)}",
        *([f"shown = [{', '.join(toml_string(t) for t in site.shown)}]"] if site.shown else []),
        "",
        "[[check.target]]",
        f"{kind} = {toml_string(name)}",
        *([f"receivers = [{', '.join(toml_string(r) for r in site.receivers)}]"] if site.receivers else []),
        *(["on_class = true"] if site.on_class else []),
        *(["called = true"] if site.called else []),
    ]
    read = site.read
    for parameter in site.parameters:
        if parameter.name not in read:
            continue
        lines += ["", "[[check.parameter]]", f"name = {toml_string(parameter.name)}"]
        if parameter.position is not None and not parameter.var:
            lines.append(f"position = {parameter.position}")
        if not parameter.keyword and not parameter.var:
            lines.append("keyword = false")
        if parameter.var:
            lines.append(f"var = {toml_string(parameter.var)}")
        if parameter.others:
            lines.append("others = [" + ", ".join(toml_string(n) for n in parameter.others) + "]")
        if parameter.receiver:
            lines.append("receiver = true")
        if parameter.default is None:
            lines.append("default_none = true")
        elif isinstance(parameter.default, (tuple, list, dict, set)):
            lines.append(f"default_literal = {toml_string(repr(parameter.default))}")
        elif parameter.default is not NOT_LITERAL:
            lines.append(f"default = {toml_value(parameter.default)}")
    for qualified, record in site.records:
        lines += ["", "[[check.record]]", f"class = {toml_string(qualified)}",
                  "fields = [" + ", ".join(toml_string(f) for f in record.fields) + "]",
                  f"positional = {record.positional}"]
        if record.defaults:
            lines.append(f"defaults = {toml_string(repr(record.defaults))}")
    for enum in site.enums:
        lines += ["", "[[check.enum]]", f"class = {toml_string(enum.qualified)}",
                  "members = [" + ", ".join(toml_string(m) for m in enum.members) + "]"]
        if enum.falsy:
            lines.append("falsy = [" + ", ".join(toml_string(m) for m in enum.falsy) + "]")
        if not enum.plain:
            lines.append("plain = false")
        if enum.aliases:
            lines.append("aliases = [" + ", ".join(toml_string(a) for a in enum.aliases) + "]")
    why = (
        f"sglang's {site.function} ({site.module}, line {site.line} in {version}) raises {summary!r} when "
        f"{site.when}: the path to the raise, with the function's own names replaced by what they were computed "
        "from. When the arguments that expression reads are known at the call (literals, names bound to them, "
        "tensors made there, the parameters' defaults), the outcome is certain; this rule reports the calls for "
        "which it is certainly true."
    )
    lines += [
        "",
        "[docs]",
        f"why = {toml_string(why)}",
        f"bad = {toml_string(_example(site, site.bad))}",
        f"good = {toml_string(_example(site, site.good))}",
        "",
    ]
    return "\n".join(lines)
