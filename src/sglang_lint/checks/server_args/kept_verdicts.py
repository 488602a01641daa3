"""Start-up verdicts kept across runs (core/verdict_log.py) by what decides them: the table and
the check, the question asked, whether the launch sets nothing else, and what the launch gives
each word of the check. A launch changes less often than its file: a file edited and linted
again finds its launches' verdicts without parsing or evaluating a condition."""

from __future__ import annotations

import hashlib

from sglang_lint.checks.fails_when.language import UNKNOWN
from sglang_lint.core import verdict_log


def kept(check, launch, question: str, extra: tuple, decide) -> bool:
    """``decide(check, launch)``, or the verdict an earlier run kept for the same key."""
    log = verdict_log.log()
    key = None if log is None else verdict_key(check, launch, question, extra)
    if key is None:
        return decide(check, launch)
    found = log.get(key)
    if found is None:
        found = decide(check, launch)
        log.put(key, found)
    return found


_PLAIN = (str, int, float, bool, type(None))


def verdict_key(check, launch, question: str, extra: tuple) -> bytes | None:
    """What decides the check's verdict on the launch, as a digest: the table and the check,
    the question, whether the launch sets nothing else, and what it gives each of the check's
    words (a superset of the names it reads), written out exactly (None where a value is not
    a plain literal, whose text might not tell two values apart: not kept)."""
    if not check.table:
        return None
    inputs = []
    for word in check.input_words:
        setting = launch.settings.get(word)
        if setting is not None:
            value, where = setting.value, "s"
        elif word in launch.environ:
            value, where = launch.environ[word], "e"
        else:
            continue
        if value is UNKNOWN:
            inputs.append((word, "u"))
        elif _is_plain(value):
            inputs.append((word, where, value))
        else:
            return None
    text = repr((check.table, check.rank, question, launch.complete, inputs, extra))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=verdict_log.DIGEST).digest()


def _is_plain(value: object) -> bool:
    if type(value) in _PLAIN:
        return True
    if type(value) in (list, tuple):
        return all(_is_plain(item) for item in value)
    if type(value) is dict:
        return all(_is_plain(k) and _is_plain(v) for k, v in value.items())
    return False
