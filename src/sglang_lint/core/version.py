"""This package's version (a leaf: the caches and the output formats read it)."""

__version__ = "0.1.0"
