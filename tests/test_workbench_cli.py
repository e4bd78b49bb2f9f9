"""The workbench from the command line and in a notebook: ``evaluate ... --html FILE`` writes one
self-contained page that works offline, ``--serve`` serves the files' workbench, and
``explainer.Workbench`` displays in Jupyter."""

from __future__ import annotations

import io
import subprocess
import sys
import time

import nbformat
import pytest
import pytrec_eval
from nbclient import NotebookClient
from test_export import fetched_addresses

from explainer import metrics
from explainer.cli import build_parser
from explainer.evaluation import golden
from explainer.workbench import cli as workbench_cli

from support.expect import expect
from support.page import offline, watch_page
from support.server import ROOT, answers, free_port

PATHS = golden.paths()
GOLDEN = [str(PATHS[k]) for k in ("qrels", "baseline", "candidate")]
TEXTS = ["--topics", str(PATHS["topics"]), "--documents", str(PATHS["documents"])]


def run(argv: list[str]) -> tuple[int, str, str]:
    args = build_parser().parse_args(["evaluate", *argv])
    out, err = io.StringIO(), io.StringIO()
    return workbench_cli.run(args, out, err), out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("workbench") / "golden.html"
    code, out, err = run([*GOLDEN, *TEXTS, "--gate-measure", "ndcg@10", "--html", str(path)])
    assert code == 0, err  # the candidate ships on NDCG@10
    # Without -m the page's own measures, in trec_eval's order (no runid line: official is not asked).
    assert out.startswith("map ") and "\nndcg_cut_10 " in out
    assert "SHIPS on ndcg_cut_10" in err and f"Wrote {path}" in err
    return path


def test_the_saved_workbench_fetches_nothing(saved):
    html = saved.read_text(encoding="utf-8")
    assert [a for a in fetched_addresses(html) if not a.startswith(("data:", "blob:", "#"))] == []
    # A light page: explainer.js with the workbench's modules and every query's lists, no Bokeh or Panel.
    assert "Bokeh" not in html and "<relevance-figure" in html
    assert saved.stat().st_size < 1.5e6


@pytest.mark.browser
def test_the_saved_workbench_works_from_disk_with_the_network_blocked(saved, context, page):
    asked = offline(context)
    seen = watch_page(page)
    page.goto(saved.as_uri() + "?query=g044")
    heading = page.locator(".wb-query .wb-heading")
    expect(heading).to_have_text("g044: loose clamp nose gear supplier notice", timeout=30_000)
    expect(page.locator(".wb-figure .fig-binary")).to_be_visible()
    # A what-if judgment needs no server: the query's numbers change in the page, to trec_eval's.
    cell = page.locator('.wb-query-values tr[data-measure="ndcg_cut_10"] td').nth(1)
    first = page.locator(".wb-list.wb-run-1 .wb-result").first
    docid = first.get_attribute("data-docid")
    first.locator("select.wb-grade").select_option("3")
    _, _, qrels, _, candidate = golden.load()
    judged = {**qrels.to_dict()["g044"], docid: 3}
    evaluator = pytrec_eval.RelevanceEvaluator({"g044": judged}, {"ndcg_cut.10"})
    expected = evaluator.evaluate({"g044": candidate.to_dict()["g044"]})["g044"]["ndcg_cut_10"]
    expect(cell).to_contain_text(metrics.format_number(expected, 4))
    expect(page.locator(".wb-upload")).to_have_count(0)  # nothing to upload to
    assert [u for u in asked if not u.startswith(("file:", "data:", "blob:"))] == []
    assert seen["errors"] == []


def test_html_refuses_more_results_than_a_page_can_carry(tmp_path, monkeypatch):
    monkeypatch.setattr(workbench_cli, "MAX_HTML_RESULTS", 5_999)  # the golden runs hold 3,000 each
    code, out, err = run([*GOLDEN, "--html", str(tmp_path / "big.html")])
    assert code == 2 and "6,000 results" in err and "at most 5,999" in err and "--serve" in err
    assert not (tmp_path / "big.html").exists()
    assert out.startswith("map ") and "ndcg_cut_10" in err  # the evaluation itself is printed all the same


