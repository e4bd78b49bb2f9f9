"""Files a reader uploads: bounded, every bad line named (never its content), nothing lost, and
theirs alone: kept in their session only, never in another's, never on disk or in the log, and
freed when the session ends."""

from __future__ import annotations

import base64
import gc
import gzip
import logging
import weakref

import pytest
import pytrec_eval

from explainer import metrics
from explainer.evaluation import Qrels
from explainer.pages import EVALUATE_ROUTE
from explainer.server.config import ServerConfig, SessionTimes
from explainer.server.serve import serve_pages
from explainer.workbench import Workbench
from explainer.workbench.upload import (
    CHUNK_BYTES,
    MAX_FILE_BYTES,
    MAX_PROBLEMS,
    MAX_UNPACKED_BYTES,
    Inbox,
    UploadError,
    problems,
    read_judgments_or_run,
    read_texts,
    unpacked,
)

from support.expect import expect
from support.page import watch_page
from support.server import answers, free_port, wait_until
from support.sessions import tornado_app
from support.zeros import MIB, gzip_of_zeros

# A confidential golden set, in words nobody else may see.
SECRET_QRELS = b"secret-q1 0 secret-doc-a 2\nsecret-q1 0 secret-doc-b 0\nsecret-q2 0 secret-doc-c 1\n"
SECRET_RUN = (
    b"secret-q1 Q0 secret-doc-b 1 3.0 private\nsecret-q1 Q0 secret-doc-a 2 2.0 private\n"
    b"secret-q2 Q0 secret-doc-c 1 1.0 private\n"
)


# -- without a browser -------------------------------------------------------------------------


def test_a_file_over_the_limit_is_refused_before_any_byte_arrives():
    inbox = Inbox()
    with pytest.raises(UploadError, match=f"more than the {MAX_FILE_BYTES >> 20} MB"):
        inbox.start({"slot": "baseline", "name": "big.run", "size": MAX_FILE_BYTES + 1, "pieces": 65})
    assert inbox.arriving is None


def test_pieces_must_come_in_order_within_their_size_and_as_announced():
    inbox = Inbox()
    inbox.start({"slot": "qrels", "name": "q\x00\x1b[31m.txt", "size": 5, "pieces": 1})
    assert inbox.arriving.name == "q[31m.txt"  # no control characters reach the page
    with pytest.raises(UploadError, match="out of order"):
        inbox.chunk({"slot": "qrels", "index": 1, "data": base64.b64encode(b"abcde").decode()})
    with pytest.raises(UploadError, match="more bytes arrived than announced"):
        inbox.chunk({"slot": "qrels", "index": 0, "data": base64.b64encode(b"abcdef").decode()})
    inbox.start({"slot": "qrels", "name": "q.txt", "size": 5, "pieces": 1})
    with pytest.raises(UploadError, match="larger than"):
        inbox.chunk({"slot": "qrels", "index": 0, "data": "A" * (CHUNK_BYTES * 2)})
    with pytest.raises(UploadError, match="expected a file for one of"):
        inbox.start({"slot": "passwords", "name": "x", "size": 1, "pieces": 1})
    with pytest.raises(UploadError, match="expected 2 pieces"):
        inbox.start({"slot": "qrels", "name": "x", "size": CHUNK_BYTES + 1, "pieces": 1})


def test_a_gzipped_file_may_not_unpack_past_its_limit():
    bomb = gzip_of_zeros(MAX_UNPACKED_BYTES + MIB)
    assert len(bomb) < MAX_FILE_BYTES
    with pytest.raises(UploadError, match="unpacks to more than"):
        unpacked("bomb.gz", bomb)
    assert unpacked("ok.gz", gzip.compress(b"q 0 d 1\n")) == b"q 0 d 1\n"


def test_every_malformed_line_is_named_with_its_number_and_never_its_content():
    lines = ["q1 0 d1 1", "q1 0 SECRET-1", "q1 0 d2 2", "q1 0 d3 SECRET-2", "", "# a comment", "q1 0 d4 1 extra"]
    found = problems("mine.qrels", "\n".join(lines).encode(), "qrels")
    assert found == [
        "mine.qrels, line 2: expected 4 fields: qid iter docid grade, found 3 fields",
        "mine.qrels, line 4: expected an integer grade in the 4th field, found something else",
        "mine.qrels, line 7: expected 4 fields: qid iter docid grade, found 5 fields",
    ]
    many = "\n".join(["q 0 d x"] * (MAX_PROBLEMS + 7)).encode()
    listed = problems("many.qrels", many, "qrels")
    assert len(listed) == MAX_PROBLEMS + 1 and listed[-1] == "many.qrels: 7 more malformed lines"
    with pytest.raises(UploadError) as raised:
        read_judgments_or_run("mine.run", b"q Q0 d 1 1.0 t\nq Q0 e 2 high t\n", "baseline")
    assert raised.value.lines == [
        "mine.run, line 2: expected a number as the score in the 5th field, found something else"
    ]


# -- in Chromium ---------------------------------------------------------------------------------


