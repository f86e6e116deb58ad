"""The API server's admission of pods, as the v1.32 API server's default plugins do it on creation, each plugin in
its own module: LimitRanger, Priority, DefaultTolerationSeconds, RuntimeClass and ResourceQuota; chain.py runs them
in the API server's order, errors.py words a refusal as the API server does.

The loader admits the pods an input creates, the simulation the pods its scenario steps and controllers create;
pods a dump shows as admitted already (with ``spec.priority``) are taken as they are.
"""
