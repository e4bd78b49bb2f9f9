"""``evaluate --format trec|json|csv``: what goes to standard output and what to standard error, the
JSON against the README's schema, the CSV read back exactly, run names, and the Python results as
dicts and DataFrames."""

from __future__ import annotations

import copy
import csv
import io
import json
import re

import jsonschema
import numpy as np
import pytest
import pytrec_eval
from test_evaluation_cli import call, files

from explainer.evaluation import evaluate, read_qrels, read_run
from explainer.evaluation.run_names import distinct_names

from support.server import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_schema() -> dict:
    """The JSON Schema the README gives under its marker, as written there."""
    match = re.search(r"<!-- evaluate-json-schema -->\s*```json\n(.*?)```", README, re.S)
    assert match, "the README's JSON schema (<!-- evaluate-json-schema -->) is missing"
    return json.loads(match.group(1))


def closed(schema):
    """The schema with every object closed (``additionalProperties: false`` where it says nothing):
    a field the program writes and the README does not document fails."""
    schema = copy.deepcopy(schema)

    def close(node):
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema)
    return schema


def expected_lines(per_query: dict, names: list[str], queries: bool = True, summary: bool = True) -> list[str]:
    """trec_eval's lines from pytrec_eval's numbers: ``%-22s\\t%s\\t%6.4f``, queries in byte order, then the means."""
    lines = []
    if queries:
        lines += [f"{n:<22}\t{q}\t{per_query[q][n]:6.4f}" for q in sorted(per_query) for n in names]
    if summary:
        lines += [f"{n:<22}\tall\t{np.mean([per_query[q][n] for q in per_query]):6.4f}" for n in names]
    return lines


NAMES = ["map", "recip_rank", "P_5", "ndcg_cut_10"]  # trec_eval's order
ASKED = ["-m", "P.5", "-m", "map", "-m", "ndcg_cut.10", "-m", "recip_rank"]


def pytrec(qrels, run):
    return pytrec_eval.RelevanceEvaluator(qrels, {"P.5", "map", "ndcg_cut.10", "recip_rank"}).evaluate(run)


def test_trec_format_writes_trec_evals_lines_alone_on_stdout(tmp_path):
    qrels, run, _, paths = files(tmp_path)
    expected = pytrec(qrels, run)
    code, out, err = call(paths["qrels"], paths["base"], "-q", *ASKED)
    assert code == 0
    assert sorted(out.splitlines()) == sorted(expected_lines(expected, NAMES))
    assert "#" not in out
    assert err.startswith(f"# {len(expected)} queries evaluated; ")


def test_without_q_the_summary_alone_and_with_n_no_summary(tmp_path):
    qrels, run, _, paths = files(tmp_path)
    expected = pytrec(qrels, run)
    _, out, _ = call(paths["qrels"], paths["base"], *ASKED)
    assert sorted(out.splitlines()) == sorted(expected_lines(expected, NAMES, queries=False))
    _, out, _ = call(paths["qrels"], paths["base"], "-q", "-n", *ASKED)
    assert sorted(out.splitlines()) == sorted(expected_lines(expected, NAMES, summary=False))
    _, out, _ = call(paths["qrels"], paths["base"], "-n", *ASKED)
    assert out == ""


def test_two_runs_print_both_tables_and_the_verdict_on_stderr(tmp_path):
    qrels, run, better, paths = files(tmp_path)
    code, out, err = call(paths["qrels"], paths["base"], paths["cand"], *ASKED)
    assert code == 0
    lines = out.splitlines()
    half = len(lines) // 2
    assert sorted(lines[:half]) == sorted(expected_lines(pytrec(qrels, run), NAMES, queries=False))
    assert sorted(lines[half:]) == sorted(expected_lines(pytrec(qrels, better), NAMES, queries=False))
    # The gate's measure, NDCG@10 by default, is compared whether or not -m named it, and the
    # table holds what -m asked for: here it did.
    assert "# SHIPS on ndcg_cut_10: better by more than 0.0000" in err
    assert "# baseline: base.run (run base)" in err and "# candidate: cand.run.gz (run cand)" in err
    code, out, err = call(paths["qrels"], paths["base"], paths["cand"], "-m", "map")
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["map", "map"]
    assert "SHIPS on ndcg_cut_10" in err


