"""Whom the control socket trusts: the folder it lives in, and the process at the other end.

The socket carries the pairing code and the roster's writes, so neither end may be another
user's. The folder must be a real folder (not a link) owned by this user, root or the `gravebox`
user, open to no other user, and to no group but `gravebox` (or root's). The peer's credentials
(SO_PEERCRED) must be this user's, root's, the `gravebox` user's, or a member of the `gravebox`
group.

>>> trust = Trust(uids={0, 1000}, gids={999}, members=set())
>>> trust.peer_allowed(1000, 1000), trust.peer_allowed(1001, 999), trust.peer_allowed(1001, 1001)
(True, True, False)
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import struct
from pathlib import Path

SERVICE = "gravebox"  # the service's user and group (install.sh, systemd/gravebox.sysusers)


class Untrusted(PermissionError):
    """A socket folder or a peer the control socket must not use; its message is one line."""


class Trust:
    """The users and groups the control socket trusts: this user and root at once; the gravebox
    user and group (a lookup of the user database) only when a folder or a peer needs them."""

    def __init__(self, uids: set[int], gids: set[int], members: set[str] | None = None):
        self.uids, self.gids = set(uids), set(gids)
        self.members = members  # the gravebox group's supplementary members; None: not looked up yet

    @classmethod
    def here(cls) -> Trust:
        """This process's: itself and root (the administrators' group too)."""
        return cls({0, os.geteuid()}, {0})

    def widened(self) -> Trust:
        """The gravebox user and group added, where they exist (looked up once)."""
        if self.members is None:
            import grp
            import pwd

            self.members = set()
            with contextlib.suppress(KeyError):  # not an installed box: no service user to trust
                self.uids.add(pwd.getpwnam(SERVICE).pw_uid)
            with contextlib.suppress(KeyError):
                group = grp.getgrnam(SERVICE)
                self.gids.add(group.gr_gid)
                self.members.update(group.gr_mem)
        return self

    def peer_allowed(self, uid: int, gid: int) -> bool:
        """A peer of these credentials may talk to the box (this user, root, gravebox, its group)."""
        if uid in self.uids:
            return True
        self.widened()
        return uid in self.uids or gid in self.gids or user_name(uid) in (self.members or ())

    def check_folder(self, folder: Path) -> None:
        """Raise `Untrusted` (one line) unless `folder` is fit to hold the control socket."""
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            raise Untrusted(f"{folder}: the control socket's folder does not exist") from None
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            raise Untrusted(f"{folder}: the control socket's folder is not a folder (a link?): remove it")
        if info.st_uid not in self.uids and info.st_uid not in self.widened().uids:
            raise Untrusted(
                f"{folder}: the control socket's folder belongs to user {user_name(info.st_uid)}, not to this"
                f" user, root or {SERVICE}: remove it"
            )
        mode = stat.S_IMODE(info.st_mode)
        ours = info.st_uid == os.geteuid() and info.st_gid == os.getegid()  # only we could have opened it so
        if mode & 0o007 or (mode & 0o070 and not ours and info.st_gid not in self.widened().gids):
            raise Untrusted(
                f"{folder}: the control socket's folder is open to other users (mode {mode:04o}):"
                f" chmod 0700, or 0770 with the {SERVICE} group"
            )

    def check_peer(self, connection: socket.socket) -> tuple[int, int]:
        """The peer's (uid, gid); `Untrusted` when it is not a trusted user."""
        uid, gid = peer_credentials(connection)
        if not self.peer_allowed(uid, gid):
            raise Untrusted(f"the process at the other end of the control socket runs as user {user_name(uid)}")
        return uid, gid


def peer_credentials(connection: socket.socket) -> tuple[int, int]:
    """The (uid, gid) of the process at the other end of a unix socket (SO_PEERCRED)."""
    raw = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _, uid, gid = struct.unpack("3i", raw)
    return uid, gid


def user_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def make_folder(folder: Path, shared: bool) -> None:
    """Make the socket's folder where it is missing: 0770 with the gravebox group when `shared`
    (the service's), else 0700; whatever the umask says."""
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        return
    os.chmod(folder, 0o770 if shared else 0o700)
    if shared and os.geteuid() == 0:
        import grp

        with contextlib.suppress(KeyError):  # no gravebox group: root's own group keeps it
            os.chown(folder, -1, grp.getgrnam(SERVICE).gr_gid)
