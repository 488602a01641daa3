"""The words of a launch flag sglang's launcher cannot convert (SGL008 on launch commands):
argparse calls the flag's converter (``type=int``, ``type=float``, ``json.loads``) on the word
and stops at once with ``argument --port: invalid int value: 'abc'``. Judged only where every
release of the table converts the flag's word with a converter the word fails (a converter of
sglang's own, such as one that reads ``32k``, is never judged)."""

from __future__ import annotations

import json

from sglang_lint.core.model import Finding
from sglang_lint.checks.server_args.flag_use import FlagUse
from sglang_lint.checks.server_args.table import Field

# converter -> (its name in argparse's message, how the message names what it takes)
CONVERTERS = {"int": ("int", "an int"), "float": ("float", "a float"), "json": ("loads", "a JSON text")}


def _converts(word: str, text: str) -> bool:
    try:
        if word == "int":
            int(text)
        elif word == "float":
            float(text)
        else:
            json.loads(text)
    except ValueError:
        return False
    return True


def refused_by(field: Field, text: str) -> str | None:
    """The converter the newest release of the table refuses ``text`` with, where every
    release's converter refuses it; None where one may take it."""
    words = field.words
    if not words or any(word not in CONVERTERS for word in words) or any(_converts(w, text) for w in words):
        return None
    return words[0]


def findings(use: FlagUse, version: str):
    """SGL008 on each word of the flag its converter refuses (each item of a list flag)."""
    field = use.field
    if field is None or not use.certain:
        return
    if field.nargs:
        words = zip(use.items or (), use.item_nodes)
    elif use.value is not None and not use.value.startswith("-"):
        words = [(use.value, use.value_node)]
    else:
        return
    flags = "/".join(use.written(flag) for flag in field.flags) or use.shown  # (argparse's, as the user writes it)
    for text, node in words:
        word = refused_by(field, text)
        if word is None:
            continue
        name, takes = CONVERTERS[word]
        yield Finding(node, f"launch flag {use.shown} {text}: sglang {version}'s launcher takes {takes} here and stops "
                            f"with \"argument {flags}: invalid {name} value: {text!r}\"")
