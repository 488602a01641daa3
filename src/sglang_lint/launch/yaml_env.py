"""The environment variables a YAML file gives a command: those of the mapping that holds the
command's key (launch_text.YAML_KEYS). A Compose service's ``environment`` (a mapping, or a
list of ``NAME=value``), a Kubernetes container's ``env`` list (``- name: X`` with ``value:
"1"``; ``valueFrom`` is unknown), SkyPilot's ``envs``, a CI job's or step's ``env`` /
``variables``; for a shell key (``run:``, ``script:``) also those of the mappings around it (a
workflow's and a job's ``env``), the nearer one winning.

Only what is certain: a value with ``$`` (Compose's and Kubernetes' interpolation, CI
expressions), a null (Compose then passes the host's), a boolean, a block scalar, an alias or a
flow mapping is unknown, and unknown is absent. Line-based, over launch_text's YAML reading: one
pass gives each line its parent (the nearest line above it that is less indented, or the key a
sequence at its own indentation belongs to; a block scalar's lines belong to its header).
"""

from __future__ import annotations

import bisect

from sglang_lint.launch.yaml_commands import YAML_BLOCK, YAML_DASH, YAML_KEY, YAML_KEYS, YAML_PROPERTIES, YamlReader

ENV_KEYS = ("env", "environment", "envs", "variables")
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_BOOLEANS = frozenset({"true", "false", "yes", "no", "on", "off", "y", "n"})


