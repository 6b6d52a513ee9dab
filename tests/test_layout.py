"""The folders show the layers: few modules at the top, no import cycle, no long module, and the
contracts and docs/architecture.md naming the same folders in the same order."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
BOX = ROOT / "box"
TOP_MODULES = {"__init__.py", "__main__.py", "words.py", "messages.py", "events.py", "errors.py"}
LONG_ALLOWED = ("box/games/", "box/ports/nfc/")  # the games' rules and the PN532 driver
MAX_LINES = 500


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return found


def test_no_import_cycle_type_only_imports_included() -> None:
    graph = grimp.build_graph("box", exclude_type_checking_imports=False)
    assert cycles(graph) == []


def test_cycles_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("a", "b", "c"):
        graph.add_module(name)
    graph.add_import(importer="a", imported="b")
    graph.add_import(importer="b", imported="a")
    graph.add_import(importer="b", imported="c")
    assert cycles(graph) == [["a", "b"]]


def test_the_top_of_box_holds_only_the_shared_words() -> None:
    assert {p.name for p in BOX.glob("*.py")} == TOP_MODULES


def test_every_folder_says_what_lives_there() -> None:
    for folder in sorted(p for p in BOX.iterdir() if p.is_dir() and p.name != "__pycache__"):
        if not any(folder.glob("*.py")):
            continue
        init = folder / "__init__.py"
        assert init.exists(), folder
        docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert docstring and len(docstring.splitlines()) >= 2, f"{init}: say what lives there and what it may import"


def test_no_long_module_outside_the_games_and_the_pn532_driver() -> None:
    long = []
    for path in sorted(BOX.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and not where.startswith(LONG_ALLOWED):
            long.append(f"{where}: {lines} lines")
    assert long == []


def layers_contract() -> list[list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [re.split(r"\s*[|:]\s*", layer) for layer in layers["layers"]]


def test_the_contract_names_folders_and_every_folder_is_in_it() -> None:
    named = [name for layer in layers_contract() for name in layer]
    folders = {f"box.{p.name}" for p in BOX.iterdir() if (p / "__init__.py").exists()}
    modules = {f"box.{p.stem}" for p in BOX.glob("*.py") if p.name != "__init__.py"}
    assert set(named) == folders | modules


def test_the_architecture_drawing_names_the_same_folders_in_the_same_order() -> None:
    drawing = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split("```")[1]
    drawn = re.findall(r"^ *(box/[\w.]+)", drawing, re.M)
    drawn_names = [name.removesuffix(".py").rstrip("/").replace("/", ".") for name in drawn]
    contract = [name for layer in layers_contract() for name in layer]
    assert drawn_names == contract
