"""course.two_clients: a cell queued by a second tab while another tab's cells ran is refused; a reloaded page is
not; the guard sits in a real IPython shell's transformers once, however often the setup cell runs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from reservation_lab.course import two_clients
from reservation_lab.course.two_clients import LastRequest, interleaved
from reservation_lab.errors import LabError
from tests.support import raises_key

T0 = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(("session", "made", "refused"), [
    ("tab-b", T0 - timedelta(milliseconds=5), True),  # made before the last cell that ran, in another tab
    ("tab-b", T0 + timedelta(seconds=3), False),  # a reloaded page: a new session, made later
    ("tab-a", T0 - timedelta(seconds=1), False),  # the same tab: its own order is the kernel's order
    ("", T0 - timedelta(seconds=1), False),  # no session id: cannot tell
    ("tab-b", "2026-12-02T09:59:59Z", False),  # a stamp the kernel could not read as a time
    ("tab-b", datetime(2026, 12, 2, 9, 59), False),  # naive against aware: cannot tell
])
def test_interleaved(session: str, made: Any, refused: bool) -> None:
    assert interleaved(LastRequest("tab-a", T0), session, made) is refused


def test_the_first_request_is_never_refused() -> None:
    assert not interleaved(LastRequest(), "tab-b", T0)


class FakeKernel:
    """Just what the guard reads from ipykernel: the parent header of the request being run."""

    def __init__(self) -> None:
        self.header: dict[str, Any] = {}

    def get_parent(self, channel: str) -> dict[str, Any]:
        assert channel == "shell"
        return {"header": self.header}


@pytest.fixture
def shell() -> Any:
    shell = InteractiveShell.instance()
    yield shell
    shell.input_transformers_post[:] = [t for t in shell.input_transformers_post
                                        if getattr(t, "__name__", "") != "_two_clients_guard"]
    InteractiveShell.clear_instance()


def run_from(shell: Any, kernel: FakeKernel, session: str, made: datetime, code: str) -> Any:
    kernel.header = {"msg_type": "execute_request", "session": session, "date": made}
    return shell.run_cell(code)


def test_a_queued_cell_of_a_second_tab_is_refused_with_the_course_error(shell: Any) -> None:
    kernel = FakeKernel()
    shell.kernel = kernel
    assert two_clients.install(shell) and two_clients.install(shell)  # the setup cell run twice
    assert sum(getattr(t, "__name__", "") == "_two_clients_guard" for t in shell.input_transformers_post) == 1
    assert run_from(shell, kernel, "tab-a", T0, "x = 1").success
    assert run_from(shell, kernel, "tab-a", T0 + timedelta(milliseconds=2), "x = 2").success
    refused = run_from(shell, kernel, "tab-b", T0 + timedelta(milliseconds=1), "x = 3")
    assert isinstance(refused.error_in_exec, LabError) and refused.error_in_exec.message.key == "errors.two_clients"
    assert shell.user_ns["x"] == 2, "the refused cell's code must not run"
    assert run_from(shell, kernel, "tab-b", T0 + timedelta(seconds=5), "x = 4").success  # later: a reload
    assert shell.user_ns["x"] == 4


def test_the_setup_cell_run_by_the_second_tab_keeps_what_the_guard_remembers(shell: Any) -> None:
    """The order one CI run saw: tab A's first cells, then tab B's setup cell (which installs the guard again),
    then tab A's next queued cell: it must still be refused."""
    kernel = FakeKernel()
    shell.kernel = kernel
    assert two_clients.install(shell)
    assert run_from(shell, kernel, "tab-a", T0, "x = 1").success
    setup_cell = "from reservation_lab.course import two_clients\nassert two_clients.install(get_ipython())"
    assert run_from(shell, kernel, "tab-b", T0 + timedelta(milliseconds=5), setup_cell).success  # tab B's setup
    refused = run_from(shell, kernel, "tab-a", T0 + timedelta(milliseconds=1), "x = 2")
    assert isinstance(refused.error_in_exec, LabError) and shell.user_ns["x"] == 1


def test_no_kernel_no_guard() -> None:
    assert two_clients.install(SimpleNamespace(kernel=None)) is False
    with raises_key("errors.two_clients", LabError):
        two_clients.refuse()
