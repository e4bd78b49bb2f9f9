"""The server's log: every line short, whatever a client sent."""

from __future__ import annotations

import logging

# The server's own logger (refusals, dropped events, processes).
log = logging.getLogger("explainer.server")

# What the server logs of one message, at most (Bokeh would log a refused message whole).
MAX_LOG_CHARS = 500
# A connection that keeps sending what no page sends is logged once, then at most this often.
REFUSAL_LOG_EVERY_S = 60.0


def shorten(text: str, limit: int = 120) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was: a client's words in our own log lines."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def shorten_log_line(text: str) -> str:
    """A log message as the server logs it: its first ``MAX_LOG_CHARS`` characters, and how long it was."""
    return text if len(text) <= MAX_LOG_CHARS else f"{text[:MAX_LOG_CHARS]}… ({len(text):,} characters in all)"


def shorten_long_log_messages() -> None:
    """Cut every log message to ``MAX_LOG_CHARS``: Bokeh logs a message it cannot handle whole
    (5 MB of log for a 5 MB message), and Tornado a request's URL."""
    make_record = logging.getLogRecordFactory()
    if getattr(make_record, "shortens", False):
        return

    def shortened(*args, **kwargs):
        record = make_record(*args, **kwargs)
        try:
            text = record.getMessage()
        except Exception:  # a bad format is the logging module's to report
            return record
        if len(text) > MAX_LOG_CHARS:
            record.msg, record.args = shorten_log_line(text), None
        return record

    shortened.shortens = True
    logging.setLogRecordFactory(shortened)


class Throttled:
    """A warning logged the first time, then at most once every ``every_s`` seconds per kind, with the
    count of those left unlogged: a flood of refused connections, each a new handler, logs a line a
    minute, not a line each."""

    def __init__(self, every_s: float = REFUSAL_LOG_EVERY_S, clock=None):
        import time

        self.every_s, self.clock = every_s, clock or time.monotonic
        self._next: dict[str, float] = {}
        self._unlogged: dict[str, int] = {}

    def warn(self, kind: str, message: str, *args) -> bool:
        """Log ``message % args`` unless a line of ``kind`` was logged less than ``every_s`` ago; whether it was logged."""
        now = self.clock()
        if now < self._next.get(kind, 0.0):
            self._unlogged[kind] = self._unlogged.get(kind, 0) + 1
            return False
        unlogged = self._unlogged.pop(kind, 0)
        since = f" ({unlogged} more like it since the last such line)" if unlogged else ""
        log.warning(message + "%s; logged at most every %.0f s", *args, since, self.every_s)
        self._next[kind] = now + self.every_s
        return True
