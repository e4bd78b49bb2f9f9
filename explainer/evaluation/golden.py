"""A golden set to start from: 100 judged queries about aircraft-part maintenance, and two runs.

The story's team keeps 80 to 120 judged queries, re-runs them after every change, and
ships only what beats the baseline. This module makes such a set, deterministically,
so that the explainer can show an evaluation filled in:

- ``golden-topics.tsv``: ``qid<TAB>text``, 100 queries ("cracked bracket" first);
- ``golden-documents.tsv.gz``: ``docid<TAB>title``, work orders, service bulletins,
  supplier notices, maintenance logs, drawings, manual sections, directives;
- ``golden-qrels.txt.gz``: graded judgments 0-3 (about 25 a query, pooled from earlier runs);
- ``golden-baseline.run.gz`` and ``golden-candidate.run.gz``: 30 results a query. The
  candidate is better on average, clearly worse on a few queries (it favours drawings
  for them); both miss some judged relevant documents and return some unjudged ones.

``python -m explainer.evaluation.golden`` writes the files into ``explainer/evaluation/data``;
``paths()`` finds them and ``load()`` reads them. Everything comes from one seed, so the
files are the same on every machine (the tests regenerate them and compare).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

SEED = 20251111
N_QUERIES = 100
N_RESULTS = 30
POOL_DEPTH = 15  # judged: the baseline's top 15, the candidate's top 8, and a few more
DATA = Path(__file__).parent / "data"
FILES = {
    "topics": "golden-topics.tsv",
    "documents": "golden-documents.tsv.gz",
    "qrels": "golden-qrels.txt.gz",
    "baseline": "golden-baseline.run.gz",
    "candidate": "golden-candidate.run.gz",
}

PARTS = (
    "bracket",
    "hinge",
    "seal",
    "fastener",
    "bushing",
    "actuator rod end",
    "latch",
    "clamp",
    "gasket",
    "bearing",
    "rivet",
    "fitting",
)
DEFECTS = ("cracked", "corroded", "worn", "leaking", "loose", "chafed", "bent", "missing")
PLACES = (
    "main landing gear",
    "nose gear",
    "cargo door",
    "flap track",
    "engine pylon",
    "APU bay",
    "wing root",
    "passenger door",
    "horizontal stabilizer",
    "nacelle",
)
KINDS = (
    # prefix, title, how often
    ("WO", "Work order", 5),
    ("SB", "Service bulletin", 2),
    ("SN", "Supplier notice", 2),
    ("ML", "Maintenance log", 5),
    ("DWG", "Drawing", 3),
    ("CMM", "Component maintenance manual", 2),
    ("AD", "Airworthiness directive", 1),
)


def _documents(rng: np.random.Generator) -> list[dict]:
    weights = np.array([w for _, _, w in KINDS], dtype=float)
    docs = []
    counters: dict[str, int] = {}
    for _ in range(1500):
        kind = int(rng.choice(len(KINDS), p=weights / weights.sum()))
        prefix, title, _ = KINDS[kind]
        n = counters[prefix] = counters.get(prefix, 0) + 1
        year = 2019 + int(rng.integers(0, 7))
        docid = {
            "WO": f"WO-{year}-{n:04d}",
            "SB": f"SB-{int(rng.integers(20, 80))}-{n:04d}",
            "SN": f"SN-{year}-{n:03d}",
            "ML": f"ML-{year % 100:02d}-{n:05d}",
            "DWG": f"DWG-{int(rng.integers(1000, 9999))}-{n:03d}",
            "CMM": f"CMM-{int(rng.integers(20, 80))}-{n:03d}",
            "AD": f"AD-{year}-{n:03d}",
        }[prefix]
        part = int(rng.integers(len(PARTS)))
        defect = int(rng.integers(len(DEFECTS)))
        place = int(rng.integers(len(PLACES)))
        docs.append(
            {
                "docid": docid,
                "kind": prefix,
                "part": part,
                "defect": defect,
                "place": place,
                "title": f"{title}: {DEFECTS[defect]} {PARTS[part]}, {PLACES[place]}",
            }
        )
    return docs


def _queries(rng: np.random.Generator) -> list[dict]:
    queries = [{"text": "cracked bracket", "part": 0, "defect": 0, "place": None, "kind": None}]
    seen = {"cracked bracket"}
    while len(queries) < N_QUERIES:
        part = int(rng.integers(len(PARTS)))
        defect = int(rng.integers(len(DEFECTS)))
        shape = int(rng.integers(4))
        place = int(rng.integers(len(PLACES))) if shape >= 1 else None
        kind = int(rng.choice([1, 2, 4])) if shape == 3 else None  # a service bulletin, supplier notice, drawing
        words = [DEFECTS[defect], PARTS[part]]
        if place is not None:
            words.append(PLACES[place])
        if kind is not None:
            words.append(KINDS[kind][1].lower())
        text = " ".join(words)
        if text in seen:
            continue
        seen.add(text)
        queries.append({"text": text, "part": part, "defect": defect, "place": place, "kind": kind})
    return queries


def _grade(query: dict, doc: dict) -> int:
    """How useful ``doc`` is for ``query``: 3 the right part with the defect (in the place, of the kind asked
    for), 2 the right part with the defect elsewhere, 1 the right part in the place asked for, else 0."""
    if doc["part"] != query["part"]:
        return 0
    defect = doc["defect"] == query["defect"]
    place = query["place"] is None or doc["place"] == query["place"]
    kind = query["kind"] is None or doc["kind"] == KINDS[query["kind"]][0]
    if defect and (doc["kind"] == "SN" or (place and kind)):
        return 3  # a supplier notice about that defect of that part: the story's grade 3
    if defect:
        return 2
    return 1 if query["place"] is not None and place else 0


def generate() -> dict[str, bytes]:
    """The golden set's files as bytes (uncompressed), by name (``FILES``' keys)."""
    rng = np.random.default_rng(SEED)
    docs = _documents(rng)
    queries = _queries(rng)
    grades = np.array([[_grade(q, d) for d in docs] for q in queries])
    is_drawing = np.array([d["kind"] == "DWG" for d in docs])

    topics = [f"g{i + 1:03d}\t{q['text']}\n" for i, q in enumerate(queries)]
    documents = [f"{d['docid']}\t{d['title']}\n" for d in docs]
    qrels_lines, base_lines, cand_lines = [], [], []
    # A few queries where the candidate goes wrong: it ranks drawings of the part first.
    hurt = set(rng.choice(N_QUERIES, size=7, replace=False).tolist())
    for i in range(len(queries)):
        qid = f"g{i + 1:03d}"
        g = grades[i]
        # The systems see the true grade through noise; the candidate through less of it.
        signal = g + 0.6 * (g >= 1)
        base = signal + rng.normal(0, 1.5, len(docs))
        cand = signal + rng.normal(0, 1.3, len(docs))
        if i in hurt:
            cand = cand + 3.5 * is_drawing * (g <= 1)
        # Judged: the pool of earlier runs (mostly the baseline's top results, some of the
        # candidate's), a few relevant documents neither ranks high, and a few others.
        pool = np.concatenate(
            [
                np.argsort(-base, kind="stable")[:POOL_DEPTH],
                np.argsort(-cand, kind="stable")[: POOL_DEPTH - 7],
                rng.choice(np.flatnonzero(g >= 1), size=int(rng.integers(1, 5)), replace=False),
                rng.choice(np.flatnonzero(g == 0), size=int(rng.integers(2, 6)), replace=False),
            ]
        )
        for j in np.unique(pool).tolist():
            qrels_lines.append(f"{qid} 0 {docs[j]['docid']} {int(g[j])}\n")
        for lines, scores, tag in ((base_lines, base, "baseline"), (cand_lines, cand, "candidate")):
            top = np.argsort(-scores, kind="stable")[:N_RESULTS]
            for rank, j in enumerate(top.tolist(), start=1):
                lines.append(f"{qid} Q0 {docs[j]['docid']} {rank} {scores[j]:.4f} {tag}\n")
    return {
        "topics": "".join(topics).encode(),
        "documents": "".join(documents).encode(),
        "qrels": "".join(qrels_lines).encode(),
        "baseline": "".join(base_lines).encode(),
        "candidate": "".join(cand_lines).encode(),
    }


def write(directory: Path = DATA) -> list[Path]:
    """Write the golden set's files (gzipped where the name says so, with no time stamp)."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for key, content in generate().items():
        path = directory / FILES[key]
        path.write_bytes(gzip.compress(content, mtime=0) if path.suffix == ".gz" else content)
        written.append(path)
    return written


def paths() -> dict[str, Path]:
    """The shipped files, by name: ``topics``, ``documents``, ``qrels``, ``baseline``, ``candidate``."""
    return {key: DATA / name for key, name in FILES.items()}


def read_tsv(path: Path) -> dict[str, str]:
    """A ``key<TAB>text`` file (the topics or the documents) as a dict."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return dict(line.split("\t", 1) for line in raw.decode("utf-8").splitlines() if line)


def load():
    """The golden set read: ``(topics, documents, qrels, baseline, candidate)``.

    ``topics`` maps qid to the query's text, ``documents`` docid to a title; the others
    are ``Qrels`` and ``Run`` objects, ready for ``evaluate`` and ``compare``.
    """
    from explainer.evaluation.formats import read_qrels, read_run

    p = paths()
    return (
        read_tsv(p["topics"]),
        read_tsv(p["documents"]),
        read_qrels(p["qrels"]),
        read_run(p["baseline"]),
        read_run(p["candidate"]),
    )


def main() -> None:
    for path in write():
        print(f"Wrote {path} ({path.stat().st_size / 1000:.0f} KB)")


if __name__ == "__main__":
    main()
