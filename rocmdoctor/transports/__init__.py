"""Transports: how commands reach a node (local, SSH, replay from a bundle)."""

from rocmdoctor.transports.base import Transport

__all__ = ["Transport"]
