"""Helpers shared by memlab's notebook widgets: the ipywidgets import, short text, HTML
tables."""

from __future__ import annotations

import html

import pandas as pd


def ipywidgets_module():
    """``ipywidgets``, imported when a widget is built (it is not needed to import memlab)."""
    import ipywidgets

    return ipywidgets


def short_text(text: str, n: int = 110) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"

def html_table(table: pd.DataFrame) -> str:
    head = "".join(f"<th style='text-align:left;padding:2px 6px'>{html.escape(str(c))}</th>"
                   for c in table.columns)
    rows = []
    for rec in table.itertuples(index=False):
        values = rec._asdict()
        rel = values.get("relevant", 0)
        style = "background:#e3f6e3" if rel else ""
        cells = []
        for col, value in values.items():
            if isinstance(value, float):
                shown = f"{value:.3f}"
            elif col == "relevant":
                shown = f"✓ grade {value}" if value else ""
            else:
                shown = html.escape(str(value))
            cells.append(f"<td style='padding:2px 6px'>{shown}</td>")
        rows.append(f"<tr style='{style}'>{''.join(cells)}</tr>")
    return (f"<table style='border-collapse:collapse;font-size:12px'><tr>{head}</tr>"
            f"{''.join(rows)}</table>")
