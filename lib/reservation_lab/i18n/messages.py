"""The few sentences the helpers print into a notebook, in the notebook's language."""

from __future__ import annotations

LANGUAGES = ("de", "pt", "es", "en")

SKIPPED_STEP = {
    "de": "Schritt {step} übersprungen: cloud = False (lokaler Standard). Mit einem Cloudflare-Konto "
          "setzen Sie cloud = True, um ihn auszuführen.",
    "pt": "Etapa {step} ignorada: cloud = False (padrão local). Com uma conta Cloudflare, defina "
          "cloud = True para executá-la.",
    "es": "Paso {step} omitido: cloud = False (modo local por defecto). Con una cuenta de Cloudflare, "
          "defina cloud = True para ejecutarlo.",
    "en": "Step {step} skipped: cloud = False (local default). With a Cloudflare account, set cloud = True to run it.",
}

SKIPPED_LOGIN = {
    "de": "Anmeldung übersprungen: cloud = False (lokaler Standard). Die Schritte 2–4 brauchen kein Konto.",
    "pt": "Login ignorado: cloud = False (padrão local). As etapas 2–4 não precisam de conta.",
    "es": "Inicio de sesión omitido: cloud = False (modo local por defecto). Los pasos 2–4 no necesitan cuenta.",
    "en": "Login skipped: cloud = False (local default). Steps 2–4 need no account.",
}


DECIMAL_COMMA = frozenset({"de", "pt", "es"})


def number(value: float, language: str, digits: int = 1) -> str:
    """A decimal number as the language writes it: 1.3 in English, 1,3 in German, Portuguese and Spanish."""
    shown = f"{value:.{digits}f}"
    return shown.replace(".", ",") if language in DECIMAL_COMMA else shown


def text(catalog: dict[str, str], language: str, **values: object) -> str:
    """The catalog's sentence in `language` (English if the language is unknown); floats in its number format."""
    shown = {key: number(value, language) if isinstance(value, float) else value for key, value in values.items()}
    return catalog.get(language, catalog["en"]).format(**shown)


# Friendly errors (notebook.friendly_errors): one sentence, shown above the original message.
FRIENDLY_LAB_ERROR = {
    "de": "Ein Schritt des Labs ist gescheitert; die Meldung darunter sagt, was passiert ist und was zu tun ist.",
    "pt": "Uma etapa do laboratório falhou; a mensagem abaixo diz o que aconteceu e o que fazer.",
    "es": "Un paso del laboratorio ha fallado; el mensaje de abajo dice qué pasó y qué hacer.",
    "en": "A lab step failed; the message below says what happened and what to do.",
}

FRIENDLY_TOOLCHAIN = {
    "de": "Node 22 oder das festgelegte wrangler fehlt: führen Sie im Terminal ./lab setup aus und starten Sie "
          "dann den Kernel neu.",
    "pt": "Falta o Node 22 ou o wrangler fixado: execute ./lab setup no terminal e depois reinicie o kernel.",
    "es": "Falta Node 22 o el wrangler fijado: ejecute ./lab setup en la terminal y luego reinicie el kernel.",
    "en": "Node 22 or the pinned wrangler is missing: run ./lab setup in a terminal, then restart the kernel.",
}

FRIENDLY_PORT_BUSY = {
    "de": "Der gewählte Port ist belegt: setzen Sie port = 0 (freier Port) oder beenden Sie den Prozess, "
          "der ihn belegt.",
    "pt": "A porta escolhida está ocupada: defina port = 0 (porta livre) ou encerre o processo que a usa.",
    "es": "El puerto elegido está ocupado: defina port = 0 (puerto libre) o detenga el proceso que lo usa.",
    "en": "The chosen port is busy: set port = 0 (a free port) or stop the process that uses it.",
}

FRIENDLY_DEV_SERVER = {
    "de": "Der lokale Server (wrangler dev) ist nicht bereit geworden; sein Protokoll im Durchlaufordner zeigt, warum.",
    "pt": "O servidor local (wrangler dev) não ficou pronto; o log dele na pasta da execução mostra o porquê.",
    "es": "El servidor local (wrangler dev) no llegó a estar listo; su registro en la carpeta de la ejecución "
          "muestra por qué.",
    "en": "The local server (wrangler dev) did not become ready; its log in the run folder shows why.",
}

FRIENDLY_WRANGLER = {
    "de": "Ein wrangler-Befehl ist fehlgeschlagen; seine Ausgabe steht oben, die Meldung darunter fasst sie zusammen.",
    "pt": "Um comando do wrangler falhou; a saída dele está acima e a mensagem abaixo a resume.",
    "es": "Un comando de wrangler ha fallado; su salida está arriba y el mensaje de abajo la resume.",
    "en": "A wrangler command failed; its output is above and the message below sums it up.",
}

FRIENDLY_INVARIANT = {
    "de": "Eine Invariante des Labs gilt nicht: das Ergebnis widerspricht der erwarteten Reservierungslogik "
          "(Details darunter).",
    "pt": "Uma invariante do laboratório não se verifica: o resultado contradiz a lógica de reservas esperada "
          "(detalhes abaixo).",
    "es": "Una invariante del laboratorio no se cumple: el resultado contradice la lógica de reservas esperada "
          "(detalles abajo).",
    "en": "A lab invariant does not hold: the result contradicts the expected reservation logic (details below).",
}

