"""``kubesched sweep`` as users run it, in processes: local worker processes, a real Dask cluster (a ``dask
scheduler`` and two ``dask worker`` processes on 127.0.0.1, stopped by PID) giving the same Parquet file, and a
sweep killed part way resuming to the file an uninterrupted run writes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubesched.errors import KubeschedError
from kubesched.sweep.executors import run_dask
from kubesched.sweep.store import read_rows
from tests.conftest import kubesched_command
from tests.sweep.helpers import SMALL, sweep_folder

pytestmark = pytest.mark.slow

#: A bound for every wait on a process (never a timing assertion).
WAIT = 120.0


def sweep(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """Run ``kubesched sweep sweep.yaml ARGUMENTS`` in ``folder``."""
    done = subprocess.run([*kubesched_command(), "sweep", "sweep.yaml", "-q", *arguments], cwd=folder,
                          capture_output=True, text=True, timeout=WAIT, check=False)
    assert done.returncode == 0, done.stderr
    return done


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def dask(*arguments: str) -> list[str]:
    """The ``dask`` command next to this interpreter (``python -m distributed.cli...`` without it)."""
    script = Path(sys.executable).with_name("dask")
    if script.exists():
        return [str(script), *arguments]
    return [sys.executable, "-m", f"distributed.cli.dask_{arguments[0]}", *arguments[1:]]


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a process we started, by its PID: SIGTERM, then SIGKILL if it does not go."""
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Dask scheduler and two single-threaded workers on 127.0.0.1 (free ports); its address."""
    import distributed

    logs = tmp_path_factory.mktemp("dask")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    processes: list[subprocess.Popen[bytes]] = []
    try:
        with (logs / "scheduler.log").open("wb") as log:
            processes.append(subprocess.Popen(dask("scheduler", "--host", "127.0.0.1", "--port", str(port),
                                                   "--no-dashboard"), stdout=log, stderr=log))
        # The workers write the inputs sent to them (--send-inputs) to their temporary folder: the test's.
        (logs / "tmp").mkdir()
        env = {**os.environ, "TMPDIR": str(logs / "tmp")}
        for i in range(2):
            with (logs / f"worker-{i}.log").open("wb") as log:
                processes.append(subprocess.Popen(
                    dask("worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny",
                         "--no-dashboard", "--local-directory", str(logs / f"w{i}")), stdout=log, stderr=log,
                    env=env))
        client_class: Any = distributed.Client  # untyped
        with client_class(address, timeout=f"{WAIT}s", set_as_default=False) as client:
            client.wait_for_workers(2, timeout=WAIT)
        yield address
    finally:
        for process in reversed(processes):
            stop(process)


@pytest.fixture(scope="module")
def local_file(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The small matrix's file from two local worker processes."""
    folder = tmp_path_factory.mktemp("local")
    sweep_folder(folder)
    sweep(folder, "--jobs", "2")
    return (folder / "sweep.parquet").read_bytes()


def test_local_processes_write_the_file_this_process_writes(tmp_path: Path, local_file: bytes) -> None:
    sweep_folder(tmp_path)
    sweep(tmp_path, "--jobs", "1")
    assert (tmp_path / "sweep.parquet").read_bytes() == local_file
    assert len(read_rows(tmp_path / "sweep.parquet")) == 24


@pytest.mark.parametrize("send", [pytest.param(False, id="shared-paths"), pytest.param(True, id="send-inputs")])
def test_a_dask_cluster_writes_the_rows_local_processes_write(tmp_path: Path, local_file: bytes, dask_cluster: str,
                                                              send: bool) -> None:
    sweep_folder(tmp_path)
    done = sweep(tmp_path, "--dask", dask_cluster, *(["--send-inputs"] if send else []))
    assert "24 run, 0 reused" in done.stderr
    local = tmp_path / "local.parquet"
    local.write_bytes(local_file)
    assert read_rows(tmp_path / "sweep.parquet") == read_rows(local)
    assert (tmp_path / "sweep.parquet").read_bytes() == local_file


def test_an_unreachable_dask_scheduler_is_a_clear_error() -> None:
    address = f"tcp://127.0.0.1:{free_port()}"
    with pytest.raises(KubeschedError, match=rf"^--dask {address}: cannot reach the Dask scheduler: "):
        run_dask([], address, lambda cell, outcome: None, timeout="1s")


# Cells of a few hundred milliseconds each, so that the sweep is killed with some of them finished.
SLOWER = SMALL.replace("nodes: 6, initPods: 4, measurePods: 20", "nodes: 40, initPods: 40, measurePods: 200")


def test_a_sweep_killed_part_way_resumes_to_the_file_an_uninterrupted_run_writes(tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    sweep_folder(whole, SLOWER)
    sweep(whole, "--jobs", "1")
    killed = tmp_path / "killed"
    sweep_folder(killed, SLOWER)
    journal = killed / "sweep.parquet.cells"
    process = subprocess.Popen([*kubesched_command(), "sweep", "sweep.yaml", "-q", "--jobs", "1"], cwd=killed,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + WAIT
        while process.poll() is None and len(list(journal.glob("*.parquet"))) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGSTOP)  # frozen, the journal stays as it is while it is counted
        finished = len(list(journal.glob("*.parquet")))
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=WAIT)
    assert process.returncode == -signal.SIGKILL, "the sweep ended before it could be killed"
    assert 3 <= finished < 24
    assert not (killed / "sweep.parquet").exists()
    done = sweep(killed, "--resume", "--jobs", "2")
    assert f"{24 - finished} run, {finished} reused" in done.stderr
    assert (killed / "sweep.parquet").read_bytes() == (whole / "sweep.parquet").read_bytes()
    assert not journal.exists()