class YamlEnv:
    """The environment each command of one YAML text is given (:meth:`at`)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.yaml = yaml = YamlReader(text)
        count = len(yaml.lines)
        self.parent: list[int | None] = [None] * count
        self.children: dict[int | None, list[int]] = {}
        self.keys: list = [None] * count  # a line's key (None: none, or a line of a block scalar)
        self._envs: dict[int, dict[str, str]] = {}  # a mapping's first line -> its variables
        stack: list[tuple[int, bool, int]] = []  # (indentation, a sequence item, line)
        index = 0
        while index < count:
            s, e, cs, content = yaml.lines[index]
            if not content:
                index += 1
                continue
            indent, item = cs - s, bool(YAML_DASH.match(text, cs, e))
            while stack and (stack[-1][0] > indent or (stack[-1][0] == indent and not (item and not stack[-1][1]))):
                stack.pop()
            self.parent[index] = parent = stack[-1][2] if stack else None
            self.children.setdefault(parent, []).append(index)
            self.keys[index] = YAML_KEY.match(text, s, e)
            stack.append((indent, item, index))
            block = YAML_BLOCK.match(text, s, e)
            if block:  # its lines are text: never a key, never a parent
                after = yaml.block(index, (block.end(2) if block.group(3) else block.end(1)) - s)[1]
                for line in range(index + 1, after):
                    self.parent[line] = index
                index = max(after, index + 1)
                continue
            index += 1

    def at(self, offset: int) -> dict[str, str]:
        """The variables certainly set for the command whose word starts at ``offset``."""
        line = bisect.bisect_right(self.yaml.starts, offset) - 1
        m = self.keys[line]
        if not (m and m.group(4) in YAML_KEYS and m.end() <= offset):
            line = self.parent[line]
            while line is not None and self.keys[line] is None:
                line = self.parent[line]
            m = self.keys[line] if line is not None else None
            if not (m and m.group(4) in YAML_KEYS):
                return {}
        return dict(self._env(line, YAML_KEYS[m.group(4)] == "shell"))

    def _column(self, line: int) -> int:
        return self.keys[line].end(2) - self.yaml.lines[line][0]

    def _mapping(self, line: int) -> tuple[dict[str, int], int]:
        """The keys of the mapping that holds the key on ``line`` (name -> line), and its first line."""
        keys, col = self.keys, self._column(line)
        head = line if keys[line].group(2) else None  # `- key:`: the first key of a sequence item
        up = self.parent[line]
        if head is None and up is not None and keys[up] and keys[up].group(2) and self._column(up) == col:
            head = up
        pool = self.children.get(head if head is not None else up, [])
        members = ([head] if head is not None else []) + [
            k for k in pool if keys[k] and not keys[k].group(2) and self._column(k) == col]
        return {keys[k].group(4): k for k in members}, min(members)

    def _env(self, line: int, outer: bool) -> dict[str, str]:
        """The variables of the mapping holding the key on ``line`` (and, ``outer``, of the
        mappings around it, the nearer winning)."""
        keys, first = self._mapping(line)
        if first not in self._envs:
            found: dict[str, str] = {}
            for name in ENV_KEYS:
                if name in keys:
                    found.update(self._value(keys[name]))
            self._envs[first] = found
        found = self._envs[first]
        holder = self.parent[first]  # the key whose value the mapping (or the sequence it is an item of) is
        if not outer or holder is None or self.keys[holder] is None:
            return found
        return {**self._env(holder, True), **found}

    # --- values ----------------------------------------------------------------------------------
    def _value(self, line: int) -> dict[str, str]:
        """The variables of the env key on ``line``: a block mapping, a block sequence or a flow
        sequence of ``NAME=value`` or Kubernetes' ``name``/``value`` items."""
        text, found = self.text, {}
        e = self.yaml.lines[line][1]
        p = YAML_PROPERTIES.match(text, self.keys[line].end(), e).end()
        if p < e and text[p] != "#":
            for item in self.yaml.flow(p)[0] if text[p] == "[" else ():
                _listed(found, item[0])
            return found
        children = self.children.get(line, [])
        items = [k for k in children if self._item(k)]
        for index in items:
            self._sequence_item(found, index)
        for index in children if not items else ():
            m = self.keys[index]
            if m is None or m.group(2) or self._column(index) != self._column(children[0]):
                continue
            value = self._scalar(index, m.end(), self._column(index))
            found.pop(m.group(4), None)
            if value is not None:
                found[m.group(4)] = value
        return found

    def _item(self, line: int) -> bool:
        _, e, cs, _ = self.yaml.lines[line]
        return bool(YAML_DASH.match(self.text, cs, e))

    def _sequence_item(self, found: dict[str, str], line: int) -> None:
        s, e, cs, _ = self.yaml.lines[line]
        if self.keys[line] is not None:  # - name: X / value: "1"
            keys, _ = self._mapping(line)
            name = self._field(keys, "name", line)
            if name is None:
                return
            found.pop(name, None)
            value = None if "valueFrom" in keys else self._field(keys, "value", line) if "value" in keys else ""
            if value is not None:
                found[name] = value
            return
        q = cs + 1
        while q < e and self.text[q] in " \t":
            q += 1
        node = self.yaml.value(line, q, cs - s)[0] if q < e and self.text[q] != "#" else None
        if node is not None and node[0] == "text":
            _listed(found, node[1][0])

    def _field(self, keys: dict[str, int], name: str, line: int) -> str | None:
        if name not in keys:
            return None
        return self._scalar(keys[name], self.keys[keys[name]].end(), self._column(line))

    def _scalar(self, line: int, p: int, col: int) -> str | None:
        """The value of the scalar after ``p`` on ``line`` as a string, when certain."""
        text, end = self.text, self.yaml.lines[line][1]
        q = YAML_PROPERTIES.match(text, p, end).end()
        if q >= end or text[q] in "#|>*{[%@`":
            return None  # nothing (null), a block scalar, an alias, a collection
        node = self.yaml.value(line, p, col)[0]
        if node is None or node[0] != "text":
            return None
        string = node[1][0]
        if text[q] in "\"'":
            return None if "$" in string else string
        if string in _NULLS or string.lower() in _BOOLEANS or "$" in string:
            return None
        return string


def _listed(found: dict[str, str], item: str) -> None:
    """Compose's list form: an item ``NAME=value`` sets NAME; ``NAME`` alone passes the host's
    (unknown)."""
    name, equals, value = item.partition("=")
    found.pop(name, None)
    if equals and "$" not in value:
        found[name] = value
