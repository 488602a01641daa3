"""server-args: the arguments of ``sgl.Engine(...)``, ``ServerArgs(...)`` and the launch flags
of an argv list, a command string or a launch in a shell script, Markdown or YAML, against the
table of sglang's server argument fields (``rules/derived/server_args.toml``, written by
``catalog derive``).

sglang checks these choices only in argparse; from Python, a bad value is accepted and fails
minutes later, once the weights are loaded. One kind, eight aspects (params.py ``ASPECTS``, one
rule each): this module is the kind's entry, its triggers and the dispatch of a site to the
aspect that judges it: the values of keywords and flags (values.py, keywords.py,
flag_verdicts.py), the relations between numeric arguments (relations.py), the start-up checks
(startup.py) and the modules ``python -m`` runs (scripts.py)."""

from __future__ import annotations

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.checks.base import FIX_SAFETY, CheckKind, Trigger, argument_of
from sglang_lint.checks.server_args import diffusion, relations as server_relations, startup
from sglang_lint.checks.server_args.environment import python_launch_env
from sglang_lint.checks.server_args.flag_verdicts import judge_uses
from sglang_lint.checks.server_args.flags import (
    Launch, flag_uses, python_words, reaches_server_args, shell_true, split_string,
)
from sglang_lint.checks.server_args.keywords import call_keywords, run_keywords
from sglang_lint.checks.server_args.params import ServerArgsCheck, parse
from sglang_lint.checks.server_args.screens import call_screen, display_judge
from sglang_lint.checks.server_args.scripts import gone_modules
from sglang_lint.checks.server_args.site_flags import launch_of, site_launches, site_uses, unique_uses
from sglang_lint.launch.commands import LAUNCHER_WORDS
from sglang_lint.screen.argv import standing_screen
from sglang_lint.text.words import Identifier


def triggers(check):
    params: ServerArgsCheck = check.params
    found = []
    for target in check.targets:
        module = target.name.rpartition(".")[0]
        also = (Identifier(module.rpartition(".")[2]),)
        if target.handed_as in ("command", "shell") and params.marker:
            also += (LAUNCHER_WORDS,)  # a command line must name the launcher to start a server
        if params.aspect == "relations":
            # Both spellings (speculative_x= and --speculative-x) share the field's first word.
            also += tuple(sorted({name.split("_")[0] for name in params.positive + sum(params.at_least, ())}))
        qualified = target.name if target.kind in ("function", "class") else None
        shape = "config" if target.fields else "callable"  # (fields: flags a subclass's body sets)
        found.append(Trigger(target.last_name, shape, also, module, call_screen(params, target), qualified))
    if standing(check) is not None:
        # an argv list that starts the launcher, wherever it stands (analysis/standing.py)
        found.append(Trigger("sglang", "file", (LAUNCHER_WORDS,), None,
                             standing_screen(display_judge(params, marker=params.marker))))
    return found


def wrappers(site, check, target):
    """(parameter, how it is read, catalog.Target.program) for each parameter of the function the
    site is in that may reach this launch (reach.parameter_wrapper decides whether it does): extra
    flags spliced into the command (``*extra``, ``+ extra``, ``.extend(extra)``, or the whole list),
    for the program it runs to judge, ``**kwargs`` or a dict passed on to the engine."""
    if check.params.aspect in ("relations", "startup", "module") or not isinstance(site.node, cst.Call):
        return []
    takes = target.handed_as
    found = []
    if takes in ("flags", "command", "shell"):
        arg = argument_of(site.node, target.argument, target.position, site)
        if arg is None:
            return []
        split = split_string(site, arg.value) if takes == "command" else None
        if isinstance(split, cst.Name):
            found.append((split.value, "shell", ""))  # run(cmd): Popen(cmd.split())
        if isinstance(arg.value, cst.Name):
            how = "shell" if takes == "shell" or shell_true(site) else takes
            found.append((arg.value.value, how, target.program if how == "flags" else ""))
        if takes == "shell":
            return found
        for words in python_words(site, arg.value):
            launch = launch_of(words, check.params, takes, target)
            for word in launch.words if launch is not None else ():
                if word.param:
                    found.append((word.param, "flags", launch.command or launch.module))
        return found
    for arg in site.node.args:
        if arg.star == "**" and isinstance(arg.value, cst.Name):
            function = site.scope.node
            star = function.params.star_kwarg if isinstance(function, cst.FunctionDef) else None
            is_star = isinstance(star, cst.Param) and star.name.value == arg.value.value
            found.append((arg.value.value, "keywords" if is_star else "mapping", ""))
    return found


