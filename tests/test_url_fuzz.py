"""Generated URL queries, over a thousand per figure: the figure's own parser (its module's
queryFields with query.js, run in Node as every page runs it) never throws, always yields a state its
Python class accepts, and explains what it ignored in plain text. (Whole page loads with nasty
queries are in test_pages.py and test_reliability.py.)"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explainer.figures import BY_NAME, FIGURES
from explainer.runtime import view_model

ROOT = Path(__file__).resolve().parent.parent
BATCHES, BATCH = 42, 25  # 1,050 queries per figure

# Every figure's URL keys (so that each page also meets the others'), the page's own (query.js's
# PAGE_KEYS: a test below checks that none is missing here), and junk.
PAGE_KEYS = ["present", "theme", "embed", "predict"]
KEYS = sorted({key.name for page in FIGURES for key in page.url_keys}) + PAGE_KEYS + ["x", "<b>", ""]
VALUE_TEXT = st.text(
    alphabet=st.sampled_from(list("0123456789,|?-+. abcxyz<>\"'&=;%#/\\") + ["é", "✓", "\u202e", "\x00"]), max_size=40
)
VALUES = st.one_of(
    VALUE_TEXT,
    st.integers(-5, 30).map(str),
    st.lists(st.integers(-1, 25), max_size=25).map(lambda xs: ",".join(map(str, xs))),
    st.sampled_from(["exponential", "linear", "rr", "ap", "condensed", "1", "0"]),
)
QUERY = st.lists(st.tuples(st.one_of(st.sampled_from(KEYS), VALUE_TEXT), VALUES), max_size=6)


def node_parser(name: str) -> subprocess.Popen:
    """The figure's parser in a Node process (tests/js/parse_queries.mjs), told its model as a page is."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: the link fuzzing runs the figures' parsers in Node (18.19 or 20.6 on)")
    has_hooks = subprocess.run([node, "-e", "process.exit(require('node:module').register ? 0 : 1)"], check=False)
    if has_hooks.returncode:
        pytest.skip("this Node.js lacks module.register (Node 18.19 or 20.6 on): the link fuzzing needs it")
    process = subprocess.Popen(
        [node, "--import", "./tests/js/register.mjs", "tests/js/parse_queries.mjs"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    model = json.loads(json.dumps(view_model(BY_NAME[name].figure().view)))
    return process, ask(process, {"name": name, "model": model})


def ask(process: subprocess.Popen, message) -> dict:
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()
    line = process.stdout.readline()
    assert line, "the Node parser stopped"
    return json.loads(line)


# About 2.5 s of Python a figure (generating the queries, checking each state): a slow test.
@pytest.mark.slow
@pytest.mark.parametrize("name", list(BY_NAME))
def test_generated_queries_always_give_a_valid_state_and_plain_notices(name):
    process, hello = node_parser(name)
    assert sorted(hello["pageKeys"]) == sorted(PAGE_KEYS), "a page key the fuzz does not try"
    state_class = BY_NAME[name].state_class
    checked = []

    @settings(
        max_examples=BATCHES, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(st.lists(QUERY, min_size=BATCH, max_size=BATCH))
    def check(batch):
        for pairs in batch:
            search = "?" + urlencode(pairs)
            result = ask(process, search)
            assert "error" not in result, (search, result.get("error"))
            state_class(**result["state"])  # raises ValueError if the parser let a bad value through
            assert all(isinstance(line, str) and line.startswith("Ignored ") for line in result["ignored"]), search
            checked.append(search)

    try:
        check()
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    assert len(checked) >= 1000
