"""sglang's start-up validation of a server's arguments, as conditions over the arguments: which
functions a launch runs before a model loads (:mod:`.sequence`), the run that follows them
(:mod:`.run`, with :mod:`.flow`, :mod:`.inputs`, :mod:`.declarations`, :mod:`.none_compared`,
:mod:`.platform_probes`), which conditions become rules (:mod:`.rules`), and every release's
rules as one table in a stable order (:mod:`.table`, :mod:`.order`).

Writes ``rules/derived/startup.toml``.
"""
