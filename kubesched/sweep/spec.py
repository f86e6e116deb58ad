"""Sweep files (``apiVersion: kubesched.io/v1alpha1``, ``kind: Sweep``): the matrix of inputs, profiles, seeds
and repetitions, read and checked field by field. Every problem of the file is reported at once, each naming the
file and the field (``spec.inputs[1].bench.nodes``); docs/sweep.md documents the format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kubesched.bench.workloads import WORKLOADS
from kubesched.errors import InputError
from kubesched.io.documents import YAML_RULES
from kubesched.io.errors import InputErrorList
from kubesched.io.read import UnreadableFileError, read_text
from kubesched.io.yaml_reader import YamlError, documents
from kubesched.profiles import shipped_profiles
from kubesched.validation import MANIFEST, escape, is_integer, quote

API_VERSION = "kubesched.io/v1alpha1"
KIND = "Sweep"
#: The largest seed: a seed is a Parquet int64, and kept non-negative.
MAX_SEED = 2**63 - 1
#: The profile an entry without ``profile`` starts from.
DEFAULT_PROFILE = "default"
#: The names a profile file may end with (anything with a slash is a path too).
PROFILE_SUFFIXES = (".toml", ".yaml", ".yml", ".json")


@attrs.frozen
class BenchInput:
    """A ``kubesched bench`` workload at a size: the nodes, the init pods and the measured pods."""

    workload: str
    nodes: int
    init_pods: int
    measure_pods: int

    def to_json(self) -> dict[str, object]:
        """The workload as the Sweep file spells it (what its digest covers)."""
        return {"workload": self.workload, "nodes": self.nodes, "initPods": self.init_pods,
                "measurePods": self.measure_pods}


@attrs.frozen
class InputEntry:
    """One entry of ``spec.inputs``: manifest paths (files or directories; a Scenario file alone) or a bench
    workload, with its label (``name``, else the paths as written, else the workload and its sizes)."""

    label: str
    field: str
    #: The paths as written, and as found from the current directory (relative to the Sweep file).
    written: tuple[str, ...] = ()
    paths: tuple[Path, ...] = ()
    bench: BenchInput | None = None


@attrs.frozen
class ProfileEntry:
    """One entry of ``spec.profiles``: a base profile (shipped name or path) and a grid of plugin args, each key a
    dotted path below a plugin's args (camelCase, as in a KubeSchedulerConfiguration)."""

    name: str
    field: str
    profile: str
    #: The profile as found from the current directory (a path relative to the Sweep file), or its shipped name.
    location: str
    #: (plugin, dotted key, values, varied): ``varied`` when the file gave a list of values (one profile each).
    plugin_args: tuple[tuple[str, str, tuple[Any, ...], bool], ...] = ()


@attrs.frozen
class SweepSpec:
    """A validated Sweep file."""

    file: str
    name: str
    inputs: tuple[InputEntry, ...]
    profiles: tuple[ProfileEntry, ...]
    seeds: tuple[int, ...]
    repetitions: int


def load_sweep(path: Path) -> SweepSpec:
    """Read and check a Sweep file; raise :class:`InputErrorList` with every problem."""
    spec, errors = read_sweep(path)
    if errors or spec is None:
        raise InputErrorList(errors)
    return spec


def read_sweep(path: Path) -> tuple[SweepSpec | None, list[InputError]]:
    """Read and check a Sweep file: the spec of its valid entries (None when there is nothing to read) and every
    problem found, so that the entries' profiles and inputs can be checked in the same run."""
    name = escape(str(path))
    try:
        docs = [d for d in documents(read_text(path), YAML_RULES) if d is not None]
    except UnreadableFileError as exc:
        return None, [InputError(escape(str(exc)), file=name)]
    except YamlError as exc:
        return None, [InputError(str(exc), file=name)]
    if len(docs) != 1:
        return None, [InputError(f"a sweep file holds exactly one document (the Sweep), not {len(docs)}", file=name)]
    reader = _Reader(path, name)
    return reader.read(docs[0]), reader.errors


