"""The README's and the docs' commands work as written (issue 38, row 8): every `./run-box sim --script`
line of their code blocks runs and passes the expects the text says, their example scripts run, and a
command that is not on the PATH after `./run-box` is not offered bare."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
NOT_HERE = ("--mqtt", "--web")  # a broker, a listening page: not in this test


def blocks(path: Path) -> list[tuple[int, list[str], str]]:
    """The code blocks of a Markdown file (indented four spaces or fenced): their first line number,
    their lines, and the text after them up to the next block."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[tuple[int, list[str], str]] = []
    at, fenced, current = 0, False, []
    for number, line in enumerate(lines, start=1):
        if line.startswith("```"):
            if fenced:
                found.append((at, current, ""))
            fenced, current, at = not fenced, [], number + 1
        elif fenced:
            current.append(line)
        elif line.startswith("    ") and (current or not lines[number - 2].strip()):
            at = at if current else number
            current.append(line[4:])
        elif current:
            found.append((at, current, ""))
            current = []
    if current:
        found.append((at, current, ""))
    # the prose after each block: what a reader expects of its commands
    return [(at, body, "\n".join(lines[at - 1 + len(body) : at - 1 + len(body) + 6])) for at, body, _ in found]


def script_commands() -> list[tuple[str, list[str], str]]:
    commands = []
    for path in DOCS:
        for at, body, after in blocks(path):
            for line in body:
                if not line.startswith("./run-box sim --script "):
                    continue
                words = shlex.split(line.split(" #")[0])
                if (ROOT / words[3]).is_file():
                    commands.append((f"{path.name}:{at}", words[2:], after))
    return commands


def run_sim(arguments: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "box", "sim", *arguments], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}, check=False,
    )


def test_the_docs_have_script_commands_to_run():
    assert any(where.startswith("README.md") for where, _, _ in script_commands())


@pytest.mark.parametrize(("where", "arguments", "after"), script_commands(), ids=lambda value: str(value)[:40])
def test_a_documented_script_command_runs_and_passes_the_expects_the_text_says(where, arguments, after, tmp_path):
    kept = []
    skip = False
    for word in arguments:
        if skip:
            skip = False
        elif word in NOT_HERE:
            skip = True  # its HOST:PORT too
        else:
            kept.append(word)
    done = run_sim(kept, tmp_path)
    assert done.returncode == 0, (where, done.stderr)
    printed = re.search(r"ok, (\d+) expects passed", done.stdout)
    assert printed, (where, done.stdout)
    said = re.search(r"ok, (\d+) expects passed", after)
    if said and "--mqtt" not in arguments:
        assert said[1] == printed[1], f"{where}: the text says {said[1]} expects, the script passes {printed[1]}"


def example_scripts() -> list[tuple[str, str]]:
    """Code blocks that are scripts (they start a game): each as the text of a script file."""
    return [
        (f"{path.name}:{at}", "\n".join(body) + "\n")
        for path in DOCS
        for at, body, _ in blocks(path)
        if body and body[0].startswith("start ")
    ]


@pytest.mark.parametrize(("where", "script"), example_scripts(), ids=lambda value: str(value)[:40])
def test_an_example_script_in_the_docs_runs_as_written(where, script, tmp_path):
    path = tmp_path / "example.script"
    path.write_text(script, encoding="utf-8")
    done = run_sim(["--script", str(path)], tmp_path)
    assert done.returncode == 0, (where, done.stderr)


def test_the_readme_and_the_docs_offer_no_bare_gravebox_command_from_a_checkout():
    """`./run-box` sets up .venv but puts no `gravebox` on the PATH: a code block says `./run-box ...`
    or `.venv/bin/gravebox ...`, or says it is for a box (where the installer put `gravebox` there)."""
    for path in (ROOT / "README.md", ROOT / "docs" / "sim.md", ROOT / "docs" / "web.md", ROOT / "docs" / "mqtt.md"):
        for at, body, _ in blocks(path):
            for line in body:
                if line.startswith("gravebox ") and "on a box" not in line:
                    pytest.fail(f"{path.name}:{at}: {line!r} is not on the PATH after ./run-box")


def test_the_menus_are_where_the_install_guide_and_the_readme_send_the_owner():
    """Enrolment, the self-test and the stick are in the main menu, not the long-BACK box menu; undo
    there takes two OKs (its line, then its question), as README.md and docs/sim.md say."""
    from box.base.settings import Settings
    from box.core.service import Box
    from box.screens.tools import DiceCup
    from box.storage.journal import Journal
    from box.storage.tags import TagMap

    box = Box(Journal(":memory:"), TagMap(), DiceCup(die=lambda: 2), Settings(names=("Ann", "Bob")))
    assert {"Enrol cards", "Self-test", "USB stick"} <= set(box.root.menu.entries())
    box.open_box_menu()
    assert not {"Enrol cards", "Self-test", "USB stick"} & set(box.top.entries)
    guide = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    assert "*Enrol cards* in the main menu" in guide and "long BACK, *Enrol cards*" not in guide
    assert "two OKs" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "two OKs" in (ROOT / "docs" / "sim.md").read_text(encoding="utf-8")
