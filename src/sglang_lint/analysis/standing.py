"""Launch commands where they stand. An argv list whose first words are sglang's own launcher
(``["python3", "-m", "sglang.launch_server", ...]``, ``[sys.executable, "-m", ...]``,
``["sglang", "serve", ...]``) names sglang's program itself, so its flags are for sglang's
parser wherever the list is run: returned by a function, kept in a module constant or a class
attribute, handed to another module's helper. A builder class that sets ``self.cmd`` to such
a list and grows it in its methods (``self.cmd.extend([...])``, ``self.cmd.append("--flag")``,
``self.cmd += [...]``) adds flags for that program too.

Only the words written in the display (or the step) are read here: what the list holds where
it is run is the business of the call that runs it (analysis/built.py). A list whose words may be
taken out or replaced before it runs (``cmd.remove("--x")``, ``del cmd[i]``, ``cmd[i] = ...``,
``cmd.pop(i)``: of its name, or of any list where it has none) is not judged where it stands."""

from __future__ import annotations

import re

from sglang_lint.core.lazycst import libcst as cst

from sglang_lint.analysis.bindings import Scope
from sglang_lint.analysis.resolve import FileModel
from sglang_lint.analysis.syntax import dotted_name, token_value
from sglang_lint.launch.commands import SYS_EXECUTABLE, launch_head

STEP_METHODS = ("append", "extend")


def list_program(node: cst.BaseExpression) -> str | None:
    """The program a list display starts (launch.commands.launch_head: "" the server launcher,
    "serve"/"generate" the ``sglang`` command's), or None."""
    if not isinstance(node, cst.List):
        return None
    words: list[str | None] = []
    for element in node.elements[:3]:
        value = element.value if isinstance(element, cst.Element) else None
        text = token_value(value) if isinstance(value, cst.SimpleString) else None
        if text is None and value is not None and dotted_name(value) == SYS_EXECUTABLE:
            text = SYS_EXECUTABLE
        words.append(text if isinstance(text, str) else None)
    return launch_head(words)


# a list changed in place other than by adding words (a string key is a dict's: ``env["X"] = "1"``)
_SHRINK = re.compile(r"([A-Za-z_]\w*)\s*(?:\.\s*(?:remove|clear)\s*\(|\.\s*pop\s*\(\s*-?\d*\s*\)"
                     r"|\[(?!\s*[\"'])[^\]\n]*\]\s*=(?!=))")
_DELETE = re.compile(r"\bdel\s+(?:[A-Za-z_]\w*\s*\.\s*)*([A-Za-z_]\w*)\s*\[")


def shrunk(code: str) -> frozenset[str]:
    """The names (an attribute's last one) a file's text takes words out of, or replaces words
    of, in place."""
    return frozenset(m.group(1) for pattern in (_SHRINK, _DELETE) for m in pattern.finditer(code))


def bound_name(statement: cst.CSTNode) -> str | None:
    """The name (an attribute's last one) an assignment binds its value to."""
    targets = ([t.target for t in statement.targets] if isinstance(statement, cst.Assign)
               else [statement.target] if isinstance(statement, cst.AnnAssign) else [])
    if len(targets) != 1:
        return None
    target = targets[0]
    return target.value if isinstance(target, cst.Name) else target.attr.value \
        if isinstance(target, cst.Attribute) else None


def step_of(node: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """(``X``, the words it adds) of ``self.X.extend(words)``, ``self.X.append(word)`` (a list
    of that one word) or ``self.X += words``; None for any other statement."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value in STEP_METHODS and len(node.args) == 1 \
            and node.args[0].keyword is None and not node.args[0].star:
        attribute = _self_attribute(node.func.value)
        if attribute is None:
            return None
        added = node.args[0].value
        return attribute, (cst.List([cst.Element(added)]) if node.func.attr.value == "append" else added)
    if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
        attribute = _self_attribute(node.target)
        return (attribute, node.value) if attribute is not None else None
    return None


def builder_program(model: FileModel, scope: Scope, attribute: str) -> str | None:
    """The program of ``self.<attribute>`` in the method ``scope``: where every value the
    class gives the attribute (its body's binding, ``self.<attribute> = ...`` in its methods)
    is a list display starting the same sglang program; None where any is not, or a class
    above or below it in the file sets the attribute too."""
    info = model.enclosing_class_of_self(scope)
    if info is None:
        return None
    programs = set()
    body = model.class_scopes.get(info.node)
    for site in body.bindings.get(attribute, ()) if body is not None else ():
        programs.add(list_program(site.value) if isinstance(site.value, cst.BaseExpression) else None)
    for write_scope, text, value in model.attribute_writes:
        head, _, rest = text.partition(".")
        if rest != attribute or head not in ("self", "cls"):
            continue
        other = model.enclosing_class_of_self(write_scope, head)
        if other is None or (other is not info and (model.is_local_subclass(other, info)
                                                    or model.is_local_subclass(info, other))):
            return None
        if other is info:
            programs.add(list_program(value))
    if len(programs) != 1 or None in programs:
        return None
    return programs.pop()


def _self_attribute(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None
