"""The call-site screen: the second, still cheap, stage before a file is parsed with LibCST.

The text prefilter (:meth:`RuleSet.may_match`) finds files that call a catalog name. On a
large tree that is still many files: sglang itself calls its own APIs everywhere, almost
always with values that come from elsewhere (``mode=mode``, ``self.config.mode``), which no
rule can judge. The screen looks at each such call's own text, parsed alone with :mod:`ast`,
and asks whether the argument a rule checks *could* be a value the engine knows:

* a literal: yes if the check would fail on it (``mode="pre"``), no if it passes;
* a conditional expression: if either branch may be;
* a name: only if the file binds that name at statement level (``MODE = ...``), gives it a
  literal default or keyword somewhere (``mode="pre"``), or has it as a parameter of a
  function the file itself calls (a wrapper);
* an attribute (``self.mode``, ``args.mode``): only for enum-valued rules (``Enum.MEMBER``);
* a call, a subscript, a display, an f-string: no (the engine never evaluates those);
* an argument that is absent: no.

When a call passes on its own text, the screen takes a **second look** on the file's
:mod:`ast` (parsed once, about a tenth of a LibCST parse; flake8 hands over its own tree):
a name in a comment or a string is no call; a function or class target is called only
through a name its imports give it (``tensor.select(...)`` is not ``sglang.select(...)``);
a name's value is read from the bindings of the scope the call sits in (screen/ast_scopes.py); a
``class Mine(Config):`` line fires only where a field default or a call of a class of the
file may fail; ``import f as g`` only where a call ``g(...)`` may.

It only ever says "no" when the full engine could not report anything at that call, so a
file it rejects is one the engine would find clean (``tests/test_screen.py`` and
``tests/test_screen_agreement.py`` check this on every fixture, example and corpus
mutation). When unsure it says yes.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Callable

from sglang_lint.screen.ast_receivers import receiver_may_be
from sglang_lint.screen.ast_scopes import GLOBAL, PARAM, VALUE, AstFile, CallSite, class_fields, dict_items
from sglang_lint.text.scan import (
    BracketMap, assigned_by_statement, call_text, called_words, may_assign, named_by_as, qualifying_names, whole_word,
)
from sglang_lint.text.bindings import (
    BINDING, assigned_values, inside_brackets, method_called_on, never_evaluated, node_never_evaluated,
)
from sglang_lint.text.pynames import (
    MAX_HOPS, NAME_BYTE, NOT_LITERAL, SCALARS, UNKNOWN, UNSURE, Ref, ast_dotted_name, ast_literal, condition_passes,
    find_argument,
)


@dataclass
class FileFacts:
    """What the screen needs to know about the whole file, computed on first need."""

    data: bytes
    # the file's ast when the caller has it (flake8 does), or what keeps a document's between
    # edits (the language server's ast_reparse.AstChunks: anything with ``ast_file(data)``)
    tree: object = None
    module: str | None = None  # the file's module name, and whether it is a package's __init__
    is_package: bool = False
    _bound: dict = field(default_factory=dict)  # each question's answer, asked once
    _called_params: set[str] | None = None
    _ast: AstFile | None | bool = False
    _qualifying: frozenset | None = None
    _brackets: BracketMap | None = None

    def syntax(self) -> AstFile | None:
        """The file's ast facts (screen/ast_scopes.py), read on first need; None when it does not parse."""
        if self._ast is False:
            keeper = getattr(self.tree, "ast_file", None)
            self._ast = (keeper(self.data, self.module, self.is_package) if keeper is not None
                         else AstFile.read(self.data, self.tree, self.module, self.is_package))
        return self._ast

    def name_may_fail(self, name: str, fails: Callable | None, enum, strict: bool) -> bool:
        """Could a bare ``name`` at a call hold a value the engine knows and the check
        rejects? From the file's text: each value a statement of the file assigns it (in any
        scope), judged as the value at a call is (:func:`value_may_be_known`: a literal by
        ``fails``, a name through its own values, a conditional by its branches; a binding the
        text cannot read is a yes), a literal parameter default (unless ``strict``), a
        wrapper's parameter. Where the caller has the file's ast (flake8): whether the name
        is bound anywhere it could be (the second look reads it)."""
        if fails is None or self.tree is not None:
            return self.name_may_be_known(name, strict, enum is not None)
        key = ("fails", name, fails, enum, strict)
        if key not in self._bound:
            self._bound[key] = True  # (``x = x or y``: while its values are read, unsure)
            self._bound[key] = (
                name in self.called_parameters() or self._literal_default(name.encode(), strict)
                or any(value is None or value_may_be_known(value, self, fails, enum, strict)
                       for value in self.assigned_values(name.encode()))
            )
        return self._bound[key]

    def _literal_default(self, name: bytes, strict: bool) -> bool:
        """``name=<literal>`` inside brackets: a parameter's literal default, which the engine
        reads unless the check is ``strict`` (or a keyword argument: a yes that costs a parse)."""
        return not strict and any(match.group("literal") and self.brackets().depth_at(index) > 0
                                  for index, match in self._binding_matches(name))

    def _binding_matches(self, name: bytes):
        """``(offset, BINDING match)`` for each whole ``name`` followed by ``=``, ``: T =`` or
        ``:=`` (after ``:`` it is an annotation, after ``.`` an attribute: neither binds it)."""
        data = self.data
        index = data.find(name)
        while index >= 0:
            end = index + len(name)
            if whole_word(data, index, end) and _previous_byte(data, index) not in _NOT_BINDING_BEFORE:
                match = BINDING.match(data, end)
                if match is not None:
                    yield index, match
            index = data.find(name, end)

    def second_look(self, name_end: int, screen: Callable | None, qualified: str | None,
                    member: bool = False) -> bool:
        """The call whose callee's name ends at ``name_end``, judged again on the file's ast
        (the text screen let it through): is it a call at all (not a comment or a string),
        can its callee be the function or class named ``qualified`` (when given), and does
        ``screen`` pass it with names read from the call's own scope? ``member``: the
        attribute ``x.name`` ending there (an attribute target's site, analysis/sites.py
        ``visit_Attribute``), read as a call of it without arguments."""
        syntax = self.syntax()
        if syntax is None:
            return True
        site = syntax.call_at(name_end, member=member)
        if site is None or site is True:
            return site is True
        return self._site_passes(syntax, site, screen, qualified)

    def _site_passes(self, syntax: AstFile, site: CallSite, screen: Callable | None, qualified: str | None,
                     func: ast.expr | None = None, call: ast.Call | None = None) -> bool:
        """Is ``site`` a call the engine judges (not in a negative test: analysis/guards.py), whose callee
        ``func`` (default: the site's) may name ``qualified`` (when given), and that ``screen``
        may pass (``call``: the call it is read as, default the site's own) with names read
        from the site's scope?"""
        if site.expected_raise:
            return False
        if qualified is not None and not _may_name(syntax, func or site.call.func, site.scopes, qualified):
            return False
        return screen is None or screen(call or site.call, ScopedFacts(self, syntax, site.scopes, site=site))

    def file_look(self, screen: Callable) -> bool:
        """For a check of whole classes (``Trigger`` shape ``file``): could it fire on this
        file's ast? (``screen`` reads the module; a file that does not parse passes.)"""
        syntax = self.syntax()
        return syntax is None or screen(syntax.tree)

    def partial_look(self, name_end: int, screen: Callable | None, qualified: str | None) -> bool:
        """The name ending at ``name_end`` near a ``partial(``: is it the first argument of a
        ``partial(f, ...)`` call that may pass ``screen``? (:meth:`_partial_may_pass`)"""
        syntax = self.syntax()
        if syntax is None:
            return True
        site = syntax.call_at(name_end, partial=True)
        if site is None or site is True:
            return site is True  # no partial of it (a callback, a comment): no call
        return self._partial_may_pass(syntax, site, screen, qualified)

    def _partial_may_pass(self, syntax: AstFile, site: CallSite, screen: Callable | None,
                          qualified: str | None) -> bool:
        """The engine (analysis/sites.py) checks ``partial(f, ...)`` as ``f(...)`` with the arguments it
        binds, and each later ``p(...)`` of ``p = partial(f, ...)`` with both sets of
        arguments: where ``p`` is called, unsure."""
        bound = site.call
        call = ast.copy_location(ast.Call(bound.args[0], bound.args[1:], bound.keywords), bound)
        if syntax.bound_name_called(bound, site.scopes[-1]):
            # (the arguments of those calls are not read here; the callee's receiver is the partial's)
            return self._site_passes(syntax, site, getattr(screen, "receiver_only", None), qualified, bound.args[0],
                                     call)
        return self._site_passes(syntax, site, screen, qualified, bound.args[0], call)

    def alias_look(self, alias: str, screen: Callable | None, qualified: str | None = None) -> bool:
        """``import f as alias`` (or ``from m import f as alias``): could a call ``alias(...)``
        of this file, or a ``partial(alias, ...)``, pass ``screen`` (and name ``qualified``)?
        (No screen: unsure; a subclass of an aliased config class is read too, engine/reach.py.)"""
        syntax = self.syntax()
        if syntax is None or screen is None:
            return True
        for site in syntax.calls_named(alias):
            if site is True or self._site_passes(syntax, site, screen, qualified):
                return True
        for site in syntax.partials_of(alias):
            if site is True or self._partial_may_pass(syntax, site, screen, qualified):
                return True
        return False

    def class_look(self, screen: Callable, qualified: str | None = None) -> bool:
        """For a config class's ``class Mine(Config):`` line: could a field default written
        in a class body of this file, or a keyword of a call of one of its classes, fail
        ``screen``? (engine/reach.py ``field_sites`` and ``subclass_calls``: the engine reads them
        as keywords of a call of the class, for the config class ``qualified`` and its
        subclasses: ``AstFile.may_be_a`` tells which classes of the file may be either.)"""
        syntax = self.syntax()
        if syntax is None:
            return True
        for node, scopes in syntax.classes():
            if qualified is not None and not syntax.may_be_a(node, scopes, qualified):
                continue
            facts = ScopedFacts(self, syntax, scopes + (node,))
            for name, value in class_fields(node):
                if screen(ast.Call(ast.Name(node.name), [], [ast.keyword(name, value)]), facts):
                    return True
            for site in syntax.calls_named(node.name):
                if site is True or screen(site.call, ScopedFacts(self, syntax, site.scopes, site=site)):
                    return True
        return False

    def name_may_be_known(
        self, name: str, strict: bool = False, attributes: bool = False, displays: bool = False
    ) -> bool:
        """Could the engine know a value for a bare ``name`` at some call of this file?
        ``strict``: parameter defaults do not count (the check ignores them); ``attributes``:
        a binding to ``a.b`` counts (an enum rule resolves ``Enum.MEMBER``); ``displays``: a
        binding to a list or an operation counts (an argv list)."""
        key = (name, strict, attributes, displays)
        if key not in self._bound:
            encoded = name.encode()
            self._bound[key] = (
                self._binds(encoded, strict, attributes, displays) or name in self.called_parameters()
                # (what _binds does not read: a chained assignment ``a = name = ...``, an unpacking)
                or may_assign(self.data, encoded) and any(
                    value is None or not node_never_evaluated(value, attributes, displays)
                    for value in self.assigned_values(encoded))
            )
        return self._bound[key]

    def _binds(self, name: bytes, strict: bool, attributes: bool, displays: bool) -> bool:
        """Does the file bind ``name`` where the engine could follow it: a statement
        ``NAME = ...`` / ``NAME: T = ...`` to a value the engine may evaluate, or (unless
        ``strict``) ``NAME=<literal>`` (a parameter default; a keyword also matches, which
        only costs a parse)?"""
        data = self.data
        for index, match in self._binding_matches(name):
            if match.group("walrus") or (match.group("literal") and not strict):
                return True
            line_start = data.rfind(b"\n", 0, index) + 1
            if (
                not data[line_start:index].strip(b" \t")
                and not inside_brackets(data, line_start)
                and not never_evaluated(data, match.end("equals"), attributes, displays)
            ):
                return True  # a statement binding the name to something the engine may follow
        return False

    def may_rename(self, name: str) -> bool:
        """Could ``name`` be another name for something (``import X as name``, ``name = X``)?"""
        return named_by_as(self.data, name.encode()) or self.assigned_anyhow(name)

    def may_qualify(self, head: str) -> bool:
        """Could a dotted name headed by ``head`` qualify (an import, a definition, a
        ``global``: textscan.qualifying_names), and so be an enum member or a dtype?"""
        if self._qualifying is None:
            self._qualifying = qualifying_names(self.data)
        return head.encode() in self._qualifying

    def may_hold_value(self, name: str, known: Callable | None = None, reading: object = None) -> bool:
        """Could a bare ``name`` have a binding the engine evaluates (an assignment, or a
        ``global``: unsure)? ``known(value)``: could the engine know this value assigned to
        it (asked of each statement ``name = value`` of the file; any other way the text may
        bind it is a yes); ``reading``: what ``known``'s answers depend on (they are kept)."""
        if self.may_qualify(name):
            return True
        if known is None or self.tree is not None:
            # (with the file's ast at hand, flake8's or the language server's, the second look
            # reads the bindings themselves: reading their values from the text only costs)
            return may_assign(self.data, name.encode())
        key = ("value", name, id(reading))
        if key not in self._bound:
            self._bound[key] = True  # (``x = x + 1``: while its values are read, unsure)
            self._bound[key] = any(value is None or known(value) for value in self.assigned_values(name.encode()))
        return self._bound[key]

    def assigned_values(self, name: bytes) -> list:
        """The value of each statement of the file binding ``name`` (None: one it cannot read),
        each parsed once."""
        key = ("assigned", name)
        if key not in self._bound:
            self._bound[key] = list(assigned_values(self.data, self.brackets(), name))
        return self._bound[key]

    def method_called_on(self, name: str) -> bool:
        """Is a method called on ``name`` in the file's code (the engine's ``mutated_names``)?"""
        key = ("changed", name)
        if key not in self._bound:
            self._bound[key] = method_called_on(self.data, self.brackets(), name.encode())
        return self._bound[key]

    def brackets(self) -> BracketMap:
        if self._brackets is None:
            self._brackets = BracketMap(self.data)
        return self._brackets

    def assigned_anyhow(self, name: str) -> bool:
        """Is ``name`` bound or grown by a statement of its own (``name = ...``, ``name += ...``),
        to whatever value? A list built in steps may start from a call (``list(BASE)``)."""
        return assigned_by_statement(self.data, name.encode())

    def called_parameters(self) -> set[str]:
        """Parameter names of the functions this file defines and also calls (by name or as
        ``self.name(...)``): a value may reach them from a call in the file (a wrapper)."""
        if self._called_params is None:
            found: set[str] = set()
            definitions = list(_DEF.finditer(self.data))
            called = called_words(self.data) if definitions else {}
            for match in definitions:
                if called.get(match.group(1), 0) < 2:  # only the def itself
                    continue
                header = call_text(self.data, match.end() - 1)
                if header is None:
                    self._called_params = _EVERYTHING
                    return self._called_params
                found.update(name.decode() for name in _PARAMETER.findall(header))
            self._called_params = found
        return self._called_params


