"""The workbench as a page: its state, its browser view, and the ``Workbench`` that keeps them equal.

The browser view (``workbench.js``) draws everything from plain data (``data.table_of`` and
``data.query_of``) and computes a query's numbers with ``metrics.js``, as the figures do; a
query's two lists carry figure 1 and the conventions figure, mounted from their own modules
with the states their own state classes made. What the reader changes (the open query, the
cutoff, what-if judgments and moves) is the ``WorkbenchState``, sent to Python and checked
there against the data like any figure's state. Uploads arrive as messages (``upload.py``).
"""

from __future__ import annotations

import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import panel as pn
import param
from tornado.ioloop import IOLoop

from explainer.catalog.conventions import CONVENTIONS, DEFAULT_CONVENTION
from explainer.evaluation import DEFAULT_MEASURES, Measure, Qrels, Run
from explainer.figures.base import HERE as FIGURES
from explainer.figures.base import IMPORTED_MODULES, Figure, FigureState, FigureView, import_map, module_source
from explainer.figures.binary import BinaryView
from explainer.figures.conventions import ConventionsView
from explainer.figures.params import Count
from explainer.workbench import data
from explainer.workbench.data import Evaluated, Loaded
from explainer.workbench.upload import (
    CHUNK_BYTES,
    MAX_FILE_BYTES,
    MAX_UNPACKED_BYTES,
    Inbox,
    UploadError,
    read_judgments_or_run,
    read_texts,
)

HERE = Path(__file__).resolve().parent

MAX_WHATIF_QUERIES = 50
"""What-if changes are kept for at most this many queries at once (a reader explores a few)."""


class WorkbenchState(FigureState):
    """What the reader of the workbench changes: the open query, which run its figures show, the
    cutoff k, and what-if changes of queries (judgments of documents, and moves in a run's top list).

    ``judgments`` maps a qid to ``{docid: grade or None}`` (None: as if nobody judged it);
    ``orders`` maps a qid to one entry per run: the run's top documents in a new order, as
    positions 0, 1, 2... of the run's own order, or None for the run's order.
    """

    fields = ("query", "run", "k", "judgments", "orders")

    query = param.String(default="", doc="The query open in full; empty for none.")
    run = Count(
        default=0, bounds=(0, 1), doc="Which run the figures show: 0 the baseline (or the run), 1 the candidate."
    )
    k = Count(default=data.DEFAULT_K, bounds=(1, data.FIGURE_DEPTH), doc="The figures' cutoff.")
    judgments = param.Dict(default={}, doc="What-if grades: {qid: {docid: grade or None}}.")
    orders = param.Dict(default={}, doc="What-if orders of each run's top list: {qid: [order or None per run]}.")


class WorkbenchView(FigureView):
    """The workbench in the browser: the queries, their measures, and one query in full."""

    table = param.Dict(default={}, doc="The queries table and the comparison (data.table_of).")
    details = param.Dict(default={}, doc="Queries in full, by qid, sent with the page (all of them in a saved file).")
    detail = param.Dict(default={}, doc="The last query asked for in full (data.query_of), sent when asked.")
    status = param.Dict(default={}, doc="What the page is doing or what went wrong: {kind, lines, done, total}.")
    uploads = param.Boolean(default=False, doc="The page offers uploads (served and in notebooks, not in saved files).")
    upload_limits = param.Dict(default={}, doc="The largest file and message an upload may send.")
    figure_data = param.Dict(
        default={
            "measures": BinaryView.param.measures.default,
            "conventions": data.conventions_for_page(),
            "hit_rate_names": ConventionsView.param.hit_rate_names.default,
        },
        doc="What figure 1 and the conventions figure need besides their states, from their own views.",
    )

    _modules = {
        **IMPORTED_MODULES,
        "explainer/binary": FIGURES / "binary.js",
        "explainer/conventions": FIGURES / "conventions.js",
        "explainer/workbench-values": HERE / "values.js",
        "explainer/workbench-elements": HERE / "elements.js",
        "explainer/workbench-live": HERE / "live.js",
        "explainer/workbench-status": HERE / "status.js",
        "explainer/workbench-upload": HERE / "upload.js",
        "explainer/workbench-summary": HERE / "summary.js",
        "explainer/workbench-differ": HERE / "differ.js",
        "explainer/workbench-distributions": HERE / "distributions.js",
        "explainer/workbench-queries-table": HERE / "queries_table.js",
        "explainer/workbench-query-values": HERE / "query_values.js",
        "explainer/workbench-terms": HERE / "terms.js",
        "explainer/workbench-lists": HERE / "lists.js",
        "explainer/workbench-query-figures": HERE / "query_figures.js",
        "explainer/workbench-query-pane": HERE / "query_pane.js",
        "explainer/workbench-download": HERE / "download.js",
    }
    _importmap = import_map(_modules)
    _esm = module_source(HERE / "workbench.js")
    # The shared look, then the two figures' own (as each figure's view orders them), then the workbench's.
    _stylesheets = list(dict.fromkeys([*BinaryView._stylesheets, *ConventionsView._stylesheets])) + [
        (HERE / "workbench.css").read_text(encoding="utf-8"),
    ]

    def __init__(self, **params):
        self._on_message = None
        super().__init__(**params)

    def _handle_msg(self, data: Any) -> None:
        if self._on_message is not None:
            self._on_message(data)


