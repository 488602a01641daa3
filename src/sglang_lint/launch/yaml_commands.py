"""The commands of a YAML file (Kubernetes, Compose, CI): the values of the keys that hold a
command, read without a YAML library, each word with its place in the file (launch/yaml_env.py
reads the environment beside them with the same reader)."""

from __future__ import annotations

import bisect
import re
from typing import Optional

from sglang_lint.launch.shell_split import IWord, Word, nested_commands, split_mapped, word_pieces


# YAML keys whose value is a command: "words" (a sequence is one command, an item a word; a string
# is split as shell) or "shell" (a string or each item of a sequence is shell text).
YAML_KEYS = {"command": "words", "args": "words", "entrypoint": "words",
             "run": "shell", "script": "shell", "before_script": "shell", "after_script": "shell"}
# Sibling keys of one mapping that make one command: Kubernetes command + args, Compose entrypoint + command.
YAML_JOINS = (("entrypoint", "command"), ("command", "args"))
YAML_KEY = re.compile(r"([ ]*)((?:-[ \t]+)*)([\"']?)([A-Za-z_][\w-]*)\3[ \t]*:(?=[ \t]|\r?$)")
YAML_BLOCK = re.compile(r"([ ]*)((?:-[ \t]+)*)([^#\s][^#]*?:[ \t]+)?[|>][-+1-9]{0,2}[ \t]*(?:#.*)?\r?$")
_YAML_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
                 "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0"}
_YAML_RUN = {"'": re.compile(r"[^'\r\n]+"), '"': re.compile(r'[^"\\\r\n]+')}
YAML_PROPERTIES = re.compile(r"[ \t]*(?:[!&][^ \t]*[ \t]*)*")  # a tag or an anchor before the value
YAML_DASH = re.compile(r"-(?:[ \t]|$)")
_YAML_COMMENT = re.compile(r"[ \t]#")
_YAML_BREAK = re.compile(r"[ \t\r\n]*")
_INDENT = re.compile(r"[ \t]*")
_FLOW_GAP = re.compile(r"(?:[\s,]+|#[^\n]*)*")
_FLOW_PLAIN = re.compile(r"[^,\[\]{}\r\n]*")
_EXPANDS = re.compile(r"\$[({A-Za-z_]")  # $(VAR) of Kubernetes, $VAR / ${VAR} of Compose

_Text = tuple  # (string, where: int offset of a same-length slice | spans per character, src start, src end)