class ScopedFacts:
    """The file's facts seen from one call: a name's value is read from the bindings of the
    scope the call sits in (screen/ast_scopes.py), all of them; lists built in steps (argv) are
    still judged from the file's text, as analysis/built.py follows them across scopes."""

    def __init__(self, facts: FileFacts, syntax: AstFile, scopes: tuple, depth: int = 0, site: CallSite | None = None):
        self.facts, self.syntax, self.scopes, self.depth = facts, syntax, scopes, depth
        self.site = site  # the call judged (None: a binding's scope, a class body)

    def guarded(self, name: str) -> bool:
        """Does a condition in force at the call judged test ``name`` (checks/base.py
        ``guarded_on``: the engine does not guess at its value there)?"""
        return self.site is not None and name in self.site.tested()

    def name_may_fail(self, name: str, fails: Callable | None, enum, strict: bool) -> bool:
        if self.depth > MAX_HOPS:
            return True  # past the engine's own limit it knows nothing: unsure, so yes
        found = self.syntax.reaching(name, self.scopes, self.site)  # (at the call: those that reach it)
        if found is None:
            return False  # unbound here (a builtin, a star import): the engine knows no value
        bindings, owner = found
        for binding in bindings:
            kind = binding[0]
            if kind == GLOBAL:
                return True
            if kind == VALUE:
                facts = ScopedFacts(self.facts, self.syntax, owner, self.depth + 1)
                if value_may_be_known(binding[1], facts, fails, enum, strict):
                    return True
            elif kind == PARAM:
                function, default = binding[1], binding[2]
                literal = NOT_LITERAL if default is None else ast_literal(default)
                if literal is not NOT_LITERAL and not strict and (fails is None or fails(literal)):
                    return True  # the engine reads a literal default
                if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._wrapper_may_fail(
                        name, function, owner, fails, enum, strict):
                    return True  # a wrapper: a call in the file may pass the value (engine/reach.py)
        return False

    def _wrapper_may_fail(self, name: str, function: ast.AST, owner: tuple, fails, enum, strict: bool) -> bool:
        """``name`` is a parameter of ``function`` (whose scope chain is ``owner``): could a
        call of it in the file pass a value the check fails?"""
        # (each call of the wrapper is judged as a call of the target: a name tested there is not guessed at)
        return any(passed is True or not _guarded_name(*passed) and value_may_be_known(
            passed[0], passed[1], fails, enum, strict) for passed in self.wrapper_arguments(name, function, owner))

    def wrapper_arguments(self, name: str, function: ast.AST, owner: tuple):
        """What the calls of ``function`` in the file pass for its parameter ``name`` (engine/reach.py
        ``parameter_wrapper``, ``calls_of``: ``f(...)``, or ``self.f(...)`` for a method; its
        position counted without ``self``): ``(expression, the call's facts)`` each, or True
        where the screen cannot tell (a call in an f-string, a ``**`` mapping it may hold)."""
        args = function.args
        positional = [a.arg for a in (*args.posonlyargs, *args.args)]
        if name not in positional and name not in {a.arg for a in args.kwonlyargs}:
            return  # ``*args``, ``**kwargs``: the engine binds no parameter it follows
        method = _is_method(function, owner)
        position = positional.index(name) - method if name in positional else None
        if position is not None and position < 0:
            return  # ``self`` itself
        for site in self.syntax.calls_of(function, owner, method):
            if site is True:
                yield True  # (in an f-string)
                continue
            if site.expected_raise:
                continue  # (the engine makes no site of a negative test's call)
            at_call = ScopedFacts(self.facts, self.syntax, site.scopes, self.depth + 1, site)
            passed = argument(site.call, name, position, at_call)
            if passed is True:
                yield True
            elif passed is not None and passed is not False:
                yield passed, at_call

    def name_may_be_known(
        self, name: str, strict: bool = False, attributes: bool = False, displays: bool = False
    ) -> bool:
        return self.facts.name_may_be_known(name, strict, attributes, displays)

    def may_be_bound_to(self, name: str, kinds: tuple | Callable, called_parameters: bool = False) -> bool:
        """Could ``name``, seen from this scope, hold an expression of one of these ast node
        types, or one ``kinds(node)`` accepts (a binding to one, or a ``global``/``nonlocal``
        one)? ``called_parameters``: a parameter of a function the file calls (or of a lambda)
        counts too (a wrapper)."""
        found = self.syntax.lookup(name, self.scopes)
        accepts = kinds if callable(kinds) else (lambda node: isinstance(node, kinds))
        return found is not None and any(
            binding[0] == GLOBAL or binding[0] == VALUE and accepts(binding[1])
            or called_parameters and binding[0] == PARAM and (
                not isinstance(binding[1], (ast.FunctionDef, ast.AsyncFunctionDef))
                or bool(self.syntax.calls_of(binding[1], found[1], _is_method(binding[1], found[1]))))
            for binding in found[0]
        )

    def assigned_anyhow(self, name: str) -> bool:
        return self.facts.assigned_anyhow(name)

    def called_parameters(self) -> set[str]:
        return self.facts.called_parameters()


