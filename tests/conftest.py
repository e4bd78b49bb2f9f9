"""Shared fixtures: the Chromium the browser tests drive, and a served explainer."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from explainer.browser import launch_args

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, **launch_args()}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_url(url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} before answering {url}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


class Server:
    """``relevance-explainer serve`` in a subprocess on a port of its own; restartable, one log across its lives."""

    def __init__(self, *extra_args: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = extra_args
        self.log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"explainer-server-{self.port}.log"
        self.log_path.write_text("")
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        with open(self.log_path, "a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "explainer.cli", "serve", "--port", str(self.port), "--no-browser", *self.args],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
            )
        wait_for_url(self.url + "/", self.process)

    def log(self) -> str:
        return self.log_path.read_text()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


@pytest.fixture(scope="session")
def server():
    """The explainer served on a free port of 127.0.0.1 for the whole session."""
    running = Server()
    yield running
    running.stop()


@pytest.fixture
def serve_object():
    """Serve Panel objects of this test process (so the test can read their Python state); returns their URL."""
    import panel as pn

    servers = []

    def serve(obj) -> str:
        def session():
            # As the explainer's server has it (serving._session_of): the page's only start-up
            # message is its own. Panel's browser-info report, in seven messages, once raced a
            # test's change of Python state and the change never reached the page.
            pn.config.browser_info = False
            return obj

        port = free_port()
        servers.append(pn.serve(session, port=port, address="127.0.0.1", threaded=True, show=False, start=True))
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(url, timeout=2):
                    return url
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"{url} did not answer")

    yield serve
    for running in servers:
        running.stop()


def answers(url: str) -> bool:
    """Whether ``url`` answers an HTTP GET at all (any status but a refused or dropped connection)."""
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def wait_python(figure, condition, message: str, timeout: float = 10.0) -> None:
    """Wait until Python's ``figure`` shows a change the page made, and Panel has finished handling it.

    Panel sets the figure's state while it handles the page's message; a change made from
    this (the test's) thread before it is done would be taken for that message's echo and
    never sent to the page. (In a served app and in a notebook, Python's changes run on the
    thread that handles messages, so they cannot land in between.)
    """
    wait_until(lambda: condition() and not figure.view._changing, timeout=timeout, message=message)


def wait_until(condition, timeout: float = 10.0, message: str = "condition") -> None:
    """Poll ``condition`` (a callable) until it is true, failing the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {message}")
