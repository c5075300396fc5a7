"""rocmdoctor: incident runbooks and diagnostics for AMD GPU nodes under ROCm."""

__version__ = "0.1.0"
