"""Processes seen from outside, through /proc: a process's descendants, and which of some pids still run.

Tests that check that a check leaves nothing behind look only at their own
processes (descendants of theirs, or ones carrying a marker they chose), so a
check run elsewhere on the machine at the same time is never counted.
"""

from __future__ import annotations

from pathlib import Path


def _stat_fields(pid: int | str) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None  # gone meanwhile


def descendants_of(pid: int) -> list[int]:
    """Every process below `pid` now: its children, theirs, and so on."""
    parents = {int(entry.name): int(fields[1]) for entry in Path("/proc").iterdir()
               if entry.name.isdigit() and (fields := _stat_fields(entry.name))}
    found, frontier = [], [pid]
    while frontier:
        frontier = [child for child, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def running(pids: list[int]) -> list[int]:
    """Those of `pids` still running (a zombie has ended)."""
    return [pid for pid in pids if (fields := _stat_fields(pid)) and fields[0] != "Z"]


def with_marker(marker: bytes) -> list[int]:
    """Processes anywhere on the machine whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found
