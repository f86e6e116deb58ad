"""The README stays true: it opens with the two commands, and its quickstart output is the real output."""

from __future__ import annotations

import re

from tests.conftest import REPO, RunCli

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_setup_and_test_commands() -> None:
    """The first code block holds exactly the set-up-and-simulate command and the test command."""
    first_block = re.search(r"```sh\n(.*?)```", README, re.S)
    assert first_block is not None
    assert README.index("```sh") < README.index("\n## ")
    commands = first_block.group(1).strip().splitlines()
    assert len(commands) == 2
    assert commands[0].endswith("kubesched simulate examples/quickstart.yaml")
    assert "pytest" in commands[1]


def test_quickstart_output_in_readme_is_current(run_cli: RunCli) -> None:
    """The README shows exactly what `kubesched simulate examples/quickstart.yaml` prints (at 110 columns)."""
    block = re.search(r"<!-- quickstart-output: [^>]*-->\n```text\n(.*?)```", README, re.S)
    assert block is not None
    done = run_cli("simulate", "examples/quickstart.yaml", env={"COLUMNS": "110"})
    assert done.returncode == 0
    assert done.stdout == block.group(1)
