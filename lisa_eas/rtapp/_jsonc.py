"""A lenient JSON reader for rt-app workload files, with line:column positions.

rt-app reads its workload with json-c, which accepts more than strict JSON, and the
rt-app tutorial relies on the ``workgen`` pre-processor for the rest. This parser
accepts the union, so every rt-app file in circulation can be read:

* ``/* ... */`` and ``// ...`` comments (json-c);
* trailing commas before ``}`` and ``]`` (json-c, non-strict mode);
* single-quoted strings (json-c);
* repeated keys in one object (``"run": 1, "run": 2``): kept, **in order** (json-c
  would keep only the last value; workgen renames them ``run``, ``run1``... instead);
* bare keys without a value (``"suspend",``): the value is :data:`BARE` (workgen
  fills it in; json-c itself rejects them).

Objects are returned as :class:`JObject` (a list of members, duplicates kept) and every
node carries the position of its first character, so errors can name
``file:line:column`` and the key.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from ..errors import WorkloadError

__all__ = ["BARE", "JArray", "JMember", "JObject", "JScalar", "parse_jsonc"]


class _Bare:
    """Marker for a key written without a value (``"suspend",``)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "BARE"


BARE = _Bare()


@dataclass(frozen=True)
class JScalar:
    """A string, number, boolean, null or :data:`BARE` value at ``(line, col)``."""

    value: Any
    line: int
    col: int


@dataclass(frozen=True)
class JArray:
    items: tuple
    line: int
    col: int


@dataclass(frozen=True)
class JMember:
    """One ``"key": value`` pair; ``line``/``col`` locate the key."""

    key: str
    value: Any
    line: int
    col: int


@dataclass(frozen=True)
class JObject:
    members: tuple = field(default_factory=tuple)
    line: int = 1
    col: int = 1

    def __iter__(self) -> Iterator[JMember]:
        return iter(self.members)

    def get(self, key: str) -> JMember | None:
        """The first member named ``key`` (or None)."""
        for m in self.members:
            if m.key == key:
                return m
        return None


