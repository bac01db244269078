#!/usr/bin/env python3
"""Reads an Intake export back with each format's own reader and compares every expected value.

    roundtrip_export.py FOLDER EXPECTED.json [--pspp PATH] [--rscript PATH]

EXPECTED.json (written by the test that made the export) lists answers, each with the record id,
the wide-CSV column, the section and index, the compound field (or null), the FHIR linkId, the
kind (text, integer, decimal) and the value as collected. Each is looked up in:

- records.csv and records_long.csv, read with Python's csv module (strict);
- records.jsonl, read with Python's json module;
- fhir-bundle.json, read with the fhir.resources R4B models;
- records.sps (reading records_escaped.csv), run by GNU PSPP, which writes what it read as CSV
  (with line breaks escaped again, as PSPP's CSV writer drops carriage returns);
- records.R (reading records_escaped.csv), run by R, which writes what it read with write.csv;
- records.sav and records.dta, read by pyreadstat (ReadStat), each variable found by its place
  (codebook.csv lists the wide table's columns in order, as the files hold them);
- records.xlsx, read by openpyxl: its records sheet, and each repeat's sheet for every instance.

Text must come back exactly (after removing the one leading ' that the CSV files add to cells a
spreadsheet could run as a formula, or that equal the unanswered marker; the .xlsx adds none, and
its _xHHHH_ escapes are read as Excel reads them); from SPSS (records.sps and records.sav) without
trailing spaces, which SPSS strings cannot hold. Numbers must come back as the same number.
Prints each mismatch (record, column, format, expected and found, as Python literals) and exits 1
on any; prints "roundtrip_export: ok" and the counts otherwise.
"""
import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

csv.field_size_limit(sys.maxsize)
mismatches = []


def unescape(cell):
    return cell[1:] if cell.startswith("'") else cell


def same(kind, expected, found, spss=False):
    if found is None:
        return False
    if kind == "text":
        if spss:
            return expected.rstrip(" ") == found.rstrip(" ")
        return expected == found
    try:
        number = float(found)
    except (TypeError, ValueError):
        return False
    if kind == "integer":
        return number == float(expected)
    tolerance = 1e-6 if spss else 1e-12
    return abs(number - float(expected)) <= tolerance * max(1.0, abs(float(expected)))


def check(fmt, entry, found, spss=False):
    if not same(entry["kind"], entry["value"], found, spss):
        mismatches.append(f"{fmt}: record {entry['record']} column {entry['column']}: expected {entry['value']!r}, found {found!r}")


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, strict=True))


def in_wide(entry):
    """Whether the wide CSV (and SPSS and R, which read it) has the value: a repeat's instances only up to its column count."""
    return entry.get("wide", True)


def wide(folder, expected):
    rows = {row["record_id"]: row for row in read_csv(folder / "records.csv")}
    for entry in filter(in_wide, expected):
        row = rows.get(entry["record"])
        found = None if row is None else row.get(entry["column"])
        if found is not None and entry["kind"] == "text":
            found = unescape(found)
        check("records.csv", entry, found)


def long(folder, expected):
    values = {}
    for row in read_csv(folder / "records_long.csv"):
        values[(row["record_id"], int(row["section"]), int(row["index"]), row["field"], row["instance"])] = row["value"]
    for entry in expected:
        instance = str(entry["instance"]) if entry.get("instance") else ""
        found = values.get((entry["record"], entry["section"], entry["index"], entry.get("field") or "", instance))
        if found is not None and entry["kind"] == "text":
            found = unescape(found)
        check("records_long.csv", entry, found)


