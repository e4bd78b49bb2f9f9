"""The class channel's messages, read as the server reads them: every field checked, nothing else let in."""

from __future__ import annotations

import json

import pytest

from explainer.classroom import messages as m


def text(**fields) -> str:
    return json.dumps({"v": 1, **fields})


def refused(raw) -> str:
    with pytest.raises(m.Refused) as caught:
        m.read_message(raw)
    return caught.value.code


def test_each_message_a_page_sends_reads_as_its_tuple():
    assert m.read_message(text(type="hello", token="t.a.b", student="abcdef0123")) == m.Hello("t.a.b", "abcdef0123")
    assert m.read_message(text(type="ping", n=7)) == m.Ping(7)
    assert m.read_message(text(type="guess", question=2, values={"P@5": 0.4, "AP": None})) == m.Guess(
        2, {"P@5": 0.4, "AP": None}
    )
    assert m.read_message(text(type="showing", route="/binary", query="k=3")) == m.Showing("/binary", "k=3")
    assert m.read_message(text(type="send", route="/ndcg", query="")) == m.Send("/ndcg", "")
    asked = m.read_message(
        text(type="ask", route="/binary", query="k=5", targets=[{"key": "P@5", "label": "P@5", "value": 0.6}])
    )
    assert asked == m.Ask("/binary", "k=5", (m.Target("P@5", "P@5", 0.6),))
    assert m.read_message(text(type="reveal", question=1)) == m.Reveal(1)
    assert m.read_message(text(type="step", to=0)) == m.Step(0)


@pytest.mark.parametrize(
    "raw, code",
    [
        (b'{"v":1,"type":"ping","n":1}', "binary-frame"),
        ("x" * (m.MAX_MESSAGE_BYTES + 1), "too-long"),
        ("{not json", "not-json"),
        ("[1, 2]", "not-json"),
        ('{"v":1,"type":"ping","n":NaN}', "not-json"),
        ("[" * 4000 + "]" * 4000, "not-json"),
        (json.dumps({"type": "ping", "n": 1}), "bad-version"),
        (json.dumps({"v": 2, "type": "ping", "n": 1}), "bad-version"),
        (json.dumps({"v": True, "type": "ping", "n": 1}), "bad-version"),
        (text(type="PATCH-DOC", events=[]), "unknown-type"),
        (text(type=["ping"], n=1), "unknown-type"),
        (text(type="ping"), "bad-fields"),
        (text(type="ping", n=1, extra=2), "bad-fields"),
        (text(type="ping", n=-1), "bad-n"),
        (text(type="ping", n=True), "bad-n"),
        (text(type="ping", n=2.5), "bad-n"),
        (text(type="hello", token="", student="abcdef0123"), "bad-token"),
        (text(type="hello", token="t" * 201, student="abcdef0123"), "bad-token"),
        (text(type="hello", token="t", student="short"), "bad-student"),
        (text(type="hello", token="t", student="not a student id"), "bad-student"),
        (text(type="guess", question=1, values={"P@5": 1.5}), "bad-values"),
        (text(type="guess", question=1, values={"P@5": -0.1}), "bad-values"),
        (text(type="guess", question=1, values={"P@5": "0.4"}), "bad-values"),
        (text(type="guess", question=1, values={"P@5": True}), "bad-values"),
        (text(type="guess", question=1, values={"P@5": None}), "bad-values"),
        (text(type="guess", question=1, values={}), "bad-values"),
        (text(type="guess", question=1, values={f"k{i}": 0.5 for i in range(9)}), "bad-values"),
        (text(type="guess", question=1, values={"<b>": 0.5}), "bad-values"),
        (text(type="guess", question=0, values={"P@5": 0.5}), "bad-question"),
        (text(type="showing", route="binary", query=""), "bad-route"),
        (text(type="showing", route="/../etc", query=""), "bad-route"),
        (text(type="showing", route="/binary", query="k=3#top"), "bad-query"),
        (text(type="showing", route="/binary", query="k=\u00e9"), "bad-query"),
        (text(type="showing", route="/binary", query="k=3\n"), "bad-query"),
        (text(type="showing", route="/binary", query="k" * (m.MAX_QUERY_CHARS + 1)), "bad-query"),
        (text(type="ask", route="/binary", query="", targets=[]), "bad-targets"),
        (text(type="ask", route="/binary", query="", targets=[{"key": "a", "label": "a"}]), "bad-targets"),
        (text(type="ask", route="/binary", query="", targets=[{"key": "a", "label": "a", "value": 2}]), "bad-targets"),
        (
            text(type="ask", route="/binary", query="", targets=[{"key": "a", "label": "\u202eevil", "value": 0.5}]),
            "bad-targets",
        ),
        (
            text(type="ask", route="/binary", query="", targets=[{"key": "a", "label": "a", "value": 0.5}] * 2),
            "bad-targets",
        ),
        (text(type="step", to=10_001), "bad-to"),
    ],
)
def test_what_no_page_sends_is_refused_with_a_short_code(raw, code):
    assert refused(raw) == code


def test_a_message_to_a_page_is_compact_json_with_the_version():
    assert m.encode({"type": "pong", "n": 3}) == '{"v":1,"type":"pong","n":3}'
    with pytest.raises(ValueError):
        m.encode({"type": "guesses", "values": float("nan")})
