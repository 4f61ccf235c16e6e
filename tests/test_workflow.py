"""The GitHub Actions workflow: actionlint finds nothing; it runs the README's test command, then builds the website
and publishes it from main."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from reservation_lab.paths import REPO_ROOT
from reservation_lab.website.build import DEFAULT_OUTPUT
from tests.support import with_environment_bin

WORKFLOWS = sorted((REPO_ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent  # actionlint and the shellcheck it runs over `run:` scripts


def actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "actionlint"), "-no-color", *map(str, paths)], capture_output=True, text=True,
                          timeout=120, cwd=REPO_ROOT, env=with_environment_bin())


def test_actionlint_finds_nothing() -> None:
    assert WORKFLOWS, "no workflow in .github/workflows"
    result = actionlint(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / ".github" / "workflows" / "test.yml"
    broken.parent.mkdir(parents=True)
    broken.write_text(WORKFLOWS[0].read_text().replace("runs-on:", "run-on:"))
    result = actionlint(broken)
    assert result.returncode == 1 and "run-on" in result.stdout, result.stdout + result.stderr


def test_the_workflow_runs_the_readme_test_command() -> None:
    readme_command = next(line.split("#")[0].strip() for line in (REPO_ROOT / "README.md").read_text().splitlines()
                          if line.startswith("./lab test"))
    steps = yaml.safe_load(WORKFLOWS[0].read_text())["jobs"]["test"]["steps"]
    assert [step["run"] for step in steps if step.get("name") == readme_command] == [readme_command]


def test_the_workflow_builds_the_website_after_the_tests_and_publishes_it_from_main() -> None:
    jobs = yaml.safe_load(WORKFLOWS[0].read_text())["jobs"]
    steps = jobs["test"]["steps"]  # the site is built in the tested environment, once the tests have passed
    names = [step.get("name") for step in steps]
    assert names.index("./lab test") < names.index("./lab site")
    assert [step["run"].split()[:2] for step in steps if step.get("name") == "./lab site"] == [["./lab", "site"]]
    uploads = [index for index, step in enumerate(steps)
               if step.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert [steps[index]["with"]["path"] for index in uploads] == [DEFAULT_OUTPUT.relative_to(REPO_ROOT).as_posix()]
    assert uploads[0] > names.index("./lab site")
    publish = jobs["publish"]
    assert publish["needs"] == "test"
    assert publish["if"] == "github.event_name == 'push' && github.ref == 'refs/heads/main'"
    assert publish["permissions"] == {"pages": "write", "id-token": "write"}
    assert [step["uses"].split("@")[0] for step in publish["steps"]] == ["actions/deploy-pages"]
