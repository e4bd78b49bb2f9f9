"""The README says what the code does: its tables of pages and URL keys are the registry's."""

from __future__ import annotations

from pathlib import Path

from explainer.pages import readme_pages_table, readme_url_keys_table

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_the_readme_lists_every_page_as_the_registry_declares_it():
    assert readme_pages_table() in README, (
        "paste explainer.pages.readme_pages_table() into the README:\n" + readme_pages_table()
    )


def test_the_readme_lists_every_url_key_as_the_registry_declares_it():
    table = readme_url_keys_table()
    assert table in README, "paste explainer.pages.readme_url_keys_table() into the README:\n" + table


def test_the_readme_gives_the_two_commands():
    assert "./serve.sh         # serve" in README and "./serve.sh test    # run" in README
