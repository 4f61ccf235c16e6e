"""The learner's path in a real browser: JupyterLab, headless Chromium, Run All Cells in every language.

Starts JupyterLab from the venv on a copy of notebooks/ (its own process group, a random token, loopback
only, no update or news checks), opens each language's notebook in Debian's Chromium through Playwright,
clears the stored reference outputs, runs all cells through the menus a learner uses, and waits for the
report. Then it checks what a learner must see: the invariant summary, the restart proof, the race plot,
the skipped cloud steps in the notebook's language and no error. Screenshots go to .artifacts/browser/.
Deselect with `-m "not browser"`; skipped with a reason when Chromium or Playwright is missing.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from reservation_lab.i18n import message
from reservation_lab.jupyter.jupyterlab import jupyter_argv, terminal_env
from reservation_lab.paths import NOTEBOOKS_DIR, REPO_ROOT
from reservation_lab.runtime.ports import LOOPBACK, free_port
from reservation_lab.runtime.processes import environment_of
from reservation_lab.runtime.toolchain import pinned_wrangler_version
from reservation_lab.runtime.waiting import wait_until
from tests.support import chromium_browser, lab_processes, skip_without_chromium

pytestmark = pytest.mark.browser

JUPYTER = REPO_ROOT / ".venv" / "bin" / "jupyter"
ARTIFACTS = REPO_ROOT / ".artifacts" / "browser"
LANGUAGES = ("de", "pt", "es")
NOTEBOOK = "concurrent-reservations.ipynb"
RUN_TIMEOUT = 240.0  # one notebook, Run All to report (about a minute here)
# Marks every process started under this JupyterLab (kernels inherit it, wrangler and workerd from them),
# so the leak check counts our processes only, not those of another run in the same checkout.
MARK = "RESERVATION_LAB_BROWSER_TEST"
OUTPUTS: dict[str, str] = {}  # each language's output text, for the terminal test
ANNOUNCED = re.compile(r"^\[(?P<folder>[^\]]+)\] \$ (?P<command>npx wrangler --version)$", re.M)


@dataclass
class Lab:
    """A running JupyterLab: its process, address, token and the marker its descendants carry."""

    proc: subprocess.Popen
    base_url: str
    token: str
    log_path: Path
    stopped: bool = field(default=False)

    def api(self, method: str, path: str) -> Any:
        response = httpx.request(method, f"{self.base_url}{path}", timeout=30, trust_env=False,
                                 headers={"Authorization": f"token {self.token}"})
        response.raise_for_status()
        return response.json() if response.content else None

    def url(self, language: str) -> str:
        return f"{self.base_url}/lab/tree/{language}/{NOTEBOOK}?reset&token={self.token}"

    def shutdown_kernels(self) -> None:
        for kernel in self.api("GET", "/api/kernels"):
            self.api("DELETE", f"/api/kernels/{kernel['id']}")

    def stop(self) -> None:
        """Shut every kernel down through the REST API, then TERM (later KILL) JupyterLab's process group."""
        if self.stopped:
            return
        with contextlib.suppress(httpx.HTTPError):
            self.shutdown_kernels()
        for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        self.stopped = True


def marked_lab_processes(token: str) -> list[str]:
    """lab_processes() (wrangler, workerd, watchdog of this checkout) that descend from this test's JupyterLab."""
    return [line for line in lab_processes() if environment_of(int(line.split(":", 1)[0])).get(MARK) == token]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    skip_without_chromium()
    if not JUPYTER.exists():
        pytest.skip(f"{JUPYTER} is missing: run ./lab setup")
    tmp = tmp_path_factory.mktemp("browser")
    root_dir = tmp / "notebooks"
    shutil.copytree(NOTEBOOKS_DIR, root_dir, ignore=shutil.ignore_patterns("source", ".ipynb_checkpoints"))
    # Jupyter's own state in the temp folder; the news question off (a toast that would cover the screenshots).
    settings = tmp / "settings"
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    # Terminals with xterm's screen-reader rows, so the test can read what a command printed.
    (settings / "@jupyterlab" / "terminal-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "terminal-extension" / "plugin.jupyterlab-settings").write_text(
        json.dumps({"screenReaderMode": True}))
    token = secrets.token_hex(24)
    runtime = tempfile.mkdtemp(prefix="rl-jr-")
    port = free_port()
    # npm's registry on a closed loopback port: a terminal command that tried to download (or wrangler's own
    # update check) cannot leave the machine, so what works in the terminal test works offline.
    env = {**terminal_env(), MARK: token, "npm_config_registry": "http://127.0.0.1:9/",
           "JUPYTER_CONFIG_DIR": str(tmp / "config"),
           "JUPYTER_DATA_DIR": str(tmp / "data"), "JUPYTER_RUNTIME_DIR": runtime}
    log_path = tmp / "jupyter.log"
    # Kernels on socket files in the runtime folder (a short path: a socket's path has at most 107 bytes), not on
    # TCP ports another worker's dev server can take before the kernel binds them (jupyter/socket_kernels.py).
    argv = jupyter_argv(["--port", str(port), f"--IdentityProvider.token={token}", "--ServerApp.port_retries=0",
                         "--ServerKernelManager.transport=ipc",
                         f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={tmp / 'workspaces'}"],
                        root_dir=root_dir)
    with log_path.open("wb") as log:
        proc = subprocess.Popen(argv, cwd=tmp, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    running = Lab(proc, f"http://{LOOPBACK}:{port}", token, log_path)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                running.api("GET", "/api/status")
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start:\n{log_path.read_text()[-3000:]}") from None
                time.sleep(0.25)
        yield running
    finally:
        running.stop()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture(scope="module")
def browser(lab: Lab) -> Iterator[Any]:
    with chromium_browser() as chromium:
        yield chromium


def output_text(page: Any) -> str:
    """The text of every output area in the notebook (never the code), one block per output."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.jp-OutputArea-output')].map(o => o.textContent).join('\\n')")


def stderr_texts(page: Any) -> list[str]:
    """Outputs rendered as stderr: error outputs (tracebacks) and anything written to stderr."""
    return page.evaluate("() => [...document.querySelectorAll("
                         "'.jp-OutputArea-output[data-mime-type=\"application/vnd.jupyter.stderr\"]')]"
                         ".map(o => o.textContent)")


def code_prompts(page: Any) -> list[str]:
    return page.evaluate("() => [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]"
                         ".map(p => p.textContent.trim())")


def kernel_idle(lab: Lab, language: str) -> bool:
    sessions = [s for s in lab.api("GET", "/api/sessions") if s["path"] == f"{language}/{NOTEBOOK}"]
    return bool(sessions) and sessions[0]["kernel"]["execution_state"] == "idle"


def menu(page: Any, top: str, item: str) -> None:
    """Click a main menu entry the way a learner does: the menu bar, then the item."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{top}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).click()


def wait_for(condition, timeout: float, what: str, interval: float = 0.5, shown=None) -> None:
    """runtime.waiting.wait_until, failing the test with what it waited for (and what `shown()` says then)."""
    if not wait_until(lambda: bool(condition()), timeout, interval=interval):
        seen = f"; seen:\n{shown()}" if shown is not None else ""
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{seen}")


def code_cell(page: Any, marker: str) -> Any:
    """The first code cell whose output contains `marker`."""
    return page.locator(".jp-CodeCell").filter(
        has=page.locator(".jp-OutputArea-output", has_text=marker)).first


def scroll_to(page: Any, cell: Any) -> None:
    """Bring a cell to the top of the notebook. Cells off screen are laid out lazily (content-visibility),
    so heights change while scrolling: repeat until the cell stays put."""
    top = None
    for _ in range(10):
        cell.evaluate("cell => cell.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(250)
        now = cell.evaluate("cell => cell.getBoundingClientRect().top")
        if now == top:
            return
        top = now


def keep_what_it_saw(page: Any, lab: Lab, language: str) -> None:
    """On failure: a screenshot, the cells' output text and JupyterLab's log under .artifacts/browser/."""
    with contextlib.suppress(Exception):
        page.screenshot(path=str(ARTIFACTS / f"{language}-failure.png"), full_page=True)
    with contextlib.suppress(Exception):
        (ARTIFACTS / f"{language}-failure-outputs.txt").write_text(output_text(page))
    with contextlib.suppress(Exception):
        shutil.copyfile(lab.log_path, ARTIFACTS / f"{language}-failure-jupyter.log")


# Run All in one language proves the JupyterLab path; the others' outputs are covered by nbval and the language
# tests, so they run with the stress tests (`./lab test -m stress`).
@pytest.mark.parametrize("language", [LANGUAGES[0], *(pytest.param(lang, marks=pytest.mark.stress)
                                                      for lang in LANGUAGES[1:])])
def test_a_learner_runs_all_cells_in_jupyterlab(language: str, lab: Lab, browser: Any) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale=language)
    page = context.new_page()
    try:
        page.goto(lab.url(language))
        page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=90_000)
        wait_for(lambda: kernel_idle(lab, language), 90, "the kernel to be idle")
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)

        # The committed notebook carries reference outputs: clear them, so everything checked below is fresh.
        page.locator(".jp-Notebook .jp-Cell").first.click()
        menu(page, "Edit", "Clear Outputs of All Cells")
        wait_for(lambda: '"final_status"' not in output_text(page), 30, "the reference outputs to be cleared")

        started = time.monotonic()
        menu(page, "Run", "Run All Cells")

        def finished() -> bool:
            if '"final_status"' in output_text(page) and kernel_idle(lab, language):
                return True
            failed = [text for text in stderr_texts(page) if "Error" in text]
            if failed and kernel_idle(lab, language):  # Run All stops at the first failing cell
                raise AssertionError(f"a cell failed in the {language} notebook:\n" + "\n".join(failed))
            return False

        wait_for(finished, RUN_TIMEOUT, f"the report of the {language} notebook", interval=2)
        elapsed = time.monotonic() - started

        text = output_text(page)
        assert '"accepted": 4' in text and '"rejected": 6' in text, "invariant summary missing"
        assert '"highestReserved": 4' in text
        assert '"rejectedRequests": 7' in text and '"replayed": true' in text, "restart proof missing"
        assert '"processesLeft": 0' in text
        assert '"naiveSerialOrder": false' in text and '"atomicSerialOrder": true' in text
        for step in (5, 6, 7):
            assert message("lines.skipped_step", language, step=step) in text
        ready = message("lines.server_ready", language, seconds=0.0).split("0")[0]
        assert text.count(ready) == 2, f"progress line {ready!r} not shown for both server starts"
        assert page.locator('.jp-OutputArea-output img[src^="data:image/svg+xml"]').count() >= 1, "race plot missing"
        prompts = code_prompts(page)
        assert prompts and all(re.fullmatch(r"\[\d+\]:", p) for p in prompts), prompts
        errors = [t for t in stderr_texts(page) if re.search(r"Error|Traceback", t)]
        assert errors == [], errors

        # What a learner sees: the race plot in the window, and the plot, burst summary and report as cells.
        plot_cell = page.locator(".jp-CodeCell").filter(
            has=page.locator('.jp-OutputArea-output img[src^="data:image/svg+xml"]')).first
        shots = {"plot": plot_cell, "summary": code_cell(page, '"highestReserved"'),
                 "report": code_cell(page, '"final_status"'), "server": code_cell(page, ready)}
        scroll_to(page, plot_cell)
        page.screenshot(path=str(ARTIFACTS / f"{language}.png"))
        for name, cell in shots.items():
            scroll_to(page, cell)
            cell.screenshot(path=str(ARTIFACTS / f"{language}-{name}.png"))
        print(f"{language}: Run All Cells to report in {elapsed:.0f} s")
        OUTPUTS[language] = text
    except BaseException:
        keep_what_it_saw(page, lab, language)
        raise
    finally:
        context.close()
        lab.shutdown_kernels()


