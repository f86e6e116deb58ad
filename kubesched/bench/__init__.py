"""``kubesched bench``: scheduler_perf's workloads run in memory on the simulator, with throughput, latency,
peak memory and a digest of every scheduling decision."""

from kubesched.bench.harness import BenchResult, DecisionLog, Progress, run_bench
from kubesched.bench.workloads import WORKLOADS, BenchError, Workload, workload

__all__ = ["WORKLOADS", "BenchError", "BenchResult", "DecisionLog", "Progress", "Workload", "run_bench", "workload"]
