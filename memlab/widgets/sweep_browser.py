"""The SweepBrowser widget: filter a sweep results DataFrame, rank it by a metric, export the
selected configuration with :func:`memlab.config.export_config`.

>>> from memlab.widgets import SweepBrowser  # doctest: +SKIP
>>> SweepBrowser(results, "ndcg@10")  # doctest: +SKIP
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from memlab.config.memory_keys import DEFAULT_SCHEMA, SCHEMAS
from memlab.widgets.common import html_table, ipywidgets_module

__all__ = ["SweepBrowser"]

_METRIC = re.compile(r"^(ndcg|recall_any|recall_all|recall|mrr|map|p|precision|success)"
                     r"@\d+(\[.*\])?$", re.I)
_ANY = "(any)"


class SweepBrowser:
    """Filter a sweep results DataFrame, rank it by a metric, export the selected row.

    Parameters
    ----------
    results:
        One row per configuration (e.g. :func:`memlab.tune.sweep`): axis columns named by
        config key paths, metric columns such as ``ndcg@10``.
    metric:
        The metric to rank by (default: the first metric column).
    base:
        Key-path overrides exported with every row (e.g. ``{"provider": "local"}``, the
        sweep's base settings that are not axis columns).
    top:
        How many rows the table shows.
    """

    def __init__(self, results: pd.DataFrame, metric: str | None = None, *,
                 base: Mapping[str, Any] | None = None, top: int = 15):
        from memlab.config import canonical_key_path

        w = ipywidgets_module()
        if not len(results):
            raise ValueError("the results DataFrame has no rows")
        self.results = results.reset_index(drop=True)
        self.base = dict(base or {})
        self.top = top
        self.axes = [c for c in self.results.columns if canonical_key_path(str(c)) is not None]
        if not self.axes:
            raise ValueError("no axis columns named by config key paths (e.g. "
                             "query.hybrid.vectorWeight) in the results")
        self.metrics = [c for c in self.results.columns if _METRIC.match(str(c))]
        if not self.metrics:
            raise ValueError("no metric column (e.g. ndcg@10) in the results")
        metric = metric or self.metrics[0]
        if metric not in self.metrics:
            raise ValueError(f"no metric column {metric!r}; metrics: {', '.join(self.metrics)}")
        style = {"description_width": "200px"}
        self.filters: dict[str, Any] = {}
        for axis in self.axes:
            values = [v for v in pd.unique(self.results[axis]) if not _missing(v)]
            values = sorted(values, key=lambda v: (str(type(v)), v))
            if len(values) < 2:
                continue
            self.filters[axis] = w.Dropdown(options=[(_ANY, _ANY)] + [(str(v), v)
                                                                      for v in values],
                                            value=_ANY, description=axis, style=style)
        self.metric = w.Dropdown(options=self.metrics, value=metric, description="rank by",
                                 style=style)
        self.rank = w.BoundedIntText(value=1, min=1, max=len(self.results),
                                     description="selected rank", style=style)
        self.schema = w.Dropdown(options=list(SCHEMAS), value=DEFAULT_SCHEMA,
                                 description="OpenClaw schema", style=style)
        self.allow_lossy = w.Checkbox(value=False, description="drop memlab-only choices")
        self.path = w.Text(value="openclaw.tuned.json5", description="export to", style=style)
        self.button = w.Button(description="Export", button_style="primary", icon="download")
        self.table = w.HTML()
        self.preview = w.HTML()
        self.filtered = self.results
        for control in (*self.filters.values(), self.metric, self.rank):
            control.observe(lambda _change: self.refresh(), names="value")
        self.button.on_click(lambda _b: self._export_clicked())
        self.refresh()
        self.widget = w.VBox([w.HTML("<b>Filter the sweep</b>"), *self.filters.values(),
                              self.metric, self.table, self.rank,
                              w.HBox([self.schema, self.allow_lossy]),
                              w.HBox([self.path, self.button]), self.preview])

    def refresh(self) -> pd.DataFrame:
        """Apply the filters, sort by the metric, redraw the table; returns the filtered rows."""
        frame = self.results
        for axis, control in self.filters.items():
            if control.value != _ANY:
                frame = frame[frame[axis] == control.value]
        metric = self.metric.value
        frame = frame.sort_values(metric, ascending=False, kind="mergesort",
                                  na_position="last")
        self.filtered = frame.reset_index(drop=True)
        n = len(self.filtered)
        self.rank.max = max(1, n)
        if self.rank.value > max(1, n):
            self.rank.value = 1  # re-enters refresh through the observer
            return self.filtered
        shown = self.filtered.head(self.top)
        columns = [*self.axes, *[m for m in self.metrics if "[" not in m]]
        shown = shown[[c for c in columns if c in shown.columns]].copy()
        shown.insert(0, "rank", range(1, len(shown) + 1))
        sel = self.rank.value
        self.table.value = (f"<div>{n} of {len(self.results)} configurations match; "
                            f"best {metric} = {self.filtered[metric].max():.4f}</div>"
                            if n else "<div>no configuration matches the filters</div>")
        if n:
            self.table.value += html_table(shown.assign(
                selected=["◀" if r == sel else "" for r in shown["rank"]]))
        return self.filtered

    def selected(self) -> pd.Series:
        """The selected row (``rank`` within the filtered, sorted rows)."""
        if not len(self.filtered):
            raise ValueError("no configuration matches the filters")
        return self.filtered.iloc[int(self.rank.value) - 1]

    def overrides(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(overrides, header)`` of the selected row (see
        :func:`memlab.config.overrides_from_results`), ``base`` merged under the overrides."""
        from memlab.config import overrides_from_results

        overrides, header = overrides_from_results(self.filtered, rank=int(self.rank.value),
                                                   metric=self.metric.value)
        active = {k: str(c.value) for k, c in self.filters.items() if c.value != _ANY}
        if active:
            header["filters"] = ", ".join(f"{k}={v}" for k, v in active.items())
        return {**self.base, **overrides}, header

    def export(self, path: str | Path | None = None, **options: Any) -> str:
        """The selected configuration as OpenClaw JSON5 (:func:`memlab.config.export_config`,
        with the schema and lossy choice of the controls unless given); written to ``path``
        when given. Returns the :class:`memlab.config.ExportedConfig` text."""
        from memlab.config import export_config

        overrides, header = self.overrides()
        options.setdefault("allow_lossy", bool(self.allow_lossy.value))
        schema = options.pop("schema", self.schema.value)
        text = export_config(overrides, schema, header=header, **options)
        if path is not None:
            out = Path(path).expanduser()
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        return text

    def _export_clicked(self) -> None:
        try:
            import warnings

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                text = self.export(self.path.value or None)
            notes = "".join(f"<div style='color:#a60'>warning: {html.escape(str(c.message))}"
                            "</div>" for c in caught)
            self.preview.value = (f"<div>wrote {html.escape(self.path.value)}</div>{notes}"
                                  f"<pre>{html.escape(str(text))}</pre>")
        except Exception as exc:  # shown in the widget, not raised into the event loop
            self.preview.value = (f"<div style='color:#b00'>{type(exc).__name__}: "
                                  f"{html.escape(str(exc))}</div>")

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))
