"""The parameter columns of a sweep's rows (docs/sweep.md), named once for the sweep that writes them and the
report that reads them; every other column holds a run metric."""

from __future__ import annotations

#: A cell's parameter columns, in row order: before the varied plugin args, then after them.
LEADING = ("cell", "input", "inputKind", "inputDigest", "profile", "profileDigest")
TRAILING = ("seed", "repetition", "runSeed", "kubeschedVersion", "error")
#: The prefix of a varied plugin arg's column (``args.NodeResourcesFit.scoringStrategy.type``).
ARGS_PREFIX = "args."
#: Every fixed parameter column.
PARAMETER_COLUMNS = frozenset((*LEADING, *TRAILING))
