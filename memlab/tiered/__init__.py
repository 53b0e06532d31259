"""The tiered search: OpenClaw's ranking since 2026.9 (one index with a path table, exact-path
tiers, the boosted keyword score in the fusion, importance and project multipliers, decay and
MMR always on, ``selectHybridSearchResults``), run with a line's recipe parameters.

* :mod:`memlab.tiered.search`: :class:`~memlab.tiered.search.TieredSearch`, the search;
* :mod:`memlab.tiered.index`: its index (files, chunks, the body and path FTS tables);
* :mod:`memlab.tiered.keyword`: its keyword leg (body FTS, path FTS, exact-path tiers, the
  fallback, the boost);
* :mod:`memlab.tiered.status`: ``memory status`` of the index;
* :mod:`memlab.tiered.locale`: the ``localeCompare`` tie order.

Entry points open it through :class:`memlab.openclaw.MemorySearch` (the line picks the engine).
"""