FRIENDLY_NAME = {
    "de": "`{name}` ist noch nicht definiert: führen Sie zuerst die Zellen darüber aus "
          "(Run → Run All Above Selected Cell).",
    "pt": "`{name}` ainda não está definido: execute primeiro as células acima (Run → Run All Above Selected Cell).",
    "es": "`{name}` todavía no está definido: ejecute primero las celdas de arriba "
          "(Run → Run All Above Selected Cell).",
    "en": "`{name}` is not defined yet: run the cells above first (Run → Run All Above Selected Cell).",
}

# Progress of a long wait (notebook.start_server), one line updated in place.
WAITING_FOR_SERVER = {
    "de": "warte auf wrangler dev … {seconds} s",
    "pt": "aguardando o wrangler dev … {seconds} s",
    "es": "esperando a wrangler dev … {seconds} s",
    "en": "waiting for wrangler dev … {seconds} s",
}

SERVER_READY = {
    "de": "wrangler dev bereit nach {seconds} s",
    "pt": "wrangler dev pronto após {seconds} s",
    "es": "wrangler dev listo tras {seconds} s",
    "en": "wrangler dev ready after {seconds} s",
}

# %%lab_file (course.files): after writing one of the lab's files into the run folder.
FILE_WRITTEN = {
    "de": "{path} geschrieben ({lines} Zeilen) im Durchlaufordner {folder}",
    "pt": "{path} gravado ({lines} linhas) na pasta da execução {folder}",
    "es": "{path} escrito ({lines} líneas) en la carpeta de la ejecución {folder}",
    "en": "wrote {path} ({lines} lines) in the run folder {folder}",
}

# A burst cell run a second time: every requestId was already decided (course.friendly).
FRIENDLY_REPLAYED_BURST = {
    "de": "Jede Antwort dieses Bursts war eine Wiederholung: Diese requestIds waren schon entschieden, also hat das "
          "Objekt jeweils die erste Entscheidung zurückgegeben und keinen Platz erneut vergeben – genau das ist die "
          "Replay-Garantie. Für einen frischen Burst setzen Sie in der Parameterzelle einen anderen `workshop` (ein "
          "neues Objekt) und führen die Zellen ab Schritt 3 erneut aus; Ihr Durchlauf und seine Ressourcen bleiben.",
    "pt": "Todas as respostas deste burst foram repetições: esses requestIds já tinham sido decididos, então o objeto "
          "devolveu cada primeira decisão e não gastou nenhum lugar de novo – essa é a garantia de replay. Para um "
          "burst novo, defina outro `workshop` na célula de parâmetros (um objeto novo) e execute de novo as células "
          "a partir da etapa 3; a sua execução e os recursos dela continuam os mesmos.",
    "es": "Todas las respuestas de esta ráfaga fueron repeticiones: esos requestIds ya estaban decididos, así que el "
          "objeto devolvió cada primera decisión sin gastar ninguna plaza otra vez; esa es la garantía de replay. "
          "Para una ráfaga nueva, ponga otro `workshop` en la celda de parámetros (un objeto nuevo) y vuelva a "
          "ejecutar las celdas desde el paso 3; su ejecución y sus recursos siguen siendo los mismos.",
    "en": "Every answer of this burst was a replay: these requestIds were already decided, so the object returned "
          "each first decision again and spent no seat – that is the replay guarantee. For a fresh burst, set another "
          "`workshop` in the parameters cell (a new object) and run the cells from step 3 again; your run and its "
          "resources stay the same.",
}

# What the cells print about the run (course.display.say), one line each.
RUN_FOLDER = {
    "de": "Durchlaufordner: {path}",
    "pt": "pasta da execução: {path}",
    "es": "carpeta de la ejecución: {path}",
    "en": "run folder: {path}",
}

NODE_TESTS = {
    "de": "Node-Tests: {passed} bestanden, {failed} fehlgeschlagen",
    "pt": "testes do Node: {passed} aprovados, {failed} com falha",
    "es": "pruebas de Node: {passed} superadas, {failed} fallidas",
    "en": "node tests: {passed} passed, {failed} failed",
}

DEV_SERVER_ON = {
    "de": "wrangler dev läuft auf {url}",
    "pt": "wrangler dev em execução em {url}",
    "es": "wrangler dev en marcha en {url}",
    "en": "wrangler dev on {url}",
}

RESTARTED = {
    "de": "neu gestartet auf {url} mit demselben Zustandsordner {path}",
    "pt": "reiniciado em {url} com a mesma pasta de estado {path}",
    "es": "reiniciado en {url} con la misma carpeta de estado {path}",
    "en": "restarted on {url} with the same state folder {path}",
}

ATTEMPTS = {
    "de": "({n} Versuche)",
    "pt": "({n} tentativas)",
    "es": "({n} intentos)",
    "en": "({n} attempts)",
}

lines_by_key = {"run_folder": RUN_FOLDER, "node_tests": NODE_TESTS, "dev_server_on": DEV_SERVER_ON,
                "restarted": RESTARTED}
