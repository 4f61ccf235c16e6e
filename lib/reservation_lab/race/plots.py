"""Timelines of bursts: each request from send to answer, coloured by decision, labelled with `reserved`.

Drawn as SVG text, without a plotting library: the learner's kernel keeps no matplotlib (about 43 MiB of every
learner's kernel from the race on, bench/RESULTS.md), and the figure stays sharp at any size. A notebook shows it
as an HTML image of that SVG (JupyterLab shows a bare SVG output only in a trusted notebook, and a notebook fresh
from the repository is not trusted; an image in HTML passes its sanitizer); the SVG itself is in the output too,
for the website, which writes it to a file.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from reservation_lab.domain.decisions import Decision
from reservation_lab.i18n import message

COLOURS = {"accepted": "#2e7d32", "rejected": "#ef6c00", None: "#c62828"}

PANEL_WIDTH = 460  # SVG units per burst; two bursts make 920 units, shown at that many pixels in JupyterLab
ROW = 22  # units per request
BAR = 9  # a bar's thickness
TOP = 34  # title band
AXIS = 46  # axis, tick labels and the axis label below the rows
LEGEND = 28
BARS_SHARE = 0.5  # the part of a panel the bars may use; the rest holds the labels right of the bars
FONT = 14  # at the website's column width (about 690 px of 920) still 10.5 px


def label(key: str | None, language: str | None = None) -> str:
    """A plot label or table column in the notebook's language (the catalog's `race` section)."""
    return message(f"race.{key or 'undecided'}", language)


@dataclass(frozen=True)
class Timeline:
    """A drawn figure: `svg` is the whole image, `alt` what it shows in words (for readers who cannot see it)."""

    titles: tuple[str, ...]
    svg: str
    alt: str = ""

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:
        data = base64.b64encode(self.svg.encode()).decode()
        return f'<img class="lab-plot" alt={quoteattr(self.alt or ", ".join(self.titles))} ' \
               f'src="data:image/svg+xml;base64,{data}">'

    def __repr__(self) -> str:
        return f"Timeline({', '.join(self.titles)})"


def nice_step(span: float, ticks: int = 5) -> float:
    """A tick step of 1, 2 or 5 times a power of ten that cuts `span` into about `ticks` parts."""
    raw = max(span, 1e-9) / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= raw)


def _text(x: float, y: float, content: str, *, anchor: str = "start", size: int = FONT, weight: str = "normal",
          role: str = "") -> str:
    css = f' class="{role}"' if role else ""
    return (f'<text{css} x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" '
            f'font-weight="{weight}" dominant-baseline="middle">{escape(content)}</text>')


def _panel(x0: float, title: str, decisions: Sequence[Decision], scale: float, end_ms: float, step: float,
           rows: int, language: str | None) -> list[str]:
    timed = sorted((d for d in decisions if d.attempts), key=lambda d: d.attempts[0].sent)
    left = x0 + 12
    parts = [f'<g class="burst" data-title={quoteattr(title)}>',
             _text(x0 + PANEL_WIDTH / 2, TOP / 2, title, anchor="middle", size=FONT + 2, weight="bold",
                   role="title")]
    for row, decision in enumerate(timed):
        y = TOP + ROW * row + ROW / 2
        start = left + decision.attempts[0].sent * 1000 * scale
        end = left + decision.attempts[-1].answered * 1000 * scale
        colour = COLOURS.get(decision.status, COLOURS[None])
        parts.append(f'<rect class="request" data-status="{decision.status or "undecided"}" x="{start:.1f}" '
                     f'y="{y - BAR / 2:.1f}" width="{max(end - start, 1.5):.1f}" height="{BAR}" fill="{colour}"/>')
        parts.append(_text(end + 6, y, f"{decision.request_id}  reserved={decision.reserved}", role="label"))
    axis_y = TOP + ROW * rows + 6
    right = left + end_ms * scale
    parts.append(f'<line x1="{left}" y1="{axis_y}" x2="{right:.1f}" y2="{axis_y}" stroke="#444"/>')
    tick = 0.0
    while tick <= end_ms + 1e-9:
        x = left + tick * scale
        parts.append(f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 5}" stroke="#444"/>')
        parts.append(_text(x, axis_y + 14, f"{tick:g}", anchor="middle", size=FONT - 1, role="tick"))
        tick += step
    parts.append(_text((left + right) / 2, axis_y + 34, label("x", language), anchor="middle", role="xlabel"))
    parts.append("</g>")
    return parts


def plot_bursts(bursts: Mapping[str, Sequence[Decision]], language: str | None = None, alt: str = "") -> Timeline:
    """One timeline panel per burst, side by side, on one time scale; the legend says the decisions; `alt` says in
    words what the figure shows."""
    rows = max((len(d) for d in bursts.values()), default=1)
    ends = [d.attempts[-1].answered * 1000 for ds in bursts.values() for d in ds if d.attempts]
    step = nice_step(max(ends, default=1.0))
    end_ms = step * math.ceil(max(ends, default=1.0) / step)
    scale = (PANEL_WIDTH - 24) * BARS_SHARE / end_ms
    width = PANEL_WIDTH * max(len(bursts), 1)
    height = TOP + ROW * rows + AXIS + LEGEND
    titles = tuple(bursts)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" '
             f'role="img">', f"<title>{escape(' | '.join(titles))}</title>",
             f'<rect width="{width}" height="{height}" fill="#ffffff"/>']
    for index, (title, decisions) in enumerate(bursts.items()):
        parts += _panel(PANEL_WIDTH * index, title, decisions, scale, end_ms, step, rows, language)
    legend_y = height - LEGEND / 2
    x = width / 2 - 150
    for key in ("accepted", "rejected"):
        parts.append(f'<rect x="{x:.1f}" y="{legend_y - 6}" width="14" height="12" fill="{COLOURS[key]}"/>')
        parts.append(_text(x + 20, legend_y, label(key, language), role="legend"))
        x += 170
    parts.append("</svg>")
    return Timeline(titles, "\n".join(parts) + "\n", alt)
