"""Read manifest files into documents: paths expanded, YAML or JSON parsed within depth and size limits, and
``List`` wrappers flattened into their items. What the objects mean is :mod:`kubesched.io.load`'s job."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from kubesched.errors import InputError
from kubesched.io import json_reader, yaml_reader
from kubesched.io.fields import is_mapping
from kubesched.io.read import STDIN as STDIN
from kubesched.io.read import UnreadableFileError, decode_text, read_bytes
from kubesched.io.yaml_reader import YamlRules
from kubesched.validation import MANIFEST, escape

#: How errors name standard input (the path ``-``).
STDIN_NAME = "<stdin>"
#: Deepest nesting of objects and lists read; manifests nest about 15 levels, and deeper input would exhaust
#: the parsers' recursion.
MAX_DEPTH = 100
#: Longest integer literal converted; Python refuses more than 4300 digits, apimachinery more than 19.
MAX_INTEGER_DIGITS = 1000

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


@attrs.define
class Document:
    """One parsed YAML or JSON document of a file: the file's display name, its index there, the data."""

    file: str
    index: int
    data: object


def display(path: Path | str) -> str:
    """How errors name ``path`` (``<stdin>`` for ``-``), escaped for the terminal."""
    return STDIN_NAME if str(path) == STDIN else escape(str(path))


def expand_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[InputError], set[Path]]:
    """The manifest files of ``paths`` (directories expanded recursively, sorted; ``-`` kept), an error per
    missing path or directory without manifests, and which files were found in a directory (not named)."""
    files: list[Path] = []
    errors: list[InputError] = []
    in_directories: set[Path] = set()
    paths = list(paths)
    for raw in paths:
        if str(raw) == STDIN:
            files.append(Path(STDIN))
            continue
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in MANIFEST_SUFFIXES)
            if not found:
                errors.append(InputError("no manifest files (.yaml, .yml, .json) in this directory",
                                         file=display(path)))
            files.extend(found)
            in_directories.update(found)
        elif path.exists():
            files.append(path)
        else:
            errors.append(InputError("no such file or directory", file=display(path)))
    named = {Path(p) for p in paths if str(p) != STDIN}
    # A file both named and inside a named folder is read once.
    return list(dict.fromkeys(files)), errors, in_directories - named


def is_manifest(data: object) -> bool:
    """Whether a parsed document is meant as a Kubernetes object: a mapping with a ``kind`` or an ``apiVersion``
    (one missing either is reported as such; a document with neither is some other file's content)."""
    return is_mapping(data) and ("kind" in data or "apiVersion" in data)


#: How manifests' YAML is read.
YAML_RULES = YamlRules(MAX_DEPTH, "nesting deeper than {limit} levels", MAX_INTEGER_DIGITS)


def _read(file: Path) -> tuple[str, bytes]:
    """The file's display name and bytes (standard input for ``-``)."""
    name = display(file)
    try:
        return name, read_bytes(file)
    except UnreadableFileError as exc:
        raise InputError(escape(str(exc)), file=name) from None


def _text(name: str, data: bytes) -> str:
    """``data`` as UTF-8 text (decoded here for standard input too: a text stdin may decode leniently and hide
    bad UTF-8)."""
    try:
        return decode_text(data)
    except UnreadableFileError as exc:
        raise InputError(escape(str(exc)), file=name) from None


#: The ASCII characters str.isspace counts, for sniffing ASCII standard input as its text would be.
_ASCII_SPACE = bytes(c for c in range(128) if chr(c).isspace())


def _is_json(file: Path, data: bytes, text: str | None) -> bool:
    """Whether ``file`` is read as JSON: by suffix, or for standard input by its first character (``text`` is
    its text, None for ASCII ``data``)."""
    if str(file) == STDIN:
        # kubectl's sniffing: JSON starts with a brace (YAML documents then read as YAML).
        if text is None:
            return data.lstrip(_ASCII_SPACE).startswith(b"{")
        return text.lstrip().startswith("{")
    return file.suffix == ".json"


def documents(file: Path) -> Iterator[Document]:
    """The non-empty documents of ``file``, parsed; an unreadable or malformed file raises one InputError."""
    name, data = _read(file)
    # UTF-8 checked first, for JSON too (msgspec is handed only valid UTF-8); ASCII is valid as it is.
    text = None if data.isascii() else _text(name, data)
    if _is_json(file, data, text):
        text = None  # msgspec reads the bytes
        try:
            yield Document(name, 0, json_reader.loads(data, MAX_DEPTH, MAX_INTEGER_DIGITS))
        except json_reader.JsonError as exc:
            raise InputError(str(exc), file=name) from None
        return
    if text is None:
        text = data.decode("ascii")
    del data
    index = 0
    try:
        for value in yaml_reader.documents(text, YAML_RULES):
            if value is not None:
                yield Document(name, index, value)
            index += 1
    except yaml_reader.YamlError as exc:
        raise InputError(str(exc), file=name) from None


def expand_lists(doc: Document) -> Iterator[tuple[str, int, Mapping[str, Any]]]:
    """Yield (position, item index, object) for a document, flattening ``List`` and ``<Kind>List`` wrappers."""
    position = f"document {doc.index + 1}"
    if not is_mapping(doc.data):
        raise InputError(f"{position}: must be a Kubernetes object, not {MANIFEST.describe(doc.data)}", file=doc.file)
    kind = doc.data.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and "items" in doc.data:
        items = doc.data.get("items") or []
        if not isinstance(items, list):
            raise InputError(f"{position}: items: must be a list, not {MANIFEST.describe(items)}", file=doc.file)
        item_kind = kind[: -len("List")] or None
        for i, item in enumerate(items):
            items[i] = None  # the raw item is the caller's now, and goes once decoded
            if isinstance(item, Mapping) and "kind" not in item and item_kind:
                item = {**item, "kind": item_kind}
            yield f"{position}, items[{i}]", i, item
    else:
        yield position, 0, doc.data