def _run_argv(site, params: ServerArgsCheck, target):
    if params.aspect == "module":
        yield from gone_modules(params.table, site_launches(site, params, target))
        return
    yield from judge_uses(params, site_uses(site, params, target))


def _settings(site, params: ServerArgsCheck, target) -> dict:
    """field -> (number, node) for each field set to one literal number at this call."""
    found = {}
    if target.handed_as in ("keywords", "mapping"):
        for keyword in call_keywords(site, target):
            if not keyword.certain or keyword.value is None or keyword.key not in params.table.fields:
                continue
            known = site.model.evaluate(keyword.value, keyword.scope, keyword.where)
            if len(known) == 1 and server_relations.number(known[0].value) is not None:
                found[keyword.key] = (server_relations.number(known[0].value), known[0].node)
        return found
    return server_relations.flag_settings(site_uses(site, params, target))


def _run_relations(site, params: ServerArgsCheck, target):
    yield from server_relations.relations(params, _settings(site, params, target))


def run(site, rule, check, target):
    params: ServerArgsCheck = check.params
    if target.server:  # the diffusion server's ServerArgs: its keywords, no LLM server's fields
        yield from diffusion.findings(site, params, target, call_keywords(site, target))
        return
    if params.aspect == "startup":
        yield from _run_startup(site, params, target)
        return
    if params.aspect == "relations":
        yield from _run_relations(site, params, target)
        return
    if target.handed_as in ("keywords", "mapping"):
        if params.aspect != "module":  # (keywords name no module)
            yield from run_keywords(site, params, target)
    else:
        yield from _run_argv(site, params, target)


def run_text(check, launch: Launch):
    """The findings on a launch command found outside Python (a shell script, a Markdown shell
    block, a YAML command list: engine/launch_files.py)."""
    params: ServerArgsCheck = check.params
    if params.aspect == "startup":
        if not reaches_server_args(launch, params.table):
            return
        judged = startup.flag_launch(flag_uses(launch.words, params.table), launch.words, getattr(launch, "env", None))
        yield from startup.judge(params.startup, params.table, [judged], params.elsewhere, params.machine)
        return
    if params.aspect == "module":
        yield from gone_modules(params.table, [launch])
        return
    uses = unique_uses(params, [launch])
    if params.aspect == "relations":
        yield from server_relations.relations(params, server_relations.flag_settings(uses))
    else:
        yield from judge_uses(params, uses)


def _run_startup(site, params: ServerArgsCheck, target):
    environ = python_launch_env(site, target)
    if target.handed_as in ("keywords", "mapping"):
        complete = target.takes != "mapping" and all(arg.star == "" for arg in site.node.args)
        launches = [startup.keyword_launch(site, call_keywords(site, target), params.table.fields, complete, environ)]
    else:
        launches = [startup.flag_launch(flag_uses(launch.words, params.table), launch.words, environ)
                    for launch in site_launches(site, params, target)
                    if launch is not None and reaches_server_args(launch, params.table)]
    yield from startup.judge(params.startup, params.table, launches, params.elsewhere, params.machine)


def fix_safety(check) -> str:
    """Choices and unknown names have a nearest real one; types and relations do not."""
    if check.params.aspect == "deprecated":
        return ("safe fix: to the replacement sglang names, where that is a plain flag of the target release, "
                "or a value sglang maps to it and does nothing else on")
    if check.params.aspect == "module":
        return ("safe fix: to the module it moved to, where running it there runs what the old path ran (its "
                "last stub called that module's main, or the two parse the same flags)")
    if check.params.aspect in ("choices", "plugin-choices", "unknown"):
        return FIX_SAFETY.replace("allowed value", "valid choice or name")
    return ""


# the aspects a list's own words decide, whatever else the command holds where it is run
STANDING_ASPECTS = ("choices", "plugin-choices", "type", "unknown", "deprecated")


def standing(check):
    """The command-line target an argv list that starts sglang's launcher is judged as where it
    stands (analysis/standing.py), for the aspects its words alone decide."""
    params: ServerArgsCheck = check.params
    if params.aspect not in STANDING_ASPECTS or not params.marker:
        return None
    return next((target for target in check.targets if target.handed_as == "command"), None)


KIND = CheckKind(
    name="server-args", site="call", parse=parse, run=run, triggers=triggers, fix_safety=fix_safety, wrappers=wrappers,
    run_text=run_text, standing=standing,
)
