"""The HTTP server: Tornado's, holding each request to what a browser sends (``Limits``).

Bokeh's server makes its HTTP server by the name ``bokeh.server.server.HTTPServer``, which
``patches.py`` points at ``ExplainerHTTPServer``; the server's ``ServerConfig`` reaches it as
its Tornado application's settings.

- Each connection finds the end of a request's headers in the bytes that came since it last
  looked (``RequestStream``). Tornado searches its whole buffer again each time bytes arrive:
  with the long request lines the explainer lets in, 50 ms a time, so a client that sent such a
  line a byte at a time held every reader.
- A request with more than ``Limits.max_header_count`` header fields gets a 431 before any
  handler sees it (Panel and Bokeh match each header against a list: 40,000 of them took 35 s),
  and one whose ``Host`` is not a name of this server a 421 (``hosts.py``: DNS rebinding).
- No response names the server, and every one carries ``headers.EVERY_RESPONSE`` (``ResponseHeaders``).
- ``--num-procs``: see ``processes.fork_serving_processes``.
"""

from __future__ import annotations

import os

from tornado import httputil
from tornado.httpserver import HTTPServer
from tornado.iostream import IOStream, UnsatisfiableReadError
from tornado.web import OutputTransform

from explainer.server.config import config_of
from explainer.server.headers import EVERY_RESPONSE
from explainer.server.logs import Throttled, shorten
from explainer.server.processes import fork_serving_processes

# What Tornado reads a request's headers up to (tornado.http1connection).
HEADER_END = b"\r?\n\r?\n"


class HeaderFieldsTooLong(ValueError):
    """A request whose header fields after its request line pass ``Limits.max_header_bytes``."""


class HeaderScan:
    """The search for the end of one request's headers in its connection's growing buffer
    (``find_header_end``, resumed where it stopped), which refuses header fields longer than
    ``max_header_bytes`` (counted from the end of the request line, which may be far longer)."""

    def __init__(self, max_header_bytes: int):
        self.max_header_bytes = max_header_bytes
        self.scanned = 0  # no header end starts before this
        self.line_end = -1  # where the request line ends, once known

    def end_in(self, buffer: bytes | bytearray, size: int) -> int | None:
        """Where the headers end in ``buffer[:size]``, or None while they have not ended."""
        end, self.scanned, self.line_end = find_header_end(buffer, size, self.scanned, self.line_end)
        fields = (end or size) - self.line_end if self.line_end >= 0 else 0
        if fields > self.max_header_bytes:
            raise HeaderFieldsTooLong(f"header fields longer than {self.max_header_bytes} bytes")
        return end


def find_header_end(
    buffer: bytes | bytearray, size: int, start: int = 0, line_end: int = -1
) -> tuple[int | None, int, int]:
    """Where a request's headers end in ``buffer[:size]``, as Tornado's ``HEADER_END`` search finds
    it (just after the first blank line), found at memchr's speed and resumably: ``start`` (no
    header end begins before it) and ``line_end`` (the end of the request line, after at most one
    blank line, or -1 while unknown) come from the previous call on the same growing buffer.
    Returns the end or None, and the ``start`` and ``line_end`` for the next call.
    """
    while (newline := buffer.find(b"\n", start, size)) >= 0:
        if size - newline < 3 and buffer[newline + 1 : size] in (b"", b"\r"):
            return None, newline, line_end  # undecided until more bytes come
        if line_end < 0 and (newline > 1 or buffer[:newline].strip(b"\r")):
            line_end = newline
        if buffer[newline + 1] == 10:
            return newline + 2, newline + 2, line_end
        if buffer[newline + 1 : newline + 3] == b"\r\n":
            return newline + 3, newline + 3, line_end
        start = newline + 1
    return None, size, line_end


def too_many_header_fields(headers, max_count: int) -> bool:
    """Whether a request's headers (Tornado's ``HTTPHeaders``) have more than ``max_count`` fields."""
    return sum(1 for _ in headers.get_all()) > max_count


