"""Specification of reading input files: regular files, pipes and standard input only, and a bounded amount of
them, so a device or an endless stream is an error naming the file, never a process that fills the memory."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubesched.cli.main import main
from kubesched.io.read import UnreadableFileError, read_bytes

needs_dev_zero = pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")


@needs_dev_zero
@pytest.mark.parametrize("command", [
    pytest.param(["simulate", "/dev/zero"], id="simulate"),
    pytest.param(["profile", "check", "/dev/zero"], id="profile-check"),
    pytest.param(["simulate", "--profile", "/dev/zero", "examples/quickstart.yaml"], id="simulate-profile"),
])
def test_a_device_is_refused_with_its_name(command: list[str]) -> None:
    """``/dev/zero`` is not read at all: one error line naming it, exit 1."""
    outcome = CliRunner().invoke(main, command)
    assert outcome.exit_code == 1
    assert "/dev/zero: cannot read: a device, not a file" in outcome.output


@needs_dev_zero
def test_a_scenario_step_reading_a_device_is_refused(tmp_path: Path) -> None:
    """A scenario's ``from: [/dev/zero]`` is the same error."""
    scenario = tmp_path / "zero.yaml"
    scenario.write_text("apiVersion: kubesched.io/v1alpha1\nkind: Scenario\nmetadata: {name: z}\nspec:\n  steps:\n"
                        "  - create: {from: [/dev/zero]}\n")
    outcome = CliRunner().invoke(main, ["simulate", str(scenario)])
    assert outcome.exit_code == 1
    assert "/dev/zero: cannot read: a device, not a file" in outcome.output


def test_a_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    """More bytes than the limit: refused, naming the limit."""
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * 101)
    with pytest.raises(UnreadableFileError, match="larger than 100 bytes"):
        read_bytes(big, limit=100)
    assert read_bytes(big, limit=101) == b"#" * 101


def test_an_endless_pipe_is_cut_at_the_limit(tmp_path: Path) -> None:
    """A pipe that never ends is read up to the limit, then refused (the writer is left to its broken pipe)."""
    fifo = tmp_path / "endless"
    os.mkfifo(fifo)

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as out:  # the reader stops at its limit
            for _ in range(1000):  # bounded: far more than the limit below
                out.write(b"a: 1\n" * 100)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    with pytest.raises(UnreadableFileError, match="larger than 4096 bytes"):
        read_bytes(fifo, limit=4096)
    writer.join(timeout=10)
