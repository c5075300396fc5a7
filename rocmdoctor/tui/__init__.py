"""The Textual incident TUI (`rocmdoctor tui TARGET`).

Imported only by the `tui` command: Textual is heavy and the rest of the CLI
must start fast. app.py holds the App and its messages; each widget or screen
has its own module; session.py is the non-UI part that talks to the node.
"""
