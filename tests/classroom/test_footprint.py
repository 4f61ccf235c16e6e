"""classroom.footprint against real processes: a tree with 200 MB in it, busy loops, processes that come and go."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from reservation_lab.classroom.footprint import (
    CLOCK_TICKS,
    PAGE_SIZE,
    Sampler,
    UnsupportedPlatform,
    machine_memory_used,
    process_tree,
    run_sampled,
    sample,
)

MIB = 2**20
ON_LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="footprint reads Linux's /proc")

# A child that holds 200 MB (touched: resident, not only reserved) and starts a grandchild; both wait for stdin.
HOLDER = textwrap.dedent("""
    import subprocess, sys
    held = bytearray(200 * 2**20)
    for i in range(0, len(held), 4096):
        held[i] = 1
    grandchild = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    print(grandchild.pid, flush=True)
    sys.stdin.read()
    grandchild.communicate()
""")

BUSY = "import time\nstarted = time.process_time()\nwhile time.process_time() - started < {seconds}: pass\n"

# 200 MB held while a grandchild burns 0.4 s of CPU (and is reaped), then freed, then 0.3 s of the child's own CPU.
BUSY_TREE = textwrap.dedent(f"""
    import subprocess, sys
    held = bytearray(200 * 2**20)
    for i in range(0, len(held), 4096):
        held[i] = 1
    subprocess.run([sys.executable, "-c", {BUSY.format(seconds=0.4)!r}], check=True)
    del held
    exec({BUSY.format(seconds=0.3)!r})
""")


@ON_LINUX
def test_the_tree_holds_the_child_and_grandchild_and_their_memory() -> None:
    child = subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        grandchild = int(child.stdout.readline())
        tree = process_tree(child.pid)
        now = sample(tree)
    finally:
        child.communicate("", timeout=10)
    assert tree == [child.pid, grandchild]
    assert now.processes == 2 and now.memory_source == "pss"
    assert now.pss_bytes >= 195 * MIB, now
    assert now.rss_bytes >= now.pss_bytes  # a shared page counts whole in RSS, in part in PSS
    assert {member.pid for member in now.members} == {child.pid, grandchild}
    assert process_tree(child.pid) == []  # gone


@ON_LINUX
def test_the_sampler_keeps_the_peak_and_counts_the_cpu_of_a_reaped_grandchild() -> None:
    code, sampler = run_sampled([sys.executable, "-c", BUSY_TREE], interval=0.05, timeout=20)
    assert code == 0
    assert sampler.peak_pss_bytes >= 195 * MIB and sampler.peak is not None
    assert sampler.peak_processes == 2
    assert sampler.samples[-1].pss_bytes < 100 * MIB  # freed before the end: the peak is not the last sample
    # 0.4 s in the grandchild (counted through the child's cutime once reaped) + 0.3 s in the child, and startup
    assert sampler.cpu_seconds >= 0.7 - 2 / CLOCK_TICKS, sampler.cpu_seconds
    cpu = [each.cpu_seconds for each in sampler.samples]
    assert cpu[-1] == max(cpu) and cpu[-1] > cpu[0]  # the last sample reads the exited, not yet reaped, child
    assert sampler.wall_seconds >= 0.7
    assert sampler.machine_peak_bytes >= sampler.machine_start_bytes > 0


@ON_LINUX
def test_processes_that_exit_while_sampled_break_nothing() -> None:
    """Grandchildren that live 20 ms each, sampled every 10 ms, then the root exits inside the `with` block."""
    code = "import subprocess, sys\nfor _ in range(8):\n    subprocess.run([sys.executable, '-c', 'pass'])\n"
    root = subprocess.Popen([sys.executable, "-c", code])
    with Sampler(root.pid, interval=0.01) as sampler:
        root.wait(timeout=20)
        time.sleep(0.05)  # sampled after the root is gone and reaped
    assert sampler.samples[-1].processes == 0
    assert sampler.peak_processes >= 1
    assert sampler.cpu_seconds > 0  # what was seen is kept after the tree is gone


def fake_process(proc: Path, pid: int, ppid: int, name: str, rss_pages: int, pss_kib: int | None,
                 ticks: tuple[int, int, int, int] = (0, 0, 0, 0), state: str = "S") -> None:
    """A /proc/<pid> with a stat line (proc(5) fields 1-24 and a few more) and, unless pss_kib is None, smaps_rollup."""
    folder = proc / str(pid)
    folder.mkdir(parents=True)
    fields = [state, ppid, *[0] * 9, *ticks, *[0] * 6, rss_pages, *[0] * 10]
    (folder / "stat").write_text(f"{pid} ({name}) {' '.join(map(str, fields))}\n")
    (folder / "cmdline").write_bytes(f"{name}\0--flag\0".encode())
    if pss_kib is not None:
        (folder / "smaps_rollup").write_text(f"00400000-ffffffff ---p 00000000 00:00 0 [rollup]\n"
                                             f"Rss: {rss_pages * PAGE_SIZE // 1024} kB\nPss: {pss_kib} kB\n")


def test_rss_stands_in_where_smaps_rollup_is_unreadable_and_the_sample_says_so(tmp_path: Path) -> None:
    fake_process(tmp_path, 10, 1, "root (x) y", 100, 200, ticks=(100, 50, 30, 20))
    fake_process(tmp_path, 11, 10, "hidden", 50, None, ticks=(10, 0, 0, 0))
    fake_process(tmp_path, 12, 11, "gone", 0, None, ticks=(5, 5, 0, 0), state="Z")
    fake_process(tmp_path, 13, 1, "stranger", 1, 4)
    assert process_tree(10, proc=tmp_path) == [10, 11, 12]
    now = sample([10, 11, 12, 99], proc=tmp_path)
    assert now.memory_source == "pss+rss" and now.processes == 2  # the zombie holds no memory, 99 does not exist
    assert now.pss_bytes == 200 * 1024 + 50 * PAGE_SIZE
    assert now.rss_bytes == 150 * PAGE_SIZE
    assert now.cpu_seconds == pytest.approx(220 / CLOCK_TICKS)  # the zombie's CPU and the root's reaped children
    assert [(m.name, m.memory_source, m.argv) for m in now.members] == [
        ("root (x) y", "pss", ("root (x) y", "--flag")), ("hidden", "rss", ("hidden", "--flag"))]
    assert sample([11], proc=tmp_path).memory_source == "rss"


@ON_LINUX
def test_machine_memory_used_is_part_of_the_machine() -> None:
    import psutil

    assert 0 < machine_memory_used() < psutil.virtual_memory().total


def test_other_systems_get_a_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    for call in (lambda: process_tree(1), lambda: sample([1]), machine_memory_used, lambda: Sampler(1).__enter__()):
        with pytest.raises(UnsupportedPlatform, match="Linux"):
            call()
