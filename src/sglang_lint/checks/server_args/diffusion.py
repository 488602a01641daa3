"""The keywords of a call that builds the diffusion server's ServerArgs (``sglang.multimodal_gen``):
``DiffGenerator.from_pretrained(...)``, ``ServerArgs.from_kwargs(...)``, ``ServerArgs(...)`` and
sglang's other keyword launchers whose target says ``server = "diffusion"`` (launchers.toml).
A keyword none of the target releases' diffusion ServerArgs has is SGL009, with the release that
added or removed it, or the nearest keyword where it is plausibly a typo of one; the keywords
each release takes are serve.toml's ``[parsers.diffusion_keywords]``; a launcher that first lends
them to ``PipelineConfig.from_kwargs`` (``lends``) takes too the attributes of any pipeline config
of the release (``[parsers.diffusion_config_keywords]``), which sglang takes out before. No other aspect judges
these calls: the LLM server's fields, choices and start-up checks are not the diffusion
server's."""

from __future__ import annotations

from sglang_lint.analysis.built import dict_versions
from sglang_lint.checks.base import rename_hint
from sglang_lint.core.model import Finding


CONFIG_OBJECT = "pipeline_config"  # the pipeline config a call may pass, whose attributes sglang takes out


def screen(params):
    """The screen of a diffusion launcher's call: any keyword may be one it lacks."""
    if params.aspect != "unknown":
        return lambda call, facts: False
    return lambda call, facts: bool(call.keywords)


def may_pass(site, keys: tuple) -> bool:
    """Does the call pass (or may a ``**`` dict of it hold) one of ``keys``?"""
    if not keys:
        return False
    for arg in site.node.args:
        if arg.keyword is not None and arg.keyword.value in keys:
            return True
        if arg.star == "**" and any(version.open or any(key in version.entries for key in keys)
                                    for version in dict_versions(site.model, arg.value, site.scope, site.where)):
            return True
        if arg.star == "*":
            return True  # (a positional splat may fill a named parameter: not read)
    return False


def findings(site, params, target, keywords):
    commands = params.table.commands
    parser = commands.diffusion_keywords if commands is not None else None
    # (a launcher that lends its keywords to PipelineConfig.from_kwargs: a config object of the
    # call's own may take out any of its attributes)
    stops = target.unless + ((CONFIG_OBJECT,) if target.lends else ())
    if params.aspect != "unknown" or parser is None or may_pass(site, stops):
        return
    taken = parser.flags | (commands.diffusion_config_keywords.flags
                            if target.lends and commands.diffusion_config_keywords is not None else frozenset())
    version = params.table.version
    for keyword in keywords:
        name = keyword.key
        if name in taken:
            continue
        change = params.table.change(commands.keyword_span(name)) if name in _every_keyword(commands) else ""
        hint, fix = rename_hint(name, parser.flags, keyword.key_node) if not change else ("", None)
        yield Finding(
            keyword.key_node,
            f"{display(target)}({name}=...): sglang {version}'s diffusion server has no server argument "
            f"{name!r}{change}{hint}",
            fix,
        )


def _every_keyword(commands) -> dict:
    parser = commands.history.get("parsers", {}).get("diffusion_keywords")
    return parser.flags if parser is not None else {}


def display(target) -> str:
    """A class or static method with its class (``DiffGenerator.from_pretrained``), else the name."""
    owner, _, name = target.name.rpartition(".")
    last = owner.rpartition(".")[2]
    return f"{last}.{name}" if target.kind == "function" and last[:1].isupper() else target.display
