"""The segment's `.trifecta/` folder keeps itself out of git: a `.gitignore` holding `*` (the index, the
telemetry and the config are this machine's, never the repository's). Written by the first index and by
`trifecta init`; an existing file is left as it is."""

from __future__ import annotations

import os
from pathlib import Path

STATE_DIR = ".trifecta"
GITIGNORE = ".gitignore"
GITIGNORE_TEXT = "# trifecta's index, telemetry and settings: local to this machine\n*\n"


def write_gitignore(folder: Path) -> bool:
    """Create FOLDER/.gitignore (`*`) when it is missing: True when written, False when one was there.
    Never through a symbolic link (O_EXCL creates a file or fails); OSError when it cannot be written."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(folder / GITIGNORE, flags, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(GITIGNORE_TEXT)
    return True
