"""Timelines of bursts: each request from send to answer, coloured by decision, labelled with `reserved`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reservation_lab.domain.decisions import Decision
from reservation_lab.i18n import message

COLOURS = {"accepted": "#2e7d32", "rejected": "#ef6c00", None: "#c62828"}

def label(key: str | None, language: str | None = None) -> str:
    """A plot label or table column in the notebook's language (the catalog's `race` section)."""
    return message(f"race.{key or 'undecided'}", language)


def plot_bursts(bursts: Mapping[str, Sequence[Decision]], language: str | None = None, width: float = 12.0):
    """One timeline panel per burst, side by side; returns the matplotlib Figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    rows = max((len(d) for d in bursts.values()), default=1)
    fig, axes = plt.subplots(1, len(bursts), figsize=(width, 0.35 * rows + 1.6), squeeze=False, sharex=True)
    for ax, (title, decisions) in zip(axes[0], bursts.items(), strict=True):
        timed = sorted((d for d in decisions if d.attempts), key=lambda d: d.attempts[0].sent)
        for row, decision in enumerate(timed):
            start = decision.attempts[0].sent * 1000
            end = decision.attempts[-1].answered * 1000
            colour = COLOURS.get(decision.status, COLOURS[None])
            ax.plot([start, end], [row, row], color=colour, linewidth=6, solid_capstyle="butt")
            ax.text(end, row, f"  {decision.request_id}  reserved={decision.reserved}", va="center", fontsize=8)
        ax.set_title(title)
        ax.set_yticks([])
        ax.invert_yaxis()
        ax.set_xlabel(label("x", language))
        ax.margins(x=0.45)
    handles = [Patch(color=COLOURS[key], label=label(key, language)) for key in ("accepted", "rejected")]
    fig.legend(handles=handles, loc="lower center", ncol=2, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig

