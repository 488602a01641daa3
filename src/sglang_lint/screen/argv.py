"""The call-site screen of a check on a list of launch flags (server_args.py): could
analysis/built.py know a word of the list the call passes, and could the check find anything in the
words it knows? (screen/calls.py's stages read it like any other screen.)"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable

from sglang_lint.launch.commands import (
    LAUNCHERS, LAUNCHER_WORDS, MODULE_FLAG, MODULE_LAUNCH, SCRIPT_MODULE, SYS_EXECUTABLE, launch_head,
)
from sglang_lint.screen.ast_scopes import AUGMENTED, IMPORTED, OPAQUE, PARAM, VALUE, self_attribute
from sglang_lint.screen.calls import FileFacts, ScopedFacts, argument, value_may_be_known
from sglang_lint.text.pynames import name_occurrences
from sglang_lint.text.scan import may_assign

MAX_DEPTH = 8  # past it the screen is unsure (yes)
MAX_STEPS = 4  # more ``name += [...]`` of one list: unsure (each subset of them is judged)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def argv_screen(name: str | None, position: int | None, marker: str | None = None,
                judge: Callable | None = None) -> Callable:
    """The screen of a check on a literal argv list (launch flags); with ``marker``, a list
    literal must name it (``sglang.launch_server``) to start an sglang server. ``judge``: the
    check's own verdict on a display's elements (True, False, or None: not sure), for a list
    of flags whose words analysis/built.py reads from displays (checks/server_args/screens.py
    ``display_judge``), or with ``marker`` on a command line's words."""
    flags = ListReading(judge, follow=True)
    command = ListReading(judge if marker is not None else None, follow=False, strings=marker is not None)

    def screen(call: ast.Call, facts: FileFacts) -> bool:
        found = argument(call, name, position, facts)
        if found is None:
            return False
        if isinstance(found, bool):
            return found
        if isinstance(found, ast.Constant):
            return isinstance(found.value, str) and (marker is None or marker in found.value or any(
                subcommand in found.value for names in LAUNCHERS["commands"].values() for subcommand in names)
                or bool(MODULE_LAUNCH.search(found.value)))
        if isinstance(found, ast.JoinedStr):
            return True  # an f-string command line: shell words, its holes opaque
        if marker is None:  # a list of flags (no command line, no shell string): analysis/built.py's reading only
            return flags.may_know(found, facts)
        if isinstance(found, ast.List):
            return _may_name_launcher(found.elts, marker) and (judge is None or command.may_know(found, facts))
        if isinstance(found, (ast.BinOp, ast.Call, ast.Subscript)):
            return True  # analysis/built.py follows copies (list(x), x.copy(), x[:]) and concatenations
        # (a command line: its words are judged after the launcher, wherever that is written)
        return command.may_know(found, facts)

    return screen


def _defines(facts, name: str) -> bool:
    """Does the file hold a ``def`` of this name (a superset of the functions analysis/built.py follows)?"""
    data = facts.facts.data if isinstance(facts, ScopedFacts) else facts.data
    return re.search(rb"\bdef\s+" + re.escape(name.encode()) + rb"\s*\(", data) is not None


def _may_name_launcher(elements: list[ast.expr], marker: str) -> bool:
    """Could the words analysis/built.py reads off this list display name the launcher
    (launch_flags.after_launcher: a whole word holding ``marker``, or ``serve`` / ``generate``
    after an ``sglang`` command)? A name may stand for any string and a ``*spliced`` list for any
    words; an attribute, a call, an operation is no word the engine knows, and an f-string
    with a field is known only up to its first field (never whole): none of them names it
    (``[sys.executable, "-c", f"import {module}"]`` starts no server)."""
    words: list[tuple[str | None, bool]] = []  # (the text known, whether it is the whole word)
    for element in elements:
        if isinstance(element, (ast.Name, ast.Starred)):
            return True
        if isinstance(element, ast.Constant):
            words.append((element.value, True) if isinstance(element.value, str) else (None, False))
        elif isinstance(element, ast.JoinedStr):
            prefix, whole = "", True
            for part in element.values:
                if not isinstance(part, ast.Constant):
                    whole = False
                    break
                prefix += part.value
            words.append((prefix, whole))
        else:
            words.append((None, False))
    if any(whole and marker in text for text, whole in words):
        return True
    return any(command is not None and whole and (
        text in LAUNCHERS["commands"].get(command.rsplit("/", 1)[-1], ())
        or (command == MODULE_FLAG and flag_whole and SCRIPT_MODULE.fullmatch(text)))  # -m sglang.bench_one_batch
        for (command, flag_whole), (text, whole) in zip(words, words[1:]))


