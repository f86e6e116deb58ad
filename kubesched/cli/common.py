"""What every command shares: user errors as clean lines on stderr, profiles loaded with their warnings, and a
Scenario file told apart from manifests."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from kubesched.errors import InputError, KubeschedError
from kubesched.io.load import InputErrorList
from kubesched.profiles import SchedulerConfiguration, load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.scenario import is_scenario_file, load_scenario
from kubesched.sim.scenario_steps import Scenario
from kubesched.validation import LINE_MAX, terminal


def error_lines(exc: KubeschedError) -> list[str]:
    """The error's lines: one per problem of an input error list, else its message's lines."""
    return [str(e) for e in exc.errors] if isinstance(exc, InputErrorList) else str(exc).splitlines() or [""]


def fail(*errors: KubeschedError) -> NoReturn:
    """Print every problem of ``errors`` as an ``error:`` line (escaped, cut) on stderr and exit 1."""
    for exc in errors:
        for line in error_lines(exc):
            click.echo(terminal(f"error: {line}", LINE_MAX), err=True)
    sys.exit(1)


def load_profile(spec: str, registry: PluginRegistry | None = None) -> SchedulerConfiguration:
    """Load a profile and print its warnings (settings read but not honoured) on stderr."""
    config = load_config(spec, registry or PluginRegistry.discover())
    for warning in config.warnings:
        click.echo(terminal(f"warning: {warning}", LINE_MAX), err=True)
    return config


def scenario_of(inputs: list[str]) -> Scenario | None:
    """The scenario when the input is a Scenario file (detected by its kind), which must then be the only input."""
    found = [p for p in inputs if p != "-" and is_scenario_file(Path(p))]
    if not found:
        return None
    if len(inputs) > 1:
        raise InputErrorList([InputError("a Scenario file must be the only input (its steps name the manifests "
                                         "they create)", file=found[0])])
    return load_scenario(Path(found[0]))
