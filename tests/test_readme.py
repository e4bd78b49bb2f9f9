"""The README says what the code does: its tables of pages and URL keys are the registry's."""

from __future__ import annotations

import re
from pathlib import Path

from explainer import metrics
from explainer.evaluation.measures import DEFAULT_CONVENTION, NDCG_CONVENTIONS, Measure
from explainer.figures.binary import BinaryState
from explainer.figures.conventions import DISAGREEING_MISSED, MAX_K, ConventionsState
from explainer.metrics import format_number as fmt
from explainer.pages import readme_pages_table, readme_url_keys_table

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_the_readme_lists_every_page_as_the_registry_declares_it():
    assert readme_pages_table() in README, (
        "paste explainer.pages.readme_pages_table() into the README:\n" + readme_pages_table()
    )


def test_the_readme_lists_every_url_key_as_the_registry_declares_it():
    table = readme_url_keys_table()
    assert table in README, "paste explainer.pages.readme_url_keys_table() into the README:\n" + table


def test_the_readme_gives_the_two_commands():
    assert "./serve.sh         # serve" in README and "./serve.sh test    # run" in README


def test_the_readmes_deeper_cut_example_reorders_the_two_queries_as_it_says():
    """The two links of the every-k section: the README's numbers are trec_eval's ndcg_cut
    (linear-judged) as the conventions figure computes it, and they reverse between k = 8 and 10."""
    first, second = DISAGREEING_MISSED

    def ndcg(missed, k, key="linear-judged"):
        return ConventionsState(missed_grades=list(missed), k=k).values[key]

    pairs = {k: (fmt(ndcg(first, k)), fmt(ndcg(second, k))) for k in (3, 8, 10)}
    assert pairs[3][0] > pairs[3][1] and pairs[8][0] > pairs[8][1] and pairs[10][0] < pairs[10][1]
    assert ndcg(first, 10, "exponential-judged") > ndcg(second, 10, "exponential-judged")
    links = (
        f"[`/conventions?missed_grades={','.join(map(str, first))}&k=3`]"
        f"(http://localhost:5006/conventions?missed_grades={','.join(map(str, first))}&k=3)",
        f"[`missed_grades={','.join(map(str, second))}`]"
        f"(http://localhost:5006/conventions?missed_grades={','.join(map(str, second))}&k=3)",
    )
    said = (
        f"by trec_eval's `ndcg_cut`, the first scores higher at k = 3 ({pairs[3][0]} against {pairs[3][1]}) and k = 8 ({pairs[8][0]} against {pairs[8][1]}),"
        f" and lower at k = 10 ({pairs[10][0]} against {pairs[10][1]});"
        " with the gain 2^g − 1 the first stays ahead."
    )
    assert all(link in README for link in links) and said in README
    # 10 is one of ndcg_cut's default depths (usnistgov/trec_eval m_ndcg_cut.c), and the figure's largest k.
    assert "(5, 10, 15, 20, 30, 100, 200, 500 and 1000)" in README and MAX_K == 10


def test_the_pages_line_of_figure_1_says_how_ap_is_a_mean_with_its_missed_documents():
    """AP is the mean of the precision at each relevant document's rank only when a missed one counts 0:
    figure 1's default list misses one, and the mean of its relevant ranks' precision is not its AP."""
    state = BinaryState()
    grades = [int(flag) for flag in state.relevant]
    precisions = [hits / rank for hits, rank in metrics.average_precision_terms(grades)]
    assert state.missed > 0
    ap = metrics.average_precision(grades, state.n_relevant)
    assert ap == (sum(precisions) + 0 * state.missed) / (len(precisions) + state.missed)
    assert fmt(sum(precisions) / len(precisions)) != fmt(ap)
    assert "AP as the mean of the precision at each relevant document's rank (0 for one the list missed)" in README
    assert "mean of the relevant ranks' precision" not in README


