"""ropecheck's version (one place; the package metadata and ``ropecheck --version`` read it).

Semantic versioning (MAJOR.MINOR.PATCH): while the major version is 0, a minor release may
change a contract (the canonical protocol, the exit codes, the verdict names, the JSON
schemas) and says so in ``.github/CHANGELOG.md``; a patch release changes none of them.
"""

__all__ = ["__version__"]

__version__ = "0.2.0"
