"""Sweeps across many hosts: host lists, inventories, the fan-out, Slurm drain, NPD, sweep outputs."""