class YamlReader:
    """A line-based reading of YAML: enough for the values of YAML_KEYS, no YAML library. A line is
    (start, end without the line break, first non-blank offset, holds content: neither blank nor a comment)."""

    def __init__(self, text: str) -> None:
        self.text, self.starts, self.lines = text, [0] + [m.end() for m in re.finditer("\n", text)], []
        for k, s in enumerate(self.starts):
            e = self.starts[k + 1] - 1 if k + 1 < len(self.starts) else len(text)
            e -= e > s and text[e - 1] == "\r"
            cs = _INDENT.match(text, s, e).end()
            self.lines.append((s, e, cs, cs < e and text[cs] != "#"))

    def scan(self) -> list[tuple[int, str, tuple]]:
        """(mapping id, key, value) of every YAML_KEYS key; the keys of one mapping share the id."""
        text, entries, maps, ids, li = self.text, [], {}, 0, 0
        while li < len(self.lines):
            s, e, cs, content = self.lines[li]
            if not content:
                li += 1
                continue
            for col in [c for c in maps if c > cs - s]:
                del maps[col]  # a line less indented than a mapping's keys ends that mapping
            m = YAML_KEY.match(text, s, e)
            if m and m.group(4) in YAML_KEYS:
                col = m.end(2) - s
                if col not in maps:
                    maps[col], ids = ids, ids + 1
                node, after = self.value(li, m.end(), col)
                if node:
                    entries.append((maps[col], m.group(4), node))
                li = max(after, li + 1)
                continue
            block = YAML_BLOCK.match(text, s, e)  # another key's block scalar: its lines are not keys
            li = self.block(li, (block.end(2) if block.group(3) else block.end(1)) - s)[1] if block else li + 1
        return entries

    def block(self, li: int, col: int) -> tuple[range, int]:
        """The lines of the block scalar whose header is on line ``li`` (indented past ``col``; trailing
        blank lines left out), and the line after the block."""
        rows = self.lines
        lj = next((k for k in range(li + 1, len(rows)) if rows[k][2] < rows[k][1] and rows[k][2] - rows[k][0] <= col),
                  len(rows))
        return range(li + 1, max([k + 1 for k in range(li + 1, lj) if rows[k][2] < rows[k][1]], default=li + 1)), lj

    def value(self, li: int, p: int, col: int) -> tuple[Optional[tuple], int]:
        """The value from ``p`` on line ``li`` of a key or item at column ``col``: ("seq", [text, ...]) or
        ("text", text), or None; and the line after it."""
        text, e = self.text, self.lines[li][1]
        p = YAML_PROPERTIES.match(text, p, e).end()
        if p >= e or text[p] == "#":  # the value is on the next lines
            lj = next((k for k in range(li + 1, len(self.lines)) if self.lines[k][3]), None)
            if lj is None:
                return None, li + 1
            ls, le, cs, _ = self.lines[lj]
            if YAML_DASH.match(text, cs, le) and cs - ls >= col:
                return self.sequence(lj, cs - ls)
            return self.value(lj, cs, col) if cs - ls > col else (None, li + 1)
        c = text[p]
        if c == "[":
            items, end = self.flow(p)
            return ("seq", items), bisect.bisect_right(self.starts, end - 1)
        if c in "\"'":
            string, spans, end = self.quoted(p)
            return ("text", (string, spans, p, end)), bisect.bisect_right(self.starts, end - 1)
        if c in "|>":
            return self.block_scalar(li, c == ">", col)
        return self.plain(li, p, col)

    def sequence(self, lj: int, indent: int) -> tuple[tuple, int]:
        """A block sequence whose dashes are at ``indent``; an empty item (a collection under it) is skipped."""
        text, items = self.text, []
        while lj < len(self.lines):
            s, e, cs, content = self.lines[lj]
            if content and (cs - s != indent or not YAML_DASH.match(text, cs, e)):
                break
            q = _INDENT.match(text, cs + 1, e).end() if content else e
            node, after = self.value(lj, q, indent) if q < e and text[q] != "#" else (None, lj + 1)
            if node and node[0] == "text":
                items.append(node[1])
            lj = max(after, lj + 1)
        return ("seq", items), lj

    def block_scalar(self, li: int, folded: bool, col: int) -> tuple[Optional[tuple], int]:
        """A ``|`` block's lines as they are; a ``>`` block's line breaks between two lines at the
        block's indentation turned to blanks (same length, so offsets hold)."""
        lines, after = self.block(li, col)
        if not lines:
            return None, after
        begin, end = self.lines[lines[0]][0], self.lines[lines[-1]][1]
        chars = list(self.text[begin:end])
        if folded:  # a line break between two lines at the block's indentation is a blank
            rows = [self.lines[k] for k in lines]
            indent = min(cs - s for s, e, cs, _ in rows if cs < e)
            for (sa, ea, ca, _), (sb, eb, cb, _) in zip(rows, rows[1:]):
                if ca < ea and cb < eb and ca - sa == cb - sb == indent:
                    chars[ea - begin:sb - begin] = " " * (sb - ea)
        return ("text", ("".join(chars), begin, begin, end)), after

    def plain(self, li: int, p: int, col: int) -> tuple[tuple, int]:
        """A plain scalar from ``p`` and its more indented continuation lines (line breaks as blanks)."""
        text, lj = self.text, li
        while True:
            s, e, _, _ = self.lines[lj]
            cut = _YAML_COMMENT.search(text, max(s, p), e)
            end = cut.start() if cut else e
            lj += 1
            if cut or lj == len(self.lines) or not self.lines[lj][3] or self.lines[lj][2] - self.lines[lj][0] <= col:
                break
        string = text[p:end].rstrip(" \t\r")
        return ("text", (string.replace("\r", " ").replace("\n", " "), p, p, p + len(string))), lj

    def quoted(self, p: int) -> tuple[str, list, int]:
        """The quoted scalar at ``p``: its value, the source span of each character, its end."""
        text, n, q = self.text, len(self.text), self.text[p]
        out, spans, j = [], [], p + 1
        while j < n:
            m = _YAML_RUN[q].match(text, j)
            if m:
                out.append(m.group())
                spans.extend((k, k + 1) for k in range(j, m.end()))
                j = m.end()
                continue
            c, nxt = text[j], text[j + 1:j + 2]
            if c == q and not (q == "'" and nxt == "'"):
                return "".join(out), spans, j + 1
            if c in "\r\n" or (c == "\\" and nxt in ("\r", "\n")):  # a line break folds to a blank; \ joins
                if c != "\\":
                    out.append(" ")
                    spans.append((j, j + 1))
                j = _YAML_BREAK.match(text, j + 1).end()
            else:  # '' in single quotes, an escape in double quotes
                char = "'" if q == "'" else _YAML_ESCAPES.get(nxt)
                out.append("\\" if char is None else char)
                spans.append((j, j + (1 if char is None else 2)))
                j = spans[-1][1]
        return "".join(out), spans, n

    def flow(self, p: int) -> tuple[list, int]:
        """The items of the flow sequence ``[...]`` at ``p`` (nested collections skipped), and its end."""
        text, n, items, j = self.text, len(self.text), [], p + 1
        while True:
            j = _FLOW_GAP.match(text, j).end()
            if j >= n:
                return items, n
            c = text[j]
            if c == "]":
                return items, j + 1
            if c in "\"'":
                string, spans, end = self.quoted(j)
                items.append((string, spans, j, end))
                j = end
            elif c in "[{":  # a nested collection: skipped
                depth, j = 1, j + 1
                while j < n and depth:
                    depth, j = depth + (text[j] in "[{") - (text[j] in "]}"), j + 1
            else:
                m = _FLOW_PLAIN.match(text, j)
                string = _YAML_COMMENT.split(m.group(), 1)[0].rstrip(" \t")
                if string:
                    items.append((string, j, j, j + len(string)))
                j = max(m.end(), j + 1)


