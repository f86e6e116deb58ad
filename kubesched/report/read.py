"""Reading the RESULT files of ``kubesched report``: JSON or YAML documents of kind SimulationResult or Comparison,
and sweeps' ``.parquet`` files; every problem of every file reported at once, each naming its file and field."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kubesched.errors import InputError
from kubesched.io import yaml_reader
from kubesched.io.errors import InputErrorList
from kubesched.report.checks import Checker
from kubesched.report.documents import ComparisonDocument, SimulationDocument, read_comparison, read_simulation
from kubesched.report.sweep import SweepDocument, read_sweep
from kubesched.validation import MANIFEST

Document = SimulationDocument | ComparisonDocument | SweepDocument

KINDS = ("SimulationResult", "Comparison")
#: A result nests a few levels (an explained attempt's scores: six); far deeper is not a result.
YAML_RULES = yaml_reader.YamlRules(100, "nesting deeper than {limit} levels")
_WHAT = ("kubesched report reads SimulationResult and Comparison documents (simulate and compare -o json|yaml) "
         "and sweeps' .parquet files")


def read_results(paths: Sequence[str]) -> list[Document]:
    """Every file read, in order; an :class:`InputErrorList` holding every problem of every file when any has
    one."""
    documents: list[Document] = []
    errors: list[InputError] = []
    for path in paths:
        document, problems = read_result(Path(path), path)
        errors.extend(problems)
        if document is not None:
            documents.append(document)
    if errors:
        raise InputErrorList(errors)
    return documents


def read_result(path: Path, source: str) -> tuple[Document | None, list[InputError]]:
    """One file, its kind told by its suffix (``.parquet``) or its ``kind`` key."""
    if not path.is_file():
        return None, [InputError("no such file" if not path.exists() else "not a file", file=source)]
    if path.suffix == ".parquet":
        return read_sweep(path, source)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [InputError(f"cannot be read: {exc}", file=source)]
    document, problem = _parse(text)
    if problem is not None:
        return None, [InputError(problem, file=source)]
    if not isinstance(document, Mapping):
        return None, [InputError(f"expected a result document (an object with a kind), not "
                                 f"{MANIFEST.show(document)}; {_WHAT}", file=source)]
    kind = document.get("kind")
    if kind not in KINDS:
        shown = "missing" if kind is None else f"{MANIFEST.show(kind)} is not a result kind"
        return None, [InputError(f"{shown}; {_WHAT}", file=source, field="kind")]
    check = Checker(source, str(kind))
    read = read_simulation if kind == "SimulationResult" else read_comparison
    result = read(document, source, check)
    return (None, check.errors) if check.errors else (result, [])


def _parse(text: str) -> tuple[Any, str | None]:
    """A document as JSON when it opens like JSON (fast for large results), else as YAML; or the parse error."""
    if text.lstrip().startswith(("{", "[")):
        try:
            return json.loads(text), None
        except json.JSONDecodeError as exc:
            return None, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
    try:
        documents = list(yaml_reader.documents(text, YAML_RULES))
    except yaml_reader.YamlError as exc:
        return None, str(exc)
    if len(documents) != 1:
        return None, f"holds {len(documents)} YAML documents; a result file holds one"
    return documents[0], None
