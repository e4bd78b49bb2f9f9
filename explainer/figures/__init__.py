"""The figures, one module each (its state, its view, its page), and the registry that lists them.

``FIGURES`` is the one list of figure pages, in the story's order: the server's routes, the
exported files, the package's public names, the README's tables and the tests are made from
it. A new figure is its own module (state, view, page declaration) and script, one line
here, and a ``<!-- figure:name -->`` marker in story.md.
"""

from explainer.figures import binary, conventions, ndcg, queries, recall_kinds, unjudged, which_measure
from explainer.figures.base import FigurePage

FIGURES: tuple[FigurePage, ...] = (
    binary.PAGE,
    ndcg.PAGE,
    queries.PAGE,
    unjudged.PAGE,
    conventions.PAGE,
    recall_kinds.PAGE,
    which_measure.PAGE,
)

BY_NAME: dict[str, FigurePage] = {page.name: page for page in FIGURES}
