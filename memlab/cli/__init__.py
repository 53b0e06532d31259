"""memlab's command line (``memlab VERB ...``): one module per verb group.

:mod:`~memlab.cli.main` (the parser, :func:`main` and its exit codes),
:mod:`~memlab.cli.search` (``search``, ``index``, ``status``), :mod:`~memlab.cli.eval`,
:mod:`~memlab.cli.demo`, :mod:`~memlab.cli.export`, :mod:`~memlab.cli.sweep`,
:mod:`~memlab.cli.bench` (``bench-providers``), :mod:`~memlab.cli.serve_embeddings`,
:mod:`~memlab.cli.output` (the plain search output). ``python -m memlab.cli`` runs :func:`main`.
"""

from memlab.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
