"""The typer command line: thin commands over engine.core, fleet and incident."""