def _item_word(item: _Text, text: str) -> IWord:
    """A sequence item as one word; a block or a plain scalar over lines loses each line's leading blanks."""
    string, spans, start, end = item
    if isinstance(spans, int):
        where, spans, chars, pos = spans, [], [], 0
        for line in text[where:where + len(string)].split("\n"):
            for k in range(pos + len(line) - len(line.lstrip(" \t")), min(pos + len(line) + 1, len(string))):
                chars.append(string[k])  # the line's content and the break after it (a blank if folded)
                spans.append((where + k, where + k + 1))
            pos += len(line) + 1
        string = "".join(chars)
    return Word(string, start, end, bool(_EXPANDS.search(string)), text[start:end] == string), word_pieces(spans)


def yaml_iwords(text: str) -> list[list[IWord]]:
    groups: dict[int, list[tuple[str, list[list[IWord]]]]] = {}
    for mapping, key, (kind, value) in YamlReader(text).scan():
        if kind == "seq" and YAML_KEYS[key] == "words":
            cmds = [[_item_word(item, text) for item in value]]
        else:
            items = value if kind == "seq" else [value]
            cmds = [cmd for item in items for cmd in split_mapped(item[0], item[1], text, None)]
        groups.setdefault(mapping, []).append((key, [c for c in cmds if c]))
    out: list[list[IWord]] = []
    for entries in groups.values():
        keys = dict(entries)
        for first, second in YAML_JOINS:
            if len(keys.get(first, ())) == 1 and len(keys.get(second, ())) == 1:
                rest = [e for e in entries if e[0] not in (first, second)]
                entries = [(first, [keys[first][0] + keys[second][0]])] + rest
                break
        out.extend(cmd for _, cmds in entries for cmd in cmds)
    return nested_commands(out, text, None)


def yaml_commands(text: str) -> list[list[Word]]:
    """The commands of a YAML file (Kubernetes, Compose, CI) as words with file offsets: the values of
    YAML_KEYS; a sequence item is one word (``exact`` False when quoted); a string is split as shell
    (a ``>`` block scalar's lines joined, a ``|`` one's kept); YAML_JOINS siblings make one command;
    and after a ``sh -c SCRIPT`` command, the commands of SCRIPT."""
    return [[w for w, _ in cmd] for cmd in yaml_iwords(text)]
