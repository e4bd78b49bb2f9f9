"""Reading qrels and runs: trec_eval's formats, its order of results, duplicates, and clear errors."""

from __future__ import annotations

import gzip
import io
import re

import numpy as np
import pytest
import pytrec_eval
from evaluation_cases import collection, qrels_text, run_text

from explainer.evaluation.formats import InputError, blocks, collector, fast_path, read_qrels, read_run

from support.zeros import gzip_of_zeros

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
        (b"q 0 a 1.5e0\n", 1, "expected an integer grade in the 4th field, found '1.5e0'"),
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


# -- what the readers refuse, and what they cost (issue 27) ------------------------------------

GOOD_LINE = b"q Q0 d 1 1.0 t\n"


class Endless(io.RawIOBase):
    """A stream that repeats ``unit`` (as ``/dev/zero`` or ``yes`` does), up to ``limit`` bytes so that a
    broken reader ends the test with a wrong answer rather than hanging it."""

    def __init__(self, unit: bytes, limit: int = 256 << 20):
        self.unit, self.left = unit, limit
        self.name = "endless"

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        reps = -(-n // len(self.unit)) + 1
        buffer[:n] = (self.unit * reps)[:n]
        self.left -= n
        return n


def test_a_docids_hash_is_its_own_whatever_the_longest_docid_in_its_block():
    """On main the hash folded in as many words as the block's longest docid had: 'd1' of the qrels
    and 'd1' of a run that also held a 21-byte docid hashed apart, and P@1 came out 0."""
    long_id = "a-docid-of-21-bytes.."
    qrels, run = {"q": {"d1": 1}}, {"q": {"d1": 2.0, long_id: 1.0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P.1", "recip_rank"}).evaluate(run)["q"]
    assert expected == {"P_1": 1.0, "recip_rank": 1.0}
    from explainer.evaluation import evaluate

    for text in (f"q Q0 d1 1 2 t\nq Q0 {long_id} 2 1 t\n", f"q\tQ0 d1 1 2 t\nq Q0 {long_id} 2 1 t\n"):
        result = evaluate(read_qrels(b"q 0 d1 1\n"), read_run(text.encode()), ["P@1", "rr"])
        assert result.means == {"P_1": 1.0, "recip_rank": 1.0}, text


@pytest.mark.parametrize("path", ["fast", "exact"])
def test_one_long_field_costs_its_own_length_not_every_lines(path, monkeypatch):
    """3,000 lines and one 60 kB docid (the id cap raised for it): on main each block laid every docid
    out as wide as the longest (3,000 x 60 kB = 180 MB, twice); now the bytes themselves (under 8 MB)."""
    import tracemalloc

    from explainer.evaluation.formats import limits

    monkeypatch.setattr(limits, "MAX_ID_BYTES", 1 << 20)
    lines = [f"q{i % 30} Q0 d{i} {i} {i % 5}.5 t\n".encode() for i in range(3000)]
    long_id = b"x" * 60_000
    lines[1500] = b"q7 Q0 " + long_id + b" 1 0.5 t\n"  # tied with many at 0.5: the tie-break sees it too
    lines[1501] = b"q7 Q0 " + long_id[:-1] + b"y 1 0.5 t\n"  # sharing all but its last byte
    text = b"".join(lines)
    if path == "exact":
        text = text.replace(b" Q0 ", b"\tQ0 ")
    # The first read in a process also sets up pyarrow's reader (some 12 MB traced, once): the test
    # file run alone failed on it, while the whole suite had read a run before. Measure a second read.
    read_run(text)
    tracemalloc.start()
    run = read_run(text)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8e6, f"{peak / 1e6:.0f} MB"
    ties = [d for d, s in run.to_dict()["q7"].items() if s == 0.5]
    assert ties == sorted(ties, key=lambda d: d.encode(), reverse=True)  # trec_eval: the greater docid first
    assert ties.index(long_id[:-1].decode() + "y") == ties.index(long_id.decode()) - 1


@pytest.mark.parametrize(
    ("line", "what"),
    [
        (b"q" * 1025 + b" Q0 d 1 1 t\n", "qid"),
        (b"q Q0 " + b"d" * 1025 + b" 1 1 t\n", "docid"),
        (b"q Q0 d 1 1 " + b"t" * 1025 + b"\n", "run tag"),
    ],
)
@pytest.mark.parametrize("spacing", [b" ", b"\t"])  # the fast reader and the exact one
def test_an_id_over_1_kib_is_refused_with_its_line(line, what, spacing):
    text = b"".join(b"q Q0 a%d 1 1 t\n" % i for i in range(3)) + line.replace(b" Q0", spacing + b"Q0")
    with pytest.raises(InputError) as caught:
        read_run(text, name="long.run")
    assert caught.value.line == 4
    assert str(caught.value) == f"long.run, line 4: expected a {what} of at most 1,024 bytes, found a longer one"
    assert read_run(text.replace(line.replace(b" Q0", spacing + b"Q0"), b"q Q0 b 1 1 t\n")).n_lines_read == 4


def test_an_id_of_1_kib_is_read():
    docid = "d" * 1024
    assert read_run(f"q Q0 {docid} 1 1 t\n".encode()).to_dict() == {"q": {docid: 1.0}}
    with pytest.raises(InputError, match="at most 1,024 bytes"):
        read_qrels(f"q 0 {docid}x 1\n".encode())


def test_an_input_without_newlines_stops_at_8_mib():
    """/dev/zero, or a gzip of a GiB of zeros: one endless line. On main it grew without end."""
    with pytest.raises(InputError) as caught:
        read_run(io.BufferedReader(Endless(b"\0")))
    assert caught.value.line == 1 and "expected lines of at most 8 MB" in str(caught.value)
    with pytest.raises(InputError) as caught:
        read_run(gzip_of_zeros(1 << 30), name="zeros.gz")
    assert str(caught.value) == "zeros.gz, line 1: expected lines of at most 8 MB; this one is longer"


def test_an_endless_input_of_good_lines_stops_at_the_memory_budget(monkeypatch):
    from explainer.evaluation.formats import limits

    monkeypatch.setattr(limits, "MEMORY_BUDGET_BYTES", 4 << 20)  # half of a small computer's memory
    with pytest.raises(InputError) as caught:
        read_run(io.BufferedReader(Endless(GOOD_LINE, 64 << 20)), name="yes")
    assert "is the input endless?" in str(caught.value)
    # the block that would pass the budget is named by its first line (blocks of 8 MiB: line 1 or the next block's)
    assert (caught.value.line - 1) % ((8 << 20) // len(GOOD_LINE)) in (0, 1)


def test_a_grade_beyond_64_bits_is_a_malformed_line():
    """On main: an OverflowError and a traceback (exit 1, which a CI job reads as 'does not ship')."""
    for text in (b"q 0 a 1\nq 0 b 99999999999999999999\n", b"q\t0 a 1\nq 0 b -99999999999999999999\n"):
        with pytest.raises(InputError) as caught:
            read_qrels(text, name="qrels.txt")
        assert caught.value.line == 2 and "integer grade in the 4th field" in str(caught.value)
    assert read_qrels(b"q 0 a 9223372036854775807\n").to_dict() == {"q": {"a": 2**63 - 1}}


def test_a_byte_order_mark_is_refused_on_line_1():
    """trec_eval reads it as part of the first qid, which then matches no judgment: a silent zero."""
    for text in (b"\xef\xbb\xbfq Q0 a 1 1 t\n", gzip.compress(b"\xef\xbb\xbfq Q0 a 1 1 t\n")):
        with pytest.raises(InputError) as caught:
            read_run(text, name="bom.run")
        assert (
            str(caught.value)
            == "bom.run, line 1: starts with a byte-order mark, which trec_eval reads as part of the qid"
        )


def test_every_gzip_member_is_read_and_a_second_layer_is_refused(tmp_path):
    first, second = b"q Q0 a 1 2 t\n", b"q Q0 b 2 1 t\n"
    both = tmp_path / "both.run.gz"
    both.write_bytes(gzip.compress(first) + gzip.compress(second))  # cat a.gz b.gz > both.gz
    assert read_run(both).to_dict() == {"q": {"a": 2.0, "b": 1.0}}
    assert read_run(gzip.compress(first) + b"\0" * 10).to_dict() == {"q": {"a": 2.0}}  # zero padding, as gunzip
    cases = {
        gzip.compress(gzip.compress(first)): "is gzip inside gzip; only one layer is unpacked",
        gzip.compress(first)[:-4]: "is not a readable gzip file (it ends before its gzip data does)",
        gzip.compress(first) + b"junk": "holds bytes after its gzip data that are not gzip",
        b"\x1f\x8b" + b"\0" * 30: "is not a readable gzip file",
    }
    for data, message in cases.items():
        with pytest.raises(InputError, match=re.escape(f"x.gz: {message}")):
            read_run(data, name="x.gz")


def test_the_page_caps_count_queries_and_results_per_query_and_name_the_line():
    from explainer.evaluation.formats import Caps

    caps = Caps(queries=3, per_query=4)
    ok = b"".join(b"q%d Q0 d%d 1 1 t\n" % (q, d) for q in range(3) for d in range(4))
    assert read_run(ok, caps=caps).n_lines_read == 12
    with pytest.raises(InputError) as caught:
        read_run(ok + b"q9 Q0 d 1 1 t\n", caps=caps, name="r")
    assert str(caught.value) == "r, line 13: expected at most 3 queries in a file (the page's limit)"
    qrels = ok.replace(b" Q0 ", b" 0 ").replace(b" 1 1 t", b" 1")
    with pytest.raises(InputError) as caught:  # q1's 5th judgment comes last, on line 13
        read_qrels(qrels + b"q1 0 z 1\n", caps=caps)
    assert caught.value.line == 13 and "at most 4 judgments for one query" in str(caught.value)
    with pytest.raises(InputError) as caught:  # q0's 5th judgment, line 5, comes before q1's, line 14
        read_qrels(b"q0 0 a 1\n" + qrels + b"q1 0 z 1\n", caps=caps)
    assert caught.value.line == 5
    assert read_run(ok * 1 + b"q1 Q0 z 1 1 t\n").n_lines_read == 13  # no caps: the command line's


def test_a_ranges_hash_is_the_same_alone_among_others_and_folded_in_python(monkeypatch):
    """qrels and runs are matched by these hashes: a docid must hash alike whatever surrounds it."""
    from explainer.evaluation.formats import fields

    rng = np.random.default_rng(0)
    for _ in range(100):
        lengths = rng.integers(0, 90, int(rng.integers(1, 40)))
        buf = rng.integers(0, 256, int(lengths.sum()) + 3).astype(np.uint8)
        starts = np.cumsum(lengths) - lengths
        together = fields.hash_ranges(buf, starts, lengths)
        alone = [fields.hash_ranges(buf, starts[i : i + 1], lengths[i : i + 1])[0] for i in range(len(starts))]
        assert together.tolist() == [int(h) for h in alone]
        with monkeypatch.context() as patched:
            patched.setattr(fields, "_FEW", -1)  # numpy steps to the end
            assert fields.hash_ranges(buf, starts, lengths).tolist() == together.tolist()


def test_a_file_object_that_can_neither_peek_nor_seek_is_still_recognised_as_gzip():
    class ReadOnly:
        def __init__(self, data):
            self.inner = io.BytesIO(data)

        def read(self, n=-1):
            return self.inner.read(n)

    text = b"q Q0 a 1 2 t\nq Q0 b 2 1 t\n"
    assert read_run(ReadOnly(gzip.compress(text))).to_dict() == read_run(text).to_dict() == {"q": {"a": 2.0, "b": 1.0}}


@pytest.mark.parametrize("seed", range(4))
def test_ties_of_two_and_of_more_are_ordered_by_docid_descending(seed):
    # most ties are pairs, which the tie-break swaps by one comparison; larger ties are sorted:
    # both against the order written independently, with docids short, over 8 bytes, over NARROW
    # bytes, and sharing their first bytes
    rng = np.random.default_rng(seed)
    stems = ["", "d", "doc-", "x" * 30, "y" * 40]
    run = {}
    for q in range(30):
        docs = {f"{stems[int(rng.integers(len(stems)))]}{int(d)}" for d in rng.integers(0, 500, size=40)}
        levels = 3 if q % 3 == 0 else 30  # three scores: ties of many; thirty: mostly pairs
        run[f"q{q}"] = {d: float(rng.integers(0, levels)) / 2 for d in docs}
    got = ranked(read_run(run_text(run, rng).encode()))
    for q, docs in run.items():
        assert got[q] == sorted(docs, key=lambda d: (-docs[d], [-b for b in d.encode()] + [1])), q


def test_find_gives_a_documents_line_within_its_query_only_and_compares_bytes_past_the_hash(monkeypatch):
    import dataclasses

    from explainer.evaluation.formats import lines as lines_module

    run = read_run(RUN)
    lines = {q: (int(run.offsets[i]), int(run.offsets[i + 1])) for i, q in enumerate(run.qids)}
    for a, b in lines.values():
        for line, docid in enumerate(run.docids(a, b), start=a):
            assert run.find(a, b, docid) == line
    a, b = lines["q1"]
    assert run.find(a, b, "d9") is None  # q2's document, not q1's
    assert run.find(a, b, "") is None and run.find(a, b, "a ") is None
    # Every docid with the same hash: the bytes decide.
    monkeypatch.setattr(lines_module, "hash_ranges", lambda buf, starts, lengths: np.zeros(len(starts), np.uint64))
    collided = dataclasses.replace(run, doc_hash=np.zeros(len(run.doc_hash), np.uint64))
    first, second = run.docids(a, b)
    assert collided.find(a, b, second) == a + 1 and collided.find(a, b, first) == a
    assert collided.find(a, b, "zz") is None
    monkeypatch.undo()
    # Non-ASCII docids are found by their UTF-8 bytes.
    accented = read_run("q1 Q0 café 1 2.0 t\nq1 Q0 cafe 2 1.0 t\n".encode())
    assert accented.find(0, 2, "cafe") == 1 and accented.find(0, 2, "café") == 0
