"""The learner reads no English: not in the executed notebooks, not in any error a learner can meet.

Each notebook's own cells run in a real kernel, in its language, and each error class is forced for real: a cell
run before the cell that defines its names, the dev server started before its config is written, a busy port,
`wrangler whoami` while logged out (the pinned wrangler, offline), a wrong account name, a failed invariant.
Every error must show its whole message in the notebook's language, and no output line may read as English.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

import nbformat
import pytest

from reservation_lab.authoring import builder
from reservation_lab.i18n import COURSE_LANGUAGES, message, quoted
from tests.support import ANSI, english_lines, execute_cells, output_text


def test_the_detector_finds_english_and_lets_commands_and_data_pass() -> None:
    assert english_lines("wrangler is not logged in; run the login cell first.")
    assert english_lines("waiting for wrangler dev … 3 s")
    assert english_lines("(3 attempts)")
    assert not english_lines("wrangler ist nicht angemeldet; führen Sie zuerst die Anmeldezelle aus.")
    assert not english_lines("[.runs/labex-c10-o03-0123456789ab] $ npx wrangler dev --port 1 --persist-to local-state")
    assert not english_lines('  "acceptedRequests": 4,\n  "reserved": 4')
    assert not english_lines("[.] $ npx wrangler deploy --dry-run\nYour Worker has access to the following bindings:")


@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_the_executed_notebook_has_no_english_line(language: str) -> None:
    nb = nbformat.read(builder.notebook_path(language), as_version=4)
    found = {cell.id: lines for cell in nb.cells if cell.cell_type == "code" and (lines := english_lines(
        output_text(cell)))}
    assert found == {}


def busy_port() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


@pytest.mark.parametrize("language", COURSE_LANGUAGES)
def test_every_error_a_learner_can_meet_reads_in_the_notebooks_language(language: str, tmp_path: Path) -> None:
    cells = {cell.id: cell for cell in nbformat.read(builder.notebook_path(language), as_version=4).cells}
    holder = busy_port()
    port = holder.getsockname()[1]
    try:
        parameters = cells["parameters"].source
        parameters = re.sub(r"^workdir = .*$", f"workdir = {str(tmp_path / 'run')!r}", parameters, flags=re.M)
        parameters = re.sub(r"^port = .*$", f"port = {port}", parameters, flags=re.M)
        forced = {
            "name-before-its-cell": cells["burst"].source,
            "config-missing": cells["start-server"].source,
            "port-busy": cells["write-config"].source + "\n",  # the config cell, then the server on the busy port
            "port-busy-start": cells["start-server"].source,
            "missing-login": "identity = lab.whoami(run)\nidentity.account_id_for(account_name)",
            "wrong-account": "from reservation_lab.cloud.accounts import Account, Identity\n"
                             "Identity(True, 'oauth', (Account('Lab', 'hidden'), Account('Team', 'other')))"
                             ".account_id_for(account_name)",
            "failed-invariant": 'lab.check_equal("burst_summary", lab.expected_summary(3), '
                                "lab.expected_summary(burst_size))",
        }
        nb = nbformat.v4.new_notebook()
        nb.metadata = {"kernelspec": dict(builder.KERNELSPEC)}
        nb.cells = [nbformat.v4.new_code_cell(parameters), nbformat.v4.new_code_cell(cells["setup"].source)]
        nb.cells += [nbformat.v4.new_code_cell(source, id=name) for name, source in forced.items()]
        execute_cells(nb, tmp_path)
    finally:
        holder.close()
    executed = {cell.id: cell for cell in nb.cells}
    errors = {name: [o for o in executed[name].outputs if o.output_type == "error"] for name in forced}
    expected_kinds = {"name-before-its-cell": "NameError", "config-missing": "DevServerError",
                      "port-busy-start": "PortBusyError", "missing-login": "LabError", "wrong-account": "LabError",
                      "failed-invariant": "InvariantError"}
    assert {name: [e.ename for e in found] for name, found in errors.items() if found} == \
        {name: [kind] for name, kind in expected_kinds.items()}
    shown = {name: ANSI.sub("", "\n".join(found[0].traceback)) for name, found in errors.items() if found}
    assert message("cloud.not_logged_in", language) in shown["missing-login"]
    account = re.search(r'^account_name = "(.*)"$', parameters, re.M)[1]
    assert message("cloud.no_account", language, name=quoted(account), names='"Lab", "Team"') in shown["wrong-account"]
    assert str(port) in shown["port-busy-start"] and message("friendly.port_busy", language) in shown["port-busy-start"]
    for name in forced:
        assert english_lines(output_text(executed[name])) == [], name
