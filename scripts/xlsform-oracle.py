#!/usr/bin/env python3
"""pyxform as the oracle of Intake's XLSForm import and export. Run by scripts/test.

For each XLSForm in Tests/XLSForms (every construct Intake takes, in one and two languages):
pyxform 4.5 reads the form; Intake imports it and exports the result as .xlsx; pyxform reads
that export. Both readings must agree on every question's name, type, labels per language,
hints, required, relevance, constraint and its message, calculation, default, choice filter,
choices and repeat structure -- so what Intake understood of the form is what pyxform did.
Then the known-bad forms of Tests/XLSForms/bad: Intake reports each at the row and column
EXPECTED names, pyxform refuses those marked so, and a partial import writes the rest of
those Intake merely cannot express. Last, the bundled questionnaire's export converts with
pyxform to an XForm without error; and ODK Validate (JavaRosa, in pyxform's wheel) accepts the
XForm Intake itself writes of each form (the one its ODK API serves).

usage: scripts/xlsform-oracle.py INTAKE_BINARY WORK_DIR
"""
import json
import os
import re
import subprocess
import sys

from pyxform.errors import PyXFormError
from pyxform.xls2xform import convert

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORMS = os.path.join(ROOT, "Tests", "XLSForms")
# Rows Intake leaves out by design (it records them itself), so only the original has them.
METADATA = {"start", "end", "today", "deviceid", "username", "email", "phonenumber", "simserial", "subscriberid", "audit"}

intake, work = sys.argv[1], sys.argv[2]
failures = []


def fail(message):
    failures.append(message)
    print("xlsform-oracle: FAIL: " + message, file=sys.stderr)


def run(*arguments, expect_success=True):
    result = subprocess.run([intake, *arguments], capture_output=True, text=True, cwd=work)
    if expect_success and result.returncode != 0:
        fail(f"intake {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()[:2000]}")
    return result


def language(key, default):
    """'Arabic (ar)' -> 'ar'; pyxform's 'default' -> the form's default language."""
    if key == "default":
        return default
    match = re.search(r"\(([^)]+)\)\s*$", key)
    return match.group(1) if match else key


def texts(value, default):
    if value is None:
        return {}
    if isinstance(value, str):
        return {default: value}
    return {language(k, default): v for k, v in value.items() if v not in (None, "", "-")}


def expression(text):
    """Spacing and quote style are not meaning."""
    if text is None:
        return None
    text = str(text).replace('"', "'")
    return re.sub(r"\s+", "", text)


def truthy(value):
    return str(value).strip().lower() in ("yes", "true", "true()", "1")


def required(value):
    if value is None or str(value).strip().lower() in ("", "no", "false", "false()", "0"):
        return False
    return True if truthy(value) else expression(value)


def questions(survey):
    """Every question of a pyxform tree, by name, with what the comparison reads."""
    default = language(survey.get("default_language", "default"), "en")
    found = {}
    groups = set()

    def visit(node, repeats):
        for child in node.get("children", []):
            kind = child.get("type")
            name = child.get("name")
            if name == "meta" or kind in METADATA:
                continue
            bind = child.get("bind", {})
            entry = {
                "labels": texts(child.get("label"), default),
                "hints": texts(child.get("hint"), default),
                "required": required(bind.get("required")),
                "relevant": expression(bind.get("relevant")),
                "constraint": expression(bind.get("constraint")),
                "message": texts(bind.get("jr:constraintMsg"), default),
                "calculate": expression(bind.get("calculate")),
                "default": expression(child.get("default")),
                "repeats": list(repeats),
            }
            if kind == "group":
                groups.add(name)
                visit(child, repeats)
                continue
            if kind == "repeat":
                count = (child.get("control") or {}).get("jr:count")
                entry["count"] = count
                entry["type"] = "repeat"
                found[name] = entry
                visit(child, repeats + [name])
                continue
            if kind == "calculate" or entry["calculate"]:
                # A calculation's row type (calculate, or a typed question) is how it is written.
                entry["type"] = "calculated"
                entry["labels"] = {k: v for k, v in entry["labels"].items() if v != name}
            else:
                entry["type"] = kind
            if "choices" in child and kind.startswith("select"):
                # Each choice's code, labels and the tags a choice filter reads (its other columns).
                entry["choices"] = [
                    (c["name"], texts(c.get("label"), default),
                     {k: v for k, v in c.items() if k not in ("name", "label", "intake") and v not in (None, "")})
                    for c in child["choices"]
                ]
                entry["choice_filter"] = expression(child.get("choice_filter"))
            found[name] = entry
    visit(survey, [])
    return found, groups


