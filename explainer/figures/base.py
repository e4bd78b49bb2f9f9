"""What every figure shares: a validated state, a browser view, and the link between them.

A figure is three pieces that data flows through one way:

- a ``FigureState`` (``param.Parameterized``): what the reader changes, validated;
- a ``FigureView`` (``panel.custom.JSComponent``): draws the state in the browser and
  computes every number there with ``metrics.js``, so a click needs no server;
- a ``Figure`` (``panel.viewable.Viewer``): owns one of each and keeps them equal,
  both ways, when served or in a notebook.
"""

from __future__ import annotations

import base64
import copy
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import param
from panel.custom import JSComponent
from panel.viewable import Viewer

from explainer.catalog.measures import TAUGHT
from explainer.figures.params import limits_of

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent


def module_source(path: Path) -> str:
    """A JavaScript module's source without its comment lines and indentation.

    Every figure Panel shows (in a notebook) carries its own copy of its modules (Bokeh
    does not share them between models), and every light page carries explainer.js with
    the modules of its figures, so the copies are kept lean. Only whole-line comments and leading blanks go: a module whose
    template literals span lines is refused here rather than changed.
    """
    kept = []
    in_block = False
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if line.count("`") % 2:
            raise ValueError(f"{path.name}: keep template literals on one line (line {line!r})")
        if in_block:
            in_block = "*/" not in text
            continue
        if text.startswith("/*"):
            in_block = "*/" not in text
            continue
        if text and not text.startswith("//"):
            kept.append(text)
    return "\n".join(kept) + "\n"


def _module_url(path: Path) -> str:
    """A ``data:`` URL of a JavaScript module, so a saved page needs no second file."""
    return "data:text/javascript;base64," + base64.b64encode(module_source(path).encode("utf-8")).decode("ascii")


# A figure page's URL query longer than this is ignored whole, with a notice: no figure's state
# needs a tenth of it. (A served page turns such a query away before it makes a session.)
MAX_QUERY_LENGTH = 4000

# The modules that figure scripts import by name, each after the ones it imports: served inline
# through an import map to the Panel views, and built into explainer.js for the tag.
IMPORTED_MODULES = {
    "explainer/metrics": PACKAGE / "metrics.js",
    "explainer/dom": HERE / "dom.js",
    "explainer/settled": HERE / "settled.js",
    "explainer/query": HERE / "query.js",
    "explainer/page-url": HERE / "page_url.js",
    "explainer/model": HERE / "model.js",
    "explainer/announcer": HERE / "announcer.js",
    "explainer/picture": HERE / "picture.js",
    "explainer/class-address": HERE / "class_address.js",
    "explainer/predict": HERE / "predict.js",
    "explainer/presenter": HERE / "presenter.js",
    "explainer/theme": HERE / "theme.js",
    "explainer/undo": HERE / "undo.js",
    "explainer/headline": HERE / "headline.js",
    "explainer/embedded": HERE / "embedded.js",
    "explainer/card": HERE / "card.js",
    "explainer/controls": HERE / "controls.js",
    "explainer/grades": HERE / "grades.js",
    "explainer/ranked-list": HERE / "ranked_list.js",
    "explainer/graded-list": HERE / "graded_list.js",
    "explainer/player": HERE / "player.js",
    "explainer/shell": HERE / "shell.js",
    "explainer/chart": HERE / "chart.js",
}


def import_map(modules: dict[str, Path]) -> dict[str, dict[str, str]]:
    """An import map that serves each module (name -> file) inline, as a ``data:`` URL."""
    return {"imports": {name: _module_url(path) for name, path in modules.items()}}


IMPORT_MAP = import_map(IMPORTED_MODULES)


