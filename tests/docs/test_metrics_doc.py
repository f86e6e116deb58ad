"""docs/metrics.md: its command runs as shown, its JSON excerpt is what that run prints, and it names every
metric kubesched exports."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families

from kubesched.cli.main import main
from kubesched.metrics import SPECS
from tests.conftest import REPO

DOC = (REPO / "docs" / "metrics.md").read_text(encoding="utf-8")
#: The page with every run of whitespace as one space (its JSON excerpt wraps long samples).
FLAT = re.sub(r"\s+", " ", DOC)
COMMAND = re.search(r"```sh\n(kubesched simulate .*)\n```", DOC)


def run_documented_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[dict[str, object]]]:
    """The page's command, run from a scratch folder with the repository's examples; returns the JSON metrics."""
    assert COMMAND is not None
    args = shlex.split(COMMAND.group(1))[1:]
    args = [str(REPO / a) if a.startswith("examples/") else a for a in args]
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    metrics: dict[str, list[dict[str, object]]] = json.loads(result.stdout)["metrics"]
    return metrics


def test_documented_json_excerpt_is_what_the_command_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every counter, gauge and victims sample of the excerpt is the run's, written as the page writes it."""
    metrics = run_documented_command(tmp_path, monkeypatch)
    for name in ("scheduler_schedule_attempts_total", "scheduler_preemption_attempts_total",
                 "scheduler_preemption_victims", "scheduler_queue_incoming_pods_total"):
        for sample in metrics[name]:
            assert json.dumps(sample) in FLAT, (name, sample)
    assert ", ".join(json.dumps(sample) for sample in metrics["scheduler_pending_pods"]) in FLAT
    [sli] = metrics["scheduler_pod_scheduling_sli_duration_seconds"]
    assert f'{{"labels": {json.dumps(sli["labels"])}' in DOC
    assert f'"count": {sli["count"]}, "sum": {sli["sum"]}}}' in DOC


def test_documented_command_writes_the_metrics_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """metrics.prom appears in the working folder, with every metric of the page."""
    run_documented_command(tmp_path, monkeypatch)
    names = {f.name for f in text_string_to_metric_families((tmp_path / "metrics.prom").read_text(encoding="utf-8"))}
    assert names == {spec.name.removesuffix("_total") for spec in SPECS}


@pytest.mark.parametrize("name", [spec.name for spec in SPECS])
def test_page_lists_every_metric(name: str) -> None:
    """The metrics table has a row for each exported metric."""
    assert f"| `{name}` |" in DOC
