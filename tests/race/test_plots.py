"""Burst timelines: one panel per burst, one bar per request, labels in the notebook's language."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

from reservation_lab.domain.burst import Decision  # noqa: E402
from reservation_lab.domain.decisions import Attempt
from reservation_lab.race.plots import label, plot_bursts  # noqa: E402


def decisions(accepted: int, total: int) -> list[Decision]:
    out = []
    for i in range(total):
        ok = i < accepted
        out.append(Decision(f"request-{i + 1}", 1, 201 if ok else 409,
                            {"status": "accepted" if ok else "rejected", "reserved": min(i + 1, 4)},
                            [Attempt(0.001 * i, 0.02 + 0.001 * i, 201 if ok else 409)]))
    return out


def test_side_by_side_panels_with_localized_labels() -> None:
    fig = plot_bursts({"naiv": decisions(10, 10), "atomar": decisions(4, 10)}, language="de")
    axes = fig.get_axes()
    assert [ax.get_title() for ax in axes] == ["naiv", "atomar"]
    assert all(len(ax.lines) == 10 for ax in axes)
    assert axes[0].get_xlabel() == "ms seit dem Start des Bursts"
    legend = [text.get_text() for text in fig.legends[0].get_texts()]
    assert legend == ["angenommen", "abgelehnt"]
    texts = [t.get_text() for t in axes[1].texts]
    assert any("request-4" in t and "reserved=4" in t for t in texts)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    assert buffer.getvalue().startswith(b"\x89PNG")


def test_labels_fall_back_to_english() -> None:
    assert label("accepted", "fr") == "accepted"
    assert label("rejected", "es") == "rechazada"
    assert label("naive", "pt").startswith("ingênuo")
