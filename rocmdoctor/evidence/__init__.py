"""What is gathered from a node and how it is kept: the one probe script and its
framing, evidence bundles, redaction. The lowest layer after the shared value objects."""
