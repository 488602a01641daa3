"""The check kinds: a handful of small functions, each called by the engine's one
dispatcher visitor for the sites its rules target. A rule file names its kind."""

from sglang_lint.checks import (
    allowed_values,
    api_signature,
    chain_sync,
    fails_when,
    forbidden_combination,
    guarded_member,
    not_none,
    sampling_params,
    server_args,
    value_tests,
)
from sglang_lint.checks.base import CheckKind

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
        server_args.KIND,
        fails_when.KIND,
        api_signature.KIND,
        sampling_params.KIND,
    )
}

__all__ = ["CHECK_KINDS", "CheckKind"]
