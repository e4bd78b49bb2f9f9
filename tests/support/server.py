"""A served explainer for the tests and the benchmark, and the waits that go with one."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import weakref
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def free_port() -> int:
    """A TCP port of 127.0.0.1 that is free now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers(url: str) -> bool:
    """Whether ``url`` answers an HTTP GET at all (any status but a refused or dropped connection)."""
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def wait_until(condition, timeout: float = 10.0, message: str = "condition") -> None:
    """Poll ``condition`` (a callable) until it is true, failing after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {message}")


def wait_python(figure, condition, message: str, timeout: float = 10.0) -> None:
    """Wait until Python's ``figure`` shows a change the page made.

    Panel sets the figure's state on the server's thread while it handles the page's message.
    A change the test made from its own thread meanwhile would be taken for that message's
    echo and never sent to the page (and Bokeh's document is not safe to touch from another
    thread): the tests make their changes with ``on_server``, which queues them on the
    server's thread, after the message is handled, as a served app's own changes are.
    (``figure`` names what the condition reads, for the callers' sake.)
    """
    wait_until(condition, timeout=timeout, message=message)


class ObjectServer:
    """One threaded Panel server, in this process, for the test objects of the whole session.

    ``serve(obj)`` lends ``obj`` a route of its own (``/o0``, ``/o1``, ...) and returns its
    URL; ``release()`` takes back every object lent since the last release. A released
    object's sessions end once their pages are closed (``unused_session_lifetime``), and with
    them the server's last reference to it. Routes are taken in turn, so one is used again
    only after all the others (a query in the URL would not do: a standalone figure reads the
    URL's query as its state, and the tests add their own).
    """

    ROUTES = 64

    def __init__(self):
        import panel as pn
        from tornado.ioloop import IOLoop

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.loop = IOLoop(make_current=False)
        self._lent: dict[str, object] = {}
        # Each page's document, and those whose page has said it is ready (Panel's onload).
        self._documents: weakref.WeakSet = weakref.WeakSet()
        self._ready: weakref.WeakSet = weakref.WeakSet()
        self._next = 0
        self._lock = threading.Lock()
        self._thread = pn.serve(
            {f"o{n}": self._session_of(f"o{n}") for n in range(self.ROUTES)},
            port=self.port,
            address="127.0.0.1",
            loop=self.loop,
            threaded=True,
            show=False,
            start=True,
            verbose=False,
            # An ended test's sessions (their pages closed) and the objects they show go soon;
            # a page has 5 s from its request to its websocket, which even a loaded machine keeps.
            unused_session_lifetime_milliseconds=5_000,
            check_unused_sessions_milliseconds=1_000,
        )
        wait_until(lambda: answers(self.url + "/favicon.ico"), timeout=30, message=f"{self.url} to answer")

    def _session_of(self, route: str):
        def session():
            import panel as pn

            # As the explainer's server has it (server/sessions.py session_of): the page's only start-up
            # message is its own. Panel's browser-info report, in seven messages, once raced a
            # test's change of Python state and the change never reached the page.
            pn.config.browser_info = False
            doc = pn.state.curdoc
            self._documents.add(doc)
            pn.state.onload(lambda: self._ready.add(doc))
            with self._lock:
                obj = self._lent.get(route)
            if obj is None:
                return pn.pane.Markdown(f"Nothing is served at /{route} now.")
            return obj

        return session

    def serve(self, obj) -> str:
        """Lend ``obj`` a route of its own; its URL (each page request makes a session of it)."""
        with self._lock:
            if len(self._lent) == self.ROUTES:
                raise RuntimeError(f"more than {self.ROUTES} objects served at once")
            while f"o{self._next}" in self._lent:
                self._next = (self._next + 1) % self.ROUTES
            route = f"o{self._next}"
            self._next = (self._next + 1) % self.ROUTES
            self._lent[route] = obj
        return f"{self.url}/{route}"

    def release(self) -> None:
        """Take back every object lent: a new page of their routes shows nothing."""
        with self._lock:
            self._lent.clear()

    def _unready(self) -> bool:
        """Whether a page has its document but has not yet said it is ready (read on the server's thread).

        Panel drops a change made in between: until the page's ``document_ready`` it takes the
        page for one that has yet to ask for its document, which will hold the change.
        """
        for doc in list(self._documents):
            context = doc.session_context
            session = context.session if context is not None else None
            if session is not None and not session.destroyed and session.connection_count and doc not in self._ready:
                return True
        return False

    def run(self, fn, *args, timeout: float = 10.0, **kwargs):
        """``fn(*args, **kwargs)`` on the server's thread, as a served app's own changes run; its result.

        Returns once it has run (raising what it raised). Panel then sends the change to each page
        from that thread: a change made on the test's thread would have Panel add Bokeh's
        next-tick callbacks from there, which is not safe. It runs once no page is between
        receiving its document and saying it is ready (see ``_unready``): a page shows its
        figure before then, and a change made there never reached it.
        """
        done = threading.Event()
        outcome: dict[str, object] = {}

        def call() -> None:
            if done.is_set():  # the test has given up
                return
            if self._unready():
                self.loop.call_later(0.01, call)
                return
            try:
                outcome["value"] = fn(*args, **kwargs)
            except BaseException as error:  # handed to the test's thread
                outcome["error"] = error
            finally:
                done.set()

        self.loop.add_callback(call)
        if not done.wait(timeout):
            done.set()  # not to run it later
            if not outcome:
                raise AssertionError(f"the server's thread did not run {fn!r} within {timeout} s (a page not ready?)")
        if "error" in outcome:
            raise outcome["error"]
        return outcome.get("value")

    def stop(self) -> None:
        self.release()
        self._thread.stop()


_object_server: ObjectServer | None = None


def object_server() -> ObjectServer:
    """The session's ObjectServer, started on first use."""
    global _object_server
    if _object_server is None:
        _object_server = ObjectServer()
    return _object_server


def stop_object_server() -> None:
    global _object_server
    if _object_server is not None:
        _object_server.stop()
        _object_server = None


def on_server(fn, *args, **kwargs):
    """Run ``fn(*args, **kwargs)`` on the thread of the server the test objects are served from.

    Every change a test makes to a served object's Python state goes through here:
    ``on_server(figure.state.param.update, k=3)``, ``on_server(state.promote, 4)``.
    """
    if _object_server is None:
        raise RuntimeError("no object is served: on_server is for objects served with serve_object")
    return _object_server.run(fn, *args, **kwargs)


class Server:
    """``relevance-explainer serve`` in a subprocess on a port of its own; restartable, one log across its lives.

    ``env`` adds to the environment (the benchmark's probe); with ``wait=False`` the caller
    waits with ``wait_ready`` (to start several servers at once). Readiness is asked of the
    favicon, not of a page, so that waiting makes no session.
    """

    def __init__(self, *extra_args: str, env: dict[str, str] | None = None, wait: bool = True):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = extra_args
        self.env = {**os.environ, **(env or {})}
        self.log_path = Path(tempfile.gettempdir()) / f"explainer-server-{self.port}.log"
        self.log_path.write_text("")
        self.process: subprocess.Popen | None = None
        self.start(wait=wait)

    def start(self, wait: bool = True) -> None:
        with open(self.log_path, "a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "explainer.cli", "serve", "--port", str(self.port), "--no-browser", *self.args],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                env=self.env,
            )
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Wait until the server answers, or raise with the end of its log."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.log()[-4000:]}")
            if answers(self.url + "/favicon.ico"):
                return
            time.sleep(0.1)
        raise RuntimeError(f"{self.url} did not answer within {timeout} s:\n{self.log()[-4000:]}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def rss_mb(self) -> float:
        import psutil

        return psutil.Process(self.process.pid).memory_info().rss / 2**20

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