def _benchmark_row(name: str) -> tuple[float, str]:
    """A value and its unit from a row of the README's benchmark table (the bench's own output)."""
    match = re.search(rf"^{re.escape(name)}\s+([\d.]+) (kB|MB)\s", README, re.MULTILINE)
    assert match, f"no benchmark row {name!r} in the README"
    return float(match[1]), match[2]


def _size_rows() -> dict[str, float]:
    """The README's sizes block, as ``./serve.sh bench --sizes`` printed it: kB by exported file."""
    rows = dict(re.findall(r"^Exported file ([\w.-]+)(?: \(\d+ kB gzipped\))?\s+([\d.]+) kB", README, re.MULTILINE))
    return {name: float(size) for name, size in rows.items()}


def test_the_sizes_the_readme_gives_are_its_benchmark_tables_rounded():
    sizes = _size_rows()
    figure_pages = [
        size for name, size in sizes.items() if name.endswith(".html") and name not in ("index.html", "embed.html")
    ]
    assert len(figure_pages) == 7
    gzipped = re.search(r"^Exported file explainer\.js \((\d+) kB gzipped\)", README, re.MULTILINE)[1]
    per_student, unit = _benchmark_row(re.search(r"^Server RSS per student \(a class of \d+\)", README, re.M)[0])
    assert unit == "kB"
    low, high = round(min(figure_pages)), round(max(figure_pages))
    assert f"one script, {round(sizes['explainer.js'])} kB ({gzipped} kB gzipped)" in README
    assert f"the story, as a light page ({round(sizes['index.html'])} kB)" in README
    assert f"as a light page ({low} to {high} kB)" in README
    assert f"light pages of {low} to {round(sizes['index.html'])} kB" in README
    assert f"a student costs the server about {per_student:g} kB" in README


def test_the_readmes_sizes_block_is_this_codes_export(exported_site):
    """The block is ``./serve.sh bench --sizes`` of this code: an export that drifts past 3% must be pasted again."""
    sizes = _size_rows()
    assert set(sizes) == {p.name for p in [*exported_site.glob("*.html"), exported_site / "explainer.js"]}
    for name, kilobytes in sizes.items():
        actual = (exported_site / name).stat().st_size / 1e3
        assert abs(actual - kilobytes) <= 0.03 * kilobytes, (
            f"{name} is {actual:.1f} kB, the README says {kilobytes} kB: paste ./serve.sh bench --sizes into it"
        )


def test_the_workbench_says_which_of_its_numbers_are_trec_evals():
    """Its per-query measures carry trec_eval's names (Measure.name); the rest is named as not trec_eval's."""
    shown = ("precision", "recall", "rr", "ap", "ndcg", "hit_rate")  # the workbench's measures (its page's table)
    measures = [Measure(key, None if key in ("rr", "ap") else 10) for key in shown]
    trec = {m.name if m.k is None else m.name.removesuffix(f"_{m.k}") for m in measures}
    assert trec == {"P", "recall", "recip_rank", "map", "ndcg_cut", "success"}
    named = "`P`, `recall`, `recip_rank`, `map`, `ndcg_cut` and `success` at the cutoffs you choose"
    assert named in README and "Every number is computed as trec_eval computes it" not in README
    others = len(NDCG_CONVENTIONS) - 1
    assert others == 4 and DEFAULT_CONVENTION == "linear-judged"
    assert (
        "trec_eval computes none of the rest: the statistics (a paired t-test, a randomization test and a bootstrap"
        " interval, checked against scipy and ranx), NDCG under the conventions figure's four other conventions,"
        " judged@k (ir_measures' Judged@k), and the counts the figures show." in README
    )


def test_the_readme_lists_every_measure_of_the_catalog_with_both_tools_names():
    """Paste ``python -c "from explainer.catalog.measures import *; print(readme_measures_table())"`` when it fails."""
    from explainer.catalog.measures import readme_measures_table

    assert readme_measures_table() in README
