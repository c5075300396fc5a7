"""Renderers: SimGPU state -> the exact text a real tool prints (one module per tool)."""
