"""Derive catalog rules from sglang's own source, and verify rules against it.

``sglang-lint catalog derive`` reads an sglang tree with :mod:`ast` (never importing it),
finds every ``raise`` whose guard constrains a parameter of its function, and turns the
ones it can check with certainty into rule files (``rules/derived/``). ``catalog verify``
finds each rule's raise site again (by function and message, not line) and reports drift.

The modules, each reading only those above it: :mod:`.tree` (the tree's modules),
:mod:`.guards` (what a guard demands), :mod:`.server_args` (the server-argument table),
:mod:`.sites` (the raise sites of the whole tree: :func:`derive_sites`), :mod:`.writing`
(the catalog files: :func:`write_catalog`), :mod:`.drift` (:func:`verify`);
:mod:`.generated` holds what every written file shares. The package itself imports none of
them: the linter reads a project's helpers with :mod:`.tree` and :mod:`.launchers` alone.
"""
