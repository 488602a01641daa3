"""Derive catalog rules from sglang's own source, and verify rules against it.

``sglang-lint catalog derive`` reads sglang's trees with :mod:`ast` (never importing them) and
writes what they show into ``rules/derived/``: the rule files of the raise sites it can check
with certainty, and the tables the checks read (server arguments, start-up validation, the
Python API, sampling parameters, launch commands), each over every release. ``catalog verify``
finds each rule's raise site again (by function and message, not line) and reports drift.

The groups, lowest first; each imports only from itself and the groups before it, and says in
its own docstring what it writes into ``rules/``:

- :mod:`.source`: sglang's source as read: which releases exist, each one's tree fetched
  through pip, its modules parsed, what its packages export, what a ``raise`` throws;
- :mod:`.reading`: reading a function without running it: guards, the path to a raise,
  constants, registry lookups, receiver state, symbolic values;
- :mod:`.server_args`: the server arguments (``server_args.toml``);
- :mod:`.startup`: the start-up validation (``startup.toml``);
- :mod:`.api`: the Python API and sampling parameters (``api.toml``, ``sampling.toml``);
- :mod:`.commands`: launch commands (``launchers.toml``, ``serve.toml``, ``scripts.toml``);
- :mod:`.sites`: one release's raise sites as rule files (``SGLnnn-*.toml``, ``codes.lock``,
  ``INDEX.md``, ``exports.toml``) and their drift;
- :mod:`.releases`: each release's facts kept in the cache and merged over releases
  (``release_dates.toml``, and the merged forms of the tables above).

The linter itself reads a project's own helpers with :mod:`.source.tree` and
:mod:`.commands.launchers` alone; the package imports none of its modules.
"""