def test_an_announced_command_pasted_into_a_jupyterlab_terminal(lab: Lab, browser: Any) -> None:
    """The German run announced `[<folder>] $ npx wrangler --version`; typed into JupyterLab's own terminal in
    that folder it prints the pinned version (offline: the run folder resolves the pinned wrangler)."""
    if "de" not in OUTPUTS:
        pytest.skip("the German notebook did not run")
    found = ANNOUNCED.search(OUTPUTS["de"])
    assert found, "the notebook did not announce `npx wrangler --version`"
    folder = Path(found["folder"])
    folder = folder if folder.is_absolute() else REPO_ROOT / folder
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{lab.base_url}/lab?reset&token={lab.token}")
        page.wait_for_selector(".lm-MenuBar-itemLabel", timeout=90_000)
        menu(page, "File", "New")
        page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Terminal$")).click()
        terminal = page.locator(".jp-Terminal .xterm-accessibility-tree").first
        terminal.wait_for(state="attached", timeout=60_000)
        # Keys typed before the terminal's websocket is open and its shell has started are lost (the widget is
        # there before either): wait for the shell's prompt, then type; the command's echo says it arrived.
        wait_for(lambda: terminal.inner_text().strip() != "", 60, "the shell's prompt in the terminal")
        assert (folder / "node_modules" / "wrangler").is_dir(), f"{folder} does not resolve the pinned wrangler"
        # Typed into xterm's own input (not whatever has the focus: JupyterLab may still be restoring its layout
        # and move the focus on a loaded machine); the whole line's echo, the folder too, says it all arrived.
        line = f"cd {folder} && {found['command']}"
        page.locator(".jp-Terminal .xterm-helper-textarea").first.press_sequentially(line + "\n")
        typed = "".join(line.split())
        wait_for(lambda: typed in "".join(terminal.inner_text().split()), 30,
                 "the typed line echoed by the shell", shown=terminal.inner_text)
        wait_for(lambda: f"wrangler {pinned_wrangler_version()}" in terminal.inner_text(), 60,
                 "the pinned version in the terminal", shown=terminal.inner_text)
    finally:
        page.screenshot(path=str(ARTIFACTS / "terminal.png"))
        context.close()
        for term in lab.api("GET", "/api/terminals"):
            lab.api("DELETE", f"/api/terminals/{term['name']}")


def test_jupyterlab_stops_and_leaves_no_process(lab: Lab) -> None:
    lab.stop()
    assert lab.proc.poll() is not None, "JupyterLab is still running"
    deadline = time.monotonic() + 20
    left = marked_lab_processes(lab.token)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = marked_lab_processes(lab.token)
    assert left == [], "wrangler/workerd/watchdog left behind:\n" + "\n".join(left)
