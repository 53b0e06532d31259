"""``memlab shell``: many searches in one process, so the embedding model loads once.

    memlab shell WORKSPACE [the options of memlab search] < queries.txt
    memlab shell WORKSPACE            # in a terminal: a ``memlab>`` prompt, Ctrl-D ends

Each non-blank line read from stdin is one query, run exactly as ``memlab search WORKSPACE
LINE`` with the same options runs it (:func:`memlab.cli.search.run_search`: config, index sync,
pipeline, output), so each query's output is what that command prints; only the process is
shared. The local embedding model is loaded by the first query that embeds a text and stays
loaded (memlab.embed.local keeps it per model and device), and so do the imported modules.
With ``--json`` each query prints its JSON document (as ``memlab search --json`` does, a stream
of documents that ``jq`` and ``json.JSONDecoder.raw_decode`` read one after another); in text
mode an empty line follows each query's results.

A failed query prints its error as ``memlab search`` would and the shell goes on; the exit code
is 0 when every query succeeded, else the code of the first one that failed. A config error
ends the shell at once (every later query would fail the same way). In a terminal, Ctrl-C
cancels the current query or line and Ctrl-D ends the shell.

Why a shell rather than ``memlab search`` reusing a running ``memlab serve-embeddings``: the
query vector comes from the very model object ``memlab search`` would load, so results are the
same bits without an identity or parity check over HTTP (the server's vectors differ from
local ones by ~5e-7), and nothing listens on a port.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from memlab.cli.errors import report_error
from memlab.cli.search import add_search_options, run_search
from memlab.config import ConfigError

__all__ = ["add_shell_parser", "queries", "run_shell"]

PROMPT = "memlab> "


def queries(stream: TextIO, interactive: bool = False) -> Iterator[str]:
    """The queries of ``stream``: each non-blank line without its line break (spaces kept, as
    a command-line argument keeps them). ``interactive``: read with :func:`input` (line editing
    and the ``memlab>`` prompt).

    >>> list(queries(io.StringIO("staging host\\n\\n  deploy keys \\r\\nlast")))
    ['staging host', '  deploy keys ', 'last']
    """
    if interactive:
        while True:
            try:
                line = input(PROMPT)
            except EOFError:
                print(file=sys.stderr)  # leave the terminal on a fresh line
                return
            except KeyboardInterrupt:  # Ctrl-C at the prompt: a new line, as shells do
                print(file=sys.stderr)
                continue
            if line.strip():
                yield line
        return
    for line in stream:
        line = line.rstrip("\r\n")
        if line.strip():
            yield line


def run_shell(args: argparse.Namespace, stream: TextIO | None = None) -> int:
    """Run :func:`memlab.cli.search.run_search` for each query of ``stream`` (default stdin),
    with ``args`` as ``memlab search`` parsed them; the exit code as described in the module.

    >>> import contextlib
    >>> from memlab.cli.main import build_parser
    >>> args = build_parser().parse_args(["shell", "datasets/sample-memory/workspace",
    ...                                   "--no-index", "--json"])
    >>> args.config = {"memorySearch": {"provider": "none"}}
    >>> with contextlib.redirect_stdout(io.StringIO()) as out:
    ...     code = run_shell(args, io.StringIO("staging database host\\nbilling cutover\\n"))
    >>> code
    0
    >>> out.getvalue().count('"results"')
    2
    """
    interactive = stream is None and sys.stdin.isatty()
    if stream is None:
        stream = sys.stdin
        if isinstance(stream, io.TextIOWrapper):  # bad bytes: that query's error, not the end
            stream.reconfigure(errors="surrogateescape")
    if interactive:
        import readline  # noqa: F401 - line editing and history for input()

        print("memlab shell: one query per line; Ctrl-D ends.", file=sys.stderr)
    first_failure = 0
    for query in queries(stream, interactive):
        args.query = query
        try:
            code = run_search(args)
        except ConfigError:
            raise
        except KeyboardInterrupt:
            if not interactive:
                raise
            print("memlab: query cancelled", file=sys.stderr)
            code = 0
        except Exception as exc:  # noqa: BLE001 - reported as memlab search reports it
            code = report_error(exc, getattr(args, "set", None))
            if code is None:
                raise
        if code and not first_failure:
            first_failure = code
        if not args.json:
            print()
        sys.stdout.flush()  # a reader on a pipe gets each answer as it is ready
    return first_failure


def add_shell_parser(sub: Any) -> None:
    """Add ``memlab shell`` to the CLI's subparsers."""
    p = sub.add_parser("shell", help="run many searches in one process (the embedding model "
                       "loads once): one query per line of stdin",
                       description="Read queries from stdin, one per non-blank line, and run "
                       "each as `memlab search WORKSPACE LINE` with these options runs it "
                       "(same output), in one process: the embedding model loads once. In a "
                       "terminal: a memlab> prompt; Ctrl-D ends. Exit code: 0, else the "
                       "first failed query's.")
    p.add_argument("workspace", help="agent workspace folder (holds MEMORY.md and memory/)")
    add_search_options(p)
    p.set_defaults(func=run_shell, query=None)
