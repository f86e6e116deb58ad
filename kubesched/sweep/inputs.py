"""A Sweep's inputs: what each reads (the files behind its digest), checked once before any cell runs, and
carried to the cells either as paths the workers share or as the files' bytes sent along (``--send-inputs``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

from kubesched.errors import InputError
from kubesched.io.documents import YAML_RULES, expand_paths
from kubesched.io.errors import InputErrorList
from kubesched.io.load import load
from kubesched.io.read import UnreadableFileError, read_bytes, read_text
from kubesched.io.yaml_reader import YamlError, documents
from kubesched.sim.scenario import is_scenario_file, load_scenario
from kubesched.sim.scenario_steps import Create
from kubesched.sweep.spec import BenchInput, InputEntry
from kubesched.validation import escape

MANIFESTS = "manifests"
SCENARIO = "scenario"
BENCH = "bench"

#: Files sent with a cell: (path relative to their common folder, bytes), in path order.
Files = tuple[tuple[str, bytes], ...]


@attrs.frozen
class CellInput:
    """What a cell loads: its label and kind (manifests, scenario or bench), the paths it loads (absolute, or
    relative to the folder the sent files are written to) or the bench workload; with sent files, ``shown_root``
    is the folder their paths are shown under in warnings (the client's)."""

    label: str
    kind: str
    paths: tuple[str, ...] = ()
    bench: BenchInput | None = None
    shown_root: str = ""


@attrs.frozen
class CheckedInput:
    """An input checked on the client: what the cells get, its digest, its files, and the loader's warnings."""

    cell_input: CellInput
    digest: str
    files: tuple[Path, ...]
    warnings: tuple[str, ...]


def check_input(entry: InputEntry, file: str) -> CheckedInput:
    """Load the input once (every problem of it reported, as ``simulate`` would), find its files and digest."""
    if entry.bench is not None:
        text = json.dumps({"bench": entry.bench.to_json()}, sort_keys=True, separators=(",", ":"))
        return CheckedInput(CellInput(entry.label, BENCH, bench=entry.bench),
                            hashlib.sha256(text.encode()).hexdigest(), (), ())
    scenarios = [p for p in entry.paths if is_scenario_file(p)]
    if scenarios and len(entry.paths) > 1:
        raise InputErrorList([InputError("a Scenario file must be the only path of its input (its steps name the "
                                         "manifests they create)", file=file, field=f"{entry.field}.path")])
    if scenarios:
        scenario = load_scenario(scenarios[0])
        warnings = tuple(w for step in scenario.steps if isinstance(step.action, Create)
                         for w in step.action.objects.warnings)
        files = _scenario_files(scenarios[0])
        kind = SCENARIO
    else:
        warnings = load(entry.paths).warnings
        files = tuple(dict.fromkeys(p.resolve() for p in expand_paths(entry.paths)[0]))
        kind = MANIFESTS
    absolute = tuple(p.resolve() for p in entry.paths)
    digest = files_digest(files, _root([*files, *absolute]))
    return CheckedInput(CellInput(entry.label, kind, tuple(map(str, absolute))), digest, files, warnings)


def _scenario_files(path: Path) -> tuple[Path, ...]:
    """The scenario file and the manifests its create steps read (``from``), each once."""
    found = [path.resolve()]
    try:
        doc = next(documents(read_text(path), YAML_RULES), None)
    except (UnreadableFileError, YamlError):
        return tuple(found)
    steps = doc.get("spec", {}).get("steps", []) if isinstance(doc, Mapping) else []
    named = [path.parent / item for step in steps if isinstance(step, Mapping)
             for item in (step.get("create") or {}).get("from", []) if isinstance(item, str)]
    found.extend(p.resolve() for p in expand_paths(named)[0])
    return tuple(dict.fromkeys(found))


def _root(paths: Sequence[Path]) -> Path:
    """The deepest folder holding every one of ``paths`` (absolute)."""
    return Path(os.path.commonpath([str(p.parent if p.is_file() else p) for p in paths]))


def files_digest(files: Sequence[Path], root: Path) -> str:
    """The sha256 of the files' paths (relative to ``root``, the folder holding them and the paths the input
    names) and bytes, in order: what :func:`sendable` sends."""
    digest = hashlib.sha256()
    for path in files:
        data = _read(path)
        name = path.relative_to(root).as_posix().encode()
        digest.update(b"%d:%s%d:" % (len(name), name, len(data)))
        digest.update(data)
    return digest.hexdigest()


def sendable(checked: CheckedInput) -> tuple[CellInput, Files]:
    """The input with its paths relative to its files' common folder, and the files to send (a bench input sends
    nothing)."""
    cell_input = checked.cell_input
    if cell_input.kind == BENCH:
        return cell_input, ()
    absolute = [Path(p) for p in cell_input.paths]
    root = _root([*checked.files, *absolute])
    files = tuple((p.relative_to(root).as_posix(), _read(p)) for p in checked.files)
    paths = tuple(p.relative_to(root).as_posix() or "." for p in absolute)
    return attrs.evolve(cell_input, paths=paths, shown_root=str(root)), files


def _read(path: Path) -> bytes:
    """A file's bytes through kubesched's bounded reader; a file gone unreadable since it was loaded is an
    InputErrorList naming it."""
    try:
        return read_bytes(path)
    except UnreadableFileError as exc:
        raise InputErrorList([InputError(escape(str(exc)), file=escape(str(path)))]) from None


_WRITING = threading.Lock()


def materialise(files: Files, digest: str) -> Path:
    """The folder holding the sent ``files`` on this machine, written once per digest (several worker processes
    may race: each writes a folder of its own and the first renamed into place wins)."""
    folder = Path(tempfile.gettempdir()) / "kubesched-sweep-inputs" / digest
    with _WRITING:
        if folder.is_dir():
            return folder
        folder.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix=f".{digest[:16]}-", dir=folder.parent))
        for name, data in files:
            target = partial / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        try:
            partial.rename(folder)
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)  # another process was first
    return folder