class _Reader:
    """One Sweep file's checks, every problem collected."""

    def __init__(self, path: Path, name: str) -> None:
        self.base = path.parent
        self.file = name
        self.errors: list[InputError] = []

    def problem(self, message: str, field: str) -> None:
        self.errors.append(InputError(message, file=self.file, field=field))

    def read(self, doc: object) -> SweepSpec | None:
        if not isinstance(doc, Mapping):
            self.errors.append(InputError(f"must be a Sweep object, not {MANIFEST.describe(doc)}", file=self.file))
            return None
        for key, expected in (("apiVersion", API_VERSION), ("kind", KIND)):
            if doc.get(key) != expected:
                shown = "Required value" if key not in doc else f"Unsupported value: {MANIFEST.show(doc[key])}"
                self.problem(f'{shown}: supported values: "{expected}"', key)
        self.unknown(doc, ("apiVersion", "kind", "metadata", "spec"), "")
        meta = self.mapping(doc.get("metadata"), "metadata")
        self.unknown(meta, ("name", "labels", "annotations"), "metadata")
        name = meta.get("name", "")
        if not isinstance(name, str):
            self.problem(MANIFEST.wrong_type(name, "a string"), "metadata.name")
            name = ""
        spec = self.mapping(doc.get("spec"), "spec")
        self.unknown(spec, ("inputs", "profiles", "seeds", "repetitions"), "spec")
        inputs = [self.input(raw, f"spec.inputs[{i}]") for i, raw in enumerate(self.items(spec, "inputs"))]
        raw_profiles = self.items(spec, "profiles", required=False) if "profiles" in spec else [DEFAULT_PROFILE]
        profiles = [self.profile(raw, f"spec.profiles[{i}]") for i, raw in enumerate(raw_profiles)]
        seeds = self.seeds(spec.get("seeds", [0]))
        repetitions = self.count(spec.get("repetitions", 1), "spec.repetitions", minimum=1)
        self.unique([e for e in inputs if e is not None], "input")
        self.unique([e for e in profiles if e is not None], "profile")
        return SweepSpec(self.file, name or Path(self.file).stem, tuple(e for e in inputs if e is not None),
                         tuple(e for e in profiles if e is not None), seeds, repetitions or 1)

    # -- pieces ----------------------------------------------------------------------------------------------
    def unknown(self, raw: Mapping[str, Any], known: Sequence[str], prefix: str) -> None:
        """Report every key of ``raw`` outside ``known`` (a misspelt key would otherwise be silently ignored)."""
        choices = ", ".join(f'"{k}"' for k in known)
        for key in raw:
            if key not in known:
                field = f"{prefix}.{escape(str(key))}" if prefix else escape(str(key))
                self.problem(f"unknown field {quote(str(key))} (known: {choices})", field)

    def mapping(self, value: object, field: str) -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.problem(MANIFEST.wrong_type(value, "an object"), field)
            return {}
        return value

    def items(self, spec: Mapping[str, Any], key: str, *, required: bool = True) -> list[Any]:
        """A non-empty list at ``spec.<key>``."""
        value = spec.get(key)
        if isinstance(value, list) and value:
            return value
        if value is None or value == []:
            self.problem(f"Required value: a sweep needs at least one entry in {key}", f"spec.{key}")
        else:
            self.problem(MANIFEST.wrong_type(value, "a list"), f"spec.{key}")
        return []

    def count(self, value: object, field: str, *, minimum: int) -> int | None:
        if not is_integer(value):
            self.problem(MANIFEST.wrong_type(value, "an integer"), field)
            return None
        if value < minimum:
            self.problem(f"Invalid value: {value}: must be {minimum} or more", field)
            return None
        return value

    def text(self, value: object, field: str) -> str | None:
        if not isinstance(value, str) or not value:
            self.problem(MANIFEST.wrong_type(value, "a non-empty string"), field)
            return None
        return value

    def input(self, raw: object, field: str) -> InputEntry | None:
        if isinstance(raw, str):
            raw = {"path": raw}
        if not isinstance(raw, Mapping):
            self.problem(MANIFEST.wrong_type(raw, "a path or an object"), field)
            return None
        self.unknown(raw, ("name", "path", "bench"), field)
        label = self.text(raw["name"], f"{field}.name") if "name" in raw else None
        if ("path" in raw) == ("bench" in raw):
            self.problem('Required value: exactly one of "path" and "bench"', field)
            return None
        if "bench" in raw:
            bench = self.bench(raw["bench"], f"{field}.bench")
            if bench is None:
                return None
            shown = f"{bench.workload} {bench.nodes}/{bench.init_pods}/{bench.measure_pods}"
            return InputEntry(label or shown, field, bench=bench)
        written = raw["path"] if isinstance(raw["path"], list) else [raw["path"]]
        paths = [self.text(p, f"{field}.path" + (f"[{i}]" if isinstance(raw["path"], list) else ""))
                 for i, p in enumerate(written)]
        if not written:
            self.problem("Required value: at least one path", f"{field}.path")
        if not written or any(p is None for p in paths):
            return None
        found = tuple(self.base / p for p in paths if p is not None)
        missing = [shown for path, shown in zip(found, written, strict=True) if not path.exists()]
        for shown in missing:
            self.problem(f"Invalid value: {quote(shown)}: no such file or directory (paths are relative to the "
                         "sweep file)", f"{field}.path")
        if missing:
            return None
        return InputEntry(label or " ".join(written), field, tuple(written), found)

    def bench(self, raw: object, field: str) -> BenchInput | None:
        table = self.mapping(raw, field)
        self.unknown(table, ("workload", "nodes", "initPods", "measurePods"), field)
        name = self.text(table.get("workload"), f"{field}.workload")
        known = WORKLOADS.get(name) if name is not None else None
        if name is not None and known is None:
            self.problem(f"Unsupported value: {quote(name)}: supported values: "
                         + ", ".join(f'"{w}"' for w in WORKLOADS), f"{field}.workload")
        sizes = [self.count(table[key], f"{field}.{key}", minimum=minimum) if key in table else
                 (getattr(known, attr) if known is not None else 0)
                 for key, attr, minimum in (("nodes", "nodes", 1), ("initPods", "init_pods", 0),
                                            ("measurePods", "measure_pods", 1))]
        if known is None or any(s is None for s in sizes):
            return None
        nodes, init, measure = (s or 0 for s in sizes)
        return BenchInput(known.name, nodes, init, measure)

    def profile(self, raw: object, field: str) -> ProfileEntry | None:
        if isinstance(raw, str):
            raw = {"profile": raw}
        if not isinstance(raw, Mapping):
            self.problem(MANIFEST.wrong_type(raw, "a profile name, a path or an object"), field)
            return None
        self.unknown(raw, ("name", "profile", "pluginArgs"), field)
        base = self.text(raw.get("profile", DEFAULT_PROFILE), f"{field}.profile")
        label = self.text(raw["name"], f"{field}.name") if "name" in raw else None
        args = self.plugin_args(raw.get("pluginArgs"), f"{field}.pluginArgs")
        if base is None or args is None or ("name" in raw and label is None):
            return None
        location = str(self.base / base) if self.is_path(base) and not Path(base).is_absolute() else base
        return ProfileEntry(label or base, field, base, location, args)

    def is_path(self, spec: str) -> bool:
        """Whether a profile is given by path (as ``--profile`` tells, but from the Sweep file's folder)."""
        return ("/" in spec or "\\" in spec or spec.endswith(PROFILE_SUFFIXES)
                or (spec not in shipped_profiles() and (self.base / spec).exists()))

    def plugin_args(self, raw: object, field: str) -> tuple[tuple[str, str, tuple[Any, ...], bool], ...] | None:
        """``{Plugin: {dotted.key: value or [values...]}}``, in the file's order."""
        table = self.mapping(raw, field)
        found: list[tuple[str, str, tuple[Any, ...], bool]] = []
        ok = True
        for plugin, keys in table.items():
            where = f"{field}.{escape(str(plugin))}"
            if not isinstance(keys, Mapping) or not keys:
                self.problem(MANIFEST.wrong_type(keys, "an object of args keys") if not isinstance(keys, Mapping)
                             else "Required value: at least one args key", where)
                ok = False
                continue
            for key, value in keys.items():
                parts = str(key).split(".")
                if not isinstance(key, str) or not all(parts):
                    self.problem(f"Invalid value: {quote(str(key))}: must be a dotted path of args keys",
                                 f"{where}.{escape(str(key))}")
                    ok = False
                elif isinstance(value, list) and not value:
                    self.problem("Required value: at least one value to try", f"{where}.{key}")
                    ok = False
                else:
                    varied = isinstance(value, list)
                    found.append((str(plugin), key, tuple(value) if varied else (value,), varied))
        return tuple(found) if ok else None

    def seeds(self, value: object) -> tuple[int, ...]:
        if not isinstance(value, list) or not value:
            self.problem(MANIFEST.wrong_type(value, "a non-empty list of integers"), "spec.seeds")
            return ()
        seeds = []
        for i, seed in enumerate(value):
            if not is_integer(seed) or not 0 <= seed <= MAX_SEED:
                shown = MANIFEST.wrong_type(seed, "an integer") if not is_integer(seed) else \
                    f"Invalid value: {seed}: must be from 0 to {MAX_SEED}"
                self.problem(shown, f"spec.seeds[{i}]")
            elif seed in seeds:
                self.problem(f"Duplicate value: {seed}", f"spec.seeds[{i}]")
            else:
                seeds.append(seed)
        return tuple(seeds)

    def unique(self, entries: Sequence[InputEntry | ProfileEntry], what: str) -> None:
        """Labels tell the cells apart: two entries with the same one are an error at the second."""
        seen: dict[str, str] = {}
        for entry in entries:
            label = entry.label if isinstance(entry, InputEntry) else entry.name
            if label in seen:
                self.problem(f"Duplicate value: {what} {quote(label)} (also {seen[label]}); give each a distinct "
                             "name", entry.field)
            seen.setdefault(label, entry.field)