def _is_method(function: ast.AST, owner: tuple) -> bool:
    """Is ``function`` (whose scope chain is ``owner``, the function last) a method called
    through ``self`` (engine/reach.py ``parameter_wrapper``: defined in a class body, not static)?"""
    return len(owner) > 1 and isinstance(owner[-2], ast.ClassDef) and not any(
        ast_dotted_name(d) == "staticmethod" for d in function.decorator_list)


def _may_name(syntax: AstFile, func: ast.expr, scopes: tuple, qualified: str) -> bool:
    """Could ``func`` qualify to ``qualified`` (engine/dispatch.py ``effective_target``: the engine
    qualifies it, analysis/resolve.py ``qualify``)? The same rule on the file's ast (AstFile.qualify:
    every binding of its head, seen from the call, the same import or top-level definition;
    unsure where a ``global`` may bind it elsewhere): no for ``tensor.select(...)``,
    ``self.x.f(...)``, another module's function of the same name, or a name two imports in
    one function bind to different modules (``from a import f`` in one branch, ``from b
    import f`` in another: the engine qualifies it to neither)."""
    found = syntax.qualify(func, scopes)
    return found is UNSURE or found == qualified


_GAP = rb"(?:[ \t]|\\\r?\n)"  # white space within a line, or a backslash that continues it
_DEF = re.compile(  # (and ``def f[T](``)
    rb"\bdef" + _GAP + rb"+(" + NAME_BYTE + rb"+)" + _GAP + rb"*(?:\[[^\]]*\]" + _GAP + rb"*)?\(")
