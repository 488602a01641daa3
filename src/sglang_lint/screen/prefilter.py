"""Stage 1, before anything is parsed: could any check fire on this file's text?

A file is parsed only when its text holds every word of some check's trigger (a callee
name, plus the words that check cannot fire without), written in the trigger's shape
(``name(``, ``.name(``...), and, for a call, the call passes the call-site screen
(screen/calls.py). Almost no file of a large tree does, which makes the flake8 plugin nearly free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from sglang_lint.catalog.index import RuleIndex
from sglang_lint.screen.calls import FileFacts, screen_call
from sglang_lint.text.pynames import NAME_BYTE
from sglang_lint.text.scan import whole_word
from sglang_lint.text.words import AnyIdentifier, Identifier, identifiers_of

SKIPPED_NO_NAME = "calls no catalog name (text prefilter)"
SKIPPED_BY_SCREEN = "no call the engine could judge (call-site screen)"

_SPACE = frozenset(b" \t\r\n\f\\")  # a backslash continues a line
_WINDOW = 80


@dataclass(frozen=True)
class CompiledTrigger:
    """A check's :class:`~sglang_lint.checks.base.Trigger` compiled for the bytes scan."""

    shape: str
    words: frozenset  # the trigger's other words written as whole identifiers (index.Identifier)
    # sets of identifiers of which the text must hold at least one each (index.AnyIdentifier)
    any_words: tuple
    also: tuple  # the rest: bytes to find as they are, or compiled bytes patterns
    module: str | None
    screen: object  # see Trigger.screen
    qualified: str | None  # see Trigger.qualified
    code: str | None  # the rule's, where the index keeps it

    @classmethod
    def of(cls, trigger) -> "CompiledTrigger":
        words, any_words, also = set(), [], []
        for word in trigger.also:
            if isinstance(word, Identifier):
                words.add(word.encode())
            elif isinstance(word, AnyIdentifier):
                any_words.append(frozenset(name.encode() for name in word))
            else:
                also.append(word.encode() if isinstance(word, str)
                            else re.compile(word.pattern.encode(), word.flags & ~re.UNICODE))
        return cls(trigger.shape, frozenset(words), tuple(any_words), tuple(also), trigger.module, trigger.screen,
                   getattr(trigger, "qualified", None), getattr(trigger, "code", None))


