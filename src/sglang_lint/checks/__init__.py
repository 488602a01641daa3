"""The check kinds and their verdicts. In: a site the walk recorded (a call of a catalog name)
and a rule's check. Out: findings, each with its fix where one is certain. A rule file names
its kind; this table (``CHECK_KINDS``) maps the name to a small verdict that the engine's one
dispatcher calls for the sites its rules target, and whose trigger gives the screen the same
verdict to run cheaply. A kind is a module named after it (``allowed_values``: the
``allowed-values`` kind; ``value_tests``: the four small value kinds, ``forbidden-values``,
``must-be-none``, ``truthy``/``falsy``, ``number-range``, ``instance-of``), or a package where it
needs more: ``fails_when/`` (the kind and its expression language) and ``server_args/`` (a
launch judged against the server arguments: the table, the command-line reader, start-up
checks). ``api_table`` is the Python API's derived table ``api_signature`` and
``sampling_params`` read."""

from sglang_lint.checks import (
    allowed_values,
    api_signature,
    chain_sync,
    forbidden_combination,
    guarded_member,
    not_none,
    sampling_params,
    value_tests,
)
# (bound under other names: ``fails_when`` and ``server_args`` stay this package's subpackages)
from sglang_lint.checks.base import CheckKind
from sglang_lint.checks.fails_when import check as fails_when_kind
from sglang_lint.checks.server_args import check as server_args_kind

CHECK_KINDS: dict[str, CheckKind] = {
    kind.name: kind
    for kind in (
        allowed_values.KIND,
        not_none.KIND,
        guarded_member.KIND,
        forbidden_combination.KIND,
        chain_sync.KIND,
        value_tests.FORBIDDEN,
        value_tests.MUST_BE_NONE,
        value_tests.TRUTHY,
        value_tests.NUMBER_RANGE,
        value_tests.INSTANCE_OF_KIND,
        value_tests.FALSY,
        server_args_kind.KIND,
        fails_when_kind.KIND,
        api_signature.KIND,
        sampling_params.KIND,
    )
}

__all__ = ["CHECK_KINDS", "CheckKind"]
