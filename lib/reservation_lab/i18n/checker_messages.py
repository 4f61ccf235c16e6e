"""The serial-order checker's words in the notebook's language (de, pt, es, en).

The checker records each problem as a `Message`: a template key and its values. A value may itself be a
`Message` (a decision, a seat count, the place of a missing state), rendered in the same language. Counts
that the wording depends on pick a `<key>_one` or `<key>_other` template (`plural`); every language here
uses the singular for exactly 1. English is the reference: it renders exactly the checker's former texts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from reservation_lab.i18n.messages import LANGUAGES, text

__all__ = ["CATALOG", "LANGUAGES", "Message", "describe", "plural"]


class Message(NamedTuple):
    """A template key of `CATALOG` and the values of its placeholders (strings, numbers or Messages)."""

    key: str
    values: Mapping[str, Any]


def plural(key: str, n: int, **values: Any) -> Message:
    """`<key>_one` for n == 1, else `<key>_other`; n is the `{n}` placeholder."""
    return Message(f"{key}_one" if n == 1 else f"{key}_other", {"n": n, **values})


def describe(message: Message, language: str = "en") -> str:
    """The message in `language` (English if the language is unknown), nested messages included."""
    values = {name: describe(value, language) if isinstance(value, Message) else value
              for name, value in message.values.items()}
    return text(CATALOG[message.key], language, **values)


CATALOG: dict[str, dict[str, str]] = {
    # --- pieces of problem texts ----------------------------------------------------------------------------------
    "status_accepted": {"de": "angenommen", "pt": "aceita", "es": "aceptada", "en": "accepted"},
    "status_rejected": {"de": "abgelehnt", "pt": "rejeitada", "es": "rechazada", "en": "rejected"},
    "seats_one": {"de": "{n} Platz", "pt": "{n} lugar", "es": "{n} plaza", "en": "{n} seat"},
    "seats_other": {"de": "{n} Plätze", "pt": "{n} lugares", "es": "{n} plazas", "en": "{n} seats"},
    "decision": {
        "de": "{status} mit reserved={reserved} für {seats}",
        "pt": "{status} com reserved={reserved} para {seats}",
        "es": "{status} con reserved={reserved} para {seats}",
        "en": "{status} with reserved={reserved} for {seats}",
    },
    "where_below": {
        "de": "unter dem Anfangswert {start}",
        "pt": "abaixo do valor inicial {start}",
        "es": "por debajo del valor inicial {start}",
        "en": "below the start {start}",
    },
    "where_above": {
        "de": "über dem letzten Zustand {last}",
        "pt": "acima do último estado {last}",
        "es": "por encima del último estado {last}",
        "en": "above the last state {last}",
    },
    "where_between": {
        "de": "zwischen den Zuständen {lower} und {upper}",
        "pt": "entre os estados {lower} e {upper}",
        "es": "entre los estados {lower} y {upper}",
        "en": "between the states {lower} and {upper}",
    },
    "fit_one": {
        "de": "{n} Platz noch gepasst hätte",
        "pt": "ainda coubesse {n} lugar",
        "es": "aún cabía {n} plaza",
        "en": "{n} seat fit",
    },
    "fit_other": {
        "de": "{n} Plätze noch gepasst hätten",
        "pt": "ainda coubessem {n} lugares",
        "es": "aún cabían {n} plazas",
        "en": "{n} seats fit",
    },
    "left_start": {
        "de": "Der Burst begann bei {lo}",
        "pt": "a rajada começou em {lo}",
        "es": "la ráfaga empezó en {lo}",
        "en": "the burst started at {lo}",
    },
    "left_by": {
        "de": "Die Anfrage {by} hat den Zähler bei {lo} hinterlassen",
        "pt": "a solicitação {by} deixou o contador em {lo}",
        "es": "la solicitud {by} dejó el contador en {lo}",
        "en": "{by} left it at {lo}",
    },
    "taken_one": {
        "de": "{n} Platz wurde ohne angenommene Antwort belegt",
        "pt": "{n} lugar foi ocupado sem resposta aceita",
        "es": "{n} plaza se ocupó sin respuesta aceptada",
        "en": "{n} seat was taken without an accepted answer",
    },
    "taken_other": {
        "de": "{n} Plätze wurden ohne angenommene Antwort belegt",
        "pt": "{n} lugares foram ocupados sem resposta aceita",
        "es": "{n} plazas se ocuparon sin respuesta aceptada",
        "en": "{n} seats were taken without an accepted answer",
    },
    "counted_accepted_one": {
        "de": " (+{n} unentschiedene als angenommen gezählt)",
        "pt": " (+{n} sem decisão contada como aceita)",
        "es": " (+{n} sin decidir contada como aceptada)",
        "en": " (+{n} undecided counted as accepted)",
    },
    "counted_accepted_other": {
        "de": " (+{n} unentschiedene als angenommen gezählt)",
        "pt": " (+{n} sem decisão contadas como aceitas)",
        "es": " (+{n} sin decidir contadas como aceptadas)",
        "en": " (+{n} undecided counted as accepted)",
    },
    "counted_rejected_one": {
        "de": " (und höchstens {n} unentschiedene hätte abgelehnt werden können)",
        "pt": " (e no máximo {n} sem decisão poderia ter sido rejeitada)",
        "es": " (y como mucho {n} sin decidir podría haber sido rechazada)",
        "en": " (and at most {n} undecided could have been rejected)",
    },
    "counted_rejected_other": {
        "de": " (und höchstens {n} unentschiedene hätten abgelehnt werden können)",
        "pt": " (e no máximo {n} sem decisão poderiam ter sido rejeitadas)",
        "es": " (y como mucho {n} sin decidir podrían haber sido rechazadas)",
        "en": " (and at most {n} undecided could have been rejected)",
    },
    # --- problems: the broken answers -----------------------------------------------------------------------------
    "impossible_start": {
        "de": "Der Zustand vor dem Burst ist unmöglich: reserved={start}, capacity={capacity}",
        "pt": "o estado antes da rajada é impossível: reserved={start}, capacity={capacity}",
        "es": "el estado anterior a la ráfaga es imposible: reserved={start}, capacity={capacity}",
        "en": "the state before the burst is impossible: reserved={start}, capacity={capacity}",
    },
    "http_mismatch": {
        "de": "Die Anfrage {rid} wurde mit HTTP {http} beantwortet, aber mit dem Status {status!r}",
        "pt": "a solicitação {rid} foi respondida com HTTP {http}, mas com o status {status!r}",
        "es": "la solicitud {rid} se respondió con HTTP {http}, pero con el estado {status!r}",
        "en": "{rid} was answered HTTP {http} but with status {status!r}",
    },
    "invalid_reserved": {
        "de": "Die Anfrage {rid} wurde {status}, aber ohne gültigen Wert für reserved ({reserved!r})",
        "pt": "a solicitação {rid} foi {status} sem um valor válido de reserved ({reserved!r})",
        "es": "la solicitud {rid} fue {status} sin un valor válido de reserved ({reserved!r})",
        "en": "{rid} was answered {status} without a valid reserved value ({reserved!r})",
    },
    "capacity_mismatch": {
        "de": "Die Antwort auf die Anfrage {rid} nennt capacity={answered}, die Kapazität des Workshops ist "
              "aber {capacity}",
        "pt": "a resposta da solicitação {rid} informa capacity={answered}, mas a capacidade da oficina é {capacity}",
        "es": "la respuesta a la solicitud {rid} indica capacity={answered}, pero la capacidad del taller es "
              "{capacity}",
        "en": "{rid}'s answer says capacity={answered}, but the workshop's capacity is {capacity}",
    },
    "decided_before_burst": {
        "de": "Über die Anfrage {rid} war schon vor dem Burst entschieden worden ({earlier}), sie wurde aber "
              "erneut als neue Entscheidung beantwortet ({again}) statt als Wiederholung",
        "pt": "a solicitação {rid} já tinha sido decidida antes da rajada ({earlier}), mas foi respondida de novo "
              "como uma nova decisão ({again}) em vez de uma repetição",
        "es": "la solicitud {rid} ya se había decidido antes de la ráfaga ({earlier}), pero se respondió otra vez "
              "como una decisión nueva ({again}) en lugar de una repetición",
        "en": "{rid} was already decided before the burst ({earlier}) but was answered again as a new decision "
              "({again}) instead of a replay",
    },
    "decided_twice": {
        "de": "Über die Anfrage {rid} wurde zweimal ohne Wiederholung entschieden: zuerst {first}, dann {then}",
        "pt": "a solicitação {rid} foi decidida duas vezes sem repetição: primeiro {first}, depois {then}",
        "es": "la solicitud {rid} se decidió dos veces sin repetición: primero {first}, después {then}",
        "en": "{rid} was decided twice without a replay: first {first}, then {then}",
    },
    "bad_replay": {
        "de": "Die Wiederholung der Anfrage {rid} gibt eine andere Entscheidung wieder: {replay}, die erste "
              "Antwort war aber {original}",
        "pt": "a repetição da solicitação {rid} repete outra decisão: {replay}, mas a primeira resposta foi "
              "{original}",
        "es": "la repetición de la solicitud {rid} reproduce otra decisión: {replay}, pero la primera respuesta fue "
              "{original}",
        "en": "{rid}'s replay repeats a different decision: {replay}, but the first answer was {original}",
    },
    # --- problems: along the counter ------------------------------------------------------------------------------
    "same_reserved": {
        "de": "Die Anfragen {first} und {second} sahen beide reserved={reserved} (eine verlorene Aktualisierung: "
              "Zwei angenommene Antworten beanspruchen denselben Zählerstand)",
        "pt": "as solicitações {first} e {second} viram ambas reserved={reserved} (uma atualização perdida: duas "
              "respostas aceitas reivindicam o mesmo valor do contador)",
        "es": "las solicitudes {first} y {second} vieron ambas reserved={reserved} (una actualización perdida: dos "
              "respuestas aceptadas reclaman el mismo valor del contador)",
        "en": "{first} and {second} both saw reserved={reserved} (a lost update: two accepted answers claim the "
              "same counter value)",
    },
    "overbooking": {
        "de": "Die Anfrage {rid} wurde mit reserved={reserved} angenommen, über der Kapazität von {capacity} "
              "(Überbuchung)",
        "pt": "a solicitação {rid} foi aceita com reserved={reserved}, acima da capacidade de {capacity} "
              "(excesso de reservas)",
        "es": "la solicitud {rid} fue aceptada con reserved={reserved}, por encima de la capacidad de {capacity} "
              "(sobreventa)",
        "en": "{rid} was accepted with reserved={reserved}, above the capacity of {capacity} (overbooking)",
    },
    "below_start": {
        "de": "Die Anfrage {rid} hat den Zähler von {lo} auf {hi} gesetzt, er stand aber schon vor dem Burst "
              "bei {start}",
        "pt": "a solicitação {rid} levou o contador de {lo} a {hi}, mas ele já estava em {start} antes da rajada",
        "es": "la solicitud {rid} llevó el contador de {lo} a {hi}, pero ya estaba en {start} antes de la ráfaga",
        "en": "{rid} moved the counter from {lo} to {hi}, but it was already at {start} before the burst",
    },
    "overlap": {
        "de": "Die Anfrage {rid} hat den Zähler von {lo} auf {hi} gesetzt, aber die Anfrage {other} hatte ihn schon "
              "auf {current} gebracht (eine verlorene Aktualisierung: Die beiden Reservierungen überlappen sich)",
        "pt": "a solicitação {rid} levou o contador de {lo} a {hi}, mas a solicitação {other} já o tinha levado a "
              "{current} (uma atualização perdida: as duas reservas se sobrepõem)",
        "es": "la solicitud {rid} llevó el contador de {lo} a {hi}, pero la solicitud {other} ya lo había llevado a "
              "{current} (una actualización perdida: las dos reservas se solapan)",
        "en": "{rid} moved the counter from {lo} to {hi}, but {other} had already taken it to {current} (a lost "
              "update: the two reservations overlap)",
    },
    "gap": {
        "de": "Nichts erklärt, wie reserved von {lo} auf {hi} kam: {left}, danach hat die Anfrage {rid} den Zähler "
              "von {hi} auf {reserved} gesetzt (eine Lücke)",
        "pt": "nada explica como reserved passou de {lo} para {hi}: {left}, depois a solicitação {rid} levou o "
              "contador de {hi} a {reserved} (uma lacuna)",
        "es": "nada explica cómo reserved pasó de {lo} a {hi}: {left}, después la solicitud {rid} llevó el "
              "contador de {hi} a {reserved} (un hueco)",
        "en": "nothing explains how reserved went from {lo} to {hi}: {left}, then {rid} moved it from {hi} to "
              "{reserved} (a gap)",
    },
    "gap_undecided": {
        "de": "Nichts erklärt, wie reserved von {lo} auf {hi} kam: {left}, danach hat die Anfrage {rid} den Zähler "
              "von {hi} auf {reserved} gesetzt (eine Lücke, und die unentschiedenen Anfragen ergeben diese Plätze "
              "nicht)",
        "pt": "nada explica como reserved passou de {lo} para {hi}: {left}, depois a solicitação {rid} levou o "
              "contador de {hi} a {reserved} (uma lacuna, e as solicitações sem decisão não somam esses lugares)",
        "es": "nada explica cómo reserved pasó de {lo} a {hi}: {left}, después la solicitud {rid} llevó el "
              "contador de {hi} a {reserved} (un hueco, y las solicitudes sin decidir no suman esas plazas)",
        "en": "nothing explains how reserved went from {lo} to {hi}: {left}, then {rid} moved it from {hi} to "
              "{reserved} (a gap and the undecided requests cannot make up those seats)",
    },
    "never_existed": {
        "de": "Die Anfrage {rid} sah reserved={reserved}, einen Zustand, den es nie gab ({where})",
        "pt": "a solicitação {rid} viu reserved={reserved}, um estado que nunca existiu ({where})",
        "es": "la solicitud {rid} vio reserved={reserved}, un estado que nunca existió ({where})",
        "en": "{rid} saw reserved={reserved}, a state that never existed ({where})",
    },
    "false_rejection": {
        "de": "Die Anfrage {rid} wurde bei reserved={reserved} abgelehnt, obwohl {fit} (Kapazität {capacity}; "
              "eine fälschliche Ablehnung)",
        "pt": "a solicitação {rid} foi rejeitada com reserved={reserved}, embora {fit} (capacidade {capacity}; "
              "uma rejeição indevida)",
        "es": "la solicitud {rid} fue rechazada con reserved={reserved}, aunque {fit} (capacidad {capacity}; "
              "un rechazo indebido)",
        "en": "{rid} was rejected at reserved={reserved} although {fit} (capacity {capacity}; a false rejection)",
    },
    # --- problems: the durable status after the burst -------------------------------------------------------------
    "after_capacity": {
        "de": "Der dauerhafte Status meldet capacity={said}, vorher betrug die Kapazität aber {capacity}",
        "pt": "o status persistente informa capacity={said}, mas antes a capacidade era {capacity}",
        "es": "el estado persistente indica capacity={said}, pero antes la capacidad era {capacity}",
        "en": "the durable status says capacity={said}, but it was {capacity} before",
    },
    "after_lost_write": {
        "de": "Der dauerhafte Status meldet reserved={reserved}, angenommene Antworten haben den Zähler aber auf "
              "{decided} gebracht: Eine bestätigte Reservierung ging verloren",
        "pt": "o status persistente informa reserved={reserved}, mas respostas aceitas levaram o contador a "
              "{decided}: uma reserva confirmada se perdeu",
        "es": "el estado persistente indica reserved={reserved}, pero las respuestas aceptadas llevaron el contador "
              "a {decided}: se perdió una reserva confirmada",
        "en": "the durable status says reserved={reserved}, but accepted answers took the counter to {decided}: "
              "an acknowledged reservation was lost",
    },
    "after_unexplained": {
        "de": "Der dauerhafte Status meldet reserved={reserved}, die Antworten erklären aber nur reserved={end}: "
              "{taken}",
        "pt": "o status persistente informa reserved={reserved}, mas as respostas só explicam reserved={end}: "
              "{taken}",
        "es": "el estado persistente indica reserved={reserved}, pero las respuestas solo explican "
              "reserved={end}: {taken}",
        "en": "the durable status says reserved={reserved}, but the answers only account for reserved={end}: "
              "{taken}",
    },
    "after_seats": {
        "de": "Der dauerhafte Status meldet reserved={reserved}, aber acceptedSeats={seats}",
        "pt": "o status persistente informa reserved={reserved}, mas acceptedSeats={seats}",
        "es": "el estado persistente indica reserved={reserved}, pero acceptedSeats={seats}",
        "en": "the durable status says reserved={reserved} but acceptedSeats={seats}",
    },
    "after_accepted_one": {
        "de": "{n} angenommene Antwort{counted}, aber acceptedRequests ist um {grew} gestiegen",
        "pt": "{n} resposta aceita{counted}, mas acceptedRequests aumentou em {grew}",
        "es": "{n} respuesta aceptada{counted}, pero acceptedRequests aumentó en {grew}",
        "en": "{n} accepted answers{counted} but acceptedRequests grew by {grew}",
    },
    "after_accepted_other": {
        "de": "{n} angenommene Antworten{counted}, aber acceptedRequests ist um {grew} gestiegen",
        "pt": "{n} respostas aceitas{counted}, mas acceptedRequests aumentou em {grew}",
        "es": "{n} respuestas aceptadas{counted}, pero acceptedRequests aumentó en {grew}",
        "en": "{n} accepted answers{counted} but acceptedRequests grew by {grew}",
    },
    "after_rejected_one": {
        "de": "{n} abgelehnte Antwort{counted}, aber rejectedRequests ist um {grew} gestiegen",
        "pt": "{n} resposta rejeitada{counted}, mas rejectedRequests aumentou em {grew}",
        "es": "{n} respuesta rechazada{counted}, pero rejectedRequests aumentó en {grew}",
        "en": "{n} rejected answers{counted} but rejectedRequests grew by {grew}",
    },
    "after_rejected_other": {
        "de": "{n} abgelehnte Antworten{counted}, aber rejectedRequests ist um {grew} gestiegen",
        "pt": "{n} respostas rejeitadas{counted}, mas rejectedRequests aumentou em {grew}",
        "es": "{n} respuestas rechazadas{counted}, pero rejectedRequests aumentó en {grew}",
        "en": "{n} rejected answers{counted} but rejectedRequests grew by {grew}",
    },
    # --- explain() ------------------------------------------------------------------------------------------------
    "explain_failed": {
        "de": "Keine serielle Reihenfolge erklärt diese Antworten. Erster Widerspruch: {problem}.",
        "pt": "Nenhuma ordem serial explica estas respostas. Primeira contradição: {problem}.",
        "es": "Ningún orden serial explica estas respuestas. Primera contradicción: {problem}.",
        "en": "No serial order explains these answers. First contradiction: {problem}.",
    },
    "explain_more": {"de": "{n} weitere:", "pt": "Mais {n}:", "es": "{n} más:", "en": "{n} more:"},
    "explain_and_more": {
        "de": "… und {n} weitere.",
        "pt": "… e mais {n}.",
        "es": "… y {n} más.",
        "en": "… and {n} more.",
    },
    "explain_ok": {
        "de": "Eine serielle Reihenfolge erklärt alle Antworten: Der Zähler geht von {start} auf {end} "
              "(Kapazität {capacity}); {accepted}, {rejected}{undecided}.",
        "pt": "Uma ordem serial explica todas as respostas: o contador vai de {start} a {end} "
              "(capacidade {capacity}); {accepted}, {rejected}{undecided}.",
        "es": "Un orden serial explica todas las respuestas: el contador va de {start} a {end} "
              "(capacidad {capacity}); {accepted}, {rejected}{undecided}.",
        "en": "One serial order explains all answers: the counter goes from {start} to {end} "
              "(capacity {capacity}); {accepted}, {rejected}{undecided}.",
    },
    "explain_accepted_one": {"de": "{n} angenommen", "pt": "{n} aceita", "es": "{n} aceptada", "en": "{n} accepted"},
    "explain_accepted_other": {
        "de": "{n} angenommen", "pt": "{n} aceitas", "es": "{n} aceptadas", "en": "{n} accepted",
    },
    "explain_rejected_one": {
        "de": "{n} abgelehnt", "pt": "{n} rejeitada", "es": "{n} rechazada", "en": "{n} rejected",
    },
    "explain_rejected_other": {
        "de": "{n} abgelehnt", "pt": "{n} rejeitadas", "es": "{n} rechazadas", "en": "{n} rejected",
    },
    "explain_undecided_one": {
        "de": "; {n} unentschieden, davon lässt diese Reihenfolge {applied} wirksam werden",
        "pt": "; {n} sem decisão, da qual esta ordem deixa {applied} surtir efeito",
        "es": "; {n} sin decidir, de la cual este orden aplica {applied}",
        "en": "; {n} undecided, of which this order lets {applied} take effect",
    },
    "explain_undecided_other": {
        "de": "; {n} unentschieden, davon lässt diese Reihenfolge {applied} wirksam werden",
        "pt": "; {n} sem decisão, das quais esta ordem deixa {applied} surtir efeito",
        "es": "; {n} sin decidir, de las cuales este orden aplica {applied}",
        "en": "; {n} undecided, of which this order lets {applied} take effect",
    },
    "explain_order": {
        "de": "Reihenfolge: {steps}{tail}.",
        "pt": "Ordem: {steps}{tail}.",
        "es": "Orden: {steps}{tail}.",
        "en": "Order: {steps}{tail}.",
    },
    "explain_order_tail": {
        "de": ", … ({n} weitere)",
        "pt": ", … (mais {n})",
        "es": ", … ({n} más)",
        "en": ", … ({n} more)",
    },
    "explain_step_rejected": {
        "de": "{rid} abgelehnt bei {reserved}{mark}",
        "pt": "{rid} rejeitada em {reserved}{mark}",
        "es": "{rid} rechazada en {reserved}{mark}",
        "en": "{rid} rejected at {reserved}{mark}",
    },
    "explain_undecided_mark": {
        "de": " (unentschieden)",
        "pt": " (sem decisão)",
        "es": " (sin decidir)",
        "en": " (undecided)",
    },
}
