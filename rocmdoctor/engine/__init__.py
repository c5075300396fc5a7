"""Compile, collect, evaluate, triage, remediate: the core every front end calls
(through engine.core)."""