class RequestStream(IOStream):
    """A connection that looks for the end of a request's headers only in the bytes that came
    since it last looked, at memchr's speed (Tornado's regular expression reads 40 MB/s),
    and closes as soon as the header fields after the request line pass ``max_header_bytes``,
    as Tornado closes a connection whose headers pass its own limit."""

    max_header_bytes = 0  # set by ExplainerHTTPServer from its limits
    _scan = None  # the HeaderScan of the request being read

    def read_until_regex(self, regex, max_bytes=None):
        self._scan = HeaderScan(self.max_header_bytes)
        return super().read_until_regex(regex, max_bytes)

    def _find_read_pos(self):
        regex = self._read_regex
        if regex is None or regex.pattern != HEADER_END or not self._read_buffer_size:
            return super()._find_read_pos()
        size = self._read_buffer_size
        try:
            end = self._scan.end_in(self._read_buffer, size)
        except HeaderFieldsTooLong as error:
            raise UnsatisfiableReadError(str(error)) from None
        self._check_max_bytes(regex, end or size)
        return end


# A refused Host is logged once, then at most once a minute (a rebinding page may send thousands).
_HOST_REFUSALS = Throttled()


def host_refusal_text(host: str) -> str:
    """What a request for another ``Host`` is told, and the log says: the option that would allow it."""
    return (
        f"this server does not answer to the host {shorten(host, 100)!r}; if that is its public name "
        f"(a reverse proxy's), serve with --public-host {shorten(host, 100)}"
    )


class HeaderCount(httputil.HTTPMessageDelegate):
    """Answers a request with more than ``max_count`` header fields with a 431, and one whose Host
    ``host_rule`` (``hosts.HostRule``, None for any) does not allow with a 421, in place of the application."""

    def __init__(self, delegate, connection, max_count: int, host_rule=None):
        self.delegate, self.connection, self.max_count, self.refused = delegate, connection, max_count, False
        self.host_rule = host_rule

    def headers_received(self, start_line, headers):
        if too_many_header_fields(headers, self.max_count):
            return self._refuse(431, "Request Header Fields Too Large", f"at most {self.max_count} header fields")
        host = headers.get("Host", "")
        if self.host_rule is not None and not self.host_rule.allows(host):
            text = host_refusal_text(host)
            _HOST_REFUSALS.warn("host", "Refused a request for another host: %s", text)
            return self._refuse(421, "Misdirected Request", text)
        return self.delegate.headers_received(start_line, headers)

    def _refuse(self, status: int, reason: str, text: str) -> None:
        self.refused = True
        body = f"{reason}: {text}\n".encode()
        self.connection.write_headers(
            httputil.ResponseStartLine("HTTP/1.1", status, reason),
            httputil.HTTPHeaders(
                {
                    "Content-Type": "text/plain; charset=utf-8",
                    "Content-Length": str(len(body)),
                    **EVERY_RESPONSE,
                }
            ),
            body,
        )
        self.connection.finish()
        return None

    def data_received(self, chunk):
        return None if self.refused else self.delegate.data_received(chunk)

    def finish(self):
        if not self.refused:
            self.delegate.finish()

    def on_connection_close(self):
        if not self.refused:
            self.delegate.on_connection_close()


class ExplainerHTTPServer(HTTPServer):
    """Tornado's HTTPServer with ``RequestStream`` connections, ``HeaderCount`` first, and our processes."""

    @property
    def config(self):
        return config_of(self.request_callback)  # the Tornado application it serves

    @property
    def limits(self):
        return self.config.limits

    def handle_stream(self, stream, address):
        if type(stream) is IOStream:  # a plain TCP connection, not yet read from
            stream.__class__ = RequestStream
            stream.max_header_bytes = self.limits.max_header_bytes
        return super().handle_stream(stream, address)

    def start_request(self, server_conn, request_conn):
        delegate = super().start_request(server_conn, request_conn)
        return HeaderCount(delegate, request_conn, self.limits.max_header_count, self.config.host_rule)

    def start(self, num_processes: int | None = 1, max_restarts: int | None = None) -> None:
        if num_processes != 1:
            fork_serving_processes(num_processes or os.cpu_count() or 1)
        super().start(1)


class ResponseHeaders(OutputTransform):
    """Leaves out the Server header, in which Tornado names itself and its version, and adds
    ``headers.EVERY_RESPONSE`` (nosniff, no referrer)."""

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        headers.pop("Server", None)
        for name, value in EVERY_RESPONSE.items():
            headers[name] = value
        return status_code, headers, chunk