def run_json(*argv) -> tuple[int, dict, str]:
    code, out, err = call(*argv, "--format", "json")
    return code, json.loads(out), err


@pytest.mark.parametrize(
    "extra",
    [[], ["-q"], ["-q", "-c", "-l", "2"], ["--two-sided"], ["--non-inferiority", "0.01", "--gate-measure", "map"]],
    ids=["summary", "per query", "complete, level 2", "two-sided", "non-inferiority"],
)
def test_the_json_is_what_the_readmes_schema_says(tmp_path, extra):
    _, _, _, paths = files(tmp_path)
    schema = closed(readme_schema())
    jsonschema.Draft202012Validator.check_schema(schema)
    for runs in ([paths["base"]], [paths["base"], paths["cand"]], [paths["base"], paths["cand"], paths["base"]]):
        code, doc, _ = run_json(paths["qrels"], *runs, *ASKED, *extra)
        jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
        assert doc["exit_code"] == code
        assert (doc["comparison"] is None) == (len(runs) != 2)
        assert (doc["candidates"] is None) == (len(runs) == 1)
        assert (doc["many_runs"] is None) == (len(runs) < 3)
        assert ("queries" in doc["runs"][0]) == ("-q" in extra)


def test_the_readmes_schema_is_not_a_blank_cheque():
    """Each object the schema describes lists its fields, so that closing it means something."""
    schema = readme_schema()
    assert schema["properties"]["schema_version"] == {
        "const": 1,
        "description": schema["properties"]["schema_version"]["description"],
    }
    bad = {"schema_version": 2}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema, cls=jsonschema.Draft202012Validator)


def test_the_json_holds_pytrec_evals_values_and_the_comparison(tmp_path):
    qrels, run, better, paths = files(tmp_path)
    code, doc, err = run_json(paths["qrels"], paths["base"], paths["cand"], "-q", *ASKED)
    assert {m["name"] for m in doc["measures"]} == set(NAMES)
    for got, expected in zip(doc["runs"], (pytrec(qrels, run), pytrec(qrels, better)), strict=True):
        assert [q["qid"] for q in got["queries"]] == sorted(expected)
        for q in got["queries"]:
            for name, value in q["values"].items():
                assert value == pytest.approx(expected[q["qid"]][name], abs=1e-12)
        for name, value in got["means"].items():
            assert value == pytest.approx(np.mean([v[name] for v in expected.values()]), abs=1e-12)
    assert [r["role"] for r in doc["runs"]] == ["baseline", "candidate"]
    gate = doc["comparison"]["gate"]
    assert gate["outcome"] == "ships" and code == 0
    assert gate["reason"].startswith("SHIPS on ndcg_cut_10") and gate["reason"] in err
    ndcg = next(m for m in doc["comparison"]["measures"] if m["measure"] == "ndcg_cut_10")
    assert ndcg["mean_difference"] == pytest.approx(ndcg["candidate_mean"] - ndcg["baseline_mean"], abs=1e-12)
    assert ndcg["wins"] + ndcg["ties"] + ndcg["losses"] == doc["comparison"]["queries"]