def jsonl(folder, expected):
    records = {}
    with open(folder / "records.jsonl", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            records[record["id"]] = record
    for entry in expected:
        section = records.get(entry["record"], {}).get("answers", {}).get(str(entry["section"]), {})
        if entry.get("instance"):
            instances = section.get(str(entry["groupIndex"]), {}).get("instances", [])
            section = instances[entry["instance"] - 1] if len(instances) >= entry["instance"] else {}
        answer = section.get(str(entry["index"]))
        if answer is not None and entry.get("field"):
            answer = answer.get("dictionary", {}).get(entry["field"])
        found = None if answer is None else answer.get(entry["kind"])
        check("records.jsonl", entry, found)


def fhir(folder, expected):
    from fhir.resources.R4B.bundle import Bundle

    bundle = Bundle.model_validate_json((folder / "fhir-bundle.json").read_text(encoding="utf-8"))
    answers = {}

    def walk(record, items, instance):
        # A repeat's instances are group items with the same linkId, in order: the nth is instance n.
        seen = {}
        for item in items or []:
            seen[item.linkId] = seen.get(item.linkId, 0) + 1
            for answer in item.answer or []:
                for name in ("valueString", "valueInteger", "valueDecimal"):
                    value = getattr(answer, name, None)
                    if value is not None:
                        answers[(record, item.linkId, instance)] = value
                walk(record, answer.item, instance)
            walk(record, item.item, seen[item.linkId] if item.item else instance)

    for entry in bundle.entry or []:
        resource = entry.resource
        if resource.get_resource_type() == "QuestionnaireResponse":
            walk(resource.id, resource.item, 1)
    for entry in expected:
        found = answers.get((entry["record"], entry["linkId"], entry.get("instance") or 1))
        check("fhir-bundle.json", entry, None if found is None else str(found) if entry["kind"] != "text" else found)


def unescape_breaks(text):
    """Undoes the \\n, \\r, \\b escapes the check below writes (PSPP drops carriage returns when it writes CSV)."""
    out, index = [], 0
    while index < len(text):
        if text[index] == "\\" and index + 1 < len(text):
            out.append({"n": "\n", "r": "\r", "b": "\\"}.get(text[index + 1], text[index : index + 2]))
            index += 2
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


def spss(folder, expected, pspp):
    script = folder / ".roundtrip.sps"
    out = folder / ".roundtrip-spss.csv"
    expected = list(filter(in_wide, expected))
    text_columns = sorted({entry["column"] for entry in expected if entry["kind"] == "text"})
    escapes = "".join(
        f'COMPUTE {name} = REPLACE(REPLACE(REPLACE({name}, "\\", "\\b"), X\'0A\', "\\n"), X\'0D\', "\\r").\n' for name in text_columns
    )
    script.write_text(
        'INSERT FILE="records.sps".\n'
        + escapes
        + f'SAVE TRANSLATE /OUTFILE="{out.name}" /TYPE=CSV /FIELDNAMES /REPLACE /CELLS=VALUES.\n',
        encoding="utf-8",
    )
    try:
        result = subprocess.run([pspp, script.name], cwd=folder, capture_output=True, text=True)
        output = result.stdout + result.stderr
        complaints = [line for line in output.splitlines() if "error:" in line or "warning:" in line]
        if result.returncode != 0 or complaints:
            mismatches.append("records.sps: PSPP did not run it cleanly:\n" + "\n".join(complaints[:20] or [output[-2000:]]))
            return
        rows = {row["record_id"].strip(): row for row in read_csv(out)}
    finally:
        script.unlink(missing_ok=True)
        out.unlink(missing_ok=True)
    for entry in expected:
        row = rows.get(entry["record"])
        found = None if row is None else row.get(entry["column"])
        if found is not None and entry["kind"] == "text":
            # records.sps removes the leading ' itself.
            found = unescape_breaks(found)
        check("records.sps (PSPP)", entry, found, spss=True)


def r(folder, expected, rscript):
    expected = list(filter(in_wide, expected))
    out = folder / ".roundtrip-r.csv"
    program = (
        'options(warn = 2); source("records.R", encoding = "UTF-8"); '
        f'write.csv(records, "{out.name}", row.names = FALSE, fileEncoding = "UTF-8", na = "")'
    )
    try:
        result = subprocess.run([rscript, "-e", program], cwd=folder, capture_output=True, text=True)
        if result.returncode != 0:
            mismatches.append("records.R: R failed:\n" + (result.stdout + result.stderr)[-2000:])
            return
        rows = {row["record_id"]: row for row in read_csv(out)}
    finally:
        out.unlink(missing_ok=True)
    for entry in expected:
        row = rows.get(entry["record"])
        found = None if row is None else row.get(entry["column"])
        # records.R removes the leading ' itself.
        check("records.R (R)", entry, found)


def repeats(folder, expected):
    """Every instance's answers in its repeat's own table, repeat_<id>.csv, keyed by record and instance."""
    tables = {}
    for entry in expected:
        if not entry.get("instance"):
            continue
        name = f"repeat_{entry['group']}.csv"
        if name not in tables:
            tables[name] = {(row["record_id"], row["instance"]): row for row in read_csv(folder / name)}
        row = tables[name].get((entry["record"], str(entry["instance"])))
        found = None if row is None else row.get(entry["tableColumn"])
        if found is not None and entry["kind"] == "text":
            found = unescape(found)
        check(name, entry, found)


def statistics_columns(folder):
    """The wide table's column names in order, as codebook.csv lists them (and the .sav and .dta hold them)."""
    return [row["column"] for row in read_csv(folder / "codebook.csv")]


def statistics(folder, expected):
    """records.sav and records.dta (pyreadstat) and records.xlsx (openpyxl)."""
    import re

    import openpyxl
    import pyreadstat

    columns = statistics_columns(folder)
    wide_expected = list(filter(in_wide, expected))
    for name, read, spss in (("records.sav", pyreadstat.read_sav, True), ("records.dta", pyreadstat.read_dta, False)):
        try:
            data, meta = read(str(folder / name), user_missing=True, output_format="dict")
        except Exception as error:
            mismatches.append(f"{name}: pyreadstat cannot read it: {error}")
            continue
        if len(meta.column_names) != len(columns):
            mismatches.append(f"{name}: {len(meta.column_names)} variables for {len(columns)} columns")
            continue
        variable = dict(zip(columns, meta.column_names))
        rows = {str(value).strip(): row for row, value in enumerate(data[meta.column_names[0]])}
        for entry in wide_expected:
            row = rows.get(entry["record"])
            found = None if row is None or entry["column"] not in variable else data[variable[entry["column"]]][row]
            check(f"{name} (pyreadstat)", entry, found, spss=spss and entry["kind"] == "text")

    def excel_text(value):
        if not isinstance(value, str):
            return value
        return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m.group(1), 16)), value)

    try:
        book = openpyxl.load_workbook(folder / "records.xlsx")
    except Exception as error:
        mismatches.append(f"records.xlsx: openpyxl cannot read it: {error}")
        return
    sheet = list(book["records"].iter_rows(values_only=True))
    header = list(sheet[0])
    rows = {row[0]: row for row in sheet[1:]}
    for entry in wide_expected:
        row = rows.get(entry["record"])
        found = None if row is None or entry["column"] not in header else excel_text(row[header.index(entry["column"])])
        check("records.xlsx (openpyxl)", entry, found)
    tables = {}
    for entry in expected:
        if not entry.get("instance"):
            continue
        name = f"repeat_{entry['group']}"[:31]
        if name not in tables:
            if name not in book.sheetnames:
                mismatches.append(f"records.xlsx: no sheet {name}")
                tables[name] = ([], {})
                continue
            table = list(book[name].iter_rows(values_only=True))
            table_header = list(table[0])
            at = table_header.index("instance")
            tables[name] = (table_header, {(row[0], int(row[at])): row for row in table[1:]})
        table_header, table_rows = tables[name]
        row = table_rows.get((entry["record"], entry["instance"]))
        found = None if row is None or entry["tableColumn"] not in table_header else excel_text(row[table_header.index(entry["tableColumn"])])
        check(f"records.xlsx {name} (openpyxl)", entry, found)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("expected", type=Path)
    parser.add_argument("--pspp", default="pspp")
    parser.add_argument("--rscript", default="Rscript")
    args = parser.parse_args()
    expected = json.loads(args.expected.read_text(encoding="utf-8"))
    if not expected:
        print("roundtrip_export: the expected list is empty; nothing would be compared", file=sys.stderr)
        sys.exit(1)
    wide(args.folder, expected)
    long(args.folder, expected)
    jsonl(args.folder, expected)
    fhir(args.folder, expected)
    repeats(args.folder, expected)
    spss(args.folder, expected, args.pspp)
    r(args.folder, expected, args.rscript)
    statistics(args.folder, expected)
    if mismatches:
        for line in mismatches[:60]:
            print(f"roundtrip_export: {line}", file=sys.stderr)
        print(f"roundtrip_export: {len(mismatches)} mismatch(es) in {args.folder}", file=sys.stderr)
        sys.exit(1)
    print(f"roundtrip_export: ok: {len(expected)} values x 9 formats (and the repeat tables) read back the same")


if __name__ == "__main__":
    main()
