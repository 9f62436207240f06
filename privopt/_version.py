"""The package version (one place; ``privopt.__version__`` and every JSON document read it)."""

__version__ = "0.1.0"
