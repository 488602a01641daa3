"""Rule documentation, from the rule files themselves: ``sglang-lint explain CODE`` (text or
Markdown) and the generated ``docs/rules.md`` (``sglang-lint catalog docs``), laid out as
ruff's rule pages are: what it checks, the sglang raise site, why, bad and good examples,
fix safety."""

from __future__ import annotations

from typing import Iterable

HEADER = (
    "# sglang-lint rules\n\n"
    "Generated from `rules/` by `sglang-lint catalog docs`; do not edit (a test fails when it is\n"
    "out of date). `sglang-lint explain CODE` prints one entry.\n"
)


def _target(target) -> str:
    kind = {"method": "method", "attribute": "attribute", "class": "class", "function": "function"}[target.kind]
    where = f"`{target.name}`" if target.kind in ("function", "class") else f"`.{target.name}`"
    argument = ""
    if target.argument is not None or target.position is not None:
        parts = []
        if target.argument is not None:
            parts.append(f"`{target.argument}`")
        if target.position is not None:
            parts.append(f"position {target.position}")
        argument = f", argument {' / '.join(parts)}"
    receivers = ""
    if target.receivers:  # the class that defines it first; the others (subclasses, other names) counted
        more = len(target.receivers) - 1
        others = f" and {more} more receiver class{'es' if more > 1 else ''}" if more else ""
        receivers = f" (on `{target.receivers[0]}`{others})"
    return f"{kind} {where}{argument}{receivers}"


def _check(check) -> str:
    params = check.params
    detail = getattr(params, "summary", None) or ""
    values = getattr(params, "values", ())
    if check.kind == "allowed-values":
        owner = params.enum.rsplit(".", 1)[-1] + "." if params.enum else ""
        detail = f"one of {', '.join(f'`{owner}{v}`' if owner else f'`{v!r}`' for v in values)}"
        if params.fold is not None:
            detail += f" (a string compared {params.fold}-cased)"
    elif check.kind == "forbidden-values":
        detail = f"not {', '.join(f'`{v!r}`' for v in values)}"
    elif check.kind == "server-args":
        detail = f"server arguments, {params.aspect} (table `{params.table.version}`)"
    elif check.kind == "api-signature":
        detail = f"the signatures of sglang {params.table.releases[0]} to {params.table.releases[-1]}"
    lines = [f"- `{check.kind}`{_releases(check.since, check.until)}: {detail}".rstrip(": ")]
    if check.kind == "api-signature":
        return "\n".join(lines + _grouped(check.targets))
    lines += [f"  - {_target(target)}" for target in check.targets]
    return "\n".join(lines)


def _grouped(targets) -> list[str]:
    """Many targets of one table, a line per class (its methods) and one for the functions."""
    methods: dict[str, list[str]] = {}
    callables = []
    for target in targets:
        if target.kind == "method":
            methods.setdefault(target.receivers[0], []).append(f"`.{target.name}`")
        else:
            callables.append(f"`{target.name}`")
    lines = [f"  - functions and classes: {', '.join(callables)}"] if callables else []
    return lines + [f"  - methods of `{owner}`: {', '.join(names)}" for owner, names in methods.items()]


def _releases(since: str | None, until: str | None) -> str:
    """`` (sglang 0.5.10 to before 0.5.13)`` and the like; "" for every release."""
    if since and until:
        return f" (sglang {since} to before {until})"
    if since:
        return f" (sglang {since} on)"
    return f" (sglang before {until})" if until else ""


def rule_markdown(rule) -> str:
    site = rule.raise_site
    where = f"line {site.line}" if site.line else "its raise"
    parts = [
        f"## {rule.code} `{rule.name}`\n",
        f"{rule.title}\n",
        *([f"Severity: {rule.severity} (sglang goes on and says so; a finding where it stops is an error).\n"]
          if rule.severity != "error" else []),
        "### What it checks\n",
        "\n".join(_check(check) for check in rule.checks) + "\n",
        "### The sglang raise site\n",
        f"`{site.exception}` in `{site.module}.{site.function}` ({where}, sglang {site.sglang_version}): "
        f"`{site.message.strip()}`\n",
        *([f"Releases that have it:{_releases(site.since, site.until)[:-1].replace(' (', ' ', 1)}.\n"]
          if site.since or site.until else []),
        "### Why is this bad\n",
        rule.docs.why.strip() + "\n",
        "### Example\n",
        "```python\n" + rule.docs.bad.strip() + "\n```\n",
        "Use instead:\n",
        "```python\n" + rule.docs.good.strip() + "\n```\n",
        "### Fix safety\n",
        (rule.fix_safety[0].upper() + rule.fix_safety[1:] + "." if rule.fix_safety else "No automatic fix.")
        + (f" {rule.docs.fix.strip()}" if rule.docs.fix else "")
        + "\n",
    ]
    return "\n".join(parts)


def catalog_markdown(rules: Iterable) -> str:
    rules = list(rules)
    index = "\n".join(
        f"| [{r.code}](#{rule_anchor(r)}) | `{r.name}` | {'yes' if r.fix_safety else 'no'} | "
        f"{r.title.replace('|', '/')} |"
        for r in rules
    )
    table = "| Code | Name | Fix | Title |\n| --- | --- | --- | --- |\n" + index + "\n"
    return HEADER + "\n" + table + "\n" + "\n".join(rule_markdown(rule) for rule in rules)


def rule_text(rule) -> str:
    """``explain``'s plain form: the Markdown without its markup."""
    text = rule_markdown(rule)
    for marker in ("### ", "## "):
        text = text.replace(marker, "")
    return text.replace("```python\n", "").replace("```\n", "")


def rule_anchor(rule) -> str:
    """The Markdown anchor of a rule's heading in docs/rules.md (as GitHub makes them)."""
    return f"{rule.code.lower()}-{rule.name}"