# Uploaded files are read and evaluated on this thread, not on the server's, which answers every
# session's clicks: reading a large run takes seconds. One at a time, whichever session sent it.
_READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="explainer-upload")


class Workbench(Figure):
    """The evaluation workbench: judged queries and one or two runs, explored query by query.

    ``Workbench(qrels, run, run2, topics=..., documents=...)`` takes what ``read_qrels`` and
    ``read_run`` accept (paths, bytes, dicts, ``Qrels``/``Run``); ``topics`` and ``documents``
    map ids to texts (or are paths of ``id<TAB>text`` files). ``Workbench.golden()`` opens the
    shipped golden set. It displays in a notebook as on the served page ``/evaluate``; the
    reader's changes are in ``workbench.state`` (a ``WorkbenchState``).
    """

    state_class = WorkbenchState
    view_class = WorkbenchView

    def __init__(
        self,
        qrels=None,
        run=None,
        run2=None,
        *,
        topics=None,
        documents=None,
        measures=None,
        relevance_level: int = 1,
        evaluated: Evaluated | None = None,
        uploads: bool = True,
        preload: bool = False,
        figure_depth: int = data.FIGURE_DEPTH,
        compare_options: dict | None = None,
    ):
        super().__init__()
        self.figure_depth = figure_depth
        self.preload = preload
        self.compare_options = dict(compare_options or {})
        if evaluated is None:
            if qrels is None or run is None:
                raise ValueError("give the qrels and a run (and a second run to compare), or evaluated=")
            loaded = load(qrels, run, run2, topics, documents, measures, relevance_level)
            evaluated = data.evaluate_loaded(loaded, **self.compare_options)
        self._inbox = Inbox()
        self._files: dict[str, Any] = {}
        self._lock = threading.Lock()  # guards _files, written on the reader's thread
        self.view.uploads = uploads
        self.view.upload_limits = {
            "max_file_bytes": MAX_FILE_BYTES,
            "max_unpacked_bytes": MAX_UNPACKED_BYTES,
            "chunk_bytes": CHUNK_BYTES,
        }
        self.view._on_message = self._message
        self.state.param.watch(self._opened, "query")
        self._show(evaluated)

    @classmethod
    def golden(cls, **options) -> Workbench:
        """The shipped golden set: 100 aircraft-maintenance queries, a baseline and a candidate."""
        return cls(evaluated=golden_evaluated(), **options)

    @property
    def evaluated(self) -> Evaluated:
        """What the workbench shows: the files, their evaluations and their comparison."""
        return self._evaluated

    def _show(self, evaluated: Evaluated) -> None:
        self._evaluated = evaluated
        self._cache: dict[str, dict] = {}
        table = data.table_of(evaluated, self.figure_depth)
        table["conventions"] = {c.key: {"gain": c.gain, "ideal": c.ideal, "cut": c.cut} for c in CONVENTIONS}
        for run in table["runs"]:
            run["means"] = [float(np.mean(v)) if len(v) else 0.0 for v in run["values"]]
        ndcg = next((m for m in evaluated.evaluations[0].measures if m.key == "ndcg"), None)
        self.view.figure_data = {
            **self.view.figure_data,
            "conventions": data.conventions_for_page(ndcg.convention if ndcg else DEFAULT_CONVENTION),
        }
        self.state.param.update(query="", run=0, judgments={}, orders={})
        self.view.details = {qid: self.query_detail(qid) for qid in evaluated.qids} if self.preload else {}
        self.view.detail = {}
        self.view.table = table

    def query_detail(self, qid: str) -> dict:
        """One query in full, as the page receives it (``data.query_of``)."""
        if qid not in self._cache:
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[qid] = data.query_of(self._evaluated, qid, self.figure_depth, self.state.k)
        return self._cache[qid]

    def _opened(self, event) -> None:
        qid = event.new
        if qid and qid not in self.view.details and self.view.detail.get("qid") != qid:
            self.view.detail = self.query_detail(qid)

    def _pull(self, event) -> None:
        problem = self._check(event.new)
        if problem:
            self.view.state = self.state.to_dict()
            return
        super()._pull(event)

    def _check(self, new: Any) -> str | None:
        """Why a state from the page cannot be this data's (None when it can)."""
        if not isinstance(new, dict):
            return "not a state"
        qids = self._evaluated.qids
        known = self.__dict__.setdefault("_known", {})
        if known.get("qids") is not qids:
            known.clear()
            known.update(qids=qids, set=set(qids))
        query = new.get("query")
        if not isinstance(query, str) or (query and query not in known["set"]):
            return "no such query"
        judgments, orders = new.get("judgments"), new.get("orders")
        if not isinstance(judgments, dict) or not isinstance(orders, dict):
            return "what-if changes must be dicts"
        if len(set(judgments) | set(orders)) > MAX_WHATIF_QUERIES:
            return "too many queries changed"
        highest = data.max_grade(self._evaluated.loaded.qrels)
        runs = len(self._evaluated.loaded.runs)
        for qid in set(judgments) | set(orders):
            if qid not in known["set"]:
                return "no such query"
            detail = self.query_detail(qid)
            docs = set(detail["docs"])
            grades = judgments.get(qid, {})
            if not isinstance(grades, dict) or len(grades) > len(docs):
                return "bad judgments"
            for docid, grade in grades.items():
                if docid not in docs or not (grade is None or (_whole(grade) and 0 <= grade <= highest)):
                    return "bad judgment"
            order = orders.get(qid, [None] * runs)
            if not isinstance(order, list) or len(order) != runs:
                return "bad orders"
            for r, entry in enumerate(order):
                spec = detail["figures"][r]
                if entry is None:
                    continue
                if spec is None or not isinstance(entry, list) or sorted(entry) != list(range(spec["depth"])):
                    return "bad order"
                if not all(_whole(i) for i in entry):
                    return "bad order"
        if not (_whole(new.get("run")) and 0 <= new["run"] < runs):
            return "bad run"
        return None

    # -- uploads -------------------------------------------------------------------------------

    def _message(self, message: Any) -> None:
        """A message from the page: a piece of an upload. Answered with ``{ok}`` or ``{ok: False, error}``."""
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        try:
            if kind == "start":
                self._inbox.start(message)
            elif kind == "chunk":
                self._inbox.chunk(message)
            elif kind == "end":
                arriving = self._inbox.finish(message)
                self._read_soon(arriving)
                return
            else:
                return
        except UploadError as error:
            self.view._send_msg({"ok": False, "error": "; ".join(error.lines)})
            self._status("error", error.lines)
            return
        self.view._send_msg({"ok": True})

    def _status(self, kind: str, lines: list[str], done: int = 0, total: int = 0) -> None:
        self.view.status = {"kind": kind, "lines": list(lines), "done": done, "total": total}

    def _read_soon(self, arriving) -> None:
        """Read the file and evaluate on the reader's thread; show the outcome on the page's."""
        doc = pn.state.curdoc
        on_page = _on_page_thread(doc)
        raw = b"".join(arriving.parts)
        arriving.parts.clear()
        self._status("busy", [f"Reading {arriving.name}…"], 0, len(raw))

        def progress(done: int, total: int) -> None:
            on_page(lambda: self._status("busy", [f"Reading {arriving.name}…"], done, total or len(raw)))

        def work() -> None:
            try:
                parsed = read_upload(arriving.slot, arriving.name, raw, progress)
                # Kept at once, not when the page thread gets to it: the next file, read next on
                # this thread, must find this one (a reader may send qrels and a run back to back).
                with self._lock:
                    files = self._files = {**self._files, arriving.slot: (arriving.name, parsed)}
                on_page(lambda: self._status("busy", ["Evaluating…"]))
                evaluated = self._evaluate(files)
            except UploadError as error:
                on_page(lambda lines=error.lines: self._status("error", lines))
                return
            except ValueError as error:  # the files do not go together (no shared query, ...)
                on_page(lambda text=str(error): self._status("error", [text]))
                return
            except Exception:  # never a traceback on the page nor, with a reader's data in it, in the log
                on_page(lambda: self._status("error", [f"{arriving.name} could not be used."]))
                return

            def done() -> None:
                if evaluated is not None:
                    self._show(evaluated)
                    self._status("ok", [f"Loaded {arriving.name}.", *self._missing(files)])
                else:
                    self._status("ok", [f"Received {arriving.name}.", *self._missing(files)])

            on_page(done)

        if doc is not None and doc.session_context is not None:
            _READER.submit(work)
        else:
            work()

    def _missing(self, files: dict) -> list[str]:
        if "qrels" in files and "baseline" in files:
            return ["Showing your files."]
        wanted = [name for name in ("qrels", "baseline") if name not in files]
        return [f"Still showing the earlier data: add {' and '.join(wanted)} to evaluate your own files."]

    def _evaluate(self, files: dict) -> Evaluated | None:
        if "qrels" not in files or "baseline" not in files:
            return None
        runs = tuple(files[slot][1] for slot in ("baseline", "candidate") if slot in files)
        loaded = data.Loaded(
            qrels=files["qrels"][1],
            runs=runs,
            topics=files.get("topics", (None, {}))[1],
            documents=files.get("documents", (None, {}))[1],
            measures=self._evaluated.loaded.measures,
            relevance_level=self._evaluated.loaded.relevance_level,
        )
        return data.evaluate_loaded(loaded, **self.compare_options)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _on_page_thread(doc):
    """A function that runs a callable on the session's thread (at once when there is no server).

    Called on the session's thread; the function it returns may be called from any thread. It hands
    the callable to the event loop (``IOLoop.add_callback``, tornado's one thread-safe method), which
    then adds it to the document: Bokeh's session callbacks are not safe to add from another thread
    (a status set from the reader's thread was now and then never shown).
    """
    if doc is None or doc.session_context is None:
        return lambda fn: fn()
    loop = IOLoop.current()

    def add(fn) -> None:
        if doc.session_context is not None:  # the page may have closed meanwhile
            doc.add_next_tick_callback(fn)

    return lambda fn: loop.add_callback(add, fn)