class FigureState(param.Parameterized):
    """A figure's state: the parameters a reader changes, each validated.

    Subclasses declare their parameters and list them in ``fields``; the view
    receives them as one plain dict.
    """

    fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **params: Any):
        try:
            super().__init__(**params)
        except TypeError as error:  # param reports a wrong item type as TypeError
            raise ValueError(str(error)) from error

    def to_dict(self) -> dict[str, Any]:
        """The state as plain JSON-ready values, keyed by parameter name."""
        return {name: _plain(getattr(self, name)) for name in self.fields}

    def update_from_dict(self, values: dict[str, Any]) -> None:
        """Set the parameters named in ``values`` at once; raises ValueError if any is invalid.

        All or nothing: on an invalid value no parameter changes.
        """
        unknown = set(values) - set(self.fields)
        if unknown:
            raise ValueError(f"unknown state field(s): {', '.join(sorted(map(str, unknown)))}")
        current = self.to_dict()
        changed = {name: value for name, value in values.items() if not _same(value, current[name])}
        if not changed:
            return
        try:
            if len(changed) == 1:  # one parameter validates and sets atomically by itself
                self.param.update(**changed)
                return
            trial = type(self)(**{**current, **changed})
        except TypeError as error:  # param reports a wrong item type as TypeError
            raise ValueError(str(error)) from error
        self.param.update(**{name: getattr(trial, name) for name in changed})

    def reset(self) -> None:
        """Return every field to its default, the article's example."""
        self.param.update(**{name: copy.deepcopy(self.param[name].default) for name in self.fields})

    @classmethod
    def _made_for(cls, what: str, **parameters: param.Parameter) -> type[FigureState]:
        """A subclass whose ``parameters`` replace this class's: a state class made for one list.

        Its limits and defaults are that list's, so a view reads them from the class as it reads
        the article's (``BinaryState.for_list``, ``ConventionsState.for_list``).
        """
        body = {"__doc__": f"{cls.__doc__}\n\nMade for {what}.", "__module__": cls.__module__, **parameters}
        return type(f"{cls.__name__}ForList", (cls,), body)

    @classmethod
    def limits(cls) -> dict[str, dict[str, Any]]:
        """Each field's bounds, lengths or options, as the browser receives them (``model.limits``)."""
        return {name: limits_of(cls.param[name]) for name in cls.fields}


def _same(a: Any, b: Any) -> bool:
    """Equal in value and in type, all the way down: True is not 1, 1.0 is not 1, (1,) is not [1]."""
    return _canonical(a) == _canonical(b)


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _canonical(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_canonical(v) for v in value))
    return (type(value).__name__, value)


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class FigureView(JSComponent):
    """The browser side of a figure: renders ``state`` and writes the reader's changes back to it."""

    state = param.Dict(default={}, doc="The figure state, as FigureState.to_dict() gives it.")
    default = param.Dict(default={}, doc="The state the reset button returns to.")
    standalone = param.Boolean(
        default=False,
        doc="The figure is the whole page: its state follows the URL, and it offers presenter mode.",
    )
    on_page = param.Boolean(
        default=False, doc="The figure is on one of the explainer's pages: it follows the page URL's theme key."
    )
    predict = param.Boolean(
        default=False, doc="Predict, then reveal: the headline numbers stay hidden until the reader has guessed them."
    )
    heading = param.String(default="", doc="The page's heading, on a figure page of its own (not when embedded).")
    caption = param.String(default="", doc="A one-line caption above the figure (embed pages).")
    page_link = param.String(
        default="", doc="This figure's own page, on the story page: its links carry the figure's state there."
    )
    query = param.String(default="", doc="The query the figure's results answer, shown above them.")
    class_address = param.String(
        default="",
        doc="Served for a class (--address): the address students open, which presenter view shows as a QR code.",
    )
    class_address_qr = param.List(
        default=[],
        doc="That address's QR code: one string of 1 (dark) and 0 (light) modules per row (classroom.qr_rows).",
    )
    limits = param.Dict(default={}, doc="Each state field's bounds, from the state class (FigureState.limits).")
    max_query_length = param.Integer(
        default=MAX_QUERY_LENGTH, doc="A page URL's query longer than this is ignored whole, with a notice."
    )
    measures = param.Dict(
        default={m.key: {"name": m.name, "symbol": m.symbol, "blind_to": m.blind_to} for m in TAUGHT},
        doc="What each measure is called and is blind to, from the catalog (explainer.catalog.measures).",
    )

    # The modules its script imports by name (name -> file): in Panel through the import map,
    # in explainer.js as functions (``explainer.runtime``).
    _modules = IMPORTED_MODULES
    _importmap = IMPORT_MAP
    _stylesheets = [(HERE / "shell.css").read_text(encoding="utf-8")]
    # Apply a browser change at once: Panel's default waits 50 ms to coalesce edits, which
    # the browser never needs (it sends one state per click) and which doubled the round trip.
    _debounce = 0

    __abstract = True

    def _get_properties(self, doc):
        props = super()._get_properties(doc)
        # Our modules are plain JavaScript. Naming one as a bundle (by its content's hash, which
        # is also Panel's cache key for it) has the page import it as it is, instead of running
        # Panel's in-browser TypeScript transform over it: some 10 ms per figure on every load.
        props["bundle"] = hashlib.sha256(props["esm"].encode("utf-8")).hexdigest()
        return props


