"""Burst timelines: one panel per burst, one bar per request, labels in the notebook's language, drawn as SVG."""

from __future__ import annotations

import base64
import xml.etree.ElementTree as ET

from reservation_lab.domain.burst import Decision
from reservation_lab.domain.decisions import Attempt
from reservation_lab.race.plots import label, nice_step, plot_bursts

SVG = "{http://www.w3.org/2000/svg}"


def decisions(accepted: int, total: int) -> list[Decision]:
    out = []
    for i in range(total):
        ok = i < accepted
        out.append(Decision(f"request-{i + 1}", 1, 201 if ok else 409,
                            {"status": "accepted" if ok else "rejected", "reserved": min(i + 1, 4)},
                            [Attempt(0.001 * i, 0.02 + 0.001 * i, 201 if ok else 409)]))
    return out


def texts(element: ET.Element, role: str) -> list[str]:
    return [t.text or "" for t in element.iter(f"{SVG}text") if t.get("class") == role]


def test_side_by_side_panels_with_localized_labels() -> None:
    timeline = plot_bursts({"naiv": decisions(10, 10), "atomar": decisions(4, 10)}, language="de")
    root = ET.fromstring(timeline._repr_svg_())  # well-formed SVG: JupyterLab and the website show this text
    panels = list(root.iter(f"{SVG}g"))
    assert [texts(panel, "title") for panel in panels] == [["naiv"], ["atomar"]]
    bars = [[rect.get("data-status") for rect in panel.iter(f"{SVG}rect")] for panel in panels]
    assert bars == [["accepted"] * 10, ["accepted"] * 4 + ["rejected"] * 6]
    assert [texts(panel, "xlabel") for panel in panels] == [["ms seit Beginn des Bursts"]] * 2
    assert texts(root, "legend") == ["angenommen", "abgelehnt"]
    assert "request-4  reserved=4" in texts(panels[1], "label")
    assert repr(timeline) == "Timeline(naiv, atomar)"


def test_both_panels_share_one_time_scale() -> None:
    """A request answered at 29 ms ends at the same x in either panel, and the axis reaches past the last answer."""
    timeline = plot_bursts({"a": decisions(10, 10), "b": decisions(4, 10)}, language="en")
    root = ET.fromstring(timeline.svg)
    panels = list(root.iter(f"{SVG}g"))
    ends = [[float(r.get("x")) + float(r.get("width")) for r in panel.iter(f"{SVG}rect")] for panel in panels]
    offset = float(panels[1].find(f"{SVG}text").get("x")) - float(panels[0].find(f"{SVG}text").get("x"))
    assert [round(e - offset, 1) for e in ends[1]] == [round(e, 1) for e in ends[0]]
    assert float(texts(panels[0], "tick")[-1]) >= 29


def test_request_ids_are_escaped() -> None:
    odd = [Decision("<b>&x", 1, 201, {"status": "accepted", "reserved": 1}, [Attempt(0.0, 0.01, 201)])]
    root = ET.fromstring(plot_bursts({"<naive>": odd}).svg)
    assert texts(root, "label") == ["<b>&x  reserved=1"] and texts(root, "title") == ["<naive>"]


def test_tick_steps_are_one_two_or_five_times_a_power_of_ten() -> None:
    assert [nice_step(span) for span in (29, 100, 7, 0.3)] == [10, 20, 2, 0.1]


def test_a_notebook_shows_it_as_an_html_image_of_the_svg() -> None:
    """JupyterLab renders a bare SVG output only in a trusted notebook; an <img> in HTML passes its sanitizer, so a
    committed notebook opened fresh shows the plot too. The image is exactly the SVG, with the figure's words."""
    timeline = plot_bursts({"a": decisions(4, 10)}, language="es", alt='two "bursts" & more')
    html = timeline._repr_html_()
    image = ET.fromstring(html.replace(">", "/>", 1) if not html.endswith("/>") else html)
    assert image.get("alt") == 'two "bursts" & more'
    assert base64.b64decode(image.get("src").removeprefix("data:image/svg+xml;base64,")).decode() == timeline.svg


def test_labels_fall_back_to_english() -> None:
    assert label("accepted", "fr") == "accepted"
    assert label("rejected", "es") == "rechazada"
    assert label("naive", "pt").startswith("ingênuo")
