"""The figures in a Jupyter notebook: `import explainer` gives the classes, each displays, and
state set from Python reaches the figure. (The kernel runs for real; a notebook frontend does not.)"""

import re
import textwrap
import time

import nbformat
import pytest
from nbclient import NotebookClient

from explainer.figures import FIGURES

CLASSES = [page.figure.__name__ for page in FIGURES]

# A real kernel starts for each notebook (some 6 s): they are slow tests (tests in a notebook,
# like proxies and documentation sites, are the suite's slow kind; see the README's test layers).
pytestmark = pytest.mark.slow


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


# -- a real JupyterLab in Chromium, with no internet --------------------------------------------------


def readme_notebook_cells() -> list[str]:
    """The README's notebook example, cell by cell, exactly as a reader would paste it."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- notebook-cells -->", 1)[1].split("\n\n  Without", 1)[0]
    return [
        textwrap.dedent(cell.split("\n", 1)[1].rsplit("```", 1)[0]).strip() for cell in block.split("```python")[1:]
    ]


@pytest.fixture
def jupyterlab(tmp_path):
    """JupyterLab on a free port of this computer, on a notebook of the README's cells, its app exposed to scripts."""
    import subprocess
    import sys

    from support.server import answers, free_port, wait_until

    pytest.importorskip("jupyterlab", reason="JupyterLab is not installed: ./serve.sh test -m slow installs it")
    cells = [*readme_notebook_cells(), "print(figure.state.order)"]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, tmp_path / "readme.ipynb")
    port, token = free_port(), "explainer-test"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            f"--port={port}",
            "--ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={tmp_path}",
            "--LabApp.expose_app_in_browser=True",
            # Its workspace and settings in the test's folder, not the user's ~/.jupyter/lab.
            f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
            f"--LabApp.user_settings_dir={tmp_path / 'settings'}",
            "--allow-root",  # CI runs as root
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: answers(url + "/api"), timeout=90, message="JupyterLab to answer")
    yield f"{url}/lab/tree/readme.ipynb?token={token}", f"127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=30)


# The kernel's status, the active cell, and each cell's execution count and number of outputs.
NOTEBOOK_NOW = """() => {
  const notebook = window.jupyterapp.shell.currentWidget;
  return {
    kernel: notebook.sessionContext.session?.kernel?.status,
    active: notebook.content.activeCellIndex,
    cells: notebook.content.widgets.map((cell) => [cell.model.executionCount ?? null, cell.model.outputs?.length ?? null]),
  };
}"""


# Alone: in CI's two-worker step, beside the other slow tests, the last cell's first print did not
# come within 30 s, twice in two runs. It passes alone, beside half of those tests, and beside
# three processes that keep the cores busy: the cause is not found yet. It failed so once alone too
# (round three's twentieth session, the first test of CI's last step), then passed five times in
# that clone, once with every module's bytecode removed; a failure now says what the notebook was
# doing (NOTEBOOK_NOW).
@pytest.mark.alone
@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light"])
def test_the_readmes_notebook_works_in_jupyterlab_with_no_internet(browser, jupyterlab, scheme):
    """The figure renders, a click reaches figure.state, and a change of figure.state reaches the figure."""
    from support.expect import expect

    url, host = jupyterlab
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=scheme)

    def only_this_computer(route):
        if route.request.url.split("/")[2] == host:
            return route.continue_()
        return route.abort()

    context.route("**/*", only_this_computer)
    page = context.new_page()
    page.goto(url)
    run = "window.jupyterapp.commands.execute('notebook:run-cell-and-select-next')"
    page.wait_for_function(
        "window.jupyterapp && window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel"
    )
    page.wait_for_function(
        "window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'", timeout=60_000
    )
    page.evaluate(run)  # import, pn.extension(inline=True)
    page.evaluate(run)  # the figure
    formula = page.locator(".fig-ndcg .metric-ndcgText .metric-formula")
    expect(formula).to_contain_text("NDCG@3 =", timeout=60_000)

    page.evaluate(run)  # figure.state.k = 5
    expect(formula).to_contain_text("NDCG@5 =")

    page.locator('.fig-ndcg .rl-row[data-rank="2"] button').click()  # rank 2 up to rank 1
    expect(page.locator('.fig-ndcg .rl-row[data-rank="1"] .rl-title')).to_have_text(
        "Supplier notice: bracket P/N 7731-B cracks under cyclic load"
    )
    # The click reaches Python through the notebook's comm, which sends it a moment later: the last
    # cell (print(figure.state.order)) is run again until it shows the new order, for at most 30 s.
    # Until that cell has printed once, the last output is the figure's: its first print is waited
    # for as long (in CI's two-worker step, before this test ran alone, it did not come in 5 s).
    printed = page.locator(".jp-OutputArea-output").last
    deadline = time.monotonic() + 30
    while True:
        # The click made the figure's cell the active one: the last cell is made the next to run.
        page.evaluate("window.jupyterapp.shell.currentWidget.content.activeCellIndex = 3")
        page.evaluate(run)
        try:
            expect(printed).to_have_text(re.compile(r"\[.*\]"), timeout=30_000)
        except AssertionError as failure:  # what the notebook was doing, for the cause not found yet
            raise AssertionError(f"{failure}\nthe notebook then: {page.evaluate(NOTEBOOK_NOW)}") from None
        if printed.inner_text().strip() == "[1, 0, 2, 3, 4, 5, 6, 7]" or time.monotonic() > deadline:
            break
        page.wait_for_timeout(250)
    expect(printed).to_have_text("[1, 0, 2, 3, 4, 5, 6, 7]")
    assert page.locator(".fig-ndcg").count() == 1
    context.close()
