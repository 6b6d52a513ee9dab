"""Gravebox: a Raspberry Pi game box for four party games about death."""

__version__ = "0.1.0"
