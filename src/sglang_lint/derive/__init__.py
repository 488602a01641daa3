"""Derive catalog rules from sglang's own source, and verify rules against it.

``sglang-lint catalog derive`` reads an sglang tree with :mod:`ast` (never importing it),
finds every ``raise`` whose guard constrains a parameter of its function, and turns the
ones it can check with certainty into rule files (``rules/derived/``). ``catalog verify``
finds each rule's raise site again (by function and message, not line) and reports drift.

The modules, each reading only those above it: :mod:`.tree` (the tree's modules),
:mod:`.guards` (what a guard demands), :mod:`.server_args` (the server-argument table),
:mod:`.sites` (the raise sites of the whole tree: :func:`derive_sites`), :mod:`.writing`
(the catalog files: :func:`write_catalog`), :mod:`.drift` (:func:`verify`);
:mod:`.generated` holds what every written file shares.
"""

from sglang_lint.derive.drift import Drift, verify
from sglang_lint.derive.generated import GENERATED_MARK
from sglang_lint.derive.guards import Constraint, Skip, normalize_message, shown_message
from sglang_lint.derive.server_args import (
    SERVER_ARGS_TABLE,
    ChoiceReader,
    ServerField,
    derive_server_fields,
    manual_flags,
    server_args_text,
)
from sglang_lint.derive.sites import CallTarget, Derivation, GuardedRaise, analyse_function, derive_sites
from sglang_lint.derive.tree import UNKNOWN_VERSION, Module, locate_sglang, read_modules, sglang_version
from sglang_lint.derive.writing import (
    DERIVED_DIR,
    FIRST_DERIVED_CODE,
    INDEX_FILE,
    LAST_DERIVED_CODE,
    LOCK_FILE,
    catalog_history,
    covered_by,
    rule_text,
    write_catalog,
    write_over_history,
)

__all__ = [
    "DERIVED_DIR",
    "FIRST_DERIVED_CODE",
    "GENERATED_MARK",
    "INDEX_FILE",
    "LAST_DERIVED_CODE",
    "LOCK_FILE",
    "SERVER_ARGS_TABLE",
    "UNKNOWN_VERSION",
    "CallTarget",
    "ChoiceReader",
    "Constraint",
    "Derivation",
    "Drift",
    "GuardedRaise",
    "Module",
    "ServerField",
    "Skip",
    "analyse_function",
    "covered_by",
    "derive_server_fields",
    "derive_sites",
    "locate_sglang",
    "manual_flags",
    "normalize_message",
    "read_modules",
    "rule_text",
    "server_args_text",
    "shown_message",
    "sglang_version",
    "verify",
    "write_catalog",
    "write_over_history",
    "catalog_history",
]
