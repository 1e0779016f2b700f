"""ropecheck's version (one place; the package metadata and ``ropecheck --version`` read it)."""

__all__ = ["__version__"]

__version__ = "0.1.0"
