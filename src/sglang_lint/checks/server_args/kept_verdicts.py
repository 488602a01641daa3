"""Start-up verdicts kept across runs (core/verdict_log.py) by what decides them: the table and
the check, the question asked, whether the launch sets nothing else, and what the launch gives
each word of the check. A launch changes less often than its file: a file edited and linted
again finds its launches' verdicts without parsing or evaluating a condition. Within a run
they are also kept in memory by the same key's text: the screen and the engine ask of each
launch, and a file's launches (a script, a test module) mostly repeat a few settings."""

from __future__ import annotations

import hashlib

from sglang_lint.checks.fails_when.language import UNKNOWN
from sglang_lint.core import verdict_log


# The key's text -> the verdict, beside the log in use (None: none), whose verdicts it holds
# too: a log named afresh (another cache folder) starts another, so each log is written.
_in_memory: tuple = (None, {})
_MOST_IN_MEMORY = 100_000


def kept(check, launch, question: str, extra: tuple, decide) -> bool:
    """``decide(check, launch)``, or the verdict this process or an earlier run kept for the
    same key."""
    global _in_memory
    text = verdict_text(check, launch, question, extra)
    if text is None:
        return decide(check, launch)
    log = verdict_log.log()
    beside, memory = _in_memory
    if beside is not log or len(memory) >= _MOST_IN_MEMORY:
        _in_memory = (log, {})
        beside, memory = _in_memory
    found = memory.get(text)
    if found is not None:
        return found
    key = None if log is None else _digest(text)
    found = None if key is None else log.get(key)
    if found is None:
        found = decide(check, launch)
        if key is not None:
            log.put(key, found)
    memory[text] = found
    return found


_PLAIN = (str, int, float, bool, type(None))


def verdict_key(check, launch, question: str, extra: tuple) -> bytes | None:
    """The digest of :func:`verdict_text`, as the log keeps it."""
    text = verdict_text(check, launch, question, extra)
    return None if text is None else _digest(text)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=verdict_log.DIGEST).digest()


def verdict_text(check, launch, question: str, extra: tuple) -> str | None:
    """What decides the check's verdict on the launch: the table and the check, the question,
    whether the launch sets nothing else, and what it gives each of the check's words (a
    superset of the names it reads), written out exactly (None where a value is not a plain
    literal, whose text might not tell two values apart: not kept)."""
    if not check.table:
        return None
    words = check.input_word_set
    given = [(word, "s", setting.value) for word, setting in launch.settings.items() if word in words]
    given += [(word, "e", value) for word, value in launch.environ.items()
              if word in words and word not in launch.settings]
    given.sort(key=_first)  # (a launch sets a few of a check's words: those are looked up, not all)
    inputs = []
    for word, where, value in given:
        if value is UNKNOWN:
            inputs.append((word, "u"))
        elif _is_plain(value):
            inputs.append((word, where, value))
        else:
            return None
    return repr((check.table, check.rank, question, launch.complete, inputs, extra))


def _first(item: tuple) -> str:
    return item[0]


def _is_plain(value: object) -> bool:
    if type(value) in _PLAIN:
        return True
    if type(value) in (list, tuple):
        return all(_is_plain(item) for item in value)
    if type(value) is dict:
        return all(_is_plain(k) and _is_plain(v) for k, v in value.items())
    return False
