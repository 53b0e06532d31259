"""memlab's command line: thin argument parsing over the library's verbs.

    memlab search WORKSPACE QUERY [--config FILE] [--agent ID] [--max-results N]
                  [--min-score X] [--now ISO] [--json] [--index FILE | --no-index]
                  [--session SESSION] [--visibility self|tree|agent|all] [--sessions-store FILE]
    memlab shell WORKSPACE [the options of search] < QUERIES   (one query per line)
    memlab index WORKSPACE [--config FILE] [--agent ID] [--force] [--index FILE]
    memlab status WORKSPACE [--config FILE] [--agent ID] [--deep] [--json] [--index FILE]
    memlab demo [DATASET]
    memlab serve-embeddings [--model PATH_OR_ALIAS] [--host 127.0.0.1] [--port N]
    memlab bench-providers DATASET --provider SPEC [--provider SPEC ...]
    memlab models [--json]
    memlab --version

Every verb that reads a config takes ``--set KEY=VALUE`` (repeatable; JSON5 values, dotted
OpenClaw keys: :mod:`memlab.config.overrides`), applied on top of ``--config`` (or the
defaults) and validated like the file; every verb that can draw a progress bar takes
``--no-progress`` (or set ``MEMLAB_PROGRESS=0``). See docs/cli.md.

Exit codes: 0 ok, 2 usage/config/workspace error, 3 embedding provider unavailable,
4 search paused (the index was built under another identity: run ``memlab index --force``),
5 another ``memlab index`` holds the index.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from importlib import import_module
from typing import Any

from memlab.cli.errors import report_error
from memlab.config import ConfigError

__all__ = ["PROGRESS_VERBS", "SET_VERBS", "VERBS", "build_parser", "main"]

#: Each verb's module and the function that adds its parser (some add several verbs), in the
#: order ``memlab --help`` lists them: a command imports only the module of its verb.
VERBS: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("search", "index", "status"), ("memlab.cli.search", "add_search_parsers")),
    "shell": ("memlab.cli.shell", "add_shell_parser"),
    "eval": ("memlab.cli.eval", "add_eval_parser"),
    "demo": ("memlab.cli.demo", "add_demo_parser"),
    "export": ("memlab.cli.export", "add_export_parser"),
    "sweep": ("memlab.cli.sweep", "add_sweep_parser"),
    "serve-embeddings": ("memlab.cli.serve_embeddings", "add_serve_parser"),
    "bench-providers": ("memlab.cli.bench", "add_bench_parser"),
    "datasets": ("memlab.convert.cli", "add_datasets_parser"),
    "calibrate": ("memlab.cli.calibrate", "add_calibrate_parser"),
    "models": ("memlab.cli.models", "add_models_parser"),
}

#: Verbs that read a config: ``--set`` applies to it (every system of ``eval``, the base of
#: ``sweep``, the config file of ``export``).
SET_VERBS = ("search", "shell", "index", "status", "eval", "sweep", "calibrate", "bench-providers",
             "export")
#: Verbs that can draw a progress bar (embedding, indexing, sweeps, model loading).
PROGRESS_VERBS = ("search", "shell", "index", "status", "eval", "sweep", "calibrate",
                  "bench-providers", "demo", "serve-embeddings")
#: Verbs whose ``--config`` is also read raw (the 2026.9 profile, the agent's workspace): the
#: overridden tree replaces it instead of being applied inside ``load_config``.
_RAW_CONFIG_VERBS = ("search", "shell", "index", "status")


class _Version(argparse.Action):
    """``--version``: the installed package's version (read only when asked for)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 help: str | None = None) -> None:  # noqa: A002 - argparse's keyword
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("memlab")
        except PackageNotFoundError:  # a source tree on sys.path, not installed
            from memlab import __version__ as text
        print(f"memlab {text}")  # on stdout, as argparse's own version action prints
        parser.exit()


