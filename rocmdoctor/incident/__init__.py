"""The incident journal (append-only, flushed per event) and the postmortem draft built from it."""
