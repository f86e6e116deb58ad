"""Output that cannot be written is the destination's problem, said in one line: a full disk is an error (exit 1)
and never a traceback; a reader that closed the pipe early ends the command quietly."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, kubesched_command

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")]


@pytest.mark.parametrize("output", [pytest.param("table", id="table"), pytest.param("json", id="json")])
def test_a_full_disk_is_one_error_line(output: str) -> None:
    """stdout on /dev/full: exit 1 and one line naming the failure."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([*kubesched_command(), "simulate", "examples/quickstart.yaml", "-o", output],
                              stdout=full, stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=120,
                              env={**os.environ, "COLUMNS": "120"})
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == "error: cannot write the output: No space left on device"
    assert "Traceback" not in done.stderr


def test_a_closed_pipe_ends_quietly() -> None:
    """A reader that stops after the first line (``| head -1``): no traceback, no error line."""
    process = subprocess.Popen([*kubesched_command(), "simulate", "examples/scenarios/day.yaml"], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "120"})
    assert process.stdout is not None
    process.stdout.readline()
    process.stdout.close()
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 1
    assert b"Traceback" not in stderr
    assert b"error:" not in stderr
