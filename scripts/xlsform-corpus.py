#!/usr/bin/env python3
"""XLSForms Intake's tests did not write, read by pyxform and by Intake's import. Run by scripts/test.

The corpus (Tests/XLSForms/corpus/<source>/forms, each source with its LICENCE and SOURCE.md) holds
the published forms of pyxform's own examples and tests, Ona's, KoboToolbox's, ODK's and others'.
For every form:

- pyxform 4.5 converts it, or refuses it. A form it converts but Intake refuses with an error is
  given to pyxform again with ODK Validate (JavaRosa, in pyxform's wheel, which pyxform's own
  `xls2xform` runs by default): a form ODK Validate refuses is one pyxform refuses.
- Intake imports it, or refuses it. A form pyxform converts must be imported, or refused only
  with "unsupported" lines, each naming its sheet (and row, where a row is the cause); then
  `--partial` must import the rest, and `intake questionnaire check` must load what it wrote.
  A form pyxform refuses must be refused. Intake never crashes, hangs or answers an error that
  names no place.

usage: scripts/xlsform-corpus.py INTAKE_BINARY WORK_DIR [CORPUS_DIR ...]
(default CORPUS_DIR: Tests/XLSForms/corpus)
"""
import collections
import os
import re
import subprocess
import sys
import warnings

from pyxform.xls2xform import convert

warnings.simplefilter("ignore")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
intake, work = sys.argv[1], sys.argv[2]
corpora = sys.argv[3:] or [os.path.join(ROOT, "Tests", "XLSForms", "corpus")]
EXTENSIONS = (".xlsx", ".xls", ".csv", ".md")
# `FILE: survey row 7, column D (relevant): unsupported: …` or `FILE: sheet survey: …`
PROBLEM = re.compile(r"^: (?:(?P<where>(?:sheet [^,:]+|[^,:]+ row \d+)(?:, column [A-Z]+(?: \(.*?\))?)?): )?(?P<kind>error|unsupported|left out): ")
failures = []


def fail(form, message):
    failures.append(f"{form}: {message}")
    print(f"xlsform-corpus: FAIL: {form}: {message}", file=sys.stderr)


def pyxform_accepts(path, validate=False):
    try:
        convert(xlsform=path, validate=validate)
        return True, ""
    except Exception as error:  # pyxform raises several kinds; each is a refusal
        return False, f"{type(error).__name__}: {str(error).strip()[:300]}"


def run(*arguments):
    try:
        result = subprocess.run([intake, *arguments], capture_output=True, text=True, cwd=work, timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    return result.returncode, result.stdout, result.stderr


def problems(stderr, path):
    """The problem lines of an import's answer: (kind, located, line)."""
    found = []
    for line in stderr.splitlines():
        if not line.startswith(path + ":") or line.rstrip().endswith("nothing was written.") or "Change the form, or import with --partial" in line:
            continue
        match = PROBLEM.search(line[len(path):])
        if match is None:
            found.append(("error", False, line))
        else:
            found.append((match.group("kind"), match.group("where") is not None, line))
    return found


def forms(corpus):
    for source in sorted(os.listdir(corpus)):
        folder = os.path.join(corpus, source)
        if not os.path.isdir(folder):
            continue
        for directory, _, names in sorted(os.walk(folder)):
            for name in sorted(names):
                if name.lower().endswith(EXTENSIONS) and name not in ("SOURCE.md", "README.md"):
                    yield source, os.path.join(directory, name)


counts = collections.Counter()
by_source = collections.defaultdict(collections.Counter)
os.makedirs(work, exist_ok=True)
for corpus in corpora:
    for source, path in forms(corpus):
        shown = os.path.relpath(path, corpus)
        accepted, why = pyxform_accepts(path)
        out = os.path.join(work, "form")
        code, _, stderr = run("questionnaire", "import", path, "--output", out, "--replace")
        if code not in (0, 1):
            fail(shown, f"intake questionnaire import ended with {code}: {stderr.strip()[-500:]}")
            by_source[source]["failed"] += 1
            continue
        lines = problems(stderr, path)
        errors = [line for kind, _, line in lines if kind == "error"]
        unlocated = [line for kind, located, line in lines if kind == "unsupported" and not located]
        if not accepted:
            if code == 0:
                fail(shown, f"pyxform refuses it ({why}) and Intake imports it")
                by_source[source]["failed"] += 1
            else:
                verdict = "refused, as pyxform refuses it"
                counts[verdict] += 1
                by_source[source][verdict] += 1
            continue
        if code == 0:
            check, _, checked = run("questionnaire", "check", out)
            if check != 0:
                fail(shown, f"imported, but intake questionnaire check refuses what was written: {checked.strip()[:500]}")
                by_source[source]["failed"] += 1
                continue
            counts["imported"] += 1
            by_source[source]["imported"] += 1
            continue
        if errors:
            validated, why = pyxform_accepts(path, validate=True)
            if not validated:
                verdict = "refused, as ODK Validate refuses it"
                counts[verdict] += 1
                by_source[source][verdict] += 1
                continue
            fail(shown, "pyxform and ODK Validate accept it; Intake refuses it with errors:\n    " + "\n    ".join(errors[:8]))
            by_source[source]["failed"] += 1
            continue
        if unlocated or not lines:
            fail(shown, "refused with unsupported lines that name no sheet:\n    " + "\n    ".join(unlocated[:8] or [stderr.strip()[:300]]))
            by_source[source]["failed"] += 1
            continue
        partial, _, said = run("questionnaire", "import", path, "--output", out, "--replace", "--partial")
        if partial == 0:
            check, _, checked = run("questionnaire", "check", out)
            if check != 0:
                fail(shown, f"--partial wrote a folder intake questionnaire check refuses: {checked.strip()[:500]}")
                by_source[source]["failed"] += 1
                continue
            verdict = "refused only as unsupported, the rest imported with --partial"
        elif any(kind == "error" for kind, _, _ in problems(said, path)):
            fail(shown, "--partial found errors the whole import did not: " + said.strip()[:500])
            by_source[source]["failed"] += 1
            continue
        else:
            # Nothing Intake can hold is left (only metadata, or only what it cannot express).
            verdict = "refused only as unsupported, nothing left for --partial"
        counts[verdict] += 1
        by_source[source][verdict] += 1

total = sum(sum(c.values()) for c in by_source.values())
for source, c in sorted(by_source.items()):
    print(f"xlsform-corpus: {source}: " + ", ".join(f"{n} {k}" for k, n in sorted(c.items())))
print(f"xlsform-corpus: {total} forms: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + (f", {len(failures)} FAILED" if failures else ""))
if failures:
    sys.exit(1)