def drop(page, slot: str, name: str, content: bytes) -> None:
    page.locator(f'.wb-drop[data-slot="{slot}"] input[type=file]').set_input_files(
        {"name": name, "mimeType": "text/plain", "buffer": content}
    )


@pytest.fixture(scope="module")
def fork_server():
    """The test process's fork server started and its readers imported, once: a served session
    starts it when it opens (upload_worker.warm), a page of the test's object server does not."""
    from explainer.evaluation import DEFAULT_MEASURES
    from explainer.workbench.upload_worker import Job, run_job

    assert run_job(Job("qrels", "warm.qrels", b"q 0 d 1\n", {}, DEFAULT_MEASURES, 1)).ok


@pytest.fixture
def served(page, serve_object, fork_server):
    workbench = Workbench.golden()
    seen = watch_page(page)
    page.goto(serve_object(workbench))
    expect(page.locator(".wb-row").first).to_be_visible(timeout=30_000)
    page.locator(".wb-upload summary").click()
    yield page, workbench
    assert seen["errors"] == [], seen["errors"]


@pytest.mark.browser
def test_a_malformed_upload_names_each_bad_line_and_the_page_keeps_what_it_showed(served):
    page, workbench = served
    drop(page, "qrels", "team.qrels", b"q1 0 d1 1\nq1 0 SECRET-DOC\nq1 0 d2 two\n")
    status = page.locator(".wb-status")
    # Read in a worker process: the first upload of a process also waits for its fork server to start.
    expect(status).to_have_attribute("data-kind", "error", timeout=30_000)
    expect(status.locator("p")).to_have_text(
        [
            "team.qrels, line 2: expected 4 fields: qid iter docid grade, found 3 fields",
            "team.qrels, line 3: expected an integer grade in the 4th field, found something else",
        ]
    )
    assert "SECRET-DOC" not in page.locator(".wb").text_content()
    expect(page.locator(".wb-count")).to_contain_text("100 queries")
    assert len(workbench.evaluated.qids) == 100


@pytest.mark.browser
def test_uploaded_qrels_and_run_are_evaluated_as_trec_eval_does(served):
    page, workbench = served
    drop(page, "qrels", "team.qrels", SECRET_QRELS)
    expect(page.locator(".wb-status")).to_contain_text("Still showing the earlier data: add baseline", timeout=30_000)
    expect(page.locator(".wb-count")).to_contain_text("100 queries")
    drop(page, "baseline", "team.run.gz", gzip.compress(SECRET_RUN))
    expect(page.locator(".wb-status")).to_contain_text("Showing your files.", timeout=30_000)
    expect(page.locator(".wb-row .wb-col-qid")).to_have_text(["secret-q1", "secret-q2"])
    qrels = {"secret-q1": {"secret-doc-a": 2, "secret-doc-b": 0}, "secret-q2": {"secret-doc-c": 1}}
    run = {"secret-q1": {"secret-doc-b": 3.0, "secret-doc-a": 2.0}, "secret-q2": {"secret-doc-c": 1.0}}
    ap = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)["secret-q1"]["map"]
    assert ap == 0.5  # the relevant document at rank 2
    expect(page.locator('.wb-row[data-qid="secret-q1"] .wb-col-main').nth(3)).to_have_text(metrics.format_number(ap, 4))


# -- two readers of one server ----------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow  # a server of its own, two readers, and a wait for the closed page's session to go: some 6 s
def test_an_upload_stays_in_its_session_out_of_the_log_and_is_freed_when_the_page_closes(
    browser, monkeypatch, caplog, tmp_path
):
    shorter = SessionTimes(unused_session_lifetime_milliseconds=2_000, check_unused_sessions_milliseconds=500)
    monkeypatch.chdir(tmp_path)  # anything written to the working directory would show here
    port = free_port()
    caplog.set_level(logging.INFO)
    thread = serve_pages(ServerConfig(port, "127.0.0.1", sessions=shorter), threaded=True)
    first, second = browser.new_context(), browser.new_context()
    try:
        wait_until(lambda: answers(f"http://127.0.0.1:{port}/favicon.ico"), timeout=60, message="the server")
        server, _ = tornado_app(thread)
        mine = first.new_page()
        mine.goto(f"http://127.0.0.1:{port}/evaluate")
        expect(mine.locator(".wb-row").first).to_be_visible(timeout=30_000)
        mine.locator(".wb-upload summary").click()
        drop(mine, "qrels", "secret.qrels", SECRET_QRELS)
        drop(mine, "baseline", "secret.run", SECRET_RUN)
        # Two files are sent, read and evaluated in turn: on a busy machine that outlasts expect's 5 s.
        expect(mine.locator(".wb-status")).to_contain_text("Showing your files.", timeout=30_000)
        expect(mine.locator(".wb-row .wb-col-qid")).to_have_text(["secret-q1", "secret-q2"])
        held = [weakref.ref(obj) for obj in gc.get_objects() if isinstance(obj, Qrels) and obj.source == "secret.qrels"]
        assert held

        theirs = second.new_page()
        theirs.goto(f"http://127.0.0.1:{port}/evaluate")
        expect(theirs.locator(".wb-count")).to_contain_text("100 queries", timeout=30_000)
        assert "secret" not in theirs.locator("body").inner_text()

        mine.close()
        wait_until(
            lambda: len(server.get_sessions(EVALUATE_ROUTE)) == 1,
            timeout=30,
            message="the closed page's session to be discarded",
        )
        # Freed once the loop has run what the closed session left queued (a status, a reply).
        wait_until(
            lambda: gc.collect() is not None and all(ref() is None for ref in held),
            timeout=10,
            message="the closed page's files to be freed",
        )
        assert list(tmp_path.iterdir()) == []
        logged = "\n".join(record.getMessage() for record in caplog.records)
        assert "secret" not in logged
        # The server's message filter took every piece the page sent (server/messages.py upload_event).
        assert "Dropped" not in logged and "Closed the websocket" not in logged
    finally:
        first.close()
        second.close()
        thread.stop()


