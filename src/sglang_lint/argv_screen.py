"""The call-site screen of a check on a list of launch flags (server_args.py): could
built.py know a word of the list the call passes? (screen.py's stages read it like any
other screen.)"""

from __future__ import annotations

import ast
import re
from typing import Callable

from sglang_lint.ast_scopes import IMPORTED, VALUE
from sglang_lint.screen import FileFacts, ScopedFacts, argument


def argv_screen(name: str | None, position: int | None, marker: str | None = None,
                judge: Callable | None = None) -> Callable:
    """The screen of a check on a literal argv list (launch flags); with ``marker``, a list
    literal must name it (``sglang.launch_server``) to start an sglang server. ``judge``: the
    check's own verdict on a display's elements (True, False, or None: not sure), for a list
    of flags written out at the call."""

    def screen(call: ast.Call, facts: FileFacts) -> bool:
        found = argument(call, name, position, facts)
        if found is None:
            return False
        if isinstance(found, ast.List) and marker is not None:
            texts = [e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None for e in found.elts]
            if None in texts:
                return True
            serve = any(a.rsplit("/", 1)[-1] == "sglang" and b == "serve" for a, b in zip(texts, texts[1:]))
            return serve or any(marker in text for text in texts)
        if isinstance(found, ast.Constant):
            return isinstance(found.value, str) and (marker is None or marker in found.value or "serve" in found.value)
        if isinstance(found, ast.JoinedStr):
            return True  # an f-string command line: shell words, its holes opaque
        if isinstance(found, bool):
            return found
        if marker is None:  # a list of flags (no command line, no shell string): built.py's reading only
            if judge is not None and isinstance(found, (ast.List, ast.Tuple)):
                verdict = judge(found.elts)
                if verdict is not None:
                    return verdict
            return _list_may_know(found, facts)
        if isinstance(found, (ast.List, ast.BinOp, ast.Call, ast.Subscript)):
            return True  # built.py follows copies (list(x), x.copy(), x[:]) and concatenations
        return _list_may_know(found, facts)

    return screen


def _list_may_know(node: ast.expr, facts: FileFacts, depth: int = 0) -> bool:
    """Could built.py (``Builder.list_of``) know a word of this list expression? A display,
    a concatenation of one, a copy (``x[:]``, ``x.copy()``, ``list(x)``, ``copy.copy(x)``),
    a name it follows, ``self.x``/``cls.x``; any other expression (a call, ``sys.argv[1:]``,
    ``x or []``, ``a if c else b``) is a list it knows nothing of."""
    if depth > 8:
        return True
    if isinstance(node, (ast.List, ast.Tuple)):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _list_may_know(node.left, facts, depth + 1) or _list_may_know(node.right, facts, depth + 1)
    if isinstance(node, ast.Subscript):
        whole = isinstance(node.slice, ast.Slice) and node.slice.lower is None and node.slice.upper is None \
            and node.slice.step is None
        return whole and _list_may_know(node.value, facts, depth + 1)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not node.args and not node.keywords:
            return _list_may_know(func.value, facts, depth + 1)  # x.copy()
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name in ("list", "copy", "deepcopy") and len(node.args) == 1 and not node.keywords \
                and not isinstance(node.args[0], ast.Starred):
            return _list_may_know(node.args[0], facts, depth + 1)
        return False
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")  # a class's list
    if not isinstance(node, ast.Name):
        return False
    if not isinstance(facts, ScopedFacts):  # the text screen: the name's bindings are not read yet
        return facts.name_may_be_known(node.id, displays=True) or facts.assigned_anyhow(node.id)
    found = facts.syntax.lookup(node.id, facts.scopes)
    if found is None:
        return False  # unbound here: built.py has no version of it
    if re.search(rb"\b" + re.escape(node.id.encode()) + rb"\s*\.\s*(?:append|extend|insert)\s*\(", facts.facts.data):
        return True  # words added in steps (after a part it may not know)
    owner = ScopedFacts(facts.facts, facts.syntax, found[1], facts.depth + 1)
    # a parameter (the wrapper's callers' list), ``+=``, a ``global``, a loop target: unsure;
    # an import or a ``def`` is no list
    return any(binding[0] != IMPORTED and (binding[0] != VALUE or _list_may_know(binding[1], owner, depth + 1))
               for binding in found[0])
