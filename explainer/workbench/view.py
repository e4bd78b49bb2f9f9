"""The workbench as a page: its state, its browser view, and the ``Workbench`` that keeps them equal.

The browser view (``workbench.js``) draws everything from plain data (``data.table_of`` and
``drill_down.query_of``) and computes a query's numbers with ``metrics.js``, as the figures do; a
query's two lists carry figure 1 and the conventions figure, mounted from their own modules
with the states their own state classes made. What the reader changes (the open query, the
cutoff, what-if judgments and moves) is the ``WorkbenchState``, sent to Python and checked
there against the data like any figure's state; what-if changes come one a message
(``what_if.py``), at most ``rate_limit.PER_SECOND`` a second. Uploads arrive as messages
(``upload.py``), are held within the process's budget (``upload_budget.py``) and are read in a
worker process (``upload_worker.py``), which also builds the queries table as JSON text: the
server's thread only hands it on.
"""

from __future__ import annotations

import functools
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import panel as pn
import param
from tornado.ioloop import IOLoop

from explainer.catalog.conventions import DEFAULT_CONVENTION
from explainer.evaluation import DEFAULT_MEASURES, Measure, Qrels, Run
from explainer.figures.base import HERE as FIGURES
from explainer.figures.base import IMPORTED_MODULES, Figure, FigureState, FigureView, import_map, module_source
from explainer.figures.binary import BinaryView
from explainer.figures.conventions import ConventionsView
from explainer.figures.params import Count
from explainer.workbench import data, drill_down, upload_worker
from explainer.workbench.data import Evaluated, Loaded
from explainer.workbench.rate_limit import RateLimit
from explainer.workbench.upload import CHUNK_BYTES, MAX_FILE_BYTES, MAX_UNPACKED_BYTES, Inbox, UploadError
from explainer.workbench.upload_budget import BUDGET, PACE, BudgetRefused
from explainer.workbench.what_if import CHANGES, MAX_WHATIF_QUERIES, KnownDocuments, WhatIfRefused, apply_change

HERE = Path(__file__).resolve().parent

__all__ = ["MAX_WHATIF_QUERIES", "Workbench", "WorkbenchState", "WorkbenchView"]


class WorkbenchState(FigureState):
    """What the reader of the workbench changes: the open query, which of the two runs shown its
    figures show, the cutoff k, and what-if changes of queries (judgments of documents, and moves in
    a run's top list).

    ``judgments`` maps a qid to ``{docid: grade or None}`` (None: as if nobody judged it);
    ``orders`` maps a qid to one entry per run: the run's top documents in a new order, as
    positions 0, 1, 2... of the run's own order, or None for the run's order.
    """

    fields = ("query", "run", "k", "judgments", "orders")

    query = param.String(default="", doc="The query open in full; empty for none.")
    run = Count(
        default=0,
        bounds=(0, 1),
        doc="Which run the figures show: 0 the baseline (or the run, or the first of two picked), 1 the other.",
    )
    k = Count(default=data.DEFAULT_K, bounds=(1, data.FIGURE_DEPTH), doc="The figures' cutoff.")
    judgments = param.Dict(default={}, doc="What-if grades: {qid: {docid: grade or None}}.")
    orders = param.Dict(default={}, doc="What-if orders of each run's top list: {qid: [order or None per run]}.")


