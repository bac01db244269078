#!/usr/bin/env python3
"""Tampers with copies of a server database's audit trail and checks `intake admin audit verify`
finds each change at the event it was made to.

    audit_tamper.py INTAKE DATABASE [--samples N]

First the trail as it is must verify. Then, for the first event, the last one and N others
picked at random, each on a fresh copy with the database's guards (triggers) dropped as an
intruder with the file would: the event's actor changed, the event deleted, and the event
swapped with the next one (reordered). Each must fail verification naming that event (a deleted
last event is found with the head kept before, --expect-head). Exits 1 on the first miss.
"""
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path


def verify(intake, database, head=None):
    command = [intake, "admin", "audit", "verify", "--database", database]
    if head:
        command += ["--expect-head", head]
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def main():
    intake, database = sys.argv[1], sys.argv[2]
    samples = int(sys.argv[sys.argv.index("--samples") + 1]) if "--samples" in sys.argv else 10
    status, output = verify(intake, database)
    if status != 0:
        sys.exit(f"audit_tamper: the trail of the run does not verify: {output.strip()}")
    head = subprocess.run([intake, "admin", "audit", "head", "--database", database], capture_output=True, text=True).stdout.strip()
    count = int(re.search(r"(\d+) event\(s\)", output).group(1))
    if count < 3:
        sys.exit(f"audit_tamper: only {count} events; the run should have made many")
    seqs = sorted({1, count} | set(random.sample(range(2, count), min(samples, count - 2))))
    with tempfile.TemporaryDirectory() as folder:
        pristine = Path(folder) / "pristine.sqlite"
        source, target = sqlite3.connect(database), sqlite3.connect(pristine)
        source.backup(target)
        # One file, no write-ahead log beside it, so that each copy below is whole.
        target.execute("PRAGMA journal_mode=DELETE")
        source.close()
        target.close()
        checked = 0
        for seq in seqs:
            for kind in ("changed", "deleted", "reordered"):
                if kind == "reordered" and seq == count:
                    continue
                copy = Path(folder) / "copy.sqlite"
                shutil.copyfile(pristine, copy)
                db = sqlite3.connect(copy)
                with db:
                    db.executescript("DROP TRIGGER auditEvent_no_update; DROP TRIGGER auditEvent_no_delete;")
                    if kind == "changed":
                        db.execute("UPDATE auditEvent SET actor = actor || 'x' WHERE seq = ?", (seq,))
                    elif kind == "deleted":
                        db.execute("DELETE FROM auditEvent WHERE seq = ?", (seq,))
                    else:
                        db.execute("UPDATE auditEvent SET seq = -1 WHERE seq = ?", (seq,))
                        db.execute("UPDATE auditEvent SET seq = ? WHERE seq = ?", (seq, seq + 1))
                        db.execute("UPDATE auditEvent SET seq = ? WHERE seq = -1", (seq + 1,))
                db.close()
                status, output = verify(intake, str(copy), head if (kind == "deleted" and seq == count) else None)
                expected = f"event {seq}" if not (kind == "deleted" and seq == count) else "head"
                if status == 0 or expected not in output:
                    sys.exit(f"audit_tamper: event {seq} {kind} was not reported as such: {output.strip()}")
                checked += 1
    print(f"audit_tamper: the trail of the run ({count} events) verifies; {checked} tamperings of {len(seqs)} events were each found at their event")


if __name__ == "__main__":
    main()
