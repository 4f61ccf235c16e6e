"""classroom.footprint against real processes: a tree with 200 MB in it, busy loops, processes that come and go."""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import textwrap
import time
from typing import Any

import psutil
import pytest

from reservation_lab.classroom.footprint import (
    Sampler,
    machine_memory_used,
    process_tree,
    run_sampled,
    sample,
)

MIB = 2**20
TICK = 0.02  # psutil's CPU times come in clock ticks (10 ms on Linux): two of them
ON_LINUX = pytest.mark.skipif(not psutil.LINUX, reason="PSS, and the CPU of zombies and of reaped children: Linux's")

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
    # the timeout guards against a hang only: two Pythons and 0.7 CPU-s took over 20 s at a load average of 14
    code, sampler = run_sampled([sys.executable, "-c", BUSY_TREE], interval=0.05, timeout=120)
    assert code == 0
    assert sampler.peak_pss_bytes >= 195 * MIB and sampler.peak is not None
    assert sampler.peak_processes == 2
    assert sampler.samples[-1].pss_bytes < 100 * MIB  # freed before the end: the peak is not the last sample
    # 0.4 s in the grandchild (counted through the child's cutime once reaped) + 0.3 s in the child, and startup
    assert sampler.cpu_seconds >= 0.7 - TICK, sampler.cpu_seconds
    cpu = [each.cpu_seconds for each in sampler.samples]
    assert cpu[-1] == max(cpu) and cpu[-1] > cpu[0]  # the last sample reads the exited, not yet reaped, child
    assert sampler.cpu_seconds_during == pytest.approx(sampler.cpu_seconds - cpu[0])
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


# A child whose grandchild burns 0.3 s of CPU and exits unreaped (a zombie); the child then waits for stdin.
ZOMBIE_TREE = textwrap.dedent(f"""
    import os, subprocess, sys
    grandchild = subprocess.Popen([sys.executable, "-c", {BUSY.format(seconds=0.3)!r}])
    os.waitid(os.P_PID, grandchild.pid, os.WEXITED | os.WNOWAIT)  # exited; not reaped
    print(grandchild.pid, flush=True)
    sys.stdin.read()
""")


@ON_LINUX
def test_a_zombie_counts_its_cpu_and_no_memory_and_a_gone_pid_is_left_out() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=10)
    child = subprocess.Popen([sys.executable, "-c", ZOMBIE_TREE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    try:
        zombie = int(child.stdout.readline())
        tree = process_tree(child.pid)
        now = sample([*tree, gone.pid])
        alone = sample([zombie])
    finally:
        child.communicate("", timeout=10)
    assert tree == [child.pid, zombie]  # the zombie is still part of the tree
    assert now.processes == 1 and [m.pid for m in now.members] == [child.pid]
    assert now.memory_source == "pss" and now.pss_bytes > 0
    assert alone.processes == 0 and alone.pss_bytes == 0 and alone.memory_source == "pss"
    assert alone.cpu_seconds >= 0.3 - TICK, alone  # the zombie's own CPU, read after it exited
    assert now.cpu_seconds >= alone.cpu_seconds + now.members[0].cpu_seconds - TICK
    member = now.members[0]
    assert member.ppid == os.getpid() and member.name.startswith("python") and member.argv[1:3] == ("-c", ZOMBIE_TREE)


def test_uss_or_rss_stand_in_where_pss_cannot_be_read_and_the_sample_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS has no PSS (memory_full_info without a pss field): USS; memory_full_info denied: RSS."""
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        me, other = os.getpid(), child.pid
        real = psutil.Process.memory_full_info
        no_pss = collections.namedtuple("pfullmem", "rss vms uss")

        def memory_full_info(process: psutil.Process) -> Any:
            if process.pid == other:
                raise psutil.AccessDenied(process.pid)
            full = real(process)
            return no_pss(full.rss, full.vms, 5 * MIB)

        monkeypatch.setattr(psutil.Process, "memory_full_info", memory_full_info)
        both = sample([me, other])
        alone = sample([other])
    finally:
        child.communicate(b"", timeout=10)
    assert both.memory_source == "uss+rss" and both.processes == 2
    assert [(m.pid, m.memory_source) for m in both.members] == [(me, "uss"), (other, "rss")]
    uss, rss = both.members
    assert uss.pss_bytes == 5 * MIB and uss.rss_bytes > 0
    assert rss.pss_bytes == rss.rss_bytes > 0  # the resident size stands in
    assert alone.memory_source == "rss"
    assert sample([]).memory_source == ("pss" if psutil.LINUX else "uss")


@ON_LINUX
def test_run_sampled_waits_without_waitid(monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS's Python has no os.waitid: run_sampled sees the exited child as a zombie (psutil) and still samples it."""
    monkeypatch.delattr(os, "waitid", raising=False)
    code, sampler = run_sampled([sys.executable, "-c", BUSY.format(seconds=0.2)], interval=0.05, timeout=120)
    assert code == 0
    assert sampler.cpu_seconds >= 0.2 - TICK
    assert sampler.samples[-1].processes == 0  # the last sample: the exited, not yet reaped, command


def test_machine_memory_used_is_part_of_the_machine() -> None:
    assert 0 < machine_memory_used() < psutil.virtual_memory().total
