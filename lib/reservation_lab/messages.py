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


def text(catalog: dict[str, str], language: str, **values: object) -> str:
    """The catalog's sentence in `language` (English if the language is unknown)."""
    return catalog.get(language, catalog["en"]).format(**values)
