"""The one safe YAML reader, for manifests and kube-scheduler configurations alike, reading YAML as Kubernetes
does: timestamps stay strings, nesting is bounded before any recursion runs out, over-long integers are kept
as text or refused, and a scalar its tag cannot hold is a located error. Each caller picks its limits and
wording with :class:`YamlRules`; every failure is one :class:`YamlError` line.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import attrs
import yaml

from kubesched.validation import HugeInteger, escape, quote, refused_integer

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


@attrs.frozen
class YamlRules:
    """What one kind of YAML file allows: how deep it may nest (and the words for it), and how long an integer
    is read as a number; a longer one is a :class:`HugeInteger` (None: numbers up to Python's limit, and an
    error past it)."""

    max_depth: int
    #: The problem text when nesting is too deep, formatted with ``limit``.
    too_deep: str
    max_integer_digits: int | None = None

    @property
    def depth_problem(self) -> str:
        """The problem text for nesting past :attr:`max_depth`."""
        return self.too_deep.format(limit=self.max_depth)


class YamlError(ValueError):
    """Text that is not the YAML it should be; the message says where (``invalid YAML at line L column C: ...``)."""


def documents(text: str, rules: YamlRules) -> Iterator[Any]:
    """Each document of ``text`` in turn (None for an empty one); raise :class:`YamlError` at the first problem,
    after yielding the documents before it."""
    loader: yaml.SafeLoader | None = None
    try:
        loader = _loader(rules)(text)  # reading starts here: an unprintable character fails at once
        while loader.check_data():  # type: ignore[no-untyped-call]
            yield loader.get_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split()) or "cannot be parsed"
        raise YamlError(f"invalid YAML{where}: {_printable(problem)}") from None
    except RecursionError:
        raise YamlError(f"invalid YAML: {rules.depth_problem}") from None
    except (ValueError, LookupError, TypeError) as exc:  # a last resort: the loader locates the ones it knows of
        raise YamlError(f"invalid YAML: {_printable(str(exc))}") from None
    finally:
        if loader is not None:
            loader.dispose()


def _printable(text: str) -> str:
    """``text`` with only its non-printable characters escaped (parser messages quote their own values)."""
    return text if text.isprintable() else "".join(c if c.isprintable() else escape(c) for c in text)


@functools.cache
def _loader(rules: YamlRules) -> type[yaml.SafeLoader]:
    """PyYAML's safe loader, changed as :mod:`this module <kubesched.io.yaml_reader>` says, for ``rules``."""

    class Loader(yaml.SafeLoader):
        yaml_implicit_resolvers = {  # noqa: RUF012 - PyYAML's class-level table, replaced for this class only
            first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
            for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
        }

        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self.depth = 0

        def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
            self.depth += 1
            try:
                if self.depth > rules.max_depth:
                    mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                    raise yaml.composer.ComposerError(None, None, rules.depth_problem, mark)
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_bounded_int(self, node: yaml.ScalarNode) -> int | HugeInteger:
            """An integer, or its text past the rules' digits (int() would refuse or crawl)."""
            text = str(self.construct_scalar(node))
            if rules.max_integer_digits is not None and len(text) > rules.max_integer_digits:
                return HugeInteger(text.replace("_", ""))
            return self.construct_yaml_int(node)

        def construct_text(self, node: yaml.ScalarNode) -> str:
            """A scalar as its text, whatever its tag says."""
            return str(self.construct_scalar(node))

        def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
            """A node's value; a scalar its tag cannot hold (``!!int abc``, ``!!bool maybe``) is a located error."""
            try:
                return super().construct_object(node, deep)
            except (ValueError, LookupError, TypeError, OverflowError) as exc:
                shown = quote(node.value) if isinstance(node.value, str) else "this value"
                problem = (refused_integer(exc)
                           or f"{shown} is not a valid {escape(node.tag.replace('tag:yaml.org,2002:', '!!'))}")
                raise yaml.constructor.ConstructorError(None, None, problem, node.start_mark) from None

    Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_bounded_int)
    # An explicit !!timestamp stays a string too: the time field reads it, with the API server's checks.
    Loader.add_constructor(_TIMESTAMP, Loader.construct_text)
    return Loader
