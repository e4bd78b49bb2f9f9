"""Files a reader sends from the page: received in pieces, bounded, read, and every bad line named.

A file arrives as messages of at most ``CHUNK_BYTES`` of it (base64), each answered before the
next is sent, and may have at most ``MAX_FILE_BYTES`` (``MAX_UNPACKED_BYTES`` once gunzipped).
It is kept in memory only, in the reader's session, and read with ``explainer.evaluation``'s
readers; when a file cannot be read, every malformed line is named (the first ``MAX_PROBLEMS``,
and how many more) with the file's name, the line's number and what was expected there, and
never with the line's content: a golden set is often confidential, and the messages may be
read over a shoulder or a shared screen.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field

from explainer.evaluation.formats import Caps, InputError, Qrels, Run, read_qrels, read_run
from explainer.evaluation.formats.compressed import gunzip
from explainer.evaluation.formats.limits import MAX_ID_BYTES

CHUNK_BYTES = 1 << 20
"""Bytes of a file per message: 1 MiB, about 1.4 MB of base64 with the message around it."""

MAX_FILE_BYTES = 64 << 20
"""The largest file the page accepts: 64 MiB as sent (some 1.5 million run lines)."""

MAX_UNPACKED_BYTES = 256 << 20
"""The largest a gzipped file may grow to once unpacked (one gzip layer, every member: as the command line)."""

MAX_QUERIES = 10_000
"""The most queries a file may hold on the page (MS MARCO's dev set has 6,980): the page's table
holds a row per query. The command line reads any number."""

MAX_PER_QUERY = 10_000
"""The most results (or judgments) one query may have on the page (TREC runs hold 1,000): a
what-if rebuilds one query's list. The command line reads any number."""

PAGE_CAPS = Caps(queries=MAX_QUERIES, per_query=MAX_PER_QUERY)

MAX_PROBLEMS = 20
"""Malformed lines named one by one; the rest are counted."""

MAX_TEXT = 2000
"""The longest query text or document title kept (characters)."""

MAX_NAME = 200
"""File names are cut to this many characters, and stripped of control characters."""

SLOTS = ("qrels", "baseline", "candidate", "topics", "documents")
"""What a file can be: the judgments, the baseline run, the candidate run, query texts, document titles."""


class UploadError(ValueError):
    """A file that cannot be used: ``lines`` say why, one problem a line, in words for the reader."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        super().__init__("; ".join(lines))


def clean_name(name: object) -> str:
    """A file name fit to show: a string, no control characters, at most ``MAX_NAME`` characters."""
    text = re.sub(r"[\x00-\x1f\x7f]", "", str(name) if isinstance(name, str) else "")
    return text[:MAX_NAME] or "the file"


@dataclass
class Arriving:
    """One file on its way: its name, announced size and pieces so far."""

    slot: str
    name: str
    size: int
    pieces: int
    parts: list[bytes] = field(default_factory=list)
    received: int = 0


class Inbox:
    """The files one page is sending, one at a time, each checked against the limits as it arrives."""

    def __init__(self):
        self.arriving: Arriving | None = None
        self.last_piece_bytes = 0  # the size of the last piece taken

    def start(self, message: dict) -> None:
        slot, name, size, pieces = (message.get(key) for key in ("slot", "name", "size", "pieces"))
        if slot not in SLOTS:
            raise UploadError([f"expected a file for one of {', '.join(SLOTS)}"])
        if not _whole(size) or not _whole(pieces) or size < 0 or pieces < 1:
            raise UploadError(["expected the file's size and its number of pieces"])
        if size > MAX_FILE_BYTES:
            raise UploadError(
                [
                    f"{clean_name(name)}: {size / 2**20:,.1f} MB is more than the {MAX_FILE_BYTES >> 20} MB a file may have"
                ]
            )
        if pieces != max(1, -(-size // CHUNK_BYTES)):
            raise UploadError([f"expected {max(1, -(-size // CHUNK_BYTES))} pieces of {CHUNK_BYTES:,} bytes"])
        self.arriving = Arriving(slot, clean_name(name), size, pieces)

    def chunk(self, message: dict) -> None:
        arriving = self.arriving
        if arriving is None or message.get("slot") != arriving.slot:
            raise UploadError(["a piece of a file arrived that was not announced"])
        if message.get("index") != len(arriving.parts):
            raise UploadError([f"{arriving.name}: a piece arrived out of order"])
        text = message.get("data")
        if not isinstance(text, str) or len(text) > 4 * (CHUNK_BYTES // 3 + 1):
            self.arriving = None
            raise UploadError([f"{arriving.name}: a piece larger than {CHUNK_BYTES:,} bytes"])
        try:
            piece = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            self.arriving = None
            raise UploadError([f"{arriving.name}: a piece was not base64"]) from None
        arriving.received += len(piece)
        if arriving.received > arriving.size or len(arriving.parts) >= arriving.pieces:
            self.arriving = None
            raise UploadError([f"{arriving.name}: more bytes arrived than announced"])
        arriving.parts.append(piece)
        self.last_piece_bytes = len(piece)

    def finish(self, message: dict) -> Arriving:
        arriving = self.arriving
        self.arriving = None
        if arriving is None or message.get("slot") != arriving.slot:
            raise UploadError(["a file ended that was not announced"])
        if arriving.received != arriving.size:
            raise UploadError([f"{arriving.name}: {arriving.received:,} of {arriving.size:,} bytes arrived"])
        return arriving


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def unpacked(name: str, raw: bytes) -> bytes:
    """The file's bytes, gunzipped when they are gzip (by their first bytes), within ``MAX_UNPACKED_BYTES``.

    The command line's reader unpacks the same way (``explainer.evaluation.formats.compressed``).
    """
    try:
        return gunzip(name, raw, MAX_UNPACKED_BYTES)
    except InputError as error:
        raise UploadError([str(error)]) from None


FORMATS = {
    "qrels": (4, True, 3, int, "4 fields: qid iter docid grade", "an integer grade in the 4th field"),
    "run": (6, False, 4, float, "6 fields: qid Q0 docid rank score tag", "a number as the score in the 5th field"),
}


def problems(name: str, raw: bytes, kind: str) -> list[str]:
    """Every malformed line of a qrels (``kind="qrels"``) or run (``"run"``) file, in words.

    The first ``MAX_PROBLEMS`` are named (the file, the line's number, what was expected
    there and what was found, by count or kind, never the line itself); then how many more.
    """
    n_fields, exact, number_at, kind_of, fields_text, number_text = FORMATS[kind]
    found: list[str] = []
    more = 0
    for number, line in enumerate(raw.split(b"\n"), start=1):
        words = line.split()
        if not words or words[0].startswith(b"#"):
            continue
        problem = None
        if (len(words) != n_fields) if exact else (len(words) < n_fields):
            problem = f"expected {fields_text}, found {len(words)} field{'s' if len(words) != 1 else ''}"
        else:
            try:
                value = kind_of(words[number_at].decode("ascii"))
                if value != value:
                    raise ValueError
            except (ValueError, UnicodeDecodeError, OverflowError):
                problem = f"expected {number_text}, found something else"
        if problem:
            if len(found) < MAX_PROBLEMS:
                found.append(f"{name}, line {number}: {problem}")
            else:
                more += 1
    if more:
        found.append(f"{name}: {more:,} more malformed line{'s' if more > 1 else ''}")
    return found


def read_judgments_or_run(name: str, raw: bytes, slot: str, progress=None) -> Qrels | Run:
    """Read an uploaded qrels or run file; ``UploadError`` names every malformed line."""
    data = unpacked(name, raw)
    kind = "qrels" if slot == "qrels" else "run"
    reader = read_qrels if kind == "qrels" else read_run
    try:
        return reader(data, name=name, progress=progress, caps=PAGE_CAPS)
    except InputError as error:
        listed = problems(name, data, kind)
        raise UploadError(listed or [str(error)]) from None


def read_texts(name: str, raw: bytes) -> dict[str, str]:
    """An uploaded ``id<TAB>text`` file (query texts or document titles); ``UploadError`` names every bad line."""
    data = unpacked(name, raw)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise UploadError([f"{name}, line {line}: expected text in UTF-8"]) from None
    out: dict[str, str] = {}
    found: list[str] = []
    more = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        key, tab, value = line.partition("\t")
        problem = None
        if not tab or not key.strip() or any(c.isspace() for c in key.strip()):
            problem = "expected an id without spaces, a tab, then the text"
        elif len(key.strip().encode("utf-8", "surrogateescape")) > MAX_ID_BYTES:
            problem = f"expected an id of at most {MAX_ID_BYTES:,} bytes"
        elif len(value) > MAX_TEXT:
            problem = f"expected a text of at most {MAX_TEXT:,} characters"
        if problem:
            if len(found) < MAX_PROBLEMS:
                found.append(f"{name}, line {number}: {problem}")
            else:
                more += 1
            continue
        out[key.strip()] = value.strip()
    if more:
        found.append(f"{name}: {more:,} more malformed line{'s' if more > 1 else ''}")
    if found:
        raise UploadError(found)
    if not out:
        raise UploadError([f"{name}: expected lines of an id, a tab, then the text; found none"])
    return out


def read_upload(slot: str, name: str, raw: bytes, progress=None):
    """An uploaded file read for its slot: ``Qrels``, ``Run`` or a dict of texts; ``UploadError`` if it cannot be."""
    if slot in ("topics", "documents"):
        return read_texts(name, raw)
    return read_judgments_or_run(name, raw, slot, progress)
