"""A Debian userland booted under its own systemd (`systemd-nspawn -b`), for tests against a real systemd.

Two parts, both usable by any test:

- **Cached roots.** `debian_root("trixie")` is a root made once by `debootstrap` from the mirror
  this machine's apt uses, kept under ~/.cache/gravebox/boot/ (outside the repository) and keyed
  by its recipe, so a changed recipe makes a new one. `derived_root(base, "name", packages=...,
  setup=...)` is a copy of a root with more apt packages and/or a setup step (`setup(root)` runs
  on the host with the root's path), cached the same way. Both are only ever read by a booted
  container: every boot runs on an overlay (or a copy) of them.
- **`Container`**: boots such a root, waits until its systemd has started (`running`, or
  `degraded`), runs shell commands in it as root or as a user, reboots it (a reboot inside ends
  nspawn: it is booted again on the same files) and powers it off::

      with Container(derived_root(debian_root("trixie"), "nm", packages=("network-manager",)),
                     tmp_path) as box:
          assert box.run("systemctl is-active NetworkManager").stdout.strip() == "active"

The container has no network of its own (`--private-network`: only loopback), so servers in it
never meet the host's ports; `network=True` shares the host's instead. Anything this machine
cannot give (not root, no nspawn or debootstrap, a boot that fails for the machine's reasons) is
raised as `CannotBoot`, one line, for the test to skip with; what fails inside a booted container
is the test's business.

nspawn runs as the host's notes say: `--register=no --keep-unit` (no systemd on the host),
`SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1` (cgroup v2, as on Raspberry Pi OS), the capabilities and
the `bpf` call for `DeviceAllow=` and `IPAddressDeny=` to be enforced, and a read-only console
(a passive one blocks PID 1 at shutdown). Commands enter with `nsenter` into the container's
PID 1, in a clean environment.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import TracebackType

RECIPE = 1  # raise it when the way a root is made changes: every cached root is then made again
# What every root has: systemd as init, logind and polkit, sudo, Python; and the apt packages
# install.sh wants on a box (the container has no network to fetch them when it runs).
BASE_PACKAGES = (
    "systemd", "systemd-sysv", "dbus", "libpam-systemd", "sudo", "python3", "python3-venv",
    "python3-pil", "i2c-tools", "polkitd", "udisks2", "ca-certificates",
)
TOOLS = ("systemd-nspawn", "debootstrap", "nsenter")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BOOT_WAIT = 120.0  # seconds for a boot to reach `running` or `degraded`
STOP_WAIT = 60.0  # seconds for a power-off or reboot to end nspawn
NSPAWN_REBOOTED = 133  # nspawn's exit status when the container rebooted


class CannotBoot(Exception):
    """This machine cannot boot a container (its message is the one-line reason)."""


def cache_dir() -> Path:
    """~/.cache/gravebox/boot (or under $XDG_CACHE_HOME)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "gravebox" / "boot"


def machine_reason() -> str | None:
    """Why this machine cannot boot a container, or None when it can (as far as can be told)."""
    if os.geteuid() != 0:
        return "booting a container needs root"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not installed (apt-get install systemd-container debootstrap util-linux)"
    return None


def apt_mirror() -> str:
    """The Debian mirror this machine's apt uses (deb.debian.org when none is found)."""
    texts = [path.read_text(errors="replace") for path in sorted(Path("/etc/apt/sources.list.d").glob("*.sources"))]
    for text in texts:
        for found in re.finditer(r"(?m)^URIs:\s*(\S+/debian)/?\s*$", text):
            return found[1]
    with contextlib.suppress(OSError):
        for found in re.finditer(r"(?m)^deb\s+(?:\[[^]]*\]\s+)?(\S+/debian)/?\s", Path("/etc/apt/sources.list").read_text()):
            return found[1]
    return "http://deb.debian.org/debian"


