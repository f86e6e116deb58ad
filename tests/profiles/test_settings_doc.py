"""docs/profiles.md's settings are the table's (kubesched/profiles/settings.py): its settings list is the one this
module writes from the table, and its example and notes name every setting as the table has it."""

from __future__ import annotations

import re

import pytest

from kubesched.profiles.settings import SETTINGS, Setting
from tests.conftest import REPO

DOC = (REPO / "docs" / "profiles.md").read_text(encoding="utf-8")
#: The first TOML example of the page, which shows the settings at the top of a profile file.
EXAMPLE = re.search(r"```toml\n(.*?)```", DOC, re.DOTALL)
#: The settings list: the table under "## Settings".
SETTINGS_LIST = re.search(r"\n## Settings\n.*?\n(\| TOML key .*?\n)\n", DOC, re.DOTALL)


def code(key: str | None) -> str:
    """A key as the page writes it in a table cell."""
    return "(none)" if key is None else f"`{key}`"


def settings_list() -> str:
    """The settings list as the table gives it, one row per setting in table order."""
    rows = ["| TOML key | KubeSchedulerConfiguration key | default | valid values | set in | what it does |",
            "|---|---|---|---|---|---|"]
    for setting in SETTINGS:
        default = "unset" if setting.default is None else str(setting.default)
        where = "the top level and each profile" if setting.per_profile else "the top level"
        rows.append(f"| {code(setting.toml)} | {code(setting.kube)} | {default} | {setting.describe()} | {where} | "
                    f"{setting.doc} |")
    return "\n".join(rows) + "\n"


def test_settings_list_is_the_tables() -> None:
    """The page's settings list is exactly the one written from the table (paste this function's output there)."""
    assert SETTINGS_LIST is not None
    assert SETTINGS_LIST.group(1) == settings_list()


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.toml], ids=lambda s: s.name)
def test_example_shows_each_toml_setting_with_its_default(setting: Setting) -> None:
    """The first example sets each TOML setting to its default, or shows it commented out when it has none."""
    assert EXAMPLE is not None
    if setting.default is None:
        assert re.search(rf"^# {setting.toml} = ", EXAMPLE.group(1), re.MULTILINE)
    else:
        assert re.search(rf"^{setting.toml} = {setting.default}\b", EXAMPLE.group(1), re.MULTILINE)


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.target is None], ids=lambda s: s.name)
def test_ignored_settings_are_among_the_fields_not_modelled(setting: Setting) -> None:
    """A setting that is checked and then ignored is in the row of the fields kubesched accepts and ignores."""
    [row] = [line for line in DOC.splitlines() if "| accepted and ignored:" in line]
    assert f"`{setting.kube}`" in row.split(" | ")[0]


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.target and not s.kube], ids=lambda s: s.name)
def test_kubesched_only_settings_are_named_as_left_out_of_kube_form(setting: Setting) -> None:
    """A setting a KubeSchedulerConfiguration cannot hold is named as left out of ``show --format``."""
    assert f"`{setting.toml}` is kubesched's own and has no KubeSchedulerConfiguration field" in DOC
