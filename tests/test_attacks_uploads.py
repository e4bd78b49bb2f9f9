"""The workbench's uploads and what-if messages under attack, while a well-behaved reader keeps clicking.

Each test serves the explainer in a subprocess (``test_abuse.py``'s ``under_attack``: a reader
of the workbench in a process of its own, four sessions switching k in turns, clicks every 31 ms
whatever happens) and sends, from another session of /evaluate, what a page can send: a file in
pieces, or what-if changes. It checks
what the attacker got (one line that says why, never a traceback) and what the class saw: the
reader's click round trips at most ``P95_LIMIT_MS`` at the 95th percentile and ``MAX_LIMIT_MS``
at most, and the server's memory. All of them are slow (``./serve.sh test -m slow``).
"""

from __future__ import annotations

import asyncio
import gzip
import time
from typing import Any

import pytest
from test_abuse import Loop, rss_mb, under_attack, upload_piece, view_model

from explainer.workbench.upload import CHUNK_BYTES, MAX_QUERIES
from explainer.workbench.upload_budget import PER_CLIENT

from support.reader import ATTACK_LIMIT_S, Refused, Session
from support.server import Server
from support.zeros import gzip_of_zeros

# A reader clicks beside each attack and is timed (test_abuse.py): CI runs these alone.
pytestmark = [pytest.mark.slow, pytest.mark.alone]

# The longest a click may wait once during an attack.
MAX_LIMIT_MS = 1000.0


@pytest.fixture
def loop():
    running = Loop()
    yield running
    running.close()


@pytest.fixture
def server():
    running = Server()
    yield running
    running.stop()


def check(outcome, name: str) -> None:
    outcome.check(name)
    if not outcome.baseline or outcome.baseline["max"] <= MAX_LIMIT_MS:
        assert outcome.reader["max"] <= MAX_LIMIT_MS, f"{name}: a click waited {outcome.reader['max']:.0f} ms"


async def workbench(server: Server) -> tuple[Session, str]:
    session = await Session(server.url, "/evaluate").open()
    return session, view_model(session.doc, uploads=True)


async def reply(session: Session, timeout: float = ATTACK_LIMIT_S) -> dict[str, Any]:
    """The workbench's next answer to an upload's message."""
    while True:
        message = await asyncio.wait_for(session.messages.get(), timeout)
        data = message.get("values", {}).get("data") if isinstance(message, dict) else None
        if isinstance(data, dict) and data.get("upload"):
            return data


async def send(session: Session, view: str, message: dict[str, Any]) -> dict[str, Any]:
    await session.request("PATCH-DOC", {"events": [upload_piece(view, message)]})
    return await reply(session)


