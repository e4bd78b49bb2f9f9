"""The class channel's messages: what a page may say to the server, checked field by field.

Every message is one JSON object of at most ``MAX_MESSAGE_BYTES``, with ``"v": VERSION`` and a
``"type"``. ``read_message`` turns a text into one of the named tuples below or raises
``Refused`` with a short code; nothing a page sends reaches the class unchecked, and nothing of
it is echoed back. What the server says to pages is built by ``room.py`` (README "Serving for a
class" lists both directions).

A page says ``hello`` first (its channel token and its student id), then ``ping`` to keep the
connection, and a student ``guess``. The teacher's pages also say ``showing`` (the figure on the
projector, as it changes), ``send`` (move every phone there), ``ask`` (predict together on
this figure: the hidden numbers and their true values), ``reveal`` and ``step`` (the lecture
plan's step to show).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, NamedTuple

VERSION = 1
# The longest message a page sends is the teacher's "ask": a figure's query (at most
# MAX_QUERY_CHARS) and up to MAX_TARGETS numbers with their labels. Tornado closes the
# connection on a longer one before reading it.
MAX_MESSAGE_BYTES = 8 * 1024
MAX_QUERY_CHARS = 4000  # a figure page's longest query (figures/base.py MAX_QUERY_LENGTH)
MAX_TARGETS = 8  # a figure hides at most four numbers today (predict.js)
MAX_LABEL_CHARS = 40
MAX_TOKEN_CHARS = 200

# A student's id: made by the phone (crypto.randomUUID without its hyphens, or the like), kept in
# its sessionStorage, so that a phone that reconnects keeps its last guess. Nothing else names it.
STUDENT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
# A hidden number's key, as predict.js names it ("P@k", "ndcg", "judged").
TARGET_KEY = re.compile(r"[A-Za-z0-9@._-]{1,24}")
# A route a figure page is served at ("/binary"): the server says which (``Rules.routes``).
ROUTE = re.compile(r"/[a-z][a-z-]{0,30}")
# A figure's query as its page writes it: URL-encoded, so printable ASCII with no "#".
QUERY = re.compile(r"[\x21-\x22\x24-\x7e]*")
# A label is shown on the projector as text: no control or bidi characters.
UNSAFE_TEXT = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class Refused(Exception):
    """A message no page sends: ``code`` is what the server answers (and logs), never its content."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


class Hello(NamedTuple):
    token: str
    student: str


class Ping(NamedTuple):
    n: int


class Guess(NamedTuple):
    question: int
    values: dict[str, float | None]


class Showing(NamedTuple):
    route: str
    query: str


class Send(NamedTuple):
    route: str
    query: str


class Target(NamedTuple):
    """A number the class predicts: its key, its label as the figure writes it, its true value."""

    key: str
    label: str
    value: float


class Ask(NamedTuple):
    route: str
    query: str
    targets: tuple[Target, ...]


class Reveal(NamedTuple):
    question: int


class Step(NamedTuple):
    to: int


# The teacher's messages: a student's page that sends one is refused (``room.Room.receive``).
TEACHERS_ONLY = (Showing, Send, Ask, Reveal, Step)
# Each message type and its fields besides "v" and "type".
FIELDS = {
    "hello": {"token", "student"},
    "ping": {"n"},
    "guess": {"question", "values"},
    "showing": {"route", "query"},
    "send": {"route", "query"},
    "ask": {"route", "query", "targets"},
    "reveal": {"question"},
    "step": {"to"},
}


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def read_message(text: str | bytes) -> Any:
    """The message ``text`` holds, checked, as one of this module's tuples; ``Refused`` otherwise.

    Codes: ``binary-frame``, ``too-long``, ``not-json``, ``bad-version``, ``unknown-type``,
    ``bad-fields`` (a field missing or one no such message has), and ``bad-<field>``.
    """
    if not isinstance(text, str):
        raise Refused("binary-frame")
    if len(text) > MAX_MESSAGE_BYTES:
        raise Refused("too-long")
    try:
        data = json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        raise Refused("not-json") from None
    if not isinstance(data, dict):
        raise Refused("not-json")
    if data.get("v") != VERSION or isinstance(data.get("v"), bool):
        raise Refused("bad-version")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise Refused("unknown-type")
    if set(data) != FIELDS[kind] | {"v", "type"}:
        raise Refused("bad-fields")
    return READERS[kind](data)


def _integer(value: Any, field: str, low: int = 0, high: int = 2**31) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Refused(f"bad-{field}")
    return value


def _share(value: Any, field: str) -> float:
    """A number from 0 to 1 (a measure's value, or a guess of one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Refused(f"bad-{field}")
    if not 0 <= value <= 1:
        raise Refused(f"bad-{field}")
    return float(value)


def _matching(value: Any, pattern: re.Pattern, field: str, most: int) -> str:
    if not isinstance(value, str) or len(value) > most or not pattern.fullmatch(value):
        raise Refused(f"bad-{field}")
    return value


def _figure(data: dict) -> tuple[str, str]:
    return _matching(data["route"], ROUTE, "route", 32), _matching(data["query"], QUERY, "query", MAX_QUERY_CHARS)


def _hello(data: dict) -> Hello:
    token = data["token"]
    if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN_CHARS:
        raise Refused("bad-token")
    return Hello(token, _matching(data["student"], STUDENT_ID, "student", 64))


def _guess(data: dict) -> Guess:
    values = data["values"]
    if not isinstance(values, dict) or not 0 < len(values) <= MAX_TARGETS:
        raise Refused("bad-values")
    checked = {}
    for key, value in values.items():
        _matching(key, TARGET_KEY, "values", 24)
        checked[key] = None if value is None else _share(value, "values")
    if all(value is None for value in checked.values()):
        raise Refused("bad-values")
    return Guess(_integer(data["question"], "question", 1), checked)


def _target(value: Any) -> Target:
    if not isinstance(value, dict) or set(value) != {"key", "label", "value"}:
        raise Refused("bad-targets")
    label = value["label"]
    if not isinstance(label, str) or not 0 < len(label) <= MAX_LABEL_CHARS or UNSAFE_TEXT.search(label):
        raise Refused("bad-targets")
    return Target(_matching(value["key"], TARGET_KEY, "targets", 24), label, _share(value["value"], "targets"))


def _ask(data: dict) -> Ask:
    targets = data["targets"]
    if not isinstance(targets, list) or not 0 < len(targets) <= MAX_TARGETS:
        raise Refused("bad-targets")
    read = tuple(_target(target) for target in targets)
    if len({target.key for target in read}) != len(read):
        raise Refused("bad-targets")
    return Ask(*_figure(data), read)


READERS = {
    "hello": _hello,
    "ping": lambda data: Ping(_integer(data["n"], "n")),
    "guess": _guess,
    "showing": lambda data: Showing(*_figure(data)),
    "send": lambda data: Send(*_figure(data)),
    "ask": _ask,
    "reveal": lambda data: Reveal(_integer(data["question"], "question", 1)),
    "step": lambda data: Step(_integer(data["to"], "to", 0, 10_000)),
}


def encode(message: dict) -> str:
    """A message to a page, as the text sent: compact JSON with the protocol's version."""
    return json.dumps({"v": VERSION, **message}, separators=(",", ":"), allow_nan=False)
