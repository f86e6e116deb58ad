"""Specification of kubesched.cli.exits: while plugins run, a plugin's code cannot end or signal its own process;
calls that target other processes, and kubesched's own calls, pass; the functions come back afterwards."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from kubesched.cli.exits import ProcessExitRefusedError, exits_refused


@pytest.mark.parametrize("call", [
    pytest.param(lambda: os._exit(3), id="os._exit"),
    pytest.param(lambda: os.kill(os.getpid(), signal.SIGKILL), id="kill-own-pid"),
    pytest.param(lambda: os.kill(0, signal.SIGKILL), id="kill-own-group"),
    pytest.param(lambda: os.killpg(os.getpgrp(), signal.SIGKILL), id="killpg-own-group"),
    pytest.param(lambda: signal.raise_signal(signal.SIGKILL), id="raise_signal"),
    pytest.param(lambda: os.abort(), id="abort"),
])
def test_call_from_plugin_code_that_would_end_the_process_is_refused(call: object) -> None:
    with exits_refused(["tests.cli.test_exits"]), pytest.raises(ProcessExitRefusedError, match="may not end"):
        call()  # type: ignore[operator]


def test_signal_to_another_process_passes() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with exits_refused(["tests.cli.test_exits"]):
            os.kill(child.pid, signal.SIGTERM)
        assert child.wait(10) == -signal.SIGTERM
    finally:
        child.kill()


def test_signal_zero_only_checks_and_passes() -> None:
    with exits_refused(["tests.cli.test_exits"]):
        os.kill(os.getpid(), 0)


def test_calls_without_plugin_code_on_the_stack_pass() -> None:
    received: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda number, frame: received.append(number))
    try:
        with exits_refused(["acme_hostile"]):
            os.kill(os.getpid(), signal.SIGUSR1)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert received == [signal.SIGUSR1]


def test_functions_come_back_after_the_block() -> None:
    before = (os._exit, os.kill, os.killpg, os.abort, signal.raise_signal)
    with exits_refused(["tests.cli.test_exits"]):
        assert os._exit is not before[0]
    assert (os._exit, os.kill, os.killpg, os.abort, signal.raise_signal) == before


def test_kubesched_modules_are_never_treated_as_plugins() -> None:
    before = os._exit
    with exits_refused(["kubesched.plugins.x"]):
        assert os._exit is before