async def upload(session: Session, view: str, slot: str, name: str, data: bytes, end: bool = True) -> dict[str, Any]:
    """Send a file as the page does; the workbench's answer to its end (or to the piece it refused)."""
    pieces = max(1, -(-len(data) // CHUNK_BYTES))
    answer = await send(
        session, view, {"type": "start", "slot": slot, "name": name, "size": len(data), "pieces": pieces}
    )
    if not answer["ok"]:
        return answer
    import base64

    for i in range(pieces):
        piece = base64.b64encode(data[i * CHUNK_BYTES : (i + 1) * CHUNK_BYTES]).decode()
        answer = await send(session, view, {"type": "chunk", "slot": slot, "index": i, "data": piece})
        if not answer["ok"]:
            return answer
    if not end:
        return answer
    return await send(session, view, {"type": "end", "slot": slot})


def qrels_and_run(n_queries: int, per_query: int) -> tuple[bytes, bytes]:
    qrels = b"".join(b"q%d 0 d%d-0 1\nq%d 0 d%d-1 0\n" % (q, q, q, q) for q in range(n_queries))
    run = b"".join(
        b"q%d Q0 d%d-%d %d %d.0 t\n" % (q, q, d, d + 1, per_query - d)
        for q in range(n_queries)
        for d in range(per_query)
    )
    return qrels, run


def test_a_gzip_inside_a_gzip_is_refused_at_once_and_holds_no_one(loop, server):
    bomb = gzip.compress(gzip_of_zeros(1 << 30), 9)
    assert len(bomb) < 10_000
    seen: dict[str, Any] = {}

    async def attack():
        session, view = await workbench(server)
        seen["rss"] = rss_mb(server)
        yield
        started = time.monotonic()
        seen["answer"] = await upload(session, view, "qrels", "bomb.gz", bomb)
        seen["s"] = time.monotonic() - started
        seen["grew"] = rss_mb(server) - seen["rss"]
        yield
        await session.close()

    outcome = under_attack(loop, server, attack)
    assert seen["answer"] == {
        "upload": True,
        "ok": False,
        "error": "bomb.gz: is gzip inside gzip; only one layer is unpacked: gunzip it once, then read the result",
    }
    assert seen["s"] < 10 and seen["grew"] < 100, seen
    check(outcome, "gzip inside gzip")


def test_a_million_one_line_queries_are_refused_in_a_worker_and_hold_no_one(loop, server):
    million = b"".join(b"%d 0 d 1\n" % q for q in range(1_000_000))
    seen: dict[str, Any] = {}

    async def attack():
        session, view = await workbench(server)
        yield
        seen["answer"] = await upload(session, view, "qrels", "million.qrels", million)
        yield
        await session.close()

    outcome = under_attack(loop, server, attack)
    assert seen["answer"]["error"] == (
        f"million.qrels, line {MAX_QUERIES + 1}: expected at most {MAX_QUERIES:,} queries in a file (the page's limit)"
    )
    check(outcome, "a million queries")


def test_the_largest_table_the_page_takes_is_built_off_the_thread_that_answers_clicks(loop, server):
    qrels, run = qrels_and_run(MAX_QUERIES, 3)
    seen: dict[str, Any] = {}

    async def attack():
        session, view = await workbench(server)
        yield
        seen["qrels"] = await upload(session, view, "qrels", "big.qrels", qrels)
        seen["run"] = await upload(session, view, "baseline", "big.run", run)
        # The table's text, a few MB, reaches the page after the answer (as a change of the view's
        # table_text: a page asks for its document once, so it cannot pull it again).
        for _ in range(300):
            if any('"qids":["q0","q1",' in str(event) for event in session.pushed):
                seen["table"] = True
                break
            await asyncio.sleep(0.1)
        yield
        await session.close()

    outcome = under_attack(loop, server, attack)
    assert seen["qrels"]["ok"] and seen["run"]["ok"], seen
    assert seen.get("table"), "the table's text never reached the page"
    check(outcome, "the largest table")


def test_a_twenty_kilobyte_docid_is_refused_naming_its_line(loop, server):
    run = b"".join(b"q%d Q0 d%d 1 1.0 t\n" % (q, q) for q in range(20_000 // 1))[:380_000]
    run = run[: run.rindex(b"\n") + 1] + b"q-long Q0 " + b"x" * 20_000 + b" 1 1.0 t\n"
    seen: dict[str, Any] = {}

    async def attack():
        session, view = await workbench(server)
        yield
        seen["answer"] = await upload(session, view, "baseline", "long.run", run)
        yield
        await session.close()

    outcome = under_attack(loop, server, attack)
    assert "expected a docid of at most 1,024 bytes" in seen["answer"]["error"], seen
    check(outcome, "a 20 KB docid")


def what_if(view: str, **message) -> dict[str, Any]:
    return upload_piece(view, message)


def test_repeated_what_if_messages_on_a_long_run_hold_no_one(loop, server):
    qrels, run = qrels_and_run(50, 10_000)
    refused = []

    async def attack():
        session, view = await workbench(server)
        assert (await upload(session, view, "qrels", "long.qrels", qrels))["ok"]
        assert (await upload(session, view, "baseline", "long.run", run))["ok"]
        state_model = next(iter(session.states))
        yield
        # What an older page sent: the whole state, with what-if changes of 50 queries, again and
        # again. The page sends only the query, the run and k now: these are refused unread.
        whole = {
            "query": "q0",
            "run": 0,
            "k": 10,
            "judgments": {f"q{q}": {f"q{q}-{d}": 3 for d in range(20)} for q in range(50)},
            "orders": {},
        }
        from support.reader import state_change

        for _ in range(20):
            try:
                await session.request("PATCH-DOC", {"events": [state_change(state_model, whole)]})
            except Refused as refusal:
                refused.append(str(refusal))
        # The page's way: one change a message, here as fast as they are answered (the rate limit
        # refuses those past ten a second, and the connection's share of the thread slows them).
        for i in range(300):
            change = what_if(view, type="judge", qid=f"q{i % 50}", docid=f"d{i % 50}-{i}", grade=2)
            await session.request("PATCH-DOC", {"events": [change]})
        yield
        await session.close()

    outcome = under_attack(loop, server, attack)
    assert refused and set(refused) == {"refused-event"} and len(refused) % 20 == 0, refused  # 20 a try
    check(outcome, "what-if messages on a long run")


def test_six_unfinished_uploads_pin_no_more_than_a_clients_share(loop, server):
    size = 32 * CHUNK_BYTES
    data = bytes(size)
    seen: dict[str, Any] = {}

    async def attack():
        sessions = [await workbench(server) for _ in range(6)]
        seen["rss"] = rss_mb(server)
        yield
        answers = await asyncio.gather(
            *(upload(s, v, "baseline", f"unfinished-{i}.run", data, end=False) for i, (s, v) in enumerate(sessions))
        )
        seen["answers"] = answers
        seen["grew"] = rss_mb(server) - seen["rss"]
        yield
        for s, _ in sessions:
            await s.close()

    outcome = under_attack(loop, server, attack)
    accepted = [a for a in seen["answers"] if a["ok"]]
    refused = [a for a in seen["answers"] if not a["ok"]]
    assert len(accepted) == PER_CLIENT, seen["answers"]
    assert all(f"{PER_CLIENT} uploads from your network address are in progress" in a["error"] for a in refused)
    assert seen["grew"] < PER_CLIENT * size / 2**20 * 2 + 50, seen["grew"]
    check(outcome, "six unfinished uploads")


def test_another_students_small_upload_is_read_while_a_large_one_is(loop, server):
    qrels, run = qrels_and_run(MAX_QUERIES, 300)  # three million lines: seconds of reading
    seen: dict[str, Any] = {}

    async def attack():
        theirs, their_view = await workbench(server)
        mine, my_view = await workbench(server)
        yield
        whole_lines = run[: run.rindex(b"\n", 0, 60 * CHUNK_BYTES) + 1]  # 60 MiB of whole lines
        big = asyncio.ensure_future(upload(theirs, their_view, "baseline", "big.run", whole_lines))
        await asyncio.sleep(3)  # the big file has arrived and is being read
        started = time.monotonic()
        seen["small"] = await upload(mine, my_view, "qrels", "small.qrels", qrels[:500].rsplit(b"\n", 1)[0] + b"\n")
        seen["waited"] = time.monotonic() - started
        seen["big done first"] = big.done()
        seen["big"] = await big
        yield
        await theirs.close()
        await mine.close()

    outcome = under_attack(loop, server, attack)
    assert seen["small"]["ok"], seen["small"]
    assert not seen["big done first"] and seen["waited"] < 3, seen
    check(outcome, "another student's small upload")