class Figure(Viewer):
    """A figure a page or a notebook displays: a state and its view, kept equal both ways."""

    state_class: ClassVar[type[FigureState]]
    view_class: ClassVar[type[FigureView]]

    def __init__(
        self,
        state: FigureState | None = None,
        *,
        standalone: bool = False,
        heading: str = "",
        caption: str = "",
        predict: bool = False,
        **state_params: Any,
    ):
        super().__init__()
        if state is not None and not isinstance(state, self.state_class):
            raise TypeError(f"{type(self).__name__}: state must be a {self.state_class.__name__}, got {state!r}")
        self.state = state if state is not None else self.state_class(**state_params)
        # A state of a class made for one list (``BinaryState.for_list``) brings its own
        # limits and its own default, that list; the figure's class has the article's.
        kind = type(self.state)
        self.view = self.view_class(
            state=self.state.to_dict(),
            default=kind().to_dict(),
            limits=kind.limits(),
            standalone=standalone,
            heading=heading,
            caption=caption,
            predict=predict,
        )
        self.state.param.watch(self._push, list(self.state.fields))
        self.view.param.watch(self._pull, "state")

    def _push(self, *events: param.parameterized.Event) -> None:
        state = self.state.to_dict()
        if not _same(state, self.view.state):  # a change that came from the view is already there
            self.view.state = state

    def _pull(self, event: param.parameterized.Event) -> None:
        try:
            self.state.update_from_dict(event.new)
        except ValueError:
            # The browser sent something the state refuses: show the state as it is.
            self.view.state = self.state.to_dict()

    def __panel__(self) -> FigureView:
        return self.view


@dataclass(frozen=True)
class UrlKey:
    """One key of a figure page's URL query, and what its value holds.

    ``holds`` may name the state's limits, as ``{k[min]} to {k[max]}``: the README's
    table fills them in from the state class, so no bound is written twice. Left out,
    it lists the options of the state field of the same name.
    """

    name: str
    holds: str = ""

    def describe(self, limits: dict[str, dict[str, Any]]) -> str:
        if self.holds:
            return self.holds.format(**limits)
        options = [f"`{option}`" for option in limits[self.name]["options"]]
        return f"{', '.join(options[:-1])} or {options[-1]}"


def _no_numbers() -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class FigurePage:
    """A figure's page, declared once in the figure's module and collected in ``explainer.figures.FIGURES``.

    ``name`` is the page's route (``/binary``), its exported file (``binary.html``) and its
    marker in the story (``<!-- figure:binary -->``). Pages, routes, exports, the package's
    public names, the README's tables and the tests are all made from these declarations.
    """

    name: str
    title: str
    caption: str
    figure: type[Figure]
    shows: str
    url_keys: tuple[UrlKey, ...]
    example: str
    story_numbers: Callable[[], dict[str, str]] = _no_numbers

    @property
    def state_class(self) -> type[FigureState]:
        return self.figure.state_class

    def url_key_table_row(self) -> tuple[str, str, str]:
        """The README's row for this page: its route, its keys and what each holds, an example link."""
        limits = self.state_class.limits()
        keys = "; ".join(f"`{key.name}`: {key.describe(limits)}" for key in self.url_keys)
        return f"`/{self.name}`", keys, f"`/{self.name}?{self.example}`"
