"""domain.reloading: one wrangler dev over a folder whose index.js is swapped: a reload when wrangler sees the change,
nothing when the source is the same, a restart on the same state when no reload comes, and close() proves it gone."""

from __future__ import annotations

from reservation_lab.domain.client import LabClient
from reservation_lab.domain.reloading import ReloadingServer
from reservation_lab.domain.runs import RunFolder
from reservation_lab.runtime.waiting import wait_until

CAPACITY_LINE = "export const CAPACITY = 4;"


def with_capacity(source: str, capacity: int) -> str:
    return source.replace('import { CAPACITY } from "./validation.js";',
                          f"const CAPACITY = {capacity};") if capacity != 4 else source


def test_swap_reload_restart_and_close(run_folder: RunFolder) -> None:
    shipped = (run_folder.root / "src" / "index.js").read_text()
    assert 'import { CAPACITY } from "./validation.js";' in shipped
    reloading = ReloadingServer(run_folder, "swap", reload_wait=30.0)
    try:
        first = reloading.serve(shipped)
        with LabClient(first.base_url) as client:
            assert client.status("before").get("capacity") == 4
        assert reloading.serve(with_capacity(shipped, 6)) is first and reloading.restarts == 0  # reloaded in place
        with LabClient(first.base_url) as client:
            assert client.status("after-reload").get("capacity") == 6
        # wrangler logs a request after it has answered it: wait for that line, or it lands in the log between the
        # two reads below and looks like activity of the unchanged serve (a full run failed so, once)
        assert wait_until(lambda: "/workshops/after-reload/status" in first.log_text(since_start=True), 10)
        log = first.log_text(since_start=True)
        assert reloading.serve(with_capacity(shipped, 6)) is first and first.log_text(since_start=True) == log
        reloading.reload_wait = 0.0  # no reload can be seen in no time: the server restarts on the same state
        second = reloading.serve(shipped)
        assert second is not first and first.stopped and reloading.restarts == 1
        with LabClient(second.base_url) as client:
            assert client.status("after-restart").get("capacity") == 4
            assert client.status("after-reload").get("capacity") == 6  # the state survived the restart
        assert "swap-restarted.log" in str(second.log_path)
    finally:
        reloading.close()
    reloading.close()  # twice is fine
    assert reloading.server is None and reloading.last_server is second and second.stopped
    assert second.leftovers() == {"processesLeft": 0, "portFree": True}
