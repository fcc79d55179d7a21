"""The package version, at the bottom of the package so every stage can record it."""

__version__ = "0.1.0"
