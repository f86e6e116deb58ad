"""Start-up: a ``simulate`` of a small file imports only what it uses. The table pulls in rich, a JSON input
msgspec; none pulls in the kube client, prometheus-client, the report's or the sweep's libraries, or the other
commands' packages. numpy stays:
the scheduler's batch path computes with it on every run (kubesched/runtime, kubesched/framework)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO

pytestmark = pytest.mark.slow

WATCHED = ("rich", "msgspec", "prometheus_client", "urllib3", "kubernetes", "pyarrow", "plotly", "dask", "numpy",
           # the other commands' own packages
           "kubesched.capacity", "kubesched.sweep", "kubesched.report", "kubesched.kube")

#: Runs the command in this interpreter, then names the watched top-level modules it imported.
PROBE = """
import sys
from kubesched.cli.main import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    print(" ".join(m for m in {watched!r} if m in sys.modules), file=sys.stderr)
"""


def imported(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(watched=WATCHED), *args], cwd=REPO, timeout=120,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    return set(done.stderr.splitlines()[-1].split())


@pytest.fixture
def quickstart_json(tmp_path: Path) -> str:
    documents = [d for d in yaml.safe_load_all((REPO / "examples/quickstart.yaml").read_text()) if d]
    path = tmp_path / "quickstart.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": documents}))
    return str(path)


@pytest.mark.parametrize(("output", "expected"), [
    pytest.param("json", {"numpy"}, id="json-output-no-rich"),
    pytest.param("yaml", {"numpy"}, id="yaml-output-no-rich"),
    pytest.param("table", {"numpy", "rich"}, id="table-output-rich"),
])
def test_small_yaml_simulate_imports_only_what_it_uses(output: str, expected: set[str]) -> None:
    assert imported("simulate", "examples/quickstart.yaml", "-o", output) == expected


def test_json_input_adds_only_its_parser(quickstart_json: str) -> None:
    assert imported("simulate", quickstart_json, "-o", "json") == {"numpy", "msgspec"}
