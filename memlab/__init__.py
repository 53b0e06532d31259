"""memlab: a research toolkit for agent memory search."""

__version__ = "0.1.0"
