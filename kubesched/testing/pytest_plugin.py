"""kubesched's pytest plugin (registered through the ``pytest11`` entry point).

``pytest --kubesched-conformance NAME[:ARGS.toml][@CLUSTER.yaml]`` adds the conformance suite for the installed
plugin NAME to the run, one test per check (``conformance[NAME...]::<check id>``), with args from a TOML file and
the example cluster from manifests (as ``kubesched conformance --args/--cluster``); repeat the option for several
plugins.
Subclassing :class:`kubesched.testing.PluginConformance` in your own tests works with or without this plugin.
The terminal summary lists the checks' warnings and, for each plugin checked, what keeps it off the fast path.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from kubesched.errors import KubeschedError
from kubesched.testing.conformance.checks import CHECKS, Check
from kubesched.testing.conformance.report import Outcome, run_check
from kubesched.testing.conformance.subject import DEFAULT_TIME_BUDGET, PluginUnderTest
from kubesched.testing.conformance.suite import FAST_PATH, NOTES


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--kubesched-conformance`` and ``--kubesched-time-budget-ms`` options."""
    group = parser.getgroup("kubesched", "kubesched plugin conformance")
    group.addoption("--kubesched-conformance", action="append", default=[],
                    metavar="PLUGIN[:ARGS.toml][@CLUSTER.yaml]",
                    help="run the conformance suite on an installed kubesched plugin, with args from a TOML file "
                         "and the example cluster from a manifest file")
    group.addoption("--kubesched-time-budget-ms", type=float, default=None, metavar="MS",
                    help="per-call Filter/Score budget: over it the time-budget check warns, over ten times it "
                         "fails (default 0.5)")


class ConformanceFailure(Exception):  # noqa: N818 - an outcome, like pytest's Failed
    """A failed conformance check, reported as its detail without a traceback."""


class ConformanceItem(pytest.Item):
    """One conformance check on one installed plugin."""

    def __init__(self, *, spec: str, subject: PluginUnderTest, check: Check, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.subject = subject
        self.check = check

    def runtest(self) -> None:
        """Run the check: a failure raises, a skip skips, a warning warns."""
        FAST_PATH.setdefault(f"conformance[{self.spec}]", self.subject.fast_path.sentences)
        result = run_check(self.check, self.subject)
        if result.outcome is Outcome.FAILED:
            raise ConformanceFailure(result.detail)
        if result.outcome is Outcome.SKIPPED:
            pytest.skip(result.detail)
        if result.outcome is Outcome.WARNED:
            NOTES.append(f"{self.name}: {result.detail}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        """The check's detail for its own failures; pytest's usual report for anything else."""
        if isinstance(excinfo.value, ConformanceFailure):
            return f"{self.check.id} ({self.check.title}): {excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Any, int | None, str]:
        """Where pytest says the test is: the plugin and check."""
        return self.path, None, self.name


def parse_spec(spec: str) -> tuple[str, str | None, str | None]:
    """``NAME[:ARGS.toml][@CLUSTER.yaml]`` as (name, args file, cluster file); a plugin name holds neither
    ``:`` nor ``@``, and the cluster file starts after the first ``@`` that follows the name."""
    name_end = min((i for i in (spec.find(":"), spec.find("@")) if i >= 0), default=len(spec))
    name, rest = spec[:name_end], spec[name_end:]
    args_part, _at, cluster = rest.partition("@")
    return name, args_part[1:] or None, cluster or None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Append one item per check for every plugin named with ``--kubesched-conformance``."""
    from kubesched.testing.conformance.installed import installed_subject

    budget_ms = config.getoption("kubesched_time_budget_ms")
    budget = budget_ms / 1000 if budget_ms is not None else DEFAULT_TIME_BUDGET
    if budget_ms is not None and not (math.isfinite(budget_ms) and budget_ms > 0):
        raise pytest.UsageError(f"--kubesched-time-budget-ms: {budget_ms} is not a positive number of milliseconds")
    seen: set[str] = set()
    for raw in config.getoption("kubesched_conformance"):
        spec = raw.rstrip(":")
        if spec in seen:
            continue
        seen.add(spec)
        name, args_file, cluster = parse_spec(spec)
        try:
            subject = installed_subject(name, args_file, cluster=[cluster] if cluster else [], time_budget=budget)
        except KubeschedError as exc:
            raise pytest.UsageError(f"--kubesched-conformance {spec}: {exc}") from None
        for check in CHECKS:
            test_id = f"conformance[{spec}]::{check.id}"
            items.append(ConformanceItem.from_parent(session, name=test_id, nodeid=test_id, spec=spec,
                                                     subject=subject, check=check))


def pytest_sessionstart(session: pytest.Session) -> None:
    """Start each session with no conformance warnings or fast path notes (pytest.main may run several in one
    process)."""
    NOTES.clear()
    FAST_PATH.clear()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """List the conformance warnings (time budget, hooks never reached) of this run, if any, then what keeps each
    plugin checked off the fast path (informational), for the plugins with something to say."""
    if NOTES:
        terminalreporter.section("kubesched conformance warnings")
        for note in NOTES:
            terminalreporter.write_line(note)
    off = {plugin: sentences for plugin, sentences in FAST_PATH.items() if sentences}
    if off:
        terminalreporter.section("kubesched fast path (informational)")
        for plugin, sentences in off.items():
            terminalreporter.write_line(f"{plugin}: off the fast path in part")
            for sentence in sentences:
                terminalreporter.write_line(f"  {sentence}")
