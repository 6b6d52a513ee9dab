"""Raspberry Pi OS stood in for on a cached Debian root (tests/booted.py), for the tests that boot
the project in a container: tests/test_booted_box.py (the installed box) and tests/test_own_wifi_nm.py
(the phone page on the box's own Wi-Fi, on top of it with NetworkManager).

`pi_os_root(release)` is Debian `release` with, made once and cached:
- Raspberry Pi OS's boot files `/boot/firmware/config.txt` and `cmdline.txt`, as flashed;
- Raspberry Pi OS's `python3-lgpio`: a package of that name whose `lgpio` module refuses to be
  imported (no GPIO here) and whose metadata satisfies rpi-lgpio's requirement, as the real one's does;
- `modprobe` and `udevadm` in /usr/local/sbin: a container loads no modules and runs no udevd;
  they write each call to /var/log/gravebox-stand-ins.log, and fail while a test asks them to;
- PyPI: the container has no network, so /etc/pip.conf points pip at a wheelhouse (`WHEELS`) of
  the project's dependencies with install.sh's extras, made with the host's network and CA certificates;
- the account `pi` with password-less sudo, as Raspberry Pi Imager makes it.

`copy_checkout(folder)` puts the checkout's files there as a clone has them.
"""

from __future__ import annotations

import inspect
import subprocess
import tomllib
from pathlib import Path

from tests.booted import debian_root, derived_root, inside

REPO = Path(__file__).resolve().parent.parent
WHEELS = "/var/cache/gravebox-wheels"  # the stand-in for PyPI, inside the root
STAND_INS_LOG = "/var/log/gravebox-stand-ins.log"
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"
EXTRAS = ("pi", "web", "mqtt")  # what install.sh installs (its `extras`)
# Raspberry Pi OS's boot files as flashed (shortened): the same as tests/test_install.py's.
CONFIG_TXT = "# http://rptl.io/configtxt\ndtparam=audio=on\ncamera_auto_detect=1\ndisplay_auto_detect=1\n\n[all]\n"
CMDLINE_TXT = ("console=serial0,115200 console=tty1 root=PARTUUID=2d4e6b1f-02 rootfstype=ext4 fsck.repair=yes"
               " rootwait quiet splash plymouth.ignore-serial-consoles\n")
LGPIO_STAND_IN = '''"""A stand-in for Raspberry Pi OS's lgpio in a test container, which has no GPIO."""
raise ImportError("lgpio: a stand-in in a test container without GPIO (tests/test_booted_box.py)")
'''
LOGGING_STAND_IN = """#!/bin/sh
# A stand-in (tests/test_booted_box.py): a container loads no kernel modules and runs no udevd.
# It fails while /etc/gravebox-stand-ins/fail-<its name> exists (a test's doing).
echo "$(basename "$0") $*" >>/var/log/gravebox-stand-ins.log
if [ -e "/etc/gravebox-stand-ins/fail-$(basename "$0")" ]; then echo "$(basename "$0"): failing (a test)" >&2; exit 1; fi
"""
PIP_CONF = f"[global]\nno-index = true\nfind-links = {WHEELS}\n"



def requirements() -> list[str]:
    """The project's dependencies with install.sh's extras, from pyproject.toml."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    wanted = list(pyproject["project"]["dependencies"])
    for extra in EXTRAS:
        wanted += pyproject["project"]["optional-dependencies"][extra]
    return sorted(wanted) + sorted(pyproject["build-system"]["requires"])  # pip's isolated build too


def stand_ins(root: Path) -> None:
    """Put Raspberry Pi OS's part in `root` (see the module's docstring)."""
    (root / "boot/firmware").mkdir(parents=True, exist_ok=True)
    (root / "boot/firmware/config.txt").write_text(CONFIG_TXT)
    (root / "boot/firmware/cmdline.txt").write_text(CMDLINE_TXT)
    for tool in ("modprobe", "udevadm"):
        (root / "usr/local/sbin" / tool).write_text(LOGGING_STAND_IN)
        (root / "usr/local/sbin" / tool).chmod(0o755)
    package = root / "var/tmp/python3-lgpio"
    site = package / "usr/lib/python3/dist-packages"
    site.mkdir(parents=True)
    (site / "lgpio.py").write_text(LGPIO_STAND_IN)
    (site / "lgpio-0.2.2.0.egg-info").write_text("Metadata-Version: 1.1\nName: lgpio\nVersion: 0.2.2.0\n")
    (package / "DEBIAN").mkdir()
    (package / "DEBIAN/control").write_text(
        "Package: python3-lgpio\nVersion: 0.2.2-0gravebox1\nArchitecture: all\n"
        "Maintainer: Gravebox tests <tests@gravebox.invalid>\n"
        "Description: stand-in for Raspberry Pi OS's python3-lgpio in a test container\n"
        " Its lgpio module refuses to be imported: the container has no GPIO.\n")
    (root / "var/tmp/requirements.txt").write_text("\n".join(requirements()) + "\n")
    inside(root, f"""
        dpkg-deb --build --root-owner-group /var/tmp/python3-lgpio /var/tmp/python3-lgpio.deb >/dev/null
        dpkg -i /var/tmp/python3-lgpio.deb >/dev/null
        rm -rf /var/tmp/python3-lgpio /var/tmp/python3-lgpio.deb
        useradd --create-home --shell /bin/bash --groups sudo pi
        echo 'pi ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/010_pi-nopasswd
        chmod 0440 /etc/sudoers.d/010_pi-nopasswd
        export PIP_CERT=/etc/gravebox-host-ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1
        python3 -m venv --system-site-packages /var/tmp/wheels-venv
        /var/tmp/wheels-venv/bin/pip install --quiet --only-binary=lgpio -r /var/tmp/requirements.txt
        /var/tmp/wheels-venv/bin/pip freeze --local --all | grep -v '^pip==' >/var/tmp/pinned.txt
        /var/tmp/wheels-venv/bin/pip wheel --quiet --no-deps -r /var/tmp/pinned.txt -w {WHEELS}
        rm -rf /var/tmp/wheels-venv /var/tmp/requirements.txt /var/tmp/pinned.txt /root/.cache/pip
        """, binds=[f"{HOST_CA}:/etc/gravebox-host-ca.crt"])
    (root / "etc/pip.conf").write_text(PIP_CONF)


def pi_os_root(release: str) -> Path:
    """Debian `release` with Raspberry Pi OS's part stood in for, cached (keyed by the stand-ins and
    the project's dependencies)."""
    recipe = [inspect.getsource(stand_ins), CONFIG_TXT, CMDLINE_TXT, LGPIO_STAND_IN, LOGGING_STAND_IN, PIP_CONF]
    return derived_root(debian_root(release), "pi-os", setup=stand_ins, setup_key=[recipe, requirements()])


def copy_checkout(into: Path) -> None:
    """The checkout's files as a clone has them (what git tracks, and new files it does not
    ignore), without this machine's venvs and caches."""
    into.mkdir(parents=True)
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, check=True).stdout
    present = b"\0".join(name for name in files.split(b"\0") if name and (REPO / name.decode()).exists())
    pack = subprocess.Popen(["tar", "-C", str(REPO), "--null", "-T", "-", "-cf", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    unpack = subprocess.Popen(["tar", "-C", str(into), "-xf", "-"], stdin=pack.stdout)
    assert pack.stdin is not None and pack.stdout is not None
    pack.stdout.close()
    pack.stdin.write(present)
    pack.stdin.close()
    assert pack.wait() == 0 and unpack.wait() == 0