_WS = " \t\r\n\f\v\ufeff"
_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class _Parser:
    def __init__(self, text: str, source: str):
        self.s = text
        self.n = len(text)
        self.i = 0
        self.source = source
        # offsets of line starts, for offset -> (line, col)
        self._nl = [0]
        for k, ch in enumerate(text):
            if ch == "\n":
                self._nl.append(k + 1)

    # -- positions and errors -------------------------------------------------------
    def pos(self, i: int | None = None) -> tuple[int, int]:
        import bisect

        i = self.i if i is None else i
        ln = bisect.bisect_right(self._nl, i)
        return ln, i - self._nl[ln - 1] + 1

    def fail(self, what: str, fix: str, i: int | None = None, key: str | None = None):
        ln, col = self.pos(i)
        where = f"{self.source}:{ln}:{col}"
        k = f" (in key {key!r})" if key else ""
        raise WorkloadError(f"{where}: {what}{k}; {fix}")

    # -- lexing ---------------------------------------------------------------------
    def skip(self) -> None:
        s, n = self.s, self.n
        while self.i < n:
            ch = s[self.i]
            if ch in _WS:
                self.i += 1
            elif s.startswith("//", self.i):
                j = s.find("\n", self.i)
                self.i = n if j < 0 else j + 1
            elif s.startswith("/*", self.i):
                j = s.find("*/", self.i + 2)
                if j < 0:
                    self.fail("unterminated /* comment", "close it with */")
                self.i = j + 2
            else:
                return

    def peek(self) -> str:
        self.skip()
        return self.s[self.i] if self.i < self.n else ""

    def string(self) -> str:
        s = self.s
        quote = s[self.i]
        start = self.i
        self.i += 1
        out = []
        while True:
            if self.i >= self.n:
                self.fail("unterminated string", f"close it with {quote}", start)
            ch = s[self.i]
            if ch == quote:
                self.i += 1
                return "".join(out)
            if ch == "\\":
                nxt = s[self.i + 1: self.i + 2]
                if nxt == "u":
                    hexd = s[self.i + 2: self.i + 6]
                    try:
                        code = int(hexd, 16)
                    except ValueError:
                        self.fail(f"bad \\u escape {hexd!r}", "write \\u followed by exactly 4 hex digits")
                    self.i += 6
                    low = s[self.i + 2: self.i + 6] if s.startswith("\\u", self.i) else ""
                    if 0xD800 <= code < 0xDC00 and len(low) == 4 and \
                            all(c in "0123456789abcdefABCDEF" for c in low) and 0xDC00 <= int(low, 16) < 0xE000:
                        code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)  # surrogate pair
                        self.i += 6
                    out.append(chr(code))
                    continue
                if nxt not in _ESCAPES:
                    self.fail(f"bad escape \\{nxt}", "escape only \" \\ / b f n r t u")
                out.append(_ESCAPES[nxt])
                self.i += 2
                continue
            out.append(ch)
            self.i += 1

    def number(self, key: str | None):
        s = self.s
        j = self.i
        if j < self.n and s[j] in "+-":
            j += 1
        while j < self.n and (s[j].isdigit() or s[j] in ".eE+-"):
            j += 1
        tok = s[self.i:j]
        try:
            val: Any = int(tok)
        except ValueError:
            try:
                val = float(tok)
            except ValueError:
                self.fail(f"bad number {tok!r}", "write an integer such as 1000 or a decimal such as 0.5",
                          key=key)
        self.i = j
        return val

    # -- grammar --------------------------------------------------------------------
    def value(self, key: str | None, depth: int):
        if depth > 64:
            self.fail("nesting deeper than 64 levels", "flatten the file", key=key)
        ch = self.peek()
        ln, col = self.pos()
        if ch == "{":
            return self.obj(key, depth)
        if ch == "[":
            return self.arr(key, depth)
        if ch in "\"'":
            return JScalar(self.string(), ln, col)
        if ch and (ch.isdigit() or ch in "+-."):
            return JScalar(self.number(key), ln, col)
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.s.startswith(word, self.i):
                end = self.i + len(word)
                if end >= self.n or not (self.s[end].isalnum() or self.s[end] == "_"):
                    self.i = end
                    return JScalar(val, ln, col)
        if not ch:
            self.fail("unexpected end of file", "the file is truncated; complete the JSON", key=key)
        j = self.i
        while j < self.n and (self.s[j].isalnum() or self.s[j] in "_$.-"):
            j += 1
        word = self.s[self.i:j] or ch
        hint = ("it looks like a template placeholder: substitute it with a value before reading"
                if word.startswith("__") or word.isupper() else
                "values must be numbers, \"strings\", true, false, null, objects or arrays")
        self.fail(f"unexpected {word!r} where a value was expected", hint, key=key)

    def obj(self, key: str | None, depth: int) -> JObject:
        ln, col = self.pos()
        self.i += 1
        members = []
        while True:
            ch = self.peek()
            if ch == "}":
                self.i += 1
                return JObject(tuple(members), ln, col)
            if ch not in "\"'":
                if not ch:
                    self.fail("unexpected end of file inside an object", "close the object with }",
                              key=key)
                self.fail(f"unexpected {ch!r} where a \"key\" was expected",
                          "quote object keys with double quotes", key=key)
            kln, kcol = self.pos()
            k = self.string()
            ch = self.peek()
            if ch == ":":
                self.i += 1
                v = self.value(k, depth + 1)
            elif ch in ",}":
                v = JScalar(BARE, kln, kcol)  # workgen-style bare key
            else:
                self.fail(f"expected ':' after key {k!r}", "write \"key\": value", key=k)
            members.append(JMember(k, v, kln, kcol))
            ch = self.peek()
            if ch == ",":
                self.i += 1
            elif not ch:
                self.fail("unexpected end of file inside an object", "close the object with }", key=k)
            elif ch != "}":
                self.fail(f"expected ',' or '}}' after the value of {k!r}",
                          "separate members with commas", key=k)

    def arr(self, key: str | None, depth: int) -> JArray:
        ln, col = self.pos()
        self.i += 1
        items = []
        while True:
            ch = self.peek()
            if ch == "]":
                self.i += 1
                return JArray(tuple(items), ln, col)
            items.append(self.value(key, depth + 1))
            ch = self.peek()
            if ch == ",":
                self.i += 1
            elif ch != "]":
                self.fail("expected ',' or ']' in an array", "separate items with commas", key=key)


def parse_jsonc(text: str, source: str = "<string>") -> JObject:
    """Parse rt-app JSON ``text`` into a :class:`JObject` tree.

    Parameters
    ----------
    text : str
        The file contents.
    source : str
        The name used in error messages (a path, or ``"<string>"``).

    Raises
    ------
    WorkloadError
        ``source:line:column`` of the first syntax error, what was expected and the fix.
    """
    p = _Parser(text, source)
    if p.peek() != "{":
        if not p.peek():
            p.fail("the file is empty", "an rt-app workload is a JSON object with a \"tasks\" member")
        p.fail("the top level must be a JSON object", "wrap the workload in { ... }")
    root = p.obj(None, 0)
    if p.peek():
        p.fail("text after the end of the top-level object", "remove it (or merge it into the object)")
    return root
