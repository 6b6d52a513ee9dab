"""The dataclasses' methods kept as byte code between starts (box/files/classcode.py): made once, the same
classes, and a kept file that is not whole never stops a start."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

import box
from box.files import classcode
from box.files.classcode import HEADER, ClassCode

ROOT = Path(__file__).resolve().parent.parent


def make_class(code: ClassCode, monkeypatch: pytest.MonkeyPatch) -> type:
    """A frozen dataclass made with `code` as dataclasses' exec."""
    monkeypatch.setattr(dataclasses, "exec", code.exec, raising=False)

    @dataclasses.dataclass(frozen=True)
    class Seat:
        name: str
        drinks: int = 0
        laps: tuple[int, ...] = ()

    return Seat


def works(Seat: type) -> None:
    """The class behaves as a frozen dataclass does."""
    ann = Seat("Ann", 2)
    assert ann == Seat("Ann", 2) and hash(ann) == hash(Seat("Ann", 2)) and ann != Seat("Bob")
    assert repr(ann).endswith("Seat(name='Ann', drinks=2, laps=())")
    assert dataclasses.replace(ann, drinks=3).drinks == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        ann.name = "Zed"


def test_a_class_made_again_takes_its_kept_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = tmp_path / "classcode.bin"
    first = ClassCode(kept)
    works(make_class(first, monkeypatch))
    assert first.made  # compiled here, kept at the save
    first.save()
    again = ClassCode(kept)
    works(make_class(again, monkeypatch))
    assert not again.made  # nothing compiled: all of it read back


def test_a_save_keeps_what_another_process_kept_since_this_one_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two starts on an empty file, each making its own classes: the later save keeps the earlier's."""
    kept = tmp_path / "classcode.bin"
    early, late = ClassCode(kept), ClassCode(kept)
    make_class(late, monkeypatch)
    late.save()
    monkeypatch.setattr(dataclasses, "exec", early.exec, raising=False)

    @dataclasses.dataclass
    class Other:
        laps: int

    assert early.made
    early.save()
    again = ClassCode(kept)
    works(make_class(again, monkeypatch))
    monkeypatch.setattr(dataclasses, "exec", again.exec, raising=False)

    @dataclasses.dataclass
    class Other:  # noqa: F811  (the same class made again: its code kept)
        laps: int

    assert not again.made  # the classes of both starts were found


def test_a_file_over_its_bound_keeps_the_classes_in_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkout that kept more than `MOST_KEPT` sources (old versions' classes) keeps, at the next
    save, those this process found and those it made: a start after it compiles none of them."""
    kept = tmp_path / "classcode.bin"
    monkeypatch.setattr(classcode, "MOST_KEPT", 3)
    old = ClassCode(kept)
    for number in range(3):
        old.exec(f"def f(): return {number}", {}, {})
    old.save()
    start = ClassCode(kept)
    works(make_class(start, monkeypatch))  # found nothing: made here
    start.exec("def f(): return 0", {}, {})  # found
    start.save()
    again = ClassCode(kept)
    works(make_class(again, monkeypatch))
    again.exec("def f(): return 0", {}, {})
    assert not again.made  # its class and the source it used kept
    assert again.kept("def f(): return 1") is None and again.kept("def f(): return 2") is None  # the others gone


@pytest.mark.parametrize("damage", ["torn", "flipped entry", "flipped index", "another python", "empty", "not ours"])
def test_a_kept_file_that_is_not_whole_is_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    kept = tmp_path / "classcode.bin"
    first = ClassCode(kept)
    make_class(first, monkeypatch)
    first.save()
    data = bytearray(kept.read_bytes())
    if damage == "torn":
        data = data[: len(data) // 2]
    elif damage == "flipped entry":
        data[-10] ^= 0xFF
    elif damage == "flipped index":
        data[HEADER + 3] ^= 0xFF
    elif damage == "another python":
        data[0] ^= 0xFF
    elif damage == "empty":
        data = bytearray()
    else:
        data = bytearray(b"\x00" * 4096)
    kept.write_bytes(bytes(data))
    again = ClassCode(kept)
    works(make_class(again, monkeypatch))
    assert again.made  # made anew, and the start goes on


def test_a_folder_it_cannot_write_is_left_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kept = tmp_path / "gone" / "classcode.bin"  # a folder that is not there: the write fails, quietly
    code = ClassCode(kept)
    works(make_class(code, monkeypatch))
    code.save()
    assert not kept.parent.exists() and code.made


START = """
import dataclasses, sys
from pathlib import Path
from box.files.classcode import ClassCode
code = ClassCode(Path(sys.argv[1]))
dataclasses.exec = code.exec  # this test's own file: the suite's other processes write the package's
import box.core.app, box.core.hardware  # the box's modules, as a start imports them
print(len(code.made), len(code.index))
code.save()
"""


def test_a_start_compiles_none_of_the_boxs_dataclasses_once_they_are_kept(tmp_path: Path) -> None:
    """The first start keeps them all; the next finds every one (box/__init__.py installs the package's)."""
    assert isinstance(box.CLASS_CODE, ClassCode) and dataclasses.exec == box.CLASS_CODE.exec  # type: ignore[attr-defined]
    kept = tmp_path / "classcode.bin"
    first, again = (
        subprocess.run([sys.executable, "-c", START, str(kept)], cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
        for _ in range(2)
    )
    assert int(first[0]) >= 37 and first[1] == "0"  # made: the box's 37 dataclasses' methods (one source each or more); none found
    assert again == ["0", first[0]]  # none made; as many found


KEEP_WITHOUT_EXTRAS = """
import sys
from pathlib import Path
sys.modules["starlette"] = sys.modules["paho"] = None  # the web and mqtt extras not installed
import box
from box.files.classcode import ClassCode
box.CLASS_CODE.path = Path(sys.argv[1])  # this test's own file
from box.cli.service import keep_class_code
keep_class_code()
print(len(ClassCode(Path(sys.argv[1])).index))
"""


def test_the_installer_keeps_the_code_without_the_optional_extras(tmp_path: Path) -> None:
    """install.sh's `keep_class_code` on a box installed without the page's or MQTT's libraries keeps the
    box's classes and says nothing of the services that cannot start there."""
    kept = tmp_path / "classcode.bin"
    done = subprocess.run([sys.executable, "-c", KEEP_WITHOUT_EXTRAS, str(kept)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr, done.stderr
    assert int(done.stdout) >= 37
