"""Installed by the benchmark (tests/bench) as sitecustomize in the server it starts: report each figure state change over UDP.

Figure._pull is where a value from the browser reaches the FigureState (after Panel's
debounce); the report is sent right after, with the wall-clock time and the new state.
"""

import json
import os
import socket
import time

from explainer.figures import base

_host, _port = os.environ["EXPLAINER_BENCH_PROBE"].rsplit(":", 1)
_address = (_host, int(_port))
_socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
_pull = base.Figure._pull


def _reporting_pull(self, event):
    _pull(self, event)
    report = {"t": time.time(), "state": self.state.to_dict()}
    _socket.sendto(json.dumps(report).encode(), _address)


base.Figure._pull = _reporting_pull