@dataclass(frozen=True)
class ListReading:
    """How the screen reads a list expression. ``judge``: the check's verdict on the words of
    a whole list written out (None: any list with a word it may know is a "may"); ``follow``:
    judge what ``self.x`` and a wrapper's parameter stand for (else any value is a "may")."""

    judge: Callable | None
    follow: bool
    # a command line: a name may hold a command string (``cmd = f"""python -m ..."""``;
    # ``Popen(cmd, shell=True)``, or a helper's parameter handed to one), which the engine reads
    # as shell words (flags.shell_launches)
    strings: bool = False

    def may_know(self, node: ast.expr, facts: FileFacts, depth: int = 0, whole: bool = True,
                 seen: frozenset = frozenset()) -> bool:
        """Could analysis/built.py (``Builder.list_of``) know a word of this list expression on which
        the check may find something? A display, a concatenation of one, a copy (``x[:]``,
        ``x.copy()``, ``list(x)``, ``copy.copy(x)``), a name it follows to its values,
        ``self.x``/``cls.x`` (each value the file gives it), a wrapper's parameter (what the
        wrapper's calls in the file pass, which the engine judges as a list of its own there);
        any other expression (a call, ``sys.argv[1:]``, ``x or []``, ``a if c else b``) is a
        list it knows nothing of. ``whole``: ``node`` is the whole list, not a part of a
        concatenation (whose words the check reads together); ``seen``: the bindings being
        read (``x = x + [...]`` reads the other bindings of ``x``)."""
        if depth > MAX_DEPTH:
            return True
        judge = self.judge if whole else None
        if isinstance(node, (ast.List, ast.Tuple)):
            verdict = judge(node.elts, DisplayReader(self, facts, depth + 1, seen)) if judge is not None else None
            return True if verdict is None else verdict
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            if judge is not None:
                reader = DisplayReader(self, facts, depth + 1, seen)
                joined = reader.joined(node)
                verdict = judge(joined, reader) if joined is not None else None
                if verdict is not None:
                    return verdict
            return self.may_know(node.left, facts, depth + 1, False, seen) or self.may_know(
                node.right, facts, depth + 1, False, seen)
        if self.strings and isinstance(node, ast.JoinedStr):
            return True  # a command string, its holes opaque words
        if self.strings and isinstance(node, ast.Constant) and isinstance(node.value, str):
            return LAUNCHER_WORDS.search(node.value) is not None
        copied = _copied(node)
        if copied is not None:
            return self.may_know(copied, facts, depth + 1, whole, seen)
        if split_text(node) is not None:
            return True  # ``extra.split()``, ``shlex.split(extra)``: the words of a string analysis/built.py may know
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and _defines(facts, node.func.id):
            return True  # a function of the file: analysis/built.py reads the list it returns (Builder._returned)
        if isinstance(node, (ast.Subscript, ast.Call)):
            return False  # a part (``x[1:]``) or another call's list: analysis/built.py knows nothing of it
        if isinstance(node, ast.Attribute):
            if not self_attribute(node):
                return False  # analysis/built.py follows only a class's own list
            if not isinstance(facts, ScopedFacts):
                return True
            # every value the file gives the attribute (a superset of the versions analysis/built.py
            # reads: the enclosing class's, or the ones its methods set), each read alone
            values = facts.syntax.attribute_values(node.attr)
            if not self.follow:
                return bool(values)
            return any(value is None or self.may_know(value, facts.facts, depth + 1, whole, seen) for value in values)
        if not isinstance(node, ast.Name):
            return False
        return self._name_may_know(node.id, facts, depth, whole, seen)

    def _name_may_know(self, name: str, facts: FileFacts, depth: int, whole: bool, seen: frozenset) -> bool:
        if not isinstance(facts, ScopedFacts):  # the text screen: the name's bindings are not read yet
            # (any statement that may bind it: ``a = name = list(base)``, an unpacking, ``+=``; or a
            # wrapper's parameter. FileFacts.name_may_be_known answers within these.)
            return may_assign(facts.data, name.encode()) or facts.assigned_anyhow(name) or (
                name in facts.called_parameters())
        found = facts.syntax.lookup(name, facts.scopes)
        if found is None:
            return False  # unbound here: analysis/built.py has no version of it
        if any(name_occurrences(facts.facts.data, name.encode(), rb"\s*\.\s*(?:append|extend|insert)\s*\(")):
            return True  # words added in steps (after a part it may not know)
        owner = ScopedFacts(facts.facts, facts.syntax, found[1], facts.depth + 1)
        steps = [binding[1] for binding in found[0] if binding[0] == AUGMENTED]
        if steps:
            return self._steps_may_know(name, found, steps, owner, depth, whole, seen)
        for binding in found[0]:
            kind = binding[0]
            if kind == VALUE:
                if id(binding[1]) not in seen and self.may_know(
                        binding[1], owner, depth + 1, whole, seen | {id(binding[1])}):
                    return True
            elif kind == PARAM:
                if not self.follow or not isinstance(binding[1], _FUNCTIONS):
                    return True  # a lambda's: its calls are not followed here
                if self.wrapper_may_know(name, binding[1], owner, found[1], depth):
                    return True  # a wrapper: a call of it in the file may pass a list with such a word
            elif kind not in (IMPORTED, OPAQUE):
                return True  # ``+=``, a ``global``: unsure
        return False

    def _steps_may_know(self, name: str, found: tuple, steps: list, owner: ScopedFacts, depth: int, whole: bool,
                        seen: frozenset) -> bool:
        """A list built with ``name += [...]``: analysis/built.py (``_name``) reads each such statement
        as the versions of the list before it with its display's words after them. Judged here
        on a superset of those versions: every display bound to the name (a parameter's as
        empty), followed by any subset of the ``+=`` displays in the order they are written.
        Unsure where a step is no display of words, sits in a loop, or there are too many."""
        judge = self.judge if whole else None
        if judge is None or len(steps) > MAX_STEPS or any(
                not isinstance(step.op, ast.Add) or not isinstance(step.value, (ast.List, ast.Tuple))
                or any(isinstance(e, ast.Starred) for e in step.value.elts) for step in steps):
            return True
        scope = found[1][-1]
        looped = {id(node) for loop in ast.walk(scope) if isinstance(loop, _LOOPS)
                  for node in ast.walk(loop) if isinstance(node, ast.AugAssign)}
        if any(id(step) in looped for step in steps):
            return True  # the same words added again and again
        bases: list[list] = []
        for binding in found[0]:
            kind = binding[0]
            if kind == AUGMENTED:
                continue
            if kind == VALUE and isinstance(binding[1], (ast.List, ast.Tuple)):
                bases.append(list(binding[1].elts))
            elif kind == PARAM and self.follow and isinstance(binding[1], _FUNCTIONS):
                if self.wrapper_may_know(name, binding[1], owner, found[1], depth):
                    return True
                bases.append([])
            elif kind not in (IMPORTED, OPAQUE):
                return True
        steps = sorted(steps, key=lambda step: (step.lineno, step.col_offset))
        reader = DisplayReader(self, owner, depth + 1, seen)
        for base in bases:
            for chosen in range(1 << len(steps)):
                words = base + [e for i, step in enumerate(steps) if chosen >> i & 1 for e in step.value.elts]
                if judge(words, reader) is not False:
                    return True
        return False

    def wrapper_may_know(self, name: str, function: ast.AST, facts: ScopedFacts, owner: tuple, depth: int) -> bool:
        """``name`` is a parameter of ``function`` (scope chain ``owner``): could a call of it
        in the file pass a list with a word the check may find something in? (The engine's
        wrapper jobs judge what each call passes as a list of its own.)"""
        return any(passed is True or self.may_know(passed[0], passed[1], depth + 1)
                   for passed in facts.wrapper_arguments(name, function, owner))


