"""Simulated incident nodes: fake /sys, /proc, /dev, /etc trees with stub tools that
print real-format output. Behind `demo:NAME` targets and the tests."""
