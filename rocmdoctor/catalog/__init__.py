"""Definitions: checks, runbooks and data files as YAML with line numbers, their
schemas, and the sandboxed expressions they hold. Imports nothing above evidence/ and parsers/."""