_UNSURE = ListReading(None, follow=False)


@dataclass
class DisplayReader:
    """What the display judge (checks/server_args/screens.py ``display_judge``) asks of the file
    about the parts of one list: how many words a ``*x`` makes, an f-string's source."""

    reading: ListReading
    facts: FileFacts
    depth: int
    seen: frozenset

    def starred_words(self, node: ast.expr) -> int | None:
        """How many words analysis/built.py makes of ``*node`` in a display, where the screen can tell:
        1 for a list it knows nothing of (one unknown word, analysis/built.py ``UNKNOWN_LIST``), 0 for
        ``self.x``/``cls.x`` whose every value in the file is an empty display and which
        nothing changes in place (a class's default ``other_args = []``); None otherwise."""
        facts = self.facts
        if self_attribute(node) and isinstance(facts, ScopedFacts):
            values = facts.syntax.attribute_values(node.attr)
            changed = re.search(rb"\b(?:self|cls)\s*\.\s*" + node.attr.encode() + rb"\s*[.\[]", facts.facts.data)
            if values and not changed and all(isinstance(v, (ast.List, ast.Tuple)) and not v.elts for v in values):
                return 0
        if isinstance(node, ast.Name) and self.reading.follow and isinstance(facts, ScopedFacts):
            found = facts.syntax.lookup(node.id, facts.scopes)
            if found is not None and all(b[0] == PARAM and isinstance(b[1], _FUNCTIONS) for b in found[0]):
                # a wrapper's parameter: one unknown word here (analysis/built.py ``Gap``); what the
                # wrapper's calls pass is judged there, as a list of its own
                owner = ScopedFacts(facts.facts, facts.syntax, found[1], facts.depth + 1)
                return None if any(self.reading.wrapper_may_know(node.id, binding[1], owner, found[1], self.depth)
                                   for binding in found[0]) else 1
        return None if _UNSURE.may_know(node, facts, self.depth, False, self.seen) else 1

    def may_evaluate(self, node: ast.Name) -> bool:
        """Could the engine evaluate this name to a value (analysis/resolve.py ``evaluate``, which
        launch_flags._word reads a name word by)? No where none of its bindings seen from the
        display is a literal, a literal default, or a name or branch that may be one."""
        return value_may_be_known(node, self.facts)

    def joined(self, node: ast.BinOp) -> list[ast.expr] | None:
        """A concatenation ``[...] + x + [...]`` as the display analysis/built.py's ``_joined`` reads
        it (``[..., *x, ...]``), when the words of each part that is no display can be told."""
        parts: list[ast.expr] = []
        pending: list[ast.expr] = [node]
        while pending:
            part = pending.pop()
            if isinstance(part, ast.BinOp) and isinstance(part.op, ast.Add):
                pending += [part.right, part.left]
            elif isinstance(part, (ast.List, ast.Tuple)):
                parts += part.elts
            elif self.starred_words(part) is not None:
                parts.append(ast.Starred(part, ast.Load()))
            else:
                return None
        return parts

    def source_of(self, node: ast.expr) -> str | None:
        """The source text of a one-line expression (None where positions may be off: a
        document parsed again in parts, screen/ast_reparse.py)."""
        if not isinstance(self.facts, ScopedFacts):
            return None
        syntax = self.facts.syntax
        if syntax.shifts is not None or node.lineno != node.end_lineno:
            return None
        start = syntax.starts[node.lineno - 1]
        return syntax.data[start + node.col_offset:start + node.end_col_offset].decode("utf-8", "replace")


