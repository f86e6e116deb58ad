"""The matrix of a Sweep: every cell (an input, a profile variant, a seed and a repetition) in matrix order, each
independent of the others, with the key that tells a finished cell apart when a sweep resumes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import attrs

import kubesched
from kubesched.errors import InputError, KubeschedError
from kubesched.io.errors import InputErrorList
from kubesched.runtime import PluginRegistry
from kubesched.sweep.columns import LEADING as LEADING
from kubesched.sweep.columns import TRAILING as TRAILING
from kubesched.sweep.inputs import CellInput, CheckedInput, check_input
from kubesched.sweep.profiles import ResolvedProfile, resolve_all
from kubesched.sweep.spec import SweepSpec, read_sweep

#: The columns a finished cell is recognised by when a sweep resumes.
KEY_COLUMNS = ("input", "inputDigest", "profile", "profileDigest", "seed", "repetition", "kubeschedVersion")


def run_seed(seed: int, repetition: int) -> int:
    """The seed a cell's simulation runs with: the seed itself for repetition 0, else one derived from both (the
    sha256 of ``kubesched-sweep:SEED:REPETITION``, its first 63 bits), so repetitions of a seed differ."""
    if repetition == 0:
        return seed
    derived = hashlib.sha256(f"kubesched-sweep:{seed}:{repetition}".encode()).digest()
    return int.from_bytes(derived[:8], "big") >> 1


def cell_key(row: dict[str, Any]) -> str:
    """The key of the cell a row (or a cell's parameters) belongs to: the input and profile with their digests,
    the seed, the repetition and kubesched's version."""
    return json.dumps([row.get(c) for c in KEY_COLUMNS], separators=(",", ":"))


@attrs.frozen
class Cell:
    """One simulation of the matrix."""

    index: int
    input: CellInput
    input_digest: str
    profile: ResolvedProfile
    seed: int
    repetition: int

    def parameters(self) -> dict[str, Any]:
        """The row's parameter columns (all but ``error``), varied plugin args included."""
        return {"cell": self.index, "input": self.input.label, "inputKind": self.input.kind,
                "inputDigest": self.input_digest, "profile": self.profile.label,
                "profileDigest": self.profile.digest, **dict(self.profile.columns), "seed": self.seed,
                "repetition": self.repetition, "runSeed": run_seed(self.seed, self.repetition),
                "kubeschedVersion": kubesched.__version__}

    @property
    def key(self) -> str:
        """:func:`cell_key` of this cell."""
        return cell_key(self.parameters())

    def describe(self) -> str:
        """The cell as messages name it."""
        return (f"cell {self.index} (input {self.input.label!r}, profile {self.profile.label!r}, seed {self.seed}, "
                f"repetition {self.repetition})")


@attrs.frozen
class Plan:
    """A checked Sweep: the file, its inputs checked once, its profile variants and every cell in order."""

    spec: SweepSpec
    inputs: tuple[CheckedInput, ...]
    profiles: tuple[ResolvedProfile, ...]
    cells: tuple[Cell, ...]

    def parameters(self) -> tuple[str, ...]:
        """Every parameter column of the rows, args columns included: what ``--by`` may name."""
        args = sorted({name for p in self.profiles for name, _ in p.columns})
        return (*LEADING[1:], *args, *TRAILING[:3])


def expand(inputs: tuple[CheckedInput, ...], profiles: tuple[ResolvedProfile, ...], seeds: tuple[int, ...],
           repetitions: int) -> tuple[Cell, ...]:
    """Every cell, the input varying slowest, then the profile, the seed and the repetition."""
    cells: list[Cell] = []
    for checked in inputs:
        for profile in profiles:
            for seed in seeds:
                for repetition in range(repetitions):
                    cells.append(Cell(len(cells), checked.cell_input, checked.digest, profile, seed, repetition))
    return tuple(cells)


def plan(path: Path, registry: PluginRegistry) -> Plan:
    """Read and check the Sweep file, its profiles and its inputs (every problem of all of them at once), then
    expand the matrix."""
    spec, problems = read_sweep(path)
    if spec is None:
        raise InputErrorList(problems)
    profiles, more = resolve_all(spec.profiles, registry, spec.file)
    problems.extend(more)
    inputs = []
    for entry in spec.inputs:
        try:
            inputs.append(check_input(entry, spec.file))
        except InputErrorList as exc:
            problems.extend(exc.errors)
        except KubeschedError as exc:
            problems.append(InputError(str(exc), file=spec.file, field=entry.field))
    if problems:
        raise InputErrorList(problems)
    return Plan(spec, tuple(inputs), tuple(profiles), expand(tuple(inputs), tuple(profiles), spec.seeds,
                                                               spec.repetitions))