def recipe_key(*parts: object) -> str:
    """A short key of everything that makes a root: a changed recipe gives another key."""
    return hashlib.sha256(json.dumps([RECIPE, *parts], sort_keys=True).encode()).hexdigest()[:12]


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (two test runs never build the same root at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def cached(family: str, key: str, make: Callable[[Path], None]) -> Path:
    """The root cached as `<family>-<key>`, made by `make(dir)` first when absent (in a scratch
    folder, renamed into place only once whole). Roots of the same family with another key (an
    older recipe, or a scratch folder left by a stopped run) go then, with the roots derived from them."""
    final = cache_dir() / f"{family}-{key}"
    with locked(cache_dir() / f"{family}.lock"):
        if (final / "etc" / "os-release").exists():
            return final
        for older in cache_dir().glob(f"{glob_escape(family)}-*"):  # with what was derived from them
            if older.is_dir() and older.name[len(family) + 1:].split("+")[0] != key:
                shutil.rmtree(older)
        scratch = cache_dir() / f"{family}-{key}.making"
        make(scratch)
        scratch.rename(final)
    return final


def glob_escape(text: str) -> str:
    return re.sub(r"([*?[])", r"[\1]", text)


def debian_root(release: str, packages: Sequence[str] = BASE_PACKAGES) -> Path:
    """A bare Debian `release` root (debootstrap's minbase plus `packages`), cached; `CannotBoot`
    when it cannot be made."""
    reason = machine_reason()
    if reason:
        raise CannotBoot(reason)

    def make(scratch: Path) -> None:
        command = ["debootstrap", "--variant=minbase", f"--include={','.join(packages)}", release, str(scratch),
                   apt_mirror()]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            last = (result.stdout + result.stderr).strip().splitlines()[-1:] or ["no output"]
            raise CannotBoot(f"debootstrap {release} failed: {last[0]}")

    return cached(release, recipe_key(release, sorted(packages)), make)


def derived_root(base: Path, name: str, packages: Sequence[str] = (), setup: Callable[[Path], None] | None = None,
                 setup_key: object = None) -> Path:
    """`base` plus the apt `packages` (installed with the host's network) and `setup(root)`, cached
    as `<base>+<name>-<key>`; `setup_key` is whatever `setup`'s result depends on (a file's hash...)."""

    def make(scratch: Path) -> None:
        subprocess.run(["cp", "-a", "--reflink=auto", str(base), str(scratch)], check=True)
        if packages:
            inside(scratch, "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq"
                   f" --no-install-recommends {' '.join(packages)} && apt-get clean")
        if setup is not None:
            setup(scratch)

    return cached(f"{base.name}+{name}", recipe_key(sorted(packages), setup_key), make)


def inside(root: Path, script: str, binds: Sequence[str] = ()) -> str:
    """Run `script` (sh) in `root` without booting it, with the host's network; its output.
    `binds`: nspawn `--bind-ro=` arguments (`HOST[:INSIDE]`)."""
    command = ["systemd-nspawn", "-q", "-D", str(root), "--register=no", "--keep-unit", "--pipe",
               *(f"--bind-ro={bind}" for bind in binds), "/usr/bin/env", "-i", f"PATH={PATH}", "LANG=C.UTF-8",
               "HOME=/root", "sh", "-ec", script]
    result = subprocess.run(command, capture_output=True, text=True, env=nspawn_environment(), stdin=subprocess.DEVNULL)
    if result.returncode != 0:  # the recipe's fault, not the machine's: a failure
        raise RuntimeError(f"preparing {root.name} failed (exit status {result.returncode}): "
                         f"{(result.stdout + result.stderr).strip()[-2000:]}")
    return result.stdout


def nspawn_environment() -> dict[str, str]:
    """The host's environment with cgroup v2 for the container (the host's cgroups may be hybrid)."""
    return {**os.environ, "SYSTEMD_NSPAWN_UNIFIED_HIERARCHY": "1"}


class Container:
    """A booted copy of a cached root. `run` commands in it; `reboot`; `files` is its file tree.

    Changes land in an overlay (or a copy) under `work`; the cached root is never written."""

    def __init__(self, image: Path, work: Path, network: bool = False, binds: Sequence[str] = (), name: str = "gravebox"):
        self.image, self.work, self.network, self.binds, self.name = image, work, network, tuple(binds), name
        self.files = work / "root"  # the container's `/`, seen from the host
        self.process: subprocess.Popen[bytes] | None = None
        self.leader = 0  # the container's PID 1, as the host numbers it
        self.boots = 0
        self.mounted = False

    def __enter__(self) -> Container:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.close()

    def start(self) -> None:
        """Lay the container's files over the image, then boot it."""
        self.files.mkdir(parents=True)
        (self.work / "upper").mkdir()
        (self.work / "overlay-work").mkdir()
        options = f"lowerdir={self.image},upperdir={self.work / 'upper'},workdir={self.work / 'overlay-work'}"
        if subprocess.run(["mount", "-t", "overlay", "overlay", "-o", options, str(self.files)],
                          capture_output=True).returncode == 0:
            self.mounted = True
        else:  # no overlayfs here: a copy (slower, the same result)
            self.files.rmdir()
            subprocess.run(["cp", "-a", "--reflink=auto", str(self.image), str(self.files)], check=True)
        self.boot()

    def boot(self) -> None:
        """Start nspawn on the files and wait for the container's systemd to finish starting.
        `CannotBoot` when the first boot fails for want of what this machine has."""
        self.boots += 1
        log = (self.work / f"boot-{self.boots}.log").open("wb")
        command = ["systemd-nspawn", "-q", "-D", str(self.files), "--register=no", "--keep-unit", "-b",
                   "--console=read-only", "--capability=CAP_BPF,CAP_PERFMON,CAP_NET_ADMIN",
                   "--system-call-filter=bpf", f"--machine={self.name}",
                   *([] if self.network else ["--private-network"]), *(f"--bind-ro={bind}" for bind in self.binds)]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                        env=nspawn_environment())
        log.close()
        self.leader = self.find_leader()
        deadline = time.monotonic() + BOOT_WAIT
        state = ""
        while time.monotonic() < deadline:
            result = self.run("systemctl is-system-running --wait", check=False, timeout=BOOT_WAIT)
            state = result.stdout.strip()
            if state in ("running", "degraded"):
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.5)  # PID 1 not yet answering on its bus: nothing to wait on but the clock
        raise self.failed_boot(f"the boot ended '{state or 'without an answer'}'")

    def failed_boot(self, what: str) -> Exception:
        """The first boot's failure is the machine's (CannotBoot); a later one is the test's."""
        tail = self.log_tail()
        if self.boots == 1:
            return CannotBoot(f"systemd-nspawn could not boot the container: {what}: {tail}")
        return AssertionError(f"boot {self.boots} failed: {what}\n{self.console()}")

    def log_tail(self) -> str:
        lines = [line for line in self.console().splitlines() if line.strip()]
        return lines[-1] if lines else "no output"

    def console(self) -> str:
        """What the container printed on its console during the last boot."""
        return (self.work / f"boot-{self.boots}.log").read_text(errors="replace")

    def find_leader(self) -> int:
        """The container's PID 1: nspawn's child whose own pid namespace numbers it 1."""
        assert self.process is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for status in Path("/proc").glob("[0-9]*/status"):
                with contextlib.suppress(OSError):
                    text = status.read_text()
                    if re.search(rf"(?m)^PPid:\s*{self.process.pid}$", text) and re.search(r"(?m)^NSpid:.*\s1$", text):
                        return int(status.parent.name)
            if self.process.poll() is not None:
                raise self.failed_boot(f"nspawn exited with status {self.process.returncode}")
            time.sleep(0.1)  # the child is forked by nspawn: no event to await from here
        raise self.failed_boot("no container process after 30 s")

    def run(self, script: str, user: str = "root", check: bool = True, timeout: float = 120,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run `script` (sh) in the container, as `user` (a login shell, with its groups as at a
        fresh login); `check`: an exit status other than 0 fails the test with the output."""
        inner = ["sh", "-c", script] if user == "root" else ["runuser", "-l", user, "-c", script]
        command = ["nsenter", "-t", str(self.leader), "-a", "--", "/usr/bin/env", "-i", f"PATH={PATH}",
                   "LANG=C.UTF-8", "HOME=/root", "TERM=dumb", *inner]
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, input=input,
                                stdin=None if input is not None else subprocess.DEVNULL)
        if check and result.returncode != 0:
            raise AssertionError(f"in the container, as {user}: {script}\nexit status {result.returncode}\n"
                                 f"{result.stdout}{result.stderr}")
        return result

    def wait_ended(self) -> int:
        """nspawn's exit status once the container has stopped."""
        assert self.process is not None
        try:
            return self.process.wait(timeout=STOP_WAIT)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the container did not stop within {STOP_WAIT:.0f} s\n{self.console()}") from None

    def reboot(self) -> None:
        """`systemctl reboot` inside; nspawn ends with it; boot the same files again."""
        self.run("systemctl reboot", check=False)
        status = self.wait_ended()
        assert status == NSPAWN_REBOOTED, f"nspawn ended with {status}, not as a reboot\n{self.console()}"
        self.boot()

    def close(self) -> None:
        """Power the container off (killed if it will not stop), then take its files away."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(subprocess.SubprocessError, AssertionError):
                self.run("systemctl poweroff", check=False, timeout=30)
                self.process.wait(timeout=STOP_WAIT)
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        if self.mounted:
            subprocess.run(["umount", str(self.files)], check=False)
            self.mounted = False
        shutil.rmtree(self.work, ignore_errors=True)
