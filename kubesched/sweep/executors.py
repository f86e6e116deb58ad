"""Where cells run: this machine's processes (the standard library's process pool, ``--jobs``), or an existing
Dask distributed cluster (``--dask ADDRESS``), which runs the same cell function on its workers. Either way each
finished cell is handed back as it completes; the order of the file is the matrix's, not this one.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from kubesched.errors import KubeschedError
from kubesched.sweep.cell import CellOutcome, run_cell
from kubesched.sweep.inputs import CellInput, CheckedInput, sendable
from kubesched.sweep.matrix import Cell

#: Called in the client's process with each finished cell.
Done = Callable[[Cell, CellOutcome], None]
#: How long the client waits for the Dask scheduler to answer.
DASK_TIMEOUT = "10s"


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_local(cells: Sequence[Cell], jobs: int, done: Done) -> None:
    """Run ``cells`` on ``jobs`` worker processes (spawned: nothing of this process is inherited but its
    environment); with one job, or one cell, in this process."""
    if jobs <= 1 or len(cells) <= 1:
        for cell in cells:
            done(cell, run_cell(cell))
        return
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(jobs, len(cells)), mp_context=context) as pool:
        futures = {pool.submit(run_cell, cell): cell for cell in cells}
        try:
            for future in concurrent.futures.as_completed(futures):
                done(futures[future], future.result())
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise KubeschedError("--dask needs the distributed package, which is not installed: "
                             "pip install 'kubesched[sweep]'") from None
    return distributed


def run_dask(cells: Sequence[Cell], address: str, done: Done, *, inputs: Mapping[str, CheckedInput] | None = None,
             timeout: str = DASK_TIMEOUT) -> None:
    """Run ``cells`` on the Dask cluster whose scheduler is at ``address``. The workers read the inputs at the
    paths the cells name (a folder they share), unless ``inputs`` (by label) is given: then each input's files are
    sent to the workers once, and the cells read them from a folder of the worker's machine."""
    distributed = _distributed()
    try:
        client = distributed.Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise KubeschedError(f"--dask {address}: cannot reach the Dask scheduler: {exc}") from None
    try:
        sent: dict[str, tuple[CellInput, Any]] = {}
        if inputs is not None:
            for label, checked in inputs.items():
                cell_input, files = sendable(checked)
                future = client.scatter([files], broadcast=True, hash=False)[0] if files else None
                sent[label] = (cell_input, future)
        futures = {}
        for cell in cells:
            if cell.input.label in sent:
                cell_input, files_future = sent[cell.input.label]
                moved = attrs.evolve(cell, input=cell_input)
                future = client.submit(run_cell, moved, files_future, pure=False) if files_future is not None \
                    else client.submit(run_cell, moved, pure=False)
            else:
                future = client.submit(run_cell, cell, pure=False)
            futures[future] = cell
        for future in distributed.as_completed(futures, loop=client.loop):
            done(futures[future], future.result())
    finally:
        client.close()

