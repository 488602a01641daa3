"""One release's raise sites as rules: every ``raise`` whose guard tests a parameter of its
function (:mod:`.guarded_raises`), the wrappers that hand that parameter on (:mod:`.passthrough`),
the whole tree's at once with the release's other facts (:mod:`.raise_sites`), the
``fails-when`` conditions of those whose path is longer (:mod:`.fails_when`), the files they
become (:mod:`.writing`), and ``catalog verify``: each rule's site found again and compared
(:mod:`.drift`, :mod:`.drift_index`).

Writes the rule files ``rules/derived/SGLnnn-*.toml``, ``rules/derived/codes.lock`` (each
site's code, kept for good), ``rules/derived/INDEX.md`` and ``rules/derived/exports.toml``; and,
when one release is derived, the server-argument and launcher tables the groups below make.
"""
