"""No helper and no cell prints or raises a sentence that bypasses the catalog.

Scanned: every module a notebook reaches (all of lib/reservation_lab except the command-line tools for course
authors and CI: cli.py, drills/, the notebook builder and its nbgrader course, the lock tool and the catalog itself,
whose reports and build errors are English by design) and every code cell of notebooks/source/cells.yml.
A "sentence" is a string literal (or the literal parts of an f-string) with two words of letters in a row; what is
printed or raised must come from `message(...)`, a `Message`, or a Localized error's key instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from reservation_lab.authoring.builder import load_cells
from reservation_lab.paths import PACKAGE_DIR

AUTHOR_TOOLS = {"cli.py", "drills", "builder.py", "nbgrader_course.py", "translations.py", "lockfile.py", "i18n",
                "build.py", "__main__.py", "kernelspec.py", "jupyterlab.py"}  # build.py: website/build.py
SENTENCE = re.compile(r"[A-Za-zÀ-ÿ]{2,}[ ,;:]+[A-Za-zÀ-ÿ]{2,}")
OUTPUT_CALLS = {"print", "write", "display", "add_note"}
# Exceptions that are not the learner's to read: Python's own wording (a NameError the friendly handler
# explains in the learner's language) and programming errors of the package.
ALLOWED = {"name 'run' is not defined"}


def literal_text(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(part.value for part in node.values if isinstance(part, ast.Constant))
    if isinstance(node, ast.BinOp):
        return literal_text(node.left) + " " + literal_text(node.right)
    return ""


def sentences_in(source: str, where: str) -> list[str]:
    """Sentence literals passed to print/write/display or to a raised exception's constructor."""
    flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    found = []
    for node in ast.walk(compile(source, where, "exec", flags=flags)):
        calls = []
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            calls.append(node.exc)
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in OUTPUT_CALLS:
                calls.append(node)
        for call in calls:
            for argument in [*call.args, *(keyword.value for keyword in call.keywords)]:
                text = literal_text(argument)
                if SENTENCE.search(text) and text not in ALLOWED:
                    found.append(f"{where}:{call.lineno}: {text[:80]!r}")
    return found


def learner_modules() -> list[Path]:
    return [path for path in sorted(PACKAGE_DIR.rglob("*.py"))
            if not AUTHOR_TOOLS & set(path.relative_to(PACKAGE_DIR).parts)]


def test_helpers_print_and_raise_only_catalog_sentences() -> None:
    modules = learner_modules()
    assert len(modules) > 40 and not any(path.name == "cli.py" for path in modules)
    found = [hit for path in modules for hit in sentences_in(path.read_text(), str(path.relative_to(PACKAGE_DIR)))]
    assert found == []


def test_cells_print_only_catalog_sentences() -> None:
    found = [hit for cell in load_cells() if "code" in cell for hit in sentences_in(cell["code"], cell["id"])]
    assert found == []


def test_the_scan_finds_a_planted_sentence() -> None:
    planted = (
        "print('the server is ready')\n"
        "print(f'waiting for {url}: ready')\n"
        "raise LabError('Port busy; use port 0.')\n"
        "echo.write('\\nready; settling 5 s')\n"
        "print(message('lines.run_folder', path=p))\n"
        "raise LabError('errors.port_busy', port=1, host='h')\n"
        "raise LabError('errors.not_in_burst', rid='the request of the day')\n"
        "error.add_note('logs kept here')\n"
    )
    assert sorted(hit.split(": ", 1)[1] for hit in sentences_in(planted, "planted")) == sorted([
        "'the server is ready'", "'waiting for  : ready'", "'Port busy; use port 0.'", "'\\nready; settling 5 s'",
        "'the request of the day'", "'logs kept here'"])