def test_a_malformed_topics_file_is_named_with_its_lines(tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text("g001\tcracked bracket\nno tab on this line\ng002\tok\nanother bad one\n")
    code, out, err = run([*GOLDEN, "--topics", str(topics), "--html", str(tmp_path / "x.html")])
    assert code == 2
    assert "topics.tsv, line 2: expected an id without spaces, a tab, then the text" in err
    assert "topics.tsv, line 4:" in err and "no tab on this line" not in err
    assert out == ""


@pytest.mark.browser
def test_serve_serves_the_files_workbench_at_evaluate(tmp_path, page):
    qrels = tmp_path / "mine.qrels"
    run_file = tmp_path / "mine.run"
    qrels.write_text("m1 0 a 1\nm1 0 b 0\nm2 0 c 2\n")
    run_file.write_text("m1 Q0 a 1 2.0 mine\nm1 Q0 b 2 1.0 mine\nm2 Q0 d 1 1.0 mine\nm2 Q0 c 2 0.5 mine\n")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "explainer.cli", "evaluate", str(qrels), str(run_file), "--serve", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        # Its output is read once it has stopped: reading a live server's would wait for its end.
        deadline = time.monotonic() + 60
        while not (started := answers(f"http://127.0.0.1:{port}/favicon.ico")):
            if process.poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        if started:
            page.goto(f"http://127.0.0.1:{port}/evaluate")
            expect(page.locator(".wb-row")).to_have_count(2, timeout=30_000)
            expect(page.locator(".wb-row .wb-col-qid")).to_have_text(["m1", "m2"])
            # m2: c (grade 2) at rank 2 of 2 relevant-1: AP = (1/2) / 1; AP (map) is the first column,
            # in trec_eval's order.
            expect(page.locator('.wb-row[data-qid="m2"] .wb-col-main').nth(0)).to_have_text(
                metrics.format_number(0.5, 4)
            )
    finally:
        process.terminate()
        output = process.communicate(timeout=20)[0]
    assert started, f"the workbench exited or did not answer within 60 s:\n{output}"
    assert "Serving the workbench on http://localhost:" in output


@pytest.fixture(scope="module")
def notebook():
    cells = [
        "import panel as pn\nimport explainer\npn.extension()",
        "workbench = explainer.Workbench.golden()\nworkbench",
        "workbench.state.query = 'g007'\nprint(workbench.view.detail['qid'], len(workbench.view.table['qids']))",
    ]
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    NotebookClient(book, timeout=180, kernel_name="python3").execute()
    return book


@pytest.mark.slow  # a real kernel: the slow tests' kind, as test_notebook.py's
def test_the_workbench_displays_in_a_notebook_as_a_live_panel_output(notebook):
    data = {key: value for output in notebook.cells[1].outputs for key, value in output.get("data", {}).items()}
    assert "application/vnd.holoviews_exec.v0+json" in data, data.keys()
    assert '"name":"WorkbenchView"' in data["text/html"]
    printed = "".join(output.get("text", "") for output in notebook.cells[2].outputs)
    assert printed.split() == ["g007", "100"]


def test_html_refuses_a_docid_that_is_not_utf8_with_its_file_and_line_and_writes_nothing(tmp_path):
    """On main: a UnicodeEncodeError and a traceback (exit 1)."""
    qrels, odd = tmp_path / "qrels.txt", tmp_path / "odd.run"
    qrels.write_bytes(b"q1 0 d1 1\nq1 0 d2 0\n")
    odd.write_bytes(b"q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\nq1 Q0 d\xff3 3 0.5 t\n")
    target = tmp_path / "page.html"
    code, out, err = run([str(qrels), str(odd), "--html", str(target)])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err == (
        "relevance-explainer evaluate: odd.run, line 3: expected ids in UTF-8 for the workbench page "
        "(the table above takes any bytes, as trec_eval does)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["odd.run", "qrels.txt"]
    code, out, _ = run([str(qrels), str(odd)])  # without the page: trec_eval's table takes any bytes
    assert code == 0 and "P_10" in out


def test_html_naming_a_folder_exits_2_before_evaluating(tmp_path):
    code, out, err = run([*GOLDEN, "--html", str(tmp_path)])
    assert code == 2 and out == ""
    assert err == f"relevance-explainer evaluate: --html {tmp_path}: is a folder; name the file to write\n"


def test_the_page_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """A temporary file beside the target, renamed: a failure leaves the old page and no stray file."""
    target = tmp_path / "page.html"
    target.write_text("the old page")
    workbench_cli.write_whole(target, b"the new page")
    assert target.read_text() == "the new page" and [p.name for p in tmp_path.iterdir()] == ["page.html"]

    def full_disk(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(workbench_cli.os, "replace", full_disk)
    code, _, err = run([*GOLDEN, "--html", str(target)])
    # After the summary and the verdict (standard error's # lines), one line says what failed.
    said = [line for line in err.splitlines() if not line.startswith("# ")]
    assert code == 2 and len(said) == 1 and "No space left on device" in said[0]
    assert target.read_text() == "the new page" and [p.name for p in tmp_path.iterdir()] == ["page.html"]