def test_the_page_unpacks_gzip_as_the_command_line_does():
    """Every member read (on main the page cut after the first, the command line read both), a second layer refused."""
    first, second = b"q Q0 a 1 2 t\n", b"q Q0 b 2 1 t\n"
    assert unpacked("both.gz", gzip.compress(first) + gzip.compress(second)) == first + second
    with pytest.raises(UploadError) as caught:
        unpacked("twice.gz", gzip.compress(gzip.compress(first)))
    assert caught.value.lines == [
        "twice.gz: is gzip inside gzip; only one layer is unpacked: gunzip it once, then read the result"
    ]
    from explainer.evaluation import read_run

    for data in (gzip.compress(first) + gzip.compress(second), gzip.compress(gzip.compress(first))):
        try:
            page = read_judgments_or_run("f.gz", data, "baseline").to_dict()
        except UploadError as error:
            page = error.lines
        try:
            command_line = read_run(data, name="f.gz").to_dict()
        except ValueError as error:
            command_line = [str(error)]
        assert page == command_line


def test_the_page_caps_queries_and_results_per_query_naming_the_line():
    from explainer.workbench.upload import MAX_PER_QUERY, MAX_QUERIES

    many = b"".join(b"q%d Q0 d 1 1 t\n" % q for q in range(MAX_QUERIES + 1))
    with pytest.raises(UploadError) as caught:
        read_judgments_or_run("many.run", many, "baseline")
    expected = (
        f"many.run, line {MAX_QUERIES + 1}: expected at most {MAX_QUERIES:,} queries in a file (the page's limit)"
    )
    assert caught.value.lines == [expected]
    deep = b"".join(b"q Q0 d%d 1 1 t\n" % d for d in range(MAX_PER_QUERY + 1))
    with pytest.raises(UploadError) as caught:
        read_judgments_or_run("deep.run", deep, "baseline")
    assert caught.value.lines[0].startswith(
        f"deep.run, line {MAX_PER_QUERY + 1}: expected at most {MAX_PER_QUERY:,} results"
    )
    assert len(read_judgments_or_run("ok.run", deep[: deep.rindex(b"q Q0")], "baseline")) == MAX_PER_QUERY


def test_an_id_longer_than_the_cap_is_refused_in_topics_too():
    with pytest.raises(UploadError) as caught:
        read_texts("topics.tsv", b"q1\tfine\n" + b"q" * 1025 + b"\ttoo long an id\n")
    assert caught.value.lines == ["topics.tsv, line 2: expected an id of at most 1,024 bytes"]


@pytest.mark.browser
def test_ids_from_a_file_are_shown_escaped_isolated_and_shortened_with_the_whole_id_in_their_title(served):
    page, _ = served
    long_qid = "q-" + "x" * 200 + "-end"
    spoof = "doc\u202eexe.txt"
    qrels = f"{long_qid} 0 {spoof} 1\n".encode()
    run = f"{long_qid} Q0 {spoof} 1 1.0 tag\x1b[31m\n".encode()
    drop(page, "qrels", "ids.qrels", qrels)
    expect(page.locator(".wb-status")).to_contain_text("add baseline", timeout=30_000)
    drop(page, "baseline", "ids\u202e.run", run)
    expect(page.locator(".wb-status")).to_contain_text("Showing your files.", timeout=30_000)
    qid = page.locator(".wb-row .wb-col-qid bdi")
    expect(qid).to_have_count(1)
    shown = qid.text_content()
    assert len(shown) == 40 and shown.startswith("q-xxx") and shown.endswith("x-end") and "…" in shown
    expect(qid).to_have_attribute("title", long_qid)
    page.locator(".wb-row .wb-link").first.click()
    docid = page.locator(".wb-list.wb-run-0 .wb-docid")
    expect(docid).to_have_text("doc\\u202eexe.txt")
    assert docid.evaluate("node => node.tagName") == "BDI"
    # The run's file name, with its bidi control, in the line that names the files.
    expect(page.locator(".wb-sources")).to_contain_text("run: ids\\u202e.run")
