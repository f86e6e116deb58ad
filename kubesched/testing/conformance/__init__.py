"""The plugin conformance suite: checks that a plugin honours the framework's contract.

Use it as a base test class (:class:`PluginConformance`), through the pytest plugin
(``pytest --kubesched-conformance NAME``) or from the command line (``kubesched conformance NAME``).
"""

from kubesched.testing.conformance.checks import CHECKS, CHECKS_BY_ID, Check, CheckFailed, CheckSkipped
from kubesched.testing.conformance.recorder import HookRaised
from kubesched.testing.conformance.report import CheckResult, ConformanceReport, Outcome, run_check, run_conformance
from kubesched.testing.conformance.subject import PluginUnderTest
from kubesched.testing.conformance.suite import ConformanceWarning, PluginConformance

__all__ = ["CHECKS", "CHECKS_BY_ID", "Check", "CheckFailed", "CheckResult", "CheckSkipped", "ConformanceReport",
           "ConformanceWarning", "HookRaised", "Outcome", "PluginConformance", "PluginUnderTest", "run_check",
           "run_conformance"]