class Prefilter:
    """Every trigger of a rule set, filed under its name (as bytes: the scan runs on bytes)."""

    def __init__(self, triggers: Sequence, screen: bool = True):
        self.screen = screen
        self.by_name: dict[bytes, list[CompiledTrigger]] = {}
        self.extend(triggers)

    def extend(self, triggers: Sequence) -> None:
        """Add these triggers (the compiled index adds a name's triggers when a text first
        holds it)."""
        for trigger in triggers:
            self.by_name.setdefault(trigger.name.encode(), []).append(CompiledTrigger.of(trigger))
        self.names = frozenset(self.by_name)

    def skip_reason(self, source: str | bytes, module: str | None = None, tree=None,
                    is_package: bool = False) -> str | None:
        """Why the file need not be parsed (:data:`SKIPPED_NO_NAME`, :data:`SKIPPED_BY_SCREEN`),
        or None when it must be.

        First the file's identifiers: its bytes with every byte that cannot be part of one
        turned into a space, split (two C loops, whatever the number of rules). Only the
        names found there have their shapes (``name(``, ``.name(``) and other words checked,
        and each call found that way passes the call-site screen (screen/calls.py) or not; ``tree``:
        the file's :mod:`ast` when the caller has it (the screen's second look reads it);
        ``module``, ``is_package``: the file's module (pynames.module_name_for)."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        facts = FileFacts(data, tree, module, is_package) if self.screen else None
        reason = SKIPPED_NO_NAME
        for name, trigger in self._written(data, module):
            found = _fires(data, name, trigger, facts)
            if found == "fires":
                return None
            if found == "screened":
                reason = SKIPPED_BY_SCREEN
        return reason

    def fired(self, source: bytes, module: str | None = None) -> list[CompiledTrigger]:
        """Every trigger written in the text in its shape, with its other words (no screen)."""
        return [trigger for name, trigger in self._written(source, module)
                if _fires(source, name, trigger, None) == "fires"]

    def _written(self, data: bytes, module: str | None):
        """(name, trigger) for each trigger whose name is one of the text's identifiers and
        whose other words are there too (or the file is the trigger's own module)."""
        identifiers = identifiers_of(data)
        present = self.names.intersection(identifiers)
        found: dict = {}  # each word's answer, once per text (many triggers share their words)

        def holds(word) -> bool:
            if word not in found:
                found[word] = (word in data) if isinstance(word, bytes) else word.search(data) is not None
            return found[word]

        for name in present:
            for trigger in self.by_name[name]:
                if (module is not None and module == trigger.module) or (
                        trigger.words <= identifiers and not any(names.isdisjoint(identifiers)
                                                                 for names in trigger.any_words)
                        and all(map(holds, trigger.also))):
                    yield name, trigger


def _next_char(data: bytes, index: int) -> int:
    """The first byte at or after ``index`` that is not white space (-1 at the end)."""
    end = min(len(data), index + _WINDOW)
    while index < end and data[index] in _SPACE:
        index += 1
    return data[index] if index < end else -1


def _previous_char(data: bytes, index: int) -> int:
    """The last byte before ``index`` that is not white space (-1 at the start)."""
    start = max(0, index - _WINDOW)
    index -= 1
    while index >= start and data[index] in _SPACE:
        index -= 1
    return data[index] if index >= start else -1


_DEFINITION = re.compile(rb"(?:def|class)[ \t]+$")
_IMPORT_ALIAS = re.compile(rb"\s+as\s+(" + NAME_BYTE + rb"+)")


def _fires(data: bytes, name: bytes, trigger: CompiledTrigger, facts: FileFacts | None) -> str | None:
    """"fires" when ``name`` is written, as a whole identifier, in the trigger's shape
    somewhere in ``data`` and (when ``facts`` are given) a call passes the screen, on its own
    text and then on the file's ast (screen/calls.py ``second_look``), or a config class line its
    ``class_look``; "screened" when it is written so but every such use failed the screen."""
    found = None
    index = data.find(name)
    while index >= 0:
        end = index + len(name)
        if whole_word(data, index, end):
            shape = _shape_at(data, index, end, trigger.shape)
            if shape == "call" and facts is not None:
                if (trigger.screen is None or screen_call(data, end, trigger.screen, facts)) and facts.second_look(
                    end, trigger.screen, trigger.qualified
                ):
                    return "fires"
                found = "screened"
            elif shape == "partial" and facts is not None:
                if facts.partial_look(end, trigger.screen, trigger.qualified):
                    return "fires"
                found = "screened"
            elif shape == "alias" and facts is not None:
                alias = _IMPORT_ALIAS.match(data, end)
                if facts.alias_look(alias.group(1).decode(), trigger.screen, trigger.qualified):
                    return "fires"
                if trigger.shape == "config":
                    # ``import Config as Cfg`` ... ``class Mine(Cfg):`` (no class line names Config)
                    if trigger.screen is None or facts.class_look(trigger.screen, trigger.qualified):
                        return "fires"
                found = "screened"
            elif shape == "file" and facts is not None and trigger.screen is not None:
                return "fires" if facts.file_look(trigger.screen) else "screened"  # one verdict for the file
            elif shape == "member" and facts is not None and trigger.screen is not None:
                if facts.second_look(end, trigger.screen, None, member=True):
                    return "fires"
                found = "screened"
            elif shape == "class" and facts is not None and trigger.screen is not None:
                if facts.class_look(trigger.screen, trigger.qualified):
                    return "fires"
                found = "screened"
            elif shape:
                return "fires"
        index = data.find(name, end)
    return found


def _shape_at(data: bytes, index: int, end: int, shape: str) -> str | None:
    """None when ``shape`` is not there; "call" for a call ``name(`` (what the screen
    judges); "class" for a config class's ``class`` line; "alias" for ``name as alias`` (an
    import); "partial" for a name just after a ``partial(`` (maybe its function); "member"
    for an attribute ``x.name``; "other" for any other way it matches."""
    following = _next_char(data, end)
    if shape == "file":
        return "file"  # a word anywhere; the screen judges the whole file (a class-level check)
    if shape == "word":
        return "call" if following == ord("(") else "other"
    if shape == "config":
        line_start = data.rfind(b"\n", 0, index) + 1
        if data[line_start:index].lstrip().startswith(b"class"):
            return "class"  # the config class's own statement, or a subclass's
        shape = "callable"
    if shape == "callable":
        if following == ord("("):
            # ``def name(`` and ``class name(`` define it, they do not call it.
            return None if _DEFINITION.search(data, max(0, index - 16), index) else "call"
        # ``import name as alias`` (then ``alias(...)``); ``partial(mod.name, ...)``
        if _IMPORT_ALIAS.match(data, end):
            return "alias"
        if b"partial(" in data[max(0, index - _WINDOW) : index]:
            return "partial"
        return None
    if _previous_char(data, index) != ord("."):
        return None
    if shape == "member":
        return "member"  # ``x.name``: read (by a screen) as a call of it, its receiver judged
    if following == ord("("):
        return "call"
    # ``partial(obj.method, ...)``: a call of the method too (analysis/sites.py reads attributes there)
    return "partial" if b"partial(" in data[max(0, index - _WINDOW) : index] else None


class IndexScreen:
    """The text prefilter over a compiled index (catalog/index.py), every release's triggers:
    which rules a text could fire (:meth:`codes_for`), and whether any could
    (:meth:`may_match`). Each name's triggers are compiled the first time a text holds it (some
    5,000 triggers, most of them never needed by a run over a few files)."""

    def __init__(self, index: RuleIndex):
        self.index = index
        self._prefilter = Prefilter([], screen=False)

    def codes_for(self, source: str | bytes, module: str | None = None) -> frozenset[str]:
        """The rules with a trigger written in this text (per rule): the only ones that can
        fire on it, whatever the release. A run over a few files loads just these
        (engine/ruletable.py ``rules_of``)."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        present = self.index.present(data)
        if not present:
            return frozenset()
        return frozenset(trigger.code for trigger in self._prefilter_for(present).fired(data, module))

    def may_match(self, source: str | bytes, module: str | None = None) -> bool:
        """Could any rule of any release fire on this text? False: nothing more to do."""
        data = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
        present = self.index.present(data)
        return bool(present) and self._prefilter_for(present).skip_reason(data, module) is None

    @property
    def prefilter(self) -> Prefilter:
        """The text prefilter (no call-site screen) of every trigger."""
        return self._prefilter_for(self.index.names)

    def _prefilter_for(self, names) -> Prefilter:
        missing = [name for name in names if name not in self._prefilter.by_name]
        if missing:
            self._prefilter.extend([_Trigger(*item) for name in missing for item in self.index.triggers_of(name)])
        return self._prefilter


_SCREENS: dict[str, IndexScreen] = {}  # the index's key -> its screen


def index_screen(index: RuleIndex) -> IndexScreen:
    """The prefilter of this index, made once per process."""
    screen = _SCREENS.get(index.key)
    if screen is None or screen.index is not index:
        screen = _SCREENS[index.key] = IndexScreen(index)
    return screen


class _Trigger:
    """A check's trigger as the index keeps it (what prefilter.CompiledTrigger reads), with
    the code of its rule."""

    __slots__ = ("name", "shape", "also", "module", "screen", "code")

    def __init__(self, name: str, shape: str, also: tuple, module: str | None, code: str):
        self.name, self.shape, self.module, self.screen, self.code = name, shape, module, None, code
        self.also = tuple(word[1] if word[0] == "s" else Identifier(word[1]) if word[0] == "w"
                          else AnyIdentifier(word[1]) if word[0] == "a"
                          else re.compile(word[1], word[2]) for word in also)
