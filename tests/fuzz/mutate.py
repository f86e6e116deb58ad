"""A small seeded mutation fuzzer for kubesched's inputs: YAML manifests and scenarios, TOML profiles and
KubeSchedulerConfiguration files.

Each mutant is one seed document changed once or a few times, either in its structure (a value replaced by an
extreme or ill-typed one, a key dropped or misspelt, a list item doubled, a value moved elsewhere) or in its text
(a line dropped or doubled, a character inserted, the file cut short). The same seed gives the same mutants.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

import yaml

from kubesched.profiles import toml_writer

#: Values that have broken parsers and clocks before: the integer and float edges, time extremes, long and hostile
#: strings, and every other type.
INTERESTING: tuple[Any, ...] = (
    0, -1, 1, 2**31 - 1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30, 0.5, -0.0, 1e308, float("inf"),
    float("nan"), "", "0", "-1", "1e9", "2x", "NaN", "x" * 300, "\x1b[2J", "[/x]", "a\nb", "\u202e", "\ud800",
    "99999999999h", "2562047h", "1ns", "-5m", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
    "*/1 * * * *", "@yearly", "0 0 30 2 *", "Etc/GMT+12", "*", "default", True, False, None, [], {},
    [None], {"": None}, ["x" * 50] * 3,
)
_Path = tuple[Any, ...]


def _paths(node: Any, path: _Path = ()) -> Iterator[_Path]:
    """Every place in a parsed document a value sits, depth first."""
    yield path
    if isinstance(node, dict):
        for key, child in node.items():
            yield from _paths(child, (*path, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _paths(child, (*path, index))


def _get(node: Any, path: _Path) -> Any:
    for step in path:
        node = node[step]
    return node


def _set(root: Any, path: _Path, value: Any) -> Any:
    if not path:
        return value
    _get(root, path[:-1])[path[-1]] = value
    return root


class Mutator:
    """Mutants of seed documents, from one random generator (so a seed names a corpus)."""

    def __init__(self, seed: int, *, allow_none: bool = True) -> None:
        self.rng = random.Random(seed)
        self.allow_none = allow_none

    def _interesting(self) -> Any:
        value = self.rng.choice(INTERESTING)
        if value is None and not self.allow_none:
            return "null"
        return value.copy() if isinstance(value, list | dict) else value

    def structure(self, document: Any) -> Any:
        """``document`` (parsed, then copied) with one structural change."""
        root = copy.deepcopy(document)
        paths = list(_paths(root))
        path = self.rng.choice(paths)
        parent = _get(root, path[:-1]) if path else None
        kind = self.rng.randrange(6)
        if kind == 0 or not path:
            return _set(root, path, self._interesting())
        if kind == 1 and isinstance(parent, dict):
            del parent[path[-1]]
        elif kind == 2 and isinstance(parent, dict):
            key = path[-1]
            spelt = str(key)[:-1] + self.rng.choice("xyZ_-") if str(key) else "x"
            parent[spelt] = parent.pop(key)
        elif kind == 3 and isinstance(parent, list):
            parent.insert(path[-1], _get(root, path))
        elif kind == 4:
            other = _get(root, self.rng.choice(paths))
            _set(root, path, copy.deepcopy(other))
        else:
            _set(root, path, self._interesting())
        return root

    def text(self, text: str) -> str:
        """``text`` with one textual change."""
        lines = text.splitlines(keepends=True) or [""]
        kind = self.rng.randrange(5)
        at = self.rng.randrange(len(lines))
        if kind == 0:
            del lines[at]
        elif kind == 1:
            lines.insert(at, lines[at])
        elif kind == 2:
            position = self.rng.randrange(len(text) + 1)
            return text[:position] + self.rng.choice(["\x00", "\x1b", "{", "[", ":", "'", '"', "&a", "*a", "\t",
                                                      "- ", "#", "\\", "\ufeff", "=", "9" * 30]) + text[position:]
        elif kind == 3:
            return text[:self.rng.randrange(len(text) + 1)]
        else:
            lines[at] = lines[at].replace(":", ": !!binary", 1) if self.rng.random() < 0.1 else lines[at][::-1]
        return "".join(lines)

    def mutants(self, seeds: list[str], count: int, parse: Callable[[str], Any],
                dump: Callable[[Any], str]) -> Iterator[str]:
        """``count`` mutants of the seed texts: mostly structural (1 to 3 changes), a quarter textual."""
        for _ in range(count):
            seed = self.rng.choice(seeds)
            if self.rng.random() < 0.25:
                yield self.text(seed)
                continue
            document = parse(seed)
            for _ in range(self.rng.randint(1, 3)):
                document = self.structure(document)
            try:
                yield dump(document)
            except (ValueError, TypeError, OverflowError, yaml.YAMLError):  # a value the writer cannot hold
                yield self.text(seed)


def parse_yaml(text: str) -> list[Any]:
    """The documents of a YAML stream."""
    return list(yaml.safe_load_all(text))


def dump_yaml(documents: Any) -> str:
    """A YAML stream of the documents (a list of them)."""
    return yaml.safe_dump_all(documents if isinstance(documents, list) else [documents], allow_unicode=True)


def dump_toml(document: Any) -> str:
    """A TOML document; a root that is no table is written as a key of one."""
    return toml_writer.dumps(document if isinstance(document, dict) else {"value": document})