def _copied(node: ast.expr) -> ast.expr | None:
    """What ``x[:]``, ``x.copy()``, ``list(x)``, ``copy(x)``, ``deepcopy(x)`` copy (a superset
    of analysis/built.py ``_copied``: any function of those names)."""
    if isinstance(node, ast.Subscript):
        whole = node.slice
        if isinstance(whole, ast.Slice) and whole.lower is None and whole.upper is None and whole.step is None:
            return node.value
        return None
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "copy" and not node.args and not node.keywords:
        return func.value
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name in ("list", "copy", "deepcopy") and len(node.args) == 1 and not node.keywords \
            and not isinstance(node.args[0], ast.Starred):
        return node.args[0]
    return None


def split_text(node: ast.expr) -> ast.expr | None:
    """The string of ``text.split()`` or ``shlex.split(text)`` (any ``split`` of one argument
    whose function is named so: a superset of analysis/built.py ``Builder._split``)."""
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "split" and not node.args:
        return func.value
    named = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if named == "split" and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
        return node.args[0]
    return None


def standing_screen(judge: Callable) -> Callable:
    """The screen of a check on argv lists where they stand (analysis/standing.py), on the
    file's ast: a list display that starts sglang's launcher on whose words ``judge`` (as
    :func:`argv_screen`'s, on a command line) may find something, or a ``self.X`` step
    (``.append``, ``.extend``, ``+=``) where the file assigns ``X`` such a list."""
    def screen(tree: ast.Module) -> bool:
        launch_attributes, steps = set(), set()
        for node in ast.walk(tree):
            if isinstance(node, ast.List) and launch_head(_head_words(node.elts)) is not None:
                if judge(node.elts) is not False:
                    return True
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.List) \
                    and launch_head(_head_words(node.value.elts)) is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                launch_attributes.update(t.attr if isinstance(t, ast.Attribute) else t.id for t in targets
                                         if isinstance(t, (ast.Attribute, ast.Name)))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("append", "extend") and self_attribute(node.func.value):
                steps.add(node.func.value.attr)
            elif isinstance(node, ast.AugAssign) and self_attribute(node.target):
                steps.add(node.target.attr)
        return bool(launch_attributes & steps)

    return screen


def _head_words(elements: list[ast.expr]) -> list[str | None]:
    """launch.commands.launch_head's words of a display's first elements (analysis/standing.py
    ``list_program``)."""
    words: list[str | None] = []
    for element in elements[:3]:
        if isinstance(element, ast.Constant) and isinstance(element.value, str):
            words.append(element.value)
        elif isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name) \
                and f"{element.value.id}.{element.attr}" == SYS_EXECUTABLE:
            words.append(SYS_EXECUTABLE)
        else:
            words.append(None)
    return words
