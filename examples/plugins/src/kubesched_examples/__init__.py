"""Example third-party kubesched plugins: NodeLabelPlacement (Filter, Score) and Coscheduling (gang Permit).

Both register in the ``kubesched.plugins`` entry-point group of this distribution's ``pyproject.toml``.
"""

from kubesched_examples.coscheduling import Coscheduling, CoschedulingArgs
from kubesched_examples.node_label_placement import NodeLabelPlacement, NodeLabelPlacementArgs

__all__ = ["Coscheduling", "CoschedulingArgs", "NodeLabelPlacement", "NodeLabelPlacementArgs"]