class WorkbenchView(FigureView):
    """The workbench in the browser: the queries, their measures, and one query in full."""

    table_text = param.String(
        default="",
        doc="The queries table and the comparison (data.page_table), as JSON text made off the page's thread.",
    )
    details = param.Dict(default={}, doc="Queries in full, by qid, sent with the page (all of them in a saved file).")
    detail = param.Dict(default={}, doc="The last query asked for in full (drill_down.query_of), sent when asked.")
    status = param.Dict(default={}, doc="What the page is doing or what went wrong: {kind, lines, done, total}.")
    uploads = param.Boolean(default=False, doc="The page offers uploads (served and in notebooks, not in saved files).")
    upload_limits = param.Dict(default={}, doc="The largest file and message an upload may send.")
    figure_data = param.Dict(
        default={
            "measures": BinaryView.param.measures.default,
            "conventions": drill_down.conventions_for_page(),
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
        "explainer/workbench-ids": HERE / "ids.js",
        "explainer/workbench-live": HERE / "live.js",
        "explainer/workbench-status": HERE / "status.js",
        "explainer/workbench-upload": HERE / "upload.js",
        "explainer/workbench-pair": HERE / "pair.js",
        "explainer/workbench-power": HERE / "power.js",
        "explainer/workbench-runs-table": HERE / "runs_table.js",
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

    @property
    def table(self) -> dict:
        """The queries table as the page reads it (``table_text`` parsed)."""
        return json.loads(self.table_text) if self.table_text else {}

    def _handle_msg(self, data: Any) -> None:
        if self._on_message is not None:
            self._on_message(data)


# Each upload's worker process is waited for on one of these threads, never on the server's,
# which answers every session's clicks. Uploads of other sessions are read meanwhile.
_WAITING = ThreadPoolExecutor(max_workers=upload_worker.WORKERS, thread_name_prefix="explainer-upload")


class Workbench(Figure):
    """The evaluation workbench: judged queries and one run or many, explored query by query.

    ``Workbench(qrels, run, run2, ..., topics=..., documents=...)`` takes what ``read_qrels`` and
    ``read_run`` accept (paths, bytes, dicts, ``Qrels``/``Run``), the baseline first and at most
    ``data.MAX_RUNS`` runs; ``topics`` and ``documents`` map ids to texts (or are paths of
    ``id<TAB>text`` files); ``compare_options`` are ``compare``'s (the gate's measures, question,
    margin, alpha, test, draws) and ``correction``, kept for the files a reader uploads.
    ``Workbench.golden()`` opens the shipped golden set. It displays in a notebook as on the
    served page ``/evaluate``; the reader's changes are in ``workbench.state`` (a ``WorkbenchState``).
    """

    state_class = WorkbenchState
    view_class = WorkbenchView

    def __init__(
        self,
        qrels=None,
        *runs,
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
            if qrels is None or not runs:
                raise ValueError("give the qrels and a run (and more runs to compare), or evaluated=")
            loaded = load(qrels, runs, topics, documents, measures, relevance_level)
            evaluated = data.evaluate_loaded(loaded, **self.compare_options)
        self._inbox = Inbox()
        self._ticket = None  # this session's place in the upload budget, while a file arrives or is read
        self._held_answer = None  # the file whose last piece's answer the client's pace holds back (upload_budget.Pace)
        self._files: dict[str, Any] = {}
        self._lock = threading.Lock()  # guards _files, written on a waiting thread
        self._rate = RateLimit()
        self.view.uploads = uploads
        self.view.upload_limits = {
            "max_file_bytes": MAX_FILE_BYTES,
            "max_unpacked_bytes": MAX_UNPACKED_BYTES,
            "chunk_bytes": CHUNK_BYTES,
            "max_runs": data.MAX_RUNS,
        }
        self.view._on_message = self._message
        doc = pn.state.curdoc
        if uploads and doc is not None and doc.session_context is not None:
            # In a served session, never before the server forks its processes (--num-procs): a
            # fork server is its process's own.
            upload_worker.warm()
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

    def _show(self, evaluated: Evaluated, table_text: str = "") -> None:
        self._evaluated = evaluated
        self._known = KnownDocuments(evaluated, self.figure_depth)
        self._cache: dict[str, dict] = {}
        if not table_text:
            table_text = json.dumps(data.page_table(evaluated, self.figure_depth), separators=(",", ":"))
        ndcg = next((m for m in evaluated.evaluations[0].measures if m.key == "ndcg"), None)
        self.view.figure_data = {
            **self.view.figure_data,
            "conventions": drill_down.conventions_for_page(ndcg.convention if ndcg else DEFAULT_CONVENTION),
        }
        self.state.param.update(query="", run=0, judgments={}, orders={})
        self.view.details = {qid: self.query_detail(qid) for qid in evaluated.qids} if self.preload else {}
        self.view.detail = {}
        self.view.table_text = table_text

    def query_detail(self, qid: str) -> dict:
        """One query in full, as the page receives it (``drill_down.query_of``)."""
        if qid not in self._cache:
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[qid] = drill_down.query_of(self._evaluated, qid, self.figure_depth, self.state.k)
        return self._cache[qid]

    def _opened(self, event) -> None:
        qid = event.new
        if qid and qid not in self.view.details and self.view.detail.get("qid") != qid:
            self.view.detail = self.query_detail(qid)

    def _pull(self, event) -> None:
        if getattr(self, "_resending", False):  # the kept state, sent again: not the page's
            return
        problem = self._check(event.new)
        if problem:
            self._show_kept_state()
            return
        super()._pull(event)

    def _show_kept_state(self) -> None:
        """Send the page the state Python keeps, even when its last copy there is that already."""
        kept = self.state.to_dict()
        self._resending = True
        try:
            if self.view.state == kept:
                self.view.param.trigger("state")
            else:
                self.view.state = kept
        finally:
            self._resending = False

    def _check(self, new: Any) -> str | None:
        """Why a state from the page cannot be this data's (None when it can).

        The page sends the open query, the run and k (what-if changes come one a message,
        ``_message``); a state whose changes differ from Python's is refused.
        """
        if not isinstance(new, dict):
            return "not a state"
        kept = self.state.to_dict()
        if all(kept.get(name) == value for name, value in new.items()):
            return None  # Python's own state, as it sent it (or nothing new)
        if not self._rate.allow():
            return "too many changes a second"
        query = new.get("query", self.state.query)
        if not isinstance(query, str) or (query and query not in self._known.qids):
            return "no such query"
        for name in ("judgments", "orders"):
            if name in new and new[name] != getattr(self.state, name):
                return "what-if changes come one a message"
        shown = min(2, len(self._evaluated.loaded.runs))  # the figures show one of two runs
        run = new.get("run", self.state.run)
        if not (_whole(run) and 0 <= run < shown):
            return "bad run"
        return None

    # -- messages: what-if changes and uploads ---------------------------------------------------

    def _message(self, message: Any) -> None:
        """A message from the page: a what-if change (``what_if.py``) or a piece of an upload,
        answered with ``{upload: true, ok}`` or ``{upload: true, ok: False, error}``."""
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        if kind in CHANGES:
            self._change(message)
            return
        try:
            if kind == "start":
                self._start(message)
            elif kind == "chunk":
                self._piece(message)
            elif kind == "end":
                self._end(message)
                return
            else:
                return
        except UploadError as error:
            self._release()
            self._reply(error.lines)
            self._status("error", error.lines)
            return
        if kind == "chunk":
            self._answer_piece()
            return
        self._reply()

    def _answer_piece(self) -> None:
        """Answer a piece now, or once the client is back under its pace (the page waits for it)."""
        delay = PACE.wait(_client(), self._inbox.last_piece_bytes)
        doc = pn.state.curdoc
        if delay <= 0 or doc is None or doc.session_context is None:
            self._reply()
            return
        arriving = self._held_answer = self._inbox.arriving

        def answer() -> None:
            if self._held_answer is arriving:  # not refused or replaced meanwhile
                self._held_answer = None
                self._reply()

        doc.add_timeout_callback(answer, int(delay * 1000))

    def _change(self, message: dict) -> None:
        """One what-if change: applied, or refused with the page shown Python's state again."""
        try:
            if not self._rate.allow():
                raise WhatIfRefused("more than 10 changes a second: slow down")
            judgments, orders = apply_change(
                message,
                self.state.judgments,
                self.state.orders,
                self._known,
                data.max_grade(self._evaluated.loaded.qrels),
            )
        except WhatIfRefused as refused:
            self._status("error", [f"That change was not kept: {refused}."])
            self._show_kept_state()
            return
        self.state.param.update(judgments=judgments, orders=orders)

    def _reply(self, lines: list[str] | None = None) -> None:
        if lines:
            self.view._send_msg({"upload": True, "ok": False, "error": "; ".join(lines)})
        else:
            self.view._send_msg({"upload": True, "ok": True})

    def _start(self, message: dict) -> None:
        self._release()  # a file that was still arriving is given up for the new one
        self._inbox.start(message)
        arriving = self._inbox.arriving
        with self._lock:
            files = self._files
        held = [name for name, _ in files.get("candidate", ())]
        if arriving.slot == "candidate" and arriving.name not in held and 1 + len(held) >= data.MAX_RUNS:
            self._inbox.arriving = None
            raise UploadError(
                [
                    f"{arriving.name}: a page takes {data.MAX_RUNS} runs at most, a baseline and "
                    f"{data.MAX_RUNS - 1} candidates; compare more from the command line (relevance-explainer evaluate)"
                ]
            )
        try:
            self._ticket = BUDGET.reserve(self, _client(), arriving.size)
        except BudgetRefused as refused:
            self._inbox.arriving = None
            raise UploadError([f"{arriving.name}: {refused}"]) from None
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None and not getattr(self, "_releases", False):
            self._releases = True
            doc.on_session_destroyed(lambda _context: self._release())

    def _piece(self, message: dict) -> None:
        if self._held_answer is not None and self._held_answer is self._inbox.arriving:
            self._held_answer = self._inbox.arriving = None
            raise UploadError(["a piece arrived before the one before it was answered: send the file again"])
        ticket = self._ticket
        if ticket is None or ticket.released or ticket.stalled(ticket.budget.clock()):
            self._inbox.arriving = None
            raise UploadError([f"the file stopped arriving for more than {BUDGET.stall_s:.0f} s: send it again"])
        self._inbox.chunk(message)
        ticket.touch()

    def _release(self) -> None:
        if self._ticket is not None:
            self._ticket.release()
            self._ticket = None

    def _status(self, kind: str, lines: list[str], done: int = 0, total: int = 0) -> None:
        self.view.status = {"kind": kind, "lines": list(lines), "done": done, "total": total}

    def _end(self, message: dict) -> None:
        """The file is whole: read it in a worker; show the outcome, and answer "end", on the page's thread."""
        arriving = self._inbox.finish(message) if self._ticket is not None else None
        if arriving is None:
            raise UploadError(["a file ended that was not announced"])
        self._ticket.reading = True
        doc = pn.state.curdoc
        on_page = _on_page_thread(doc)
        raw = b"".join(arriving.parts)
        arriving.parts.clear()
        self._status("busy", [f"Reading {arriving.name}…"], 0, len(raw))
        with self._lock:
            files = dict(self._files)
        job = upload_worker.Job(
            arriving.slot,
            arriving.name,
            raw,
            files,
            self._evaluated.loaded.measures,
            self._evaluated.loaded.relevance_level,
            self.compare_options,
            self.figure_depth,
            # More files of the same drop follow: read this one, evaluate with the last.
            evaluate=message.get("more") is not True,
        )
        size = len(raw)
        del raw

        def progress(done: int, total: int) -> None:
            on_page(lambda: self._status("busy", [f"Reading {arriving.name}…"], done, total or size))

        def work() -> None:
            outcome = upload_worker.run_job(job, progress)
            files_now = None
            if outcome.ok:
                with self._lock:  # kept at once: the session's next file is evaluated with this one
                    self._files = files_now = data.with_file(self._files, arriving.slot, arriving.name, outcome.parsed)
            on_page(lambda: self._finished(arriving.name, outcome, files_now))

        if doc is not None and doc.session_context is not None:
            _WAITING.submit(work)
        else:
            work()

    def _finished(self, name: str, outcome: upload_worker.Outcome, files: dict | None) -> None:
        self._release()
        if not outcome.ok:
            self._reply(outcome.lines)
            self._status("error", outcome.lines)
            return
        if outcome.evaluated is not None:
            self._show(outcome.evaluated, outcome.table_text)
            self._status("ok", [f"Loaded {name}.", *self._missing(files)])
        else:
            self._status("ok", [f"Received {name}.", *self._missing(files)])
        self._reply()

    def _missing(self, files: dict) -> list[str]:
        if "qrels" in files and "baseline" in files:
            n = data.runs_held(files)
            return [f"Showing your files{f' ({n} runs)' if n > 2 else ''}."]
        wanted = [name for name in ("qrels", "baseline") if name not in files]
        return [f"Still showing the earlier data: add {' and '.join(wanted)} to evaluate your own files."]


def _client() -> str:
    """The client the session's page came from, as the server names it (``server/clients.py``,
    which puts it on the document): uploads per client are counted by it."""
    doc = pn.state.curdoc
    return str(getattr(doc, "explainer_client", None) or "this computer")


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


def load(qrels, runs, topics=None, documents=None, measures=None, relevance_level: int = 1) -> Loaded:
    """``Loaded`` from anything the readers accept (``runs``: the baseline first); topics and documents as
    dicts or ``id<TAB>text`` files."""
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
        runs=tuple(r if isinstance(r, Run) else read_run(r) for r in runs),
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
