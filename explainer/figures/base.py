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
from pathlib import Path
from typing import Any, ClassVar

import param
from panel.custom import JSComponent
from panel.viewable import Viewer

from explainer.measures import MEASURES

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent


def module_source(path: Path) -> str:
    """A JavaScript module's source without its comment lines and indentation.

    Every figure on a page carries its own copy of its modules (Bokeh does not share
    them between models), and an exported page must stay under 3 MB, so the copies
    are kept lean. Only whole-line comments and leading blanks go: a module whose
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


# The modules that figure scripts import by name, served inline in both modes.
IMPORT_MAP = {
    "imports": {
        "explainer/metrics": _module_url(PACKAGE / "metrics.js"),
        "explainer/kit": _module_url(HERE / "kit.js"),
    }
}


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


class Count(param.Integer):
    """A whole number within bounds; unlike param.Integer, True and False are refused."""

    def _validate_value(self, val, allow_None):
        if isinstance(val, bool):
            raise ValueError(f"{self.name} must be a whole number, not {val!r}")
        super()._validate_value(val, allow_None)


class FigureView(JSComponent):
    """The browser side of a figure: renders ``state`` and writes the reader's changes back to it."""

    state = param.Dict(default={}, doc="The figure state, as FigureState.to_dict() gives it.")
    default = param.Dict(default={}, doc="The state the reset button returns to.")
    standalone = param.Boolean(
        default=False,
        doc="The figure is the whole page: its state follows the URL, and it offers presenter mode.",
    )
    caption = param.String(default="", doc="A one-line caption above the figure (embed pages).")
    measures = param.Dict(
        default={m.key: {"name": m.name, "symbol": m.symbol, "blind_to": m.blind_to} for m in MEASURES},
        doc="What each measure is called and is blind to, from explainer.measures.",
    )

    _importmap = IMPORT_MAP
    _stylesheets = [(HERE / "figures.css").read_text(encoding="utf-8")]
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
        self, state: FigureState | None = None, *, standalone: bool = False, caption: str = "", **state_params: Any
    ):
        super().__init__()
        if state is not None and not isinstance(state, self.state_class):
            raise TypeError(f"{type(self).__name__}: state must be a {self.state_class.__name__}, got {state!r}")
        self.state = state if state is not None else self.state_class(**state_params)
        self.view = self.view_class(
            state=self.state.to_dict(),
            default=self.state_class().to_dict(),
            standalone=standalone,
            caption=caption,
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