def read_upload(slot: str, name: str, raw: bytes, progress=None):
    """An uploaded file read for its slot: ``Qrels``, ``Run`` or a dict of texts; ``UploadError`` if it cannot be."""
    if slot in ("topics", "documents"):
        return read_texts(name, raw)
    return read_judgments_or_run(name, raw, slot, progress)


def load(qrels, run, run2=None, topics=None, documents=None, measures=None, relevance_level: int = 1) -> Loaded:
    """``Loaded`` from anything the readers accept; topics and documents as dicts or ``id<TAB>text`` files."""
    from explainer.evaluation import read_qrels, read_run
    from explainer.evaluation.golden import read_tsv

    def texts(value) -> dict[str, str]:
        if value is None:
            return {}
        if isinstance(value, dict):
            return {str(k): str(v) for k, v in value.items()}
        return read_tsv(Path(value))

    chosen = tuple(m if isinstance(m, Measure) else Measure.parse(m) for m in (measures or DEFAULT_MEASURES))
    return Loaded(
        qrels=qrels if isinstance(qrels, Qrels) else read_qrels(qrels),
        runs=tuple(r if isinstance(r, Run) else read_run(r) for r in (run, run2) if r is not None),
        topics=texts(topics),
        documents=texts(documents),
        measures=chosen,
        relevance_level=relevance_level,
    )


@functools.cache
def golden_evaluated() -> Evaluated:
    """The golden set evaluated, once per process: every session shows the same, and it is public."""
    from explainer.evaluation import golden

    topics, documents, qrels, baseline, candidate = golden.load()
    # The story's team gates on NDCG@10 (the measure BEIR chose to compare systems).
    return data.evaluate_loaded(data.Loaded(qrels, (baseline, candidate), topics, documents), measure="ndcg@10")
