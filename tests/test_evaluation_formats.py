"""Reading qrels and runs: trec_eval's formats, its order of results, duplicates, and clear errors."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest
import pytrec_eval
from evaluation_cases import collection, qrels_text, run_text

from explainer.evaluation.formats import InputError, blocks, collector, fast_path, read_qrels, read_run

RUN = b"""q2 Q0 d9 1 1.0 first
q2 Q0 d10 2 1.0 first
q1 Q0 a 1 3 first

# a comment line
q1 Q0 b 2 5 second extra fields are ignored
q2 Q0 d8 3 2.0 last
"""


def ranked(run) -> dict[str, list[str]]:
    return {q: list(docs) for q, docs in run.to_dict().items()}


def test_a_run_is_ordered_by_score_then_docid_descending_bytewise():
    run = read_run(RUN)
    # q2: d8 scores 2; d9 and d10 tie at 1 and "d9" > "d10" byte by byte, so d9 comes first.
    assert ranked(run) == {"q1": ["b", "a"], "q2": ["d8", "d9", "d10"]}
    assert run.qids == ("q1", "q2")
    assert run.name == "last"  # trec_eval keeps the last line's tag
    assert run.n_lines_read == 5


def test_the_tie_break_is_trec_evals():
    """Two tied documents, one relevant: which one trec_eval puts first decides P@1."""
    qrels = {"q": {"d10": 1}}
    run = {"q": {"d9": 1.0, "d10": 1.0}}
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"P.1"}).evaluate(run)["q"]["P_1"]
    assert trec == 0.0  # d9 first: ties go to the greater docid
    assert ranked(read_run(run))["q"] == ["d9", "d10"]
    # and in the other direction, d10 relevant among d10 and d1 (tied): "d10" > "d1"
    assert (
        pytrec_eval.RelevanceEvaluator({"q": {"d10": 1}}, {"P.1"}).evaluate({"q": {"d1": 1.0, "d10": 1.0}})["q"]["P_1"]
        == 1.0
    )
    assert ranked(read_run({"q": {"d1": 1.0, "d10": 1.0}}))["q"] == ["d10", "d1"]


@pytest.mark.parametrize("seed", range(6))
def test_file_and_dict_give_the_same_order_whatever_the_line_order(seed):
    _, run = collection(seed)
    text = run_text(run, np.random.default_rng(seed)).encode()
    from_file = ranked(read_run(text))
    from_dict = ranked(read_run(run))
    assert from_file == {q: docs for q, docs in from_dict.items() if docs}  # a file cannot hold an empty query
    # the expected order, written independently: score descending, then docid bytes descending
    for q, docs in run.items():
        if docs:
            expected = sorted(docs, key=lambda d: (-docs[d], [-b for b in d.encode()] + [1]))
            assert from_dict[q] == expected


def test_gzip_bytes_paths_and_file_objects_read_alike(tmp_path):
    plain = read_run(RUN).to_dict()
    assert read_run(gzip.compress(RUN)).to_dict() == plain
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(RUN))
    assert read_run(path).to_dict() == plain
    assert read_run(str(path)).to_dict() == plain
    assert read_run(io.BytesIO(RUN)).to_dict() == plain
    assert read_run(io.StringIO(RUN.decode())).to_dict() == plain
    assert read_run(path).source == "run.txt.gz"


def test_lines_split_across_read_blocks(monkeypatch):
    qrels, run = collection(3)
    text = run_text(run, np.random.default_rng(0)).encode()
    whole = read_run(text).to_dict()
    monkeypatch.setattr(blocks, "CHUNK_BYTES", 37)
    assert read_run(text).to_dict() == whole
    assert read_run(gzip.compress(text)).to_dict() == whole
    assert read_qrels(qrels_text(qrels).encode()).to_dict() == {q: d for q, d in qrels.items()}


def test_a_file_without_a_final_newline():
    assert ranked(read_run(b"q Q0 a 1 1 t\nq Q0 b 2 2 t")) == {"q": ["b", "a"]}


def test_qrels_keep_every_grade_negative_ones_included():
    q = read_qrels(b"q1 0 a 1\nq1 0 b 0\r\nq2\t0\td -1\n")
    assert q.to_dict() == {"q1": {"a": 1, "b": 0}, "q2": {"d": -1}}
    assert q.n_lines_read == 3


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        (b"q 0 a 1\nq 0 b\n", 2, "expected 4 fields: qid iter docid grade, found 3 fields"),
        (b"q 0 a 1\n\nq 0 b 1 x\n", 3, "found 5 fields"),
        (b"q 0 a 1.5\n", 1, "expected an integer grade in the 4th field, found '1.5'"),
        (b"q 0 a high\n", 1, "found 'high'"),
    ],
)
def test_malformed_qrels_name_the_file_the_line_and_what_was_expected(text, line, expected):
    with pytest.raises(InputError) as caught:
        read_qrels(text, name="qrels.txt")
    assert caught.value.line == line
    assert caught.value.source == "qrels.txt"
    assert expected in str(caught.value)
    assert str(caught.value).startswith(f"qrels.txt, line {line}: ")


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        (b"q Q0 a 1 1 t\nq Q0 b 2 1\n", 2, "expected 6 fields: qid Q0 docid rank score tag, found 5 fields"),
        (b"q Q0 a 1 1 t\nq Q0 b 2 one t\n", 2, "expected a number as the score in the 5th field, found 'one'"),
        (b"q Q0 a 1 nan t\n", 1, "found 'nan'"),
    ],
)
def test_malformed_runs_name_the_file_the_line_and_what_was_expected(text, line, expected):
    with pytest.raises(InputError) as caught:
        read_run(text, name="run.txt")
    assert caught.value.line == line
    assert expected in str(caught.value)


def test_line_numbers_count_across_read_blocks(monkeypatch):
    monkeypatch.setattr(blocks, "CHUNK_BYTES", 16)
    text = b"".join(f"q Q0 d{i} {i} 1.0 t\n".encode() for i in range(50)) + b"q Q0 x 1 oops t\n"
    with pytest.raises(InputError) as caught:
        read_run(text, name="run.txt")
    assert caught.value.line == 51


def test_errors_never_repeat_a_docid_or_a_qid():
    with pytest.raises(InputError) as caught:
        read_run(b"secretquery Q0 secretdoc 1\n")
    assert "secret" not in str(caught.value)
    with pytest.raises(InputError) as caught:
        read_run(b"secretquery Q0 secretdoc 1 1 t\nsecretquery Q0 secretdoc 2 1 t\n")
    assert "secret" not in str(caught.value)


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="cannot be read"):
        read_run(tmp_path / "absent.txt")


def test_a_docid_twice_for_one_query_is_refused_as_trec_eval_refuses_it():
    text = b"q Q0 a 1 3 t\nq Q0 b 2 2 t\nr Q0 a 1 1 t\nq Q0 a 3 1 t\n"
    with pytest.raises(InputError) as caught:
        read_run(text, name="run.txt")
    assert caught.value.line == 4
    assert "line 1" in str(caught.value) and "duplicate" in str(caught.value)
    # pytrec_eval's own reader refuses it too
    with pytest.raises(AssertionError):
        pytrec_eval.parse_run(text.decode().splitlines())
    first = read_run(text, duplicates="first")
    assert first.to_dict() == {"q": {"a": 3.0, "b": 2.0}, "r": {"a": 1.0}}
    assert first.n_duplicates == 1 and first.duplicate_lines == ((1, 4),)
    last = read_run(text, duplicates="last")
    assert last.to_dict() == {"q": {"b": 2.0, "a": 1.0}, "r": {"a": 1.0}}
    with pytest.raises(InputError, match="line 2.*duplicate"):
        read_qrels(b"q 0 a 1\nq 0 a 2\n")
    assert read_qrels(b"q 0 a 1\nq 0 a 2\n", duplicates="last").to_dict() == {"q": {"a": 2}}


def test_hash_collisions_do_not_merge_different_docids(monkeypatch):
    """With every docid hashed alike, duplicates and lookups must still compare the bytes."""

    def same(buf, starts, lengths):
        return np.zeros(len(starts), dtype=np.uint64)

    monkeypatch.setattr(fast_path, "hash_ranges", same)
    monkeypatch.setattr(collector, "hash_ranges", same)
    run = read_run(b"q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\n")
    assert run.to_dict() == {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    with pytest.raises(InputError, match="duplicate"):
        read_run(b"q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 a 3 1 t\n")
    from explainer.evaluation.measures import evaluate

    result = evaluate(read_qrels(b"q 0 b 1\nq 0 c 0\n"), run, ["P@1", "P@2", "rr"])
    assert result.values["P_2"].tolist() == [0.5]
    assert result.values["recip_rank"].tolist() == [0.5]


def test_dicts_are_checked():
    with pytest.raises(InputError, match="integer grades"):
        read_qrels({"q": {"a": 1.5}})
    with pytest.raises(InputError, match="numbers as scores"):
        read_run({"q": {"a": "high"}})
    with pytest.raises(InputError, match="whitespace"):
        read_run({"q": {"a b": 1.0}})
    with pytest.raises(ValueError, match="duplicates must be one of"):
        read_run({}, duplicates="keep")
    with pytest.raises(TypeError, match="expected a path"):
        read_run(42)


def test_empty_inputs_read_as_empty():
    assert read_run(b"").to_dict() == {}
    assert read_qrels({}).to_dict() == {}
    assert len(read_run(b"# only a comment\n\n")) == 0


def test_numbers_parse_exactly_as_python_and_strtod_do():
    rng = np.random.default_rng(9)
    values = [f"{v:.{d}f}" for v, d in zip(rng.normal(0, 1e4, 3000), rng.integers(0, 10, 3000), strict=True)]
    values += ["-0", "-0.5", "7", ".5", "5.", "1e3", "-2.5E-3", "123456789012345678", "0.1"]
    text = "".join(f"q Q0 d{i} 1 {v} t\n" for i, v in enumerate(values)).encode()
    run = read_run(text).to_dict()["q"]
    for i, v in enumerate(values):
        assert run[f"d{i}"] == float(v) and np.signbit(run[f"d{i}"]) == np.signbit(float(v)), v
    grades = read_qrels(b"q 0 a 3\nq 0 b -1\nq 0 c 012\n").to_dict()
    assert grades == {"q": {"a": 3, "b": -1, "c": 12}}


def test_the_fast_and_the_general_reader_agree():
    """Single spaces take the bulk path; tabs, runs of spaces and a comment take the line-by-line one."""
    _, run = collection(4)
    text = run_text({q: d for q, d in run.items() if d}, np.random.default_rng(1))
    simple = read_run(text.encode()).to_dict()
    spaced = "# header\n" + text.replace(" Q0 ", "\t Q0  ").replace("\n", "  \r\n")
    assert read_run(spaced.encode()).to_dict() == simple
    assert fast_path.read_plain(text.encode(), 6, number_col=4) is not None
    assert fast_path.read_plain(spaced.encode(), 6, number_col=4) is None


PLAIN = b"q1 Q0 a 1 2.5 t\nq1 Q0 b 2 1.5 t\n"
UNUSUAL = {
    "tab": PLAIN.replace(b" Q0", b"\tQ0"),
    "two spaces": PLAIN.replace(b" a ", b"  a "),
    "leading space": b" " + PLAIN,
    "trailing space": PLAIN.replace(b"t\n", b"t \n", 1),
    "blank line": PLAIN.replace(b"\n", b"\n\n", 1),
    "comment": b"# a comment\n" + PLAIN,
    "carriage return": PLAIN.replace(b"\n", b"\r\n"),
    "byte-order mark": b"\xef\xbb\xbf" + PLAIN,
    "extra field": PLAIN.replace(b"t\n", b"t more\n", 1),
    "too few fields": PLAIN.replace(b" t\n", b"\n", 1),
    "empty line of spaces": PLAIN + b"   \n",
    "nan score": PLAIN.replace(b"2.5", b"nan"),
    "NA score": PLAIN.replace(b"2.5", b"NA"),
    "exponent": PLAIN.replace(b"2.5", b"25e-1"),
    "underscore": PLAIN.replace(b"2.5", b"2_5"),
    "hex": PLAIN.replace(b"2.5", b"0x1p1"),
    "quote": PLAIN.replace(b" a ", b' "a ').replace(b" b ", b' b" '),
    "empty score": PLAIN.replace(b" 2.5 ", b"  "),
}


@pytest.mark.parametrize("case", UNUSUAL)
def test_pyarrow_and_the_exact_reader_read_every_run_alike(case, monkeypatch):
    """Whatever pyarrow takes must read as the exact reader reads it; what it refuses goes there."""
    text = UNUSUAL[case]
    outcomes = []
    for exact in (False, True):
        if exact:
            monkeypatch.setattr(fast_path, "read_plain", lambda *args, **kwargs: None)
        try:
            run = read_run(text)
            outcomes.append((run.to_dict(), run.name, run.n_lines_read))
        except InputError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("grade", [b"2", b"-1", b"012", b"0x10", b"+1", b"1.0", b"1e1", b"", b"NA"])
def test_pyarrow_and_the_exact_reader_read_every_grade_alike(grade, monkeypatch):
    text = b"q 0 a " + grade + b"\nq 0 b 1\n"
    outcomes = []
    for exact in (False, True):
        if exact:
            monkeypatch.setattr(fast_path, "read_plain", lambda *args, **kwargs: None)
        try:
            outcomes.append(read_qrels(text).to_dict())
        except InputError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]
