"""Sealing a finished week: gzip the active file's bytes and extend the manifest.

The caller holds the append lock and, after this returns, replaces the active file with an
empty one. The order (sealed file, then manifest, then the empty active file) means a crash
at any point leaves a state the next append or ``verify`` recognises.
"""

from __future__ import annotations

import hashlib

from anneal_memory._fsio import atomic_write_bytes
from anneal_memory.audit._chain import line_info, period_of_timestamp, split_complete
from anneal_memory.audit._files import AuditPaths, Manifest, SealedFile, write_manifest

__all__ = ["seal_week"]


def seal_week(paths: AuditPaths, data: bytes, manifest: Manifest, period: str) -> Manifest | None:
    """Seal ``data`` (the active file's complete lines) and return the new manifest.

    The week is named after the later of the manifest's active period and the first entry's
    week. Returns None, sealing nothing, when that week is not over yet by ``period`` (the
    clocks of two processes disagree) or is already sealed.
    """
    lines, _torn = split_complete(data)
    first, last = line_info(lines[0]), line_info(lines[-1])
    label = max(manifest.active_period, period_of_timestamp(first.ts))
    sealed_path = paths.sealed(label)
    if label >= period or any(f.filename == sealed_path.name for f in manifest.files):
        return None
    import gzip  # sealing a week only: start-up speed (#25)

    gz = gzip.compress(data, compresslevel=6, mtime=0)
    atomic_write_bytes(sealed_path, gz)
    sealed = SealedFile.describe(sealed_path.name, label, lines, hashlib.sha256(gz).hexdigest())
    rotated = manifest._replace(
        files=(*manifest.files, sealed),
        active_period=period,
        active_first_seq=last.seq + 1,
        active_first_prev_hash=sealed.last_hash,
    )
    write_manifest(paths.manifest, rotated)
    return rotated