def test_the_csv_reads_back_to_the_exact_values(tmp_path):
    qrels, run, _, paths = files(tmp_path)
    code, out, _ = call(paths["qrels"], paths["base"], paths["cand"], "-q", *ASKED, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["run", "qid", "measure", "value"]
    evaluations = {
        name: evaluate(read_qrels(paths["qrels"]), read_run(paths[key]), ["P@5", "ap", "ndcg@10", "rr"])
        for name, key in (("base", "base"), ("cand", "cand"))
    }
    seen = 0
    for row in rows:
        evaluation = evaluations[row["run"]]
        if row["qid"] == "all":
            assert float(row["value"]) == evaluation.means[row["measure"]]  # exactly: repr reads back
        else:
            assert float(row["value"]) == evaluation.value(row["measure"], row["qid"])
        seen += 1
    n_queries = sum(len(e.qids) for e in evaluations.values())
    assert seen == (n_queries + 2) * len(NAMES)
    expected = pytrec(qrels, run)
    base_rows = {(r["qid"], r["measure"]): float(r["value"]) for r in rows if r["run"] == "base" and r["qid"] != "all"}
    for (qid, name), value in base_rows.items():
        assert value == pytest.approx(expected[qid][name], abs=1e-12)


def test_two_runs_with_one_tag_are_named_by_their_files(tmp_path):
    _, _, _, paths = files(tmp_path)
    same = tmp_path / "other.run"
    same.write_text(paths["base"].read_text().replace(" base\n", " base\n"))
    code, doc, err = run_json(paths["qrels"], paths["base"], same, "-m", "map")
    assert [(r["name"], r["tag"]) for r in doc["runs"]] == [("base.run", "base"), ("other.run", "base")]
    assert doc["comparison"]["baseline"] == "base.run" and doc["comparison"]["candidate"] == "other.run"
    assert "# baseline: base.run (run base.run)" in err
    assert "Comparison: other.run (candidate) against base.run (baseline)" in err


def test_distinct_names_take_the_first_kind_that_tells_runs_apart():
    assert distinct_names(["a", "b"], ["x/1.run", "y/1.run"]) == ("a", "b")
    assert distinct_names(["STANDARD", "STANDARD"], ["x/1.run", "y/2.run"]) == ("1.run", "2.run")
    assert distinct_names(["STANDARD", "STANDARD"], ["x/1.run", "y/1.run"]) == ("x/1.run", "y/1.run")
    assert distinct_names(["t", "t"], ["a.run", "a.run"]) == ("run 1", "run 2")
    assert distinct_names(["t", "t"], ["-", "a.run"]) == ("standard input", "a.run")


def test_results_convert_to_pytrec_evals_dict_and_a_dataframe(tmp_path):
    qrels, run, _, paths = files(tmp_path)
    evaluation = evaluate(read_qrels(paths["qrels"]), read_run(paths["base"]), ["P@5", "ap", "ndcg@10", "rr"])
    as_dict = evaluation.to_dict()
    expected = pytrec(qrels, run)
    assert list(as_dict) == sorted(expected)
    for qid, values in as_dict.items():
        assert set(values) == set(NAMES)
        for name, value in values.items():
            assert type(value) is float and value == pytest.approx(expected[qid][name], abs=1e-12)
    json.dumps(as_dict)  # plain Python numbers
    frame = evaluation.to_frame()
    assert frame.index.name == "qid" and list(frame.index) == sorted(expected)
    assert list(frame.columns) == ["P_5", "map", "ndcg_cut_10", "recip_rank"]
    assert frame.loc["q0", "map"] == as_dict["q0"]["map"]
    assert frame["map"].mean() == pytest.approx(evaluation.means["map"], abs=1e-15)


def test_a_comparison_converts_to_plain_data_and_a_dataframe(tmp_path):
    from explainer.evaluation import compare

    _, _, _, paths = files(tmp_path)
    qrels = read_qrels(paths["qrels"])
    a = evaluate(qrels, read_run(paths["base"]), ["ap", "ndcg@10"])
    b = evaluate(qrels, read_run(paths["cand"]), ["ap", "ndcg@10"])
    comparison = compare(a, b, n_permutations=500, n_bootstrap=500)
    plain = comparison.to_dict()
    json.dumps(plain, allow_nan=False)
    assert [m["measure"] for m in plain["measures"]] == ["map", "ndcg_cut_10"]
    frame = comparison.to_frame()
    assert list(frame.index) == ["map", "ndcg_cut_10"]
    m = comparison.measures["map"]
    assert frame.loc["map", "mean_difference"] == pytest.approx(float(np.mean(m.delta)), abs=1e-15)
    assert frame.loc["map", "p_t_test"] == m.t_p and frame.loc["map", "wins"] == m.wins
