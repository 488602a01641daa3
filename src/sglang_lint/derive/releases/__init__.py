"""The catalog over sglang's releases: each release's facts derived once and kept in the cache,
and their history (:mod:`.history`), the merge of every release's rules and tables, and a new
release added without deriving the older ones again (:mod:`.merge`), and the day each release
reached PyPI (:mod:`.dates`).

Writes ``rules/derived/release_dates.toml``, and the merged forms of what the groups below
write: ``server_args.toml`` and the rule files carried over releases.
"""