def fold_counts(found):
    """pyxform turns a repeat_count that is not one ${name} into a calculate row beside it."""
    for name, entry in list(found.items()):
        count = entry.get("count")
        if count and re.fullmatch(r"\$\{(\w+)_count\}", count):
            helper = found.pop(re.fullmatch(r"\$\{(\w+)\}", count).group(1), None)
            entry["count"] = helper["calculate"] if helper else count
        elif count:
            entry["count"] = expression(count)
    return found


def compare(name, path):
    try:
        original = convert(xlsform=path, validate=False)._pyxform
    except PyXFormError as error:
        fail(f"{name}: pyxform refuses the test form itself: {error}")
        return
    folder = os.path.join(work, name + ".folder")
    run("questionnaire", "import", path, "--output", folder, "--replace")
    exported = os.path.join(work, name + ".xlsx")
    run("questionnaire", "export", folder, "--xlsform", "--output", exported, "--replace")
    if not os.path.exists(exported):
        return
    try:
        again = convert(xlsform=exported, validate=False)._pyxform
    except PyXFormError as error:
        fail(f"{name}: pyxform refuses Intake's export: {error}")
        return
    a, a_groups = questions(original)
    b, _ = questions(again)
    a, b = fold_counts(a), fold_counts(b)
    # The question that picks the entity a form updates is Intake's `intake_case` when it comes
    # back (Intake names the followed case outside the form): compared as that.
    picker = "intake_case"
    if picker in b and picker not in a:
        candidates = [q for q in a if q not in b and a[q].get("type") == b[picker].get("type")]
        if len(candidates) == 1:
            old = candidates[0]
            a[picker] = a.pop(old)
            # Its label is not kept (Intake's form does not ask it).
            for side in (a, b):
                side[picker] = {k: v for k, v in side[picker].items() if k not in ("labels", "hints")}
            a = {q: {k: (v.replace("${" + old + "}", "${" + picker + "}") if isinstance(v, str) else v) for k, v in fields.items()}
                 for q, fields in a.items()}
    for question in a:
        if question not in b:
            fail(f"{name}: '{question}' is in the form but not in what Intake understood of it")
            continue
        for key in sorted(set(a[question]) | set(b[question])):
            left, right = a[question].get(key), b[question].get(key)
            if left != right:
                fail(f"{name}: '{question}' {key}: pyxform reads {json.dumps(left, ensure_ascii=False)}, Intake's import says {json.dumps(right, ensure_ascii=False)}")
    for question in b:
        # A group inside a section comes back as a note with its label.
        if question not in a and not (question in a_groups and b[question]["type"] == "note"):
            fail(f"{name}: Intake's import has '{question}', which the form does not")
    print(f"xlsform-oracle: {name}: {len(a)} questions read alike by pyxform and Intake")
    odk_validate(name, folder)


