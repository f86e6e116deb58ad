"""``kubesched run``: schedule a real cluster's pods through its API server.

One module per job: :mod:`.rest` (HTTP to the API server, kubeconfig and in-cluster config), :mod:`.informer`
(list+watch reflectors), :mod:`.cluster` (the backend contract over the informers' stores and the API),
:mod:`.binder` (pods/binding and conflicts), :mod:`.events` (events.k8s.io/v1 recorder), :mod:`.leader` (Lease
leader election), :mod:`.server` (health and metrics endpoints), :mod:`.metrics` and :mod:`.run` (the loop that ties
them together). Needs the ``kube`` extra.
"""
