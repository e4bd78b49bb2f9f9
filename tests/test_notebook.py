"""The figures in a Jupyter notebook: `import explainer` gives the classes, each displays, and
state set from Python reaches the figure. (The kernel runs for real; a notebook frontend does not.)"""

import nbformat
import pytest
from nbclient import NotebookClient

from explainer.figures import FIGURES

CLASSES = [page.figure.__name__ for page in FIGURES]


@pytest.fixture(scope="module")
def executed():
    cells = [
        "import panel as pn\nimport explainer\npn.extension()",
        *(f"figure_{i} = explainer.{name}()\nfigure_{i}" for i, name in enumerate(CLASSES)),
        "figure_1.state.k = 3\nprint(figure_1.view.state['k'], f\"{figure_1.state.values['ndcg']:.2f}\")",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    return notebook


@pytest.mark.parametrize("index", range(len(CLASSES)))
def test_each_figure_displays_as_a_live_panel_output(executed, index):
    outputs = executed.cells[1 + index].outputs
    data = {key: value for output in outputs for key, value in output.get("data", {}).items()}
    # Panel's notebook output: an executable Bokeh document whose comm keeps it live.
    assert "application/vnd.holoviews_exec.v0+json" in data, data.keys()
    figure_class = FIGURES[index].figure
    html = data["text/html"]
    assert f'"name":"{figure_class.view_class.__name__}"' in html
    # The figure's state travels with it, field by field.
    assert all(f'"{field}"' in html for field in figure_class.state_class.fields)


def test_state_set_in_the_notebook_reaches_the_figure(executed):
    printed = "".join(output.get("text", "") for output in executed.cells[-1].outputs)
    assert printed.split() == ["3", "0.42"]
