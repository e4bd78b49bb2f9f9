"""The statistics libraries some tests take as their oracle (scipy's and statsmodels'), imported
when a test first uses them rather than when its module is.

pytest-xdist's workers each collect every test module, so a module-level import is paid by each
worker before its first test, whether or not it runs that module: statsmodels' multiple-testing
module with scipy's statistics under it took some 1.6 s of CPU, in both workers at once.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest


class Deferred:
    """A module imported on its first attribute read (``stats.ttest_rel``); where ``skip_if_missing``
    and it is not installed, the test that reads it is skipped (``pytest.importorskip`` at a module's
    top skipped the whole module)."""

    def __init__(self, name: str, skip_if_missing: bool = False) -> None:
        self._name = name
        self._skip_if_missing = skip_if_missing
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str):
        if attribute.startswith("_"):  # collection reads __test__, __wrapped__, _mock_name... of every module global
            raise AttributeError(attribute)
        if self._module is None:
            if self._skip_if_missing:
                self._module = pytest.importorskip(self._name)
            else:
                self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)


stats = Deferred("scipy.stats")
multitest = Deferred("statsmodels.stats.multitest", skip_if_missing=True)
statsmodels_power = Deferred("statsmodels.stats.power", skip_if_missing=True)
