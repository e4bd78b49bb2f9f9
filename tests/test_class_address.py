"""The class address: printed with a QR code at start-up when served with --address, and shown large in presenter view."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import numpy as np
import pytest
import zxingcpp
from PIL import Image

from explainer.classroom.address import class_address, terminal_qr
from explainer.server.network import network_address

from support.server import free_port, wait_until

OTHERS = re.compile(r"^Others on this network can open (\S+)$", re.M)
CELL = re.compile(r"\x1b\[(\d+);(\d+)m|(▀)")


def decoded(pixels: np.ndarray) -> list[str]:
    """The text of every QR code zxing-cpp finds in a greyscale image."""
    return [found.text for found in zxingcpp.read_barcodes(pixels)]


def terminal_modules(text: str) -> np.ndarray:
    """The modules of a QR code printed as terminal_qr prints it: True where dark."""
    rows = []
    for line in text.splitlines():
        if "▀" not in line:
            continue
        upper, lower, colours = [], [], None
        for fg, bg, cell in CELL.findall(line):
            if fg:
                colours = (fg == "30", bg == "40")
            elif cell:
                upper.append(colours[0])
                lower.append(colours[1])
        rows += [upper, lower]
    return np.array(rows, dtype=bool)


def as_image(modules: np.ndarray, scale: int = 8) -> np.ndarray:
    """Modules as a greyscale image, dark modules black, `scale` pixels a side."""
    return np.kron(np.where(modules, 0, 255).astype(np.uint8), np.ones((scale, scale), dtype=np.uint8))


def test_the_class_address_is_the_network_address_with_port_and_path_and_none_on_this_computer_alone():
    assert class_address("0.0.0.0", 8080, "/", "192.168.1.20") == "http://192.168.1.20:8080/"
    assert class_address("0.0.0.0", 8080, "/", None) is None
    assert class_address("192.168.1.20", 5006, "/explainer/", None) == "http://192.168.1.20:5006/explainer/"
    assert class_address("teachers-laptop.local", 5006, "/", None) == "http://teachers-laptop.local:5006/"
    assert class_address("fd00::2", 5006, "/", None) == "http://[fd00::2]:5006/"
    assert class_address("127.0.0.1", 5006, "/", None) is None
    assert class_address("localhost", 5006, "/", None) is None


def test_the_terminal_qr_code_decodes_to_its_address():
    address = "http://192.168.1.20:8080/explainer/"
    assert decoded(as_image(terminal_modules(terminal_qr(address)))) == [address]


@pytest.fixture
def class_server(class_server):
    """The session's class server (conftest.py), once it has printed its start-up message."""
    if network_address() is None:
        pytest.skip("this computer has no network address to serve a class on")
    wait_until(lambda: "Scan this" in class_server.log(), timeout=30, message="the start-up message")
    return class_server


def test_start_up_prints_the_class_address_and_a_qr_code_of_it(class_server):
    log = class_server.log()
    address = OTHERS.search(log).group(1)
    # A server that holds a class gives its join address, which opens the figure the class is on.
    assert address == f"http://{network_address()}:{class_server.port}/class"
    assert decoded(as_image(terminal_modules(log))) == [address]


@pytest.mark.browser
@pytest.mark.parametrize(("width", "height", "scheme"), [(1920, 1080, "light"), (1280, 720, "dark")])
def test_presenter_view_shows_the_class_address_as_a_qr_code_that_decodes(
    class_server, page_with, width, height, scheme
):
    address = OTHERS.search(class_server.log()).group(1)
    page = page_with(viewport=(width, height), color_scheme=scheme)
    page.goto(f"{class_server.url}/binary")
    toggle = page.locator(".class-address-toggle")
    page.locator(".present-toggle").wait_for()
    assert not toggle.is_visible()  # presenter view only
    page.locator(".present-toggle").click()
    toggle.click()
    shown = page.locator(".class-address")
    shown.wait_for()
    assert toggle.get_attribute("aria-pressed") == "true"
    assert page.locator(".class-address-text").inner_text() == address
    box = shown.bounding_box()
    assert box["height"] >= height * 0.6  # large enough to scan from the back of the room
    picture = Image.open(io.BytesIO(shown.screenshot())).convert("L")
    assert decoded(np.array(picture)) == [address]
    page.keyboard.press("Escape")
    shown.wait_for(state="hidden")


@pytest.mark.browser
def test_no_class_address_without_address_or_in_exports(server, exported_site, page):
    for url in (f"{server.url}/binary?present=1", (exported_site / "binary.html").as_uri() + "?present=1"):
        page.goto(url)
        page.locator(".present-toggle").wait_for()
        assert page.locator(".class-address-toggle").count() == 0


def test_the_workbench_served_to_the_network_prints_its_class_address_and_qr_code(tmp_path):
    lan = network_address()
    if lan is None:
        pytest.skip("this computer has no network address to serve a class on")
    qrels, run = tmp_path / "mine.qrels", tmp_path / "mine.run"
    qrels.write_text("m1 0 a 1\n")
    run.write_text("m1 Q0 a 1 2.0 mine\n")
    port = free_port()
    log = tmp_path / "log.txt"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "explainer.cli", "evaluate", str(qrels), str(run), "--serve", "--no-browser"]
            + ["--port", str(port), "--address", "0.0.0.0", "--access-code", "lesson"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until(lambda: "Scan this" in log.read_text(), timeout=60, message="the start-up message")
    finally:
        process.terminate()
        process.wait(timeout=20)
    printed = log.read_text()
    address = OTHERS.search(printed).group(1)
    assert address == f"http://{lan}:{port}/evaluate"
    assert decoded(as_image(terminal_modules(printed))) == [address]