def _override(text: str) -> Any:
    """argparse ``type`` of ``--set``: a bad KEY=VALUE is a usage error with the reason."""
    from memlab.config.overrides import parse_override

    try:
        return parse_override(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_shared_options(parser: argparse.ArgumentParser, verb: str) -> None:
    """``--set`` and ``--no-progress`` on ``verb``: added here, once for every verb, rather
    than by each verb's module (argparse ``parents=`` would need every ``add_parser`` call
    changed)."""
    if verb not in SET_VERBS and verb not in PROGRESS_VERBS:
        return
    group = parser.add_argument_group("options every verb shares")
    if verb in SET_VERBS:
        group.add_argument(
            "--set", action="append", default=[], type=_override, metavar="KEY=VALUE",
            help="override one config key, on top of --config (or the defaults); repeatable. "
            "KEY: query.hybrid.vectorWeight (relative to the search block), "
            "agents.defaults.memorySearch.* / memorySearch.* (2026.7), memory.search.* "
            "(2026.9), memlab.* (research options) or another OpenClaw key path; VALUE: "
            "JSON5 (0.6, true, null, [1,2], {enabled: true}, \"text\"), else a plain string")
    if verb in PROGRESS_VERBS:
        group.add_argument("--no-progress", action="store_true",
                           help="no progress bars (like MEMLAB_PROGRESS=0)")


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The ``memlab`` argument parser: every verb, or only ``verb``'s module when it names one
    (what :func:`main` builds, so a command imports nothing of the other verbs)."""
    parser = argparse.ArgumentParser(
        prog="memlab", description="Research toolkit for agent memory search (OpenClaw parity).")
    parser.add_argument("--version", action=_Version, help="print memlab's version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    adders = [VERBS[verb]] if verb in VERBS else list(dict.fromkeys(VERBS.values()))
    for module, adder in adders:
        getattr(import_module(module), adder)(sub)
    for verb, verb_parser in sub.choices.items():
        _add_shared_options(verb_parser, verb)
    return parser


def _overridden_config(args: argparse.Namespace) -> dict[str, Any]:
    """``--config`` of a search verb (or the defaults) with ``--set`` applied, validated now so
    a bad key is reported against the file and ``--set``."""
    from memlab.config import DEFAULT_CONFIG, load_config
    from memlab.config.json5io import read_source
    from memlab.config.overrides import apply_overrides, wants_memory_search
    from memlab.lines import detect_line

    if args.config is not None:
        raw, name = read_source(args.config)
    elif wants_memory_search(args.set):
        raw, name = {"memory": {"search": dict(DEFAULT_CONFIG["memorySearch"])}}, "defaults"
    else:
        raw, name = DEFAULT_CONFIG, "defaults"
    if not isinstance(raw, dict):
        return raw  # load_config reports the shape
    tree = apply_overrides(raw, args.set)
    try:
        layout = detect_line(tree, getattr(args, "profile", None)).layout
    except ValueError:  # a bad memlab.profile: load_config's schema error names it
        layout = None
    try:
        if layout == "memory.search":
            from memlab.config.memory_layout import read_config

            read_config(tree)
        else:
            load_config(tree, agent_id=getattr(args, "agent", None))
    except ConfigError as exc:
        keys = ", ".join(o.key for o in args.set)
        raise ConfigError(exc.issues, source=f"{name} with --set {keys}", line=exc.line,
                          column=exc.column) from None
    return tree


@contextmanager
def _shared_options(args: argparse.Namespace) -> Iterator[None]:
    """Run a verb under its ``--no-progress`` and ``--set``."""
    from memlab.progress import suppressed

    with ExitStack() as stack:
        stack.enter_context(suppressed(bool(getattr(args, "no_progress", False))))
        overrides = getattr(args, "set", None)
        if overrides and args.command in _RAW_CONFIG_VERBS:
            args.config = _overridden_config(args)
        elif args.command in _RAW_CONFIG_VERBS and isinstance(args.config, str):
            from memlab.config.json5io import ConfigTree, read_source

            raw, name = read_source(args.config)  # once: dispatch, agent and load reuse it
            if isinstance(raw, dict):
                args.config = ConfigTree(raw, name)
        elif overrides:
            from memlab.config.overrides import active_overrides

            stack.enter_context(active_overrides(overrides))
        yield


def main(argv: Sequence[str] | None = None) -> int:
    import sys

    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)  # not a verb: the whole parser
    args = parser.parse_args(words)
    warnings.formatwarning = lambda msg, cat, *a, **k: f"warning: {msg}\n"
    try:
        with _shared_options(args):
            return args.func(args)
    except Exception as exc:  # noqa: BLE001 - report_error decides; the rest is re-raised
        code = report_error(exc, getattr(args, "set", None))
        if code is None:
            raise
        return code
