"""The workbench page downloads its queries table as CSV and JSON (download.js): the files parse and
hold the numbers the table shows, what-if changes included, from a saved page with no server."""

from __future__ import annotations

import csv
import io
import json

import pytest
from test_workbench_cli import GOLDEN, TEXTS, run

from explainer import metrics
from explainer.evaluation import golden

from support.expect import expect
from support.page import offline

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("download") / "golden.html"
    code, _, err = run([*GOLDEN, *TEXTS, "-m", "P.10", "-m", "ndcg_cut.10", "--html", str(path)])
    assert code == 0, err
    return path


def downloaded(page, label: str) -> tuple[str, str]:
    with page.expect_download() as info:
        page.get_by_role("button", name=label).click()
    download = info.value
    return download.suggested_filename, download.path().read_text(encoding="utf-8")


def shown_rows(page) -> dict[str, list[str]]:
    """The table's rows drawn in the page: qid -> the text of each cell after the query's."""
    rows = page.locator(".wb-queries .wb-row")
    expect(rows.first).to_be_visible()
    cells = rows.evaluate_all(
        "(rows) => rows.map((r) => [...r.querySelectorAll('.wb-cell')].map((c) => c.textContent))"
    )
    return {row[0]: row[1:] for row in cells}


def test_the_downloads_parse_and_hold_the_tables_numbers(saved, context, page):
    offline(context)
    page.goto(saved.as_uri())
    shown = shown_rows(page)
    assert len(shown) >= 10
    name, text = downloaded(page, "Download CSV")
    assert name == "workbench-queries.csv"
    rows = list(csv.DictReader(io.StringIO(text)))
    _, _, qrels, _, _ = golden.load()
    assert sorted(r["qid"] for r in rows) == sorted(qrels.qids)  # every query, whatever is in view
    assert list(rows[0])[:4] == ["qid", "text", "P_10 baseline", "P_10 candidate"]
    by_qid = {r["qid"]: r for r in rows}
    for qid, cells in shown.items():
        row = by_qid[qid]
        assert cells[0] == row["text"]
        # The table's columns after the text: P@10 base, cand., difference, then NDCG@10's three.
        numbers = [row[f"{m} {c}"] for m in ("P_10", "ndcg_cut_10") for c in ("baseline", "candidate", "difference")]
        for c, (cell, value) in enumerate(zip(cells[1:], numbers, strict=True)):
            number = float(value)
            expected = metrics.format_number(number, 4)
            if c % 3 == 2:  # a difference, signed as the table signs it
                expected = ("+" if number >= 0 else "\u2212") + metrics.format_number(abs(number), 4)
            assert cell == expected, (qid, c, cell, value)
    name, text = downloaded(page, "Download JSON")
    assert name == "workbench-queries.json"
    data = json.loads(text)
    assert [q["qid"] for q in data["queries"]] == [r["qid"] for r in rows]
    assert [r["role"] for r in data["runs"]] == ["baseline", "candidate"]
    for q in data["queries"]:
        row = by_qid[q["qid"]]
        assert q["values"]["candidate"]["ndcg_cut_10"] == float(row["ndcg_cut_10 candidate"])
        assert q["difference"]["P_10"] == float(row["P_10 difference"])
    assert data["what_if_queries"] == 0


def test_a_what_if_judgment_is_in_the_download(saved, page):
    page.goto(saved.as_uri() + "?query=g044")
    expect(page.locator(".wb-query .wb-heading")).to_contain_text("g044", timeout=30_000)
    first = page.locator(".wb-list.wb-run-1 .wb-result").first
    before = json.loads(downloaded(page, "Download JSON")[1])
    first.locator("select.wb-grade").select_option("3")
    after = json.loads(downloaded(page, "Download JSON")[1])
    assert after["what_if_queries"] == 1
    old = next(q for q in before["queries"] if q["qid"] == "g044")["values"]["candidate"]
    new = next(q for q in after["queries"] if q["qid"] == "g044")["values"]["candidate"]
    assert new["ndcg_cut_10"] > old["ndcg_cut_10"]
    cell = page.locator('.wb-query-values tr[data-measure="ndcg_cut_10"] td').nth(1)
    expect(cell).to_contain_text(metrics.format_number(new["ndcg_cut_10"], 4))