_PARAMETER = re.compile(rb"(?<![=:.\w\x80-\xff])([A-Za-z_\x80-\xff]" + NAME_BYTE + rb"*)")
_NOT_BINDING_BEFORE = frozenset(b":.")  # ints: _previous_byte gives -1 at the start of the file


def _previous_byte(data: bytes, index: int) -> int:
    index -= 1
    while index >= 0 and data[index] in b" \t":
        index -= 1
    return data[index] if index >= 0 else -1


class _Everything(set):
    def __contains__(self, item) -> bool:
        return True


_EVERYTHING = _Everything()


def parse_call(text: bytes) -> ast.Call | None:
    """The call ``f<text>``, parsed alone; None when it does not parse that way."""
    try:
        tree = ast.parse(b"f" + text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return tree.body if isinstance(tree.body, ast.Call) else None


def argument(call: ast.Call, name: str | None, position: int | None, facts=None) -> ast.expr | None | bool:
    """The expression passed for the parameter, None when absent; True when it may be there
    but the screen cannot tell (in a ``**name`` mapping, which the engine reads when the name
    is bound to a dict display); False when the engine cannot find it either (after
    ``*args``, or in a ``**`` mapping that is no display and no name, or, with the call's
    scope in ``facts``, a name that no dict display or ``dict(...)`` binds there: a
    ``**kwargs`` parameter, or a dict the file changes in place). The engine's own lookup
    (:func:`~sglang_lint.text.pynames.find_argument`), with ``**{...}`` read as it reads them
    (checks/base.py ``_mapping_items``: the string keys)."""
    names = []

    def expand(value):
        if isinstance(value, ast.Dict):
            return dict_items(value)
        if isinstance(value, ast.Call) and dict_items(value) is not None:
            names.append(value)  # ``**dict(a=1)``: the engine reads it unless ``dict`` is rebound
            return None
        if isinstance(value, ast.Name) and name is not None and isinstance(facts, ScopedFacts) \
                and facts.syntax.mapping_lacks(value.id, name, facts.scopes):
            return []  # none of the dicts the name may hold has the key: not in this mapping
        if isinstance(value, ast.Name) and isinstance(facts, ScopedFacts):
            if facts.syntax.changed_mapping(value.id, facts.scopes):
                return None  # changed in place (``kw.update(...)``, ``kw[k] = v``): the engine reads no key of it
            held = facts.syntax.one_dict(value.id, facts.scopes)
            if held is not None:
                return held  # its one binding's keys: the engine reads those or none
        if isinstance(value, ast.Name) and mapping_may_be_known(value, facts, literal=True):
            names.append(value)
        return None

    found = find_argument(ast_call_arguments(call), name, position, expand)
    if found is UNKNOWN:
        return bool(names)
    return None if found is None else found[0]


def mapping_may_be_known(node: ast.expr, facts, literal: bool = False) -> bool:
    """Could the engine read ``**node`` as a dict? ``literal``: as an argument's lookup reads
    it (analysis/resolve.py ``dict_literal``: a display, a ``dict(...)`` of keywords, or a name whose
    one reaching binding is one; never a parameter); else as analysis/built.py's ``dict_of`` (a name
    bound to any call may be a dict built in steps), or followed to the calls of the
    function whose ``**kwargs`` or dict parameter it is (engine/reach.py ``parameter_wrapper``, a
    function the file calls). Without the call's scope (the text screen): yes for any name."""
    if isinstance(node, (ast.Dict, ast.Call)):
        return True
    if not isinstance(node, ast.Name):
        return False
    if not isinstance(facts, ScopedFacts):
        return True
    # (a wrapper's ``**kwargs`` or dict parameter is followed to its calls only by the
    # server-argument checks, engine/reach.py; an argument's lookup reads no parameter's dict)
    return facts.may_be_bound_to(node.id, _is_dict_literal if literal else (ast.Dict, ast.Call),
                                 called_parameters=not literal)


def _is_dict_literal(node: ast.expr) -> bool:
    """analysis/resolve.py ``dict_literal`` of one binding: a display, or ``dict(...)`` of keywords only
    (whatever ``dict`` is bound to: a superset)."""
    return dict_items(node) is not None


def ast_call_arguments(call: ast.Call) -> list[tuple[str | None, str, ast.expr]]:
    """An :mod:`ast` call's arguments as :func:`~sglang_lint.text.pynames.find_argument` reads them
    (positional ones first, as Python requires but for ``f(a=1, *rest)``)."""
    return [
        (None, "*", arg.value) if isinstance(arg, ast.Starred) else (None, "", arg) for arg in call.args
    ] + [(keyword.arg, "**" if keyword.arg is None else "", keyword.value) for keyword in call.keywords]


def value_may_be_known(
    expr: ast.expr, facts: FileFacts, fails: Callable | None = None, enum=None, strict: bool = False
) -> bool:
    """Could the engine know this expression's value, and (for a literal, when ``fails`` is
    given) would it fail the check? ``enum``: the qualified enum class of a rule on enum
    members, whose ``Enum.MEMBER`` attributes the engine resolves (and ``fails`` judges as
    the engine would: a :class:`~sglang_lint.text.pynames.Ref` to the member). ``strict``: the
    check ignores parameter defaults."""
    literal = ast_literal(expr)
    if literal is not NOT_LITERAL:
        return fails is None or bool(fails(literal))
    if isinstance(expr, ast.Constant):
        # the engine reads a bytes literal's value too; ``...`` and complex numbers are no literal to it
        return isinstance(expr.value, bytes) and (fails is None or bool(fails(expr.value)))
    if isinstance(expr, ast.Name):
        return facts.name_may_fail(expr.id, fails, enum, strict)
    if isinstance(expr, ast.Attribute):
        if enum is None:
            return False
        base = expr.value
        base_name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
        if base_name != enum.rpartition(".")[2]:
            return True  # another spelling of the class (an alias, a module path): may be it
        return fails is None or bool(fails(Ref(f"{enum}.{expr.attr}")))
    if isinstance(expr, ast.IfExp):
        return any(value_may_be_known(branch, facts, fails, enum, strict) for branch in (expr.body, expr.orelse))
    return False  # the engine evaluates nothing else (calls, subscripts, displays, f-strings...)


def value_screen(
    name: str | None, position: int | None, fails: Callable | None = None, enum=None, strict: bool = False,
    omitted: bool = False,
) -> Callable:
    """The screen of a check on one argument (allowed values, None, truthiness); ``omitted``:
    leaving the argument out fails too (its default does)."""

    def screen(call: ast.Call, facts: FileFacts) -> bool:
        found = argument(call, name, position, facts)
        if found is None:
            return omitted
        if isinstance(found, bool):
            return found
        return not _guarded_name(found, facts) and value_may_be_known(found, facts, fails, enum, strict)

    return screen


def _guarded_name(node: ast.expr, facts) -> bool:
    """Is the argument a name that a condition in force at its call tests? The value checks
    skip every value that came through it (checks/base.py ``guarded_on`` of ``known.via[0]``)."""
    return isinstance(node, ast.Name) and isinstance(facts, ScopedFacts) and facts.guarded(node.id)


def conditions_screen(conditions, screen: Callable) -> Callable:
    """``screen``, for a check that runs only when other arguments pass their tests
    (``[[check.condition]]``). The engine needs every condition certain (checks/base.py
    ``conditions_hold``): an argument left out with a default that passes, a display whose
    emptiness passes, or a value it knows (written at the call or followed through names, not
    a parameter's default) that passes. A call where one cannot be so cannot fire; any other
    call goes to ``screen``."""

    def conditional(call: ast.Call, facts: FileFacts) -> bool:
        for condition in conditions:
            found = argument(call, condition.argument, condition.position, facts)
            if found is None:
                if not condition.has_default or not condition_passes(condition.holds, condition.values,
                                                                     condition.default):
                    return False
                continue
            if isinstance(found, bool):
                if found:
                    continue  # (a ``**name`` the engine may read)
                return False
            if isinstance(found, (ast.List, ast.Tuple, ast.Dict, ast.Set)):
                elements = found.keys if isinstance(found, ast.Dict) else found.elts
                if condition.holds == "in" or (condition.holds in ("truthy", "falsy")
                                               and bool(elements) != (condition.holds == "truthy")):
                    return False
                continue

            def passes(value, condition=condition) -> bool:
                return isinstance(value, SCALARS + (type(None),)) and condition_passes(
                    condition.holds, condition.values, value)

            if not value_may_be_known(found, facts, passes, None, strict=True):
                return False
        return screen(call, facts)

    conditional.receiver_only = getattr(screen, "receiver_only", None)
    return conditional


def may_be_made(receiver: ast.expr, facts: "ScopedFacts") -> bool:
    """Could the engine find the call that made this receiver (analysis/resolve.py
    ``constructor_call``, checks/fails_when/check.py ``CallValues._receiver_made``: a call, or a name
    bound to one; a superset: any of the name's bindings a call)? Never ``self``, an
    attribute or a subscript."""
    if isinstance(receiver, ast.Call):
        return True
    return isinstance(receiver, ast.Name) and facts.may_be_bound_to(receiver.id, (ast.Call,))


def receiver_screen(wanted: frozenset, on_class: bool, screen: Callable | None) -> Callable:
    """The screen of a method target whose rule asks for receiver evidence (engine/dispatch.py
    ``effective_target``): on the file's ast, a call whose receiver cannot be shown to be one
    of ``wanted`` is no call of it; then ``screen``, if any."""

    def receiver_only(call: ast.Call, facts) -> bool:
        return not (isinstance(facts, ScopedFacts) and isinstance(call.func, ast.Attribute)
                    and not receiver_may_be(facts.syntax, call.func.value, facts.scopes, wanted, on_class))

    def receiver_first(call: ast.Call, facts) -> bool:
        return receiver_only(call, facts) and (screen is None or screen(call, facts))

    # (where the call's arguments cannot be read, a ``p(...)`` of ``p = partial(obj.method, ...)``)
    receiver_first.receiver_only = receiver_only
    return receiver_first


def screen_call(data: bytes, name_end: int, screen: Callable, facts: FileFacts) -> bool:
    """Does the call whose callee name ends at ``name_end`` pass ``screen``? Anything not a
    plain call there (an import alias, a ``partial``, a call that does not parse alone)
    passes."""
    open_paren = data.find(b"(", name_end, name_end + 80)
    if open_paren < 0 or data[name_end:open_paren].strip(b" \t\r\n\\"):
        return True
    text = call_text(data, open_paren)
    if text is None:
        return True
    call = parse_call(text.replace(b"\r", b""))
    if call is None:
        return True
    return screen(call, facts)
