"""The identifiers of a text, read as bytes (a leaf): the compiled index's first question and
the prefilter's, and the two shapes a trigger's other words take (a whole identifier, or any
one of several)."""

from __future__ import annotations

IDENTIFIER_BYTES = bytes(c if (c >= 128 or c == ord("_") or chr(c).isalnum()) else ord(" ") for c in range(256))


_LAST_TEXT: list = [(b"", frozenset())]  # the last text whose identifiers were asked for, and them


def identifiers_of(data: bytes) -> frozenset:
    """The text's identifiers (its bytes with every byte that cannot be part of one turned
    into a space, split: two C loops). The index's first question and the prefilter's both
    read them, for the same text in a row (the flake8 plugin asks three times per file):
    the last text's are kept (a comparison of bytes, not another split; one tuple, read
    once, so that threads never mix two texts')."""
    last = _LAST_TEXT[0]
    if len(data) == len(last[0]) and data == last[0]:
        return last[1]
    found = frozenset(data.translate(IDENTIFIER_BYTES).split())
    _LAST_TEXT[0] = (data, found)
    return found


class Identifier(str):
    """A trigger's other word that code can only write as a whole identifier: the last name
    of a rule's module (an import spells a module's parts between dots) or a receiver class's
    name. The prefilter finds it among the text's identifiers (one set lookup); any other word
    is a substring (``speculative`` of ``speculative_dflash_block_size=``)."""

    __slots__ = ()


class AnyIdentifier(tuple):
    """A trigger's other word written as any one of several identifiers (the classes a method
    rule's receiver may be of): the prefilter asks whether the text's identifiers meet the set,
    one set operation however many there are."""

    __slots__ = ()