def bad_forms():
    expected = {}
    with open(os.path.join(FORMS, "bad", "EXPECTED"), encoding="utf-8") as listing:
        for line in listing:
            if line.startswith("#") or not line.strip():
                continue
            file, rest = line.split(":", 1)
            where, verdict = rest.split(";")
            kind, sheet, row, column = where.split()
            expected[file] = (kind, sheet, row, column, verdict.strip())
    for file, (kind, sheet, row, column, verdict) in sorted(expected.items()):
        path = os.path.join(FORMS, "bad", file)
        try:
            convert(xlsform=path, validate=False)
            refuses = False
        except PyXFormError:
            refuses = True
        if refuses != (verdict == "pyxform refuses"):
            fail(f"bad/{file}: expected '{verdict}', but pyxform {'refuses' if refuses else 'accepts'} it")
        folder = os.path.join(work, "bad-" + file)
        result = run("questionnaire", "import", path, "--output", folder, expect_success=False)
        wanted = f"{sheet} row {row}, column {column} "
        if result.returncode != 1 or wanted not in result.stderr or f"{kind}:" not in result.stderr:
            fail(f"bad/{file}: expected exit 1 and '{wanted}… {kind}:', got {result.returncode}: {result.stderr.strip()[:600]}")
        if os.path.exists(folder):
            fail(f"bad/{file}: a refused import wrote {folder}")
        partial = run("questionnaire", "import", path, "--output", folder, "--partial", expect_success=False)
        if kind == "unsupported" and (partial.returncode != 0 or not os.path.exists(os.path.join(folder, "manifest.txt"))):
            fail(f"bad/{file}: --partial should write what can be expressed: {partial.returncode} {partial.stderr.strip()[:600]}")
        if kind == "error" and partial.returncode == 0:
            fail(f"bad/{file}: an error in the form must stop a partial import too")
    print(f"xlsform-oracle: {len(expected)} known-bad forms reported at their row and column, pyxform agreeing where it should")


def odk_validate(name, folder):
    """ODK Validate (JavaRosa, shipped in pyxform's wheel) parses the XForm Intake serves."""
    xform = os.path.join(work, name + ".xml")
    run("questionnaire", "export", folder, "--xform", "--output", xform, "--replace")
    jar = os.path.join(os.path.dirname(__import__("pyxform").__file__), "validators", "odk_validate", "bin", "ODK_Validate.jar")
    result = subprocess.run(["java", "-jar", jar, xform], capture_output=True, text=True)
    if result.returncode != 0 or "Xform is valid" not in result.stdout + result.stderr:
        fail(f"{name}: ODK Validate refuses Intake's XForm: {(result.stdout + result.stderr).strip()[-1200:]}")
    else:
        print(f"xlsform-oracle: {name}: ODK Validate accepts Intake's XForm")


def exported_xform(questionnaire):
    """The bundled questionnaire's XLSForm, as `intake questionnaire export` writes it, through pyxform."""
    exported = os.path.join(work, questionnaire + ".xlsx")
    run("questionnaire", "export", os.path.join(ROOT, "Questionnaires", questionnaire), "--xlsform", "--output", exported, "--replace")
    try:
        return convert(xlsform=exported, validate=False)
    except PyXFormError as error:
        fail(f"the bundled {questionnaire}'s XLSForm does not convert with pyxform: {error}")
        return None


def bundled():
    result = exported_xform("refugee-health")
    if result is None:
        return
    if "<h:html" not in result.xform or "refugee-health" not in result.xform:
        fail("pyxform's XForm of the bundled questionnaire is not one")
    odk_validate("refugee-health", os.path.join(ROOT, "Questionnaires", "refugee-health"))
    print(f"xlsform-oracle: the bundled questionnaire's XLSForm converts with pyxform ({len(result.xform)} bytes of XForm, {len(result.warnings)} warnings)")
    # Its cases are ODK's entities: the screening creates one, the follow-up updates the one it picks.
    if 'dataset="follow-up"' not in result.xform or "create=" not in result.xform:
        fail("pyxform's XForm of the bundled screening does not create a follow-up entity")
    visit = exported_xform("follow-up")
    if visit is None:
        return
    if 'dataset="follow-up"' not in visit.xform or "update=" not in visit.xform or "instance('follow-up')" not in visit.xform:
        fail("pyxform's XForm of the bundled follow-up does not update the follow-up entity it reads")
    # The XForm Intake's ODK API serves for the follow-up: an entity update that picks its case from follow-up.csv.
    odk_validate("follow-up", os.path.join(ROOT, "Questionnaires", "follow-up"))
    print("xlsform-oracle: the bundled screening creates, and the follow-up updates, a follow-up entity in pyxform's XForms")


os.makedirs(work, exist_ok=True)
for entry in sorted(os.listdir(FORMS)):
    if entry.endswith((".md", ".csv", ".xlsx")):
        compare(entry, os.path.join(FORMS, entry))
bad_forms()
bundled()
if failures:
    print(f"xlsform-oracle: {len(failures)} disagreements", file=sys.stderr)
    sys.exit(1)
print("xlsform-oracle: pyxform and Intake agree")
