"""How values show themselves: short text reprs and the rich reprs of notebooks (``_repr_html_``).

A :class:`~privopt.Mechanism` prints its matrix with its labels, as a ``pandas.DataFrame`` does, cut to
:data:`MAX_ROWS` rows and :data:`MAX_COLUMNS` columns; a solution, a certificate or an audit report
is one line in text and a small table of its fields in a notebook (:func:`fields_html`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd

#: Rows and columns of a matrix shown in a repr (the middle ones are elided, as pandas does).
MAX_ROWS, MAX_COLUMNS = 10, 8


def _number(value: float) -> str:
    return f"{value:.4g}"


def frame_text(frame: pd.DataFrame) -> str:
    """``frame`` as text, cut to :data:`MAX_ROWS` × :data:`MAX_COLUMNS`, numbers to 4 digits."""
    return frame.to_string(max_rows=MAX_ROWS, max_cols=MAX_COLUMNS, float_format=_number)


def frame_html(frame: pd.DataFrame) -> str:
    """``frame`` as an HTML table, cut like :func:`frame_text`."""
    return frame.to_html(max_rows=MAX_ROWS, max_cols=MAX_COLUMNS, float_format=_number)


def fields_html(title: str, fields: Sequence[tuple[str, str]], below: str = "") -> str:
    """A titled two-column table of ``(name, value)`` fields, with ``below`` (HTML) under it."""
    rows = "".join(
        f"<tr><th style='text-align:left'>{html.escape(name)}</th>"
        f"<td style='text-align:left'>{html.escape(value)}</td></tr>"
        for name, value in fields
    )
    return f"<div><strong>{html.escape(title)}</strong><table>{rows}</table>{below}</div>"
