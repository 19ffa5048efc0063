"""Changing the user's files safely: the first backup kept, atomic writes that keep the
file's mode (and write through a symlinked dotfile), the agent's own CLI run with its error
said in one line."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

from ..store.files import atomic_write
from .install_agents import BACKUP_SUFFIX, InstallError


def _backup(path: Path) -> str | None:
    """Copy ``path`` to ``<path>.bak-ihmt`` unless that first backup already exists."""
    if not path.is_file():
        return None
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    if not backup.exists():
        shutil.copy2(path, backup)
    return str(backup)


def _atomic_write(path: Path, text: str) -> None:
    """Write via a temporary file and rename, keeping the file's mode; a symlinked config
    (dotfile managers) is written through to its target instead of being replaced."""
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o777 if target.exists() else None
    try:
        # A new config gets open()'s usual 0o666 less the umask; an existing one is never
        # looser than before, even for the moment between the rename and the chmod.
        atomic_write(target, text, durable=True, sync_dir=False,
                     mode=0o666 if mode is None else mode)
        if mode is not None:
            os.chmod(target, mode)
    except OSError as exc:
        raise InstallError(f"cannot write {target}: {exc.strerror or exc}") from exc


def _run(cmd: list[str], cwd: Path | None) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InstallError(f"`{shlex.join(cmd)}` could not run ({exc}); run it by hand, or "
                           "set IHMT_INSTALL_NO_CLI=1 to edit the config file instead") from exc
    if proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip()
        raise InstallError(f"`{shlex.join(cmd)}` failed: {msg}; set IHMT_INSTALL_NO_CLI=1 to "
                           "edit the config file instead")


