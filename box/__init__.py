"""Gravebox: a Raspberry Pi game box for four party games about death."""

from box.files.classcode import ClassCode

__version__ = "0.1.0"

CLASS_CODE = ClassCode.install()  # the dataclasses' methods compiled once, kept between starts (box/files/classcode.py)
