#!/usr/bin/env python3
"""Checks an Intake export folder's statistics files against its own JSON Lines records.

    .venv/bin/python scripts/stats-files.py FOLDER [--unanswered-code CODE]

FOLDER is an `intake export` folder holding records.jsonl, codebook.csv and at least one of
records.sav, records.dta and records.xlsx (the default export writes all of them). The files are
read by other people's readers: records.sav and records.dta by pyreadstat (ReadStat, what R's
haven uses too), records.xlsx by openpyxl. For every record of records.jsonl and every column of
codebook.csv (one per column of the wide table, in order), the value each file holds must be the
record's own:

- a question the record answers: text exactly (in the .sav without trailing spaces, which SPSS
  strings cannot hold), numbers as the same number, dates as the same day, yes/no and
  multiple-choice columns as 1/0, single-choice codes as the code (a number in the .sav and .dta
  when every code is a whole number, with the choices as value labels);
- a question it does not answer: missing, that is empty or the unanswered code (an SPSS
  user-missing or system-missing value, Stata's `.a` or `.`, an empty or unanswered-code cell).

Also checked: variable labels (the codebook's text, cut where SPSS and Stata cut them), value
labels (choices, No/Yes), that the .xlsx has the sheets records, repeat_<id> and codebook, that
its repeat sheets hold every instance of records.jsonl, that its codebook sheet is codebook.csv,
and that no cell of it is a formula (text starting with = + - @ is text). When the export has
cases.csv and case_history.csv, their .sav and .dta and their sheets hold the CSV's rows, value
by value.

Prints "stats files: ok (N records, M values; .sav, .dta, .xlsx)" and exits 0, or prints each
mismatch (record id, column, file, expected and found) and exits 1. Answers are compared, never
printed, except in a mismatch line.
"""
import argparse
import csv
import datetime
import json
import math
import re
import sys
import zipfile
from pathlib import Path

csv.field_size_limit(sys.maxsize)
EPOCH = datetime.date(1970, 1, 1)
SPSS_EPOCH = datetime.date(1582, 10, 14)
STATA_EPOCH = datetime.date(1960, 1, 1)
ATTACHMENT_EXTENSIONS = None  # attachments are compared by their sha256 prefix

mismatches = []
compared = [0]


def mismatch(file, record, column, expected, found):
    mismatches.append(f"{file}: record {record} column {column}: expected {expected!r}, found {found!r}")


def unescape_csv(cell):
    """codebook.csv adds one leading ' to text a spreadsheet could run as a formula, or starting with '."""
    return cell[1:] if cell.startswith("'") else cell


def truncate(text, max_bytes, max_chars=None):
    out, size = [], 0
    for index, char in enumerate(text):
        length = len(char.encode("utf-8"))
        if size + length > max_bytes or (max_chars is not None and index >= max_chars):
            break
        out.append(char)
        size += length
    return "".join(out)


def safe_name(text):
    return re.sub(r"[^A-Za-z0-9]", "_", text)


class Column:
    """One row of codebook.csv: a column of the wide table and where its value comes from."""

    def __init__(self, row):
        self.name = row["column"]
        self.type = row["type"]
        self.question = row["question_id"]
        self.field = row["field"] or None
        self.choice = row["choice_code"] or None
        self.text = row["text"]
        match = re.search(r" \[#(\d+)\]( \(number of instances\))?$", self.text)
        self.instance = int(match.group(1)) if match and self.question else None
        # Where the question stands in each version: "version@section.index ...".
        self.positions = {}
        for item in row["versions"].split():
            version, _, position = item.partition("@")
            section, _, index = position.partition(".")
            if section.isdigit() and index.isdigit():
                self.positions[version] = (section, index)
        self.choices = {}
        if row["choices"]:
            for pair in row["choices"].split(" | "):
                code, _, label = pair.partition("=")
                self.choices[code] = label


def answer_value(answer, column):
    """(kind, value) of an answer object of records.jsonl for a column, or None when it holds no value there."""
    if answer is None:
        return None
    if column.field is not None:
        if "dictionary" in answer:
            answer = answer["dictionary"].get(column.field)
            if answer is None:
                return None
        elif "geopoint" in answer:
            value = answer["geopoint"].get(column.field)
            return None if value is None else ("number", float(value))
        else:
            return None
    ((kind, value),) = answer.items()
    if column.choice is not None:
        if kind == "choices":
            return ("number", 1.0 if column.choice in value else 0.0)
        if kind == "choice":
            return ("number", 1.0 if column.choice == value else 0.0)
    if kind == "text":
        return ("text", value)
    if kind in ("integer", "decimal"):
        return ("number", float(value))
    if kind == "yesNo":
        return ("number", 1.0 if value else 0.0)
    if kind == "date":
        return ("date", value)
    if kind == "choice":
        return ("code", value)
    if kind == "choices":
        return ("text", ";".join(value))
    if kind == "instances":
        return ("number", float(len(value)))
    if kind == "attachment":
        return ("attachment", "attachments/" + value["sha256"])
    if kind == "geopoint":
        return None
    return ("text", str(value))


def find_answer(record, column, instance=None):
    version = record.get("questionnaire", {}).get("version")
    position = column.positions.get(version)
    if position is None:
        return None
    section = record.get("answers", {}).get(position[0], {})
    instance = instance or column.instance
    if instance:
        # The member's answer in the instance of the repeat that holds it (an index belongs to one repeat).
        for group in section.values():
            instances = group.get("instances")
            if isinstance(instances, list) and len(instances) >= instance and position[1] in instances[instance - 1]:
                return instances[instance - 1][position[1]]
        return None
    return section.get(position[1])


META = {
    "record_id": lambda r: r.get("id"),
    "patient_key": lambda r: r.get("patientKey"),
    "given_name": lambda r: r.get("patient", {}).get("givenName"),
    "family_name": lambda r: r.get("patient", {}).get("familyName"),
    "date_of_birth": lambda r: r.get("patient", {}).get("dateOfBirth"),
    "external_id": lambda r: r.get("patient", {}).get("externalId"),
    "sex": lambda r: r.get("patient", {}).get("sex"),
    "age_years": lambda r: r.get("ageYears"),
    "sharing_scope": lambda r: r.get("sharingScope"),
    "data_groups": lambda r: ";".join(r["dataGroups"]) if r.get("dataGroups") else None,
    "questionnaire_id": lambda r: r.get("questionnaire", {}).get("id"),
    "questionnaire_version": lambda r: r.get("questionnaire", {}).get("version"),
    "status": lambda r: r.get("status"),
    "revision": lambda r: r.get("revision"),
    "form_language": lambda r: r.get("language"),
    "collector": lambda r: r.get("collector"),
    "created_at": lambda r: r.get("createdAt"),
    "updated_at": lambda r: r.get("updatedAt"),
    "review_state": lambda r: r.get("reviewState"),
}


def expected_value(record, column, instance=None):
    """What the record holds in this column: (kind, value), or None for "no value" (missing)."""
    if not column.question:
        if column.name in META:
            value = META[column.name](record)
            if value is None or value == "":
                return None
            if column.type == "integer":
                return ("number", float(value))
            if column.type == "date":
                return ("date", value)
            return ("text", str(value))
        if column.name.startswith("group_"):
            groups = record.get("dataGroups")
            if groups is None:
                return None
            return ("number", 1.0 if any(safe_name(g) == column.name[6:] for g in groups) else 0.0)
        return None
    return answer_value(find_answer(record, column, instance), column)


def days_to_date(days):
    return (EPOCH + datetime.timedelta(days=days)).isoformat()


def is_nan(value):
    return isinstance(value, float) and math.isnan(value)


# By record id, the columns records.csv holds the unanswered code in (asked, not answered).
UNANSWERED = {}


def compare(file, record_id, column, expected, found, *, missing, text_found, number_found, date_found, unanswered=None):
    """`missing(found)`: whether found is a missing value; the others turn found into text, a number, an ISO date (or None).
    `unanswered(found)`: whether found is this file's "asked, not answered", which must then be told from "not asked"
    (None when this file cannot tell them apart)."""
    compared[0] += 1
    if expected is None:
        if not missing(found):
            mismatch(file, record_id, column.name, "(missing)", found)
        elif unanswered is not None and record_id in UNANSWERED:
            asked = column.name in UNANSWERED[record_id]
            said = unanswered(found)
            if said is not None and asked != said:
                mismatch(file, record_id, column.name, "(asked, not answered)" if asked else "(not asked)", found)
        return
    kind, value = expected
    if kind == "text":
        ok = text_found(found) == value
    elif kind == "attachment":
        text = text_found(found)
        ok = text is not None and text.startswith(value)
    elif kind == "number":
        number = number_found(found)
        ok = number is not None and (number == value or abs(number - value) <= 1e-12 * max(1.0, abs(value)))
    elif kind == "date":
        ok = date_found(found) == value
    elif kind == "code":
        # A whole-number code is a labelled number in the .sav and .dta; other codes are text.
        number = number_found(found)
        ok = text_found(found) == value or (number is not None and re.fullmatch(r"-?\d+", value) is not None and number == float(value))
    else:
        ok = False
    if not ok:
        mismatch(file, record_id, column.name, value, found)


def as_number(value):
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and not is_nan(value):
        return float(value)
    return None


def check_labels(file, names, labels, value_labels, columns, max_bytes, max_chars, stata, types=None):
    for name, column in zip(names, columns):
        kind = (types or {}).get(name, "")
        wide_text = kind.startswith("A") and kind[1:].isdigit() and int(kind[1:]) > 255
        expected = truncate(column.text, max_bytes, max_chars).rstrip(" ")
        found = labels.get(name) or ""
        if found != expected:
            mismatch(file, "(dictionary)", column.name, f"variable label {expected}", found)
        found_labels = value_labels.get(name, {})
        if column.type.startswith("indicator") or column.type.startswith("yesno"):
            wanted = {0: "No", 1: "Yes"}
        elif column.choices and column.choice is None and column.type == "single":
            numeric = all(re.fullmatch(r"-?\d+", code) and str(int(code)) == code for code in column.choices)
            if numeric:
                wanted = {int(code): label for code, label in column.choices.items()}
            elif stata:
                wanted = {}
            else:
                wanted = dict(column.choices)
        else:
            wanted = {}
        got = {}
        for value, label in found_labels.items():
            if label == "asked, not answered":
                continue  # the .sav's label of its user-missing value
            got[int(value) if isinstance(value, float) and value.is_integer() else value] = label
        wanted = {key: truncate(label, 120) if not stata else label for key, label in wanted.items()}
        # SPSS has no value labels for a string longer than 255 bytes (one long answer makes it so).
        if wanted and got != wanted and not (not stata and column.type == "single" and not got and wide_text):
            mismatch(file, "(dictionary)", column.name, f"value labels {wanted}", got)


def check_sav(folder, records, columns, code):
    import pyreadstat

    data, meta = pyreadstat.read_sav(
        str(folder / "records.sav"), user_missing=True, disable_datetime_conversion=True, output_format="dict"
    )
    names = meta.column_names
    if len(names) != len(columns):
        mismatches.append(f"records.sav: {len(names)} variables, but codebook.csv lists {len(columns)} columns")
        return
    if meta.number_rows != len(records):
        mismatches.append(f"records.sav: {meta.number_rows} cases, but records.jsonl has {len(records)} records")
    check_labels("records.sav", names, meta.column_names_to_labels, meta.variable_value_labels, columns, 255, None, False, meta.original_variable_types)
    user_missing = {}
    for name, ranges in (meta.missing_ranges or {}).items():
        user_missing[name] = [r["lo"] for r in ranges] + [r["hi"] for r in ranges]
    ids = [str(value).strip() for value in data[names[0]]]
    by_id = {record_id: row for row, record_id in enumerate(ids)}
    for record_id, record in records.items():
        row = by_id.get(record_id)
        if row is None:
            mismatches.append(f"records.sav: record {record_id} is missing")
            continue
        for name, column in zip(names, columns):
            found = data[name][row]
            declared = user_missing.get(name, [])
            is_date = meta.original_variable_types.get(name, "").startswith(("SDATE", "DATE", "ADATE", "EDATE"))

            def missing(value, declared=declared):
                return value is None or is_nan(value) or value == "" or value in declared or (isinstance(value, str) and value == code)

            def date_found(value, is_date=is_date):
                number = as_number(value)
                if number is None or not is_date:
                    return None
                return (SPSS_EPOCH + datetime.timedelta(seconds=number)).isoformat()

            def unanswered(value, declared=declared):
                # A numeric variable with no declared value (an answer took it) keeps unanswered system-missing.
                if isinstance(value, str):
                    return value.rstrip(" ") == code.rstrip(" ")
                if not declared:
                    return None  # both are system-missing here: nothing to tell apart
                return value in declared

            expected = expected_value(record, column)
            if expected is not None and expected[0] == "text":
                expected = ("text", expected[1].rstrip(" "))  # SPSS pads strings with spaces
            compare(
                "records.sav", record_id, column, expected, found, missing=missing,
                text_found=lambda v: v.rstrip(" ") if isinstance(v, str) else None,
                number_found=as_number, date_found=date_found, unanswered=unanswered,
            )


def check_dta(folder, records, columns, code):
    import pyreadstat

    data, meta = pyreadstat.read_dta(
        str(folder / "records.dta"), user_missing=True, disable_datetime_conversion=True, output_format="dict"
    )
    names = meta.column_names
    if len(names) != len(columns):
        mismatches.append(f"records.dta: {len(names)} variables, but codebook.csv lists {len(columns)} columns")
        return
    if meta.number_rows != len(records):
        mismatches.append(f"records.dta: {meta.number_rows} observations, but records.jsonl has {len(records)} records")
    check_labels("records.dta", names, meta.column_names_to_labels, meta.variable_value_labels, columns, 320, 80, True)
    by_id = {str(value): row for row, value in enumerate(data[names[0]])}
    for record_id, record in records.items():
        row = by_id.get(record_id)
        if row is None:
            mismatches.append(f"records.dta: record {record_id} is missing")
            continue
        for name, column in zip(names, columns):
            found = data[name][row]
            is_date = meta.original_variable_types.get(name, "") == "%td"

            def missing(value):
                # With user_missing, pyreadstat gives Stata's .a as "a" in a numeric variable.
                return value is None or is_nan(value) or value == "" or value == code or value == "a"

            def date_found(value, is_date=is_date):
                number = as_number(value)
                return None if number is None or not is_date else (STATA_EPOCH + datetime.timedelta(days=number)).isoformat()

            compare(
                "records.dta", record_id, column, expected_value(record, column), found, missing=missing,
                text_found=lambda v: v if isinstance(v, str) else None, number_found=as_number, date_found=date_found,
                unanswered=lambda v: v == "a" or v == code,
            )


def xlsx_text(value):
    """Excel reads _xHHHH_ in text as that character (the writer escapes control characters so)."""
    if not isinstance(value, str):
        return None
    return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m.group(1), 16)), value)


def xlsx_date(value):
    if isinstance(value, datetime.datetime):
        return value.date().isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return value  # before 1900-03-01, which Excel cannot hold as a date
    return None


def check_xlsx(folder, records, columns, code, codebook_rows):
    import openpyxl

    path = folder / "records.xlsx"
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            if name.startswith("xl/worksheets/") and re.search(rb"<f[ >/]", archive.read(name)):
                mismatches.append(f"records.xlsx: {name} holds a formula")
    book = openpyxl.load_workbook(path)
    for sheet in ("records", "codebook"):
        if sheet not in book.sheetnames:
            mismatches.append(f"records.xlsx: no sheet {sheet} (sheets: {book.sheetnames})")
            return

    def missing(value):
        return value is None or value == "" or value == code

    def check_rows(sheet_name, rows, keyed, specs):
        """rows: the sheet's rows after the header; keyed: row -> (record id, instance); specs: (cell index, column)."""
        for row in rows:
            record_id, instance = keyed(row)
            record = records.get(record_id)
            if record is None:
                mismatches.append(f"records.xlsx {sheet_name}: a row names record {record_id!r}, which records.jsonl lacks")
                continue
            for index, column in specs:
                found = row[index] if index < len(row) else None
                compare(
                    f"records.xlsx {sheet_name}", record_id, column, expected_value(record, column, instance), found, missing=missing,
                    text_found=xlsx_text, number_found=as_number, date_found=xlsx_date,
                )

    sheet = list(book["records"].iter_rows(values_only=True))
    header = list(sheet[0]) if sheet else []
    if header != [c.name for c in columns]:
        mismatches.append("records.xlsx records: the header is not codebook.csv's columns")
        return
    body = sheet[1:]
    if len(body) != len(records):
        mismatches.append(f"records.xlsx records: {len(body)} rows, but records.jsonl has {len(records)} records")
    seen = {row[0] for row in body}
    for record_id in records:
        if record_id not in seen:
            mismatches.append(f"records.xlsx records: record {record_id} is missing")
    check_rows("records", body, lambda row: (row[0], None), list(enumerate(columns)))

    # Each repeat's sheet: every instance, its members' columns named without the instance number.
    by_question = {}
    for column in columns:
        if column.question and column.instance == 1:
            base = safe_name(column.question)
            if column.name.startswith(base + "_1"):
                by_question[base + column.name[len(base) + 2 :]] = column
    for name in book.sheetnames:
        if not name.startswith("repeat_"):
            continue
        rows = list(book[name].iter_rows(values_only=True))
        if not rows:
            mismatches.append(f"records.xlsx {name}: the sheet is empty")
            continue
        header = list(rows[0])
        if "parent_instance" in header:
            continue  # a repeat inside a repeat: its members have no column in the wide table to say where they are
        specs = [(index, by_question[title]) for index, title in enumerate(header) if title in by_question]
        instance_at = header.index("instance")
        check_rows(name, rows[1:], lambda row: (row[0], int(row[instance_at])), specs)
        # Every instance of records.jsonl that answers one of its questions has a row.
        present = {(row[0], int(row[instance_at])) for row in rows[1:]}
        for record_id, record in records.items():
            for _, column in specs:
                version = record.get("questionnaire", {}).get("version")
                position = column.positions.get(version)
                if not position:
                    continue
                for group in record.get("answers", {}).get(position[0], {}).values():
                    instances = group.get("instances") if isinstance(group, dict) else None
                    if isinstance(instances, list):
                        for number, instance in enumerate(instances, 1):
                            if position[1] in instance and (record_id, number) not in present:
                                mismatches.append(f"records.xlsx {name}: record {record_id} instance {number} is missing")

    rows = [[("" if cell is None else str(cell)) for cell in row] for row in book["codebook"].iter_rows(values_only=True)]
    width = len(codebook_rows[0])
    if [row[:width] for row in rows] != codebook_rows:
        mismatches.append("records.xlsx codebook: the sheet is not codebook.csv (first columns, row by row)")


def check_repeat_files(folder, code):
    """Each repeat_<id>.sav and repeat_<id>.dta, cell by cell, against the workbook's sheet of that
    repeat (which check_xlsx compared with records.jsonl): the same rows in the same order, the
    same columns in the same order, each value the same number, date or text."""
    import openpyxl
    import pyreadstat

    files = sorted(p for p in folder.iterdir() if p.name.startswith("repeat_") and p.suffix in (".sav", ".dta"))
    if not files:
        return []
    book = openpyxl.load_workbook(folder / "records.xlsx", read_only=True)
    checked = []
    for path in files:
        sheet = path.stem[:31]
        if sheet not in book.sheetnames:
            mismatches.append(f"{path.name}: records.xlsx has no sheet {sheet} to compare it with")
            continue
        rows = list(book[sheet].iter_rows(values_only=True))
        header, body = list(rows[0]), rows[1:]
        read = pyreadstat.read_sav if path.suffix == ".sav" else pyreadstat.read_dta
        data, meta = read(str(path), user_missing=True, disable_datetime_conversion=True, output_format="dict")
        names = meta.column_names
        if len(names) != len(header) or meta.number_rows != len(body):
            mismatches.append(f"{path.name}: {len(names)} variables and {meta.number_rows} rows, the sheet has {len(header)} and {len(body)}")
            continue
        declared = {}
        for name, ranges in (meta.missing_ranges or {}).items():
            declared[name] = [r["lo"] for r in ranges] + [r["hi"] for r in ranges]
        for column, (name, title) in enumerate(zip(names, header)):
            kind = meta.original_variable_types.get(name, "")
            is_date = kind.startswith(("SDATE", "DATE", "ADATE", "EDATE")) or kind == "%td"
            for row, cells in enumerate(body):
                expected, found = cells[column], data[name][row]
                compared[0] += 1
                # Asked, not answered: the code in the sheet; a user-missing value or .a here.
                if expected == code and (found in declared.get(name, []) or found == "a" or found == code):
                    continue
                if expected is None or expected == "":
                    if not (found is None or found == "" or is_nan(found)):
                        mismatch(path.name, row + 1, title, "(missing)", found)
                    continue
                if isinstance(expected, datetime.datetime):
                    number = as_number(found)
                    if number is None or not is_date:
                        ok = False
                    elif path.suffix == ".sav":
                        ok = (SPSS_EPOCH + datetime.timedelta(seconds=number)).isoformat() == expected.date().isoformat()
                    else:
                        ok = (STATA_EPOCH + datetime.timedelta(days=number)).isoformat() == expected.date().isoformat()
                elif isinstance(expected, (int, float)) and not isinstance(expected, bool):
                    number = as_number(found)
                    ok = number is not None and abs(number - float(expected)) <= 1e-12 * max(1.0, abs(float(expected)))
                else:
                    text = found.rstrip(" ") if isinstance(found, str) and path.suffix == ".sav" else found
                    ok = text == str(expected) or (as_number(found) is not None and str(expected).lstrip("-").isdigit() and as_number(found) == float(expected))
                if not ok:
                    mismatch(path.name, row + 1, title, expected, found)
        checked.append(path.name)
    return checked


def check_case_files(folder, raw_cells):
    """cases.csv and case_history.csv against their .sav, .dta and records.xlsx sheet, row by
    row and value by value: the same rows in the same order, each value the CSV's (one leading '
    removed), as the same number, the same day or the same text; empty as missing."""
    import openpyxl
    import pyreadstat

    checked = []
    book = openpyxl.load_workbook(folder / "records.xlsx", read_only=True) if (folder / "records.xlsx").exists() else None
    for stem in ("cases", "case_history"):
        if not (folder / f"{stem}.csv").exists():
            continue
        with open(folder / f"{stem}.csv", newline="", encoding="utf-8") as f:
            table = list(csv.reader(f, strict=True))
        header = table[0]
        # The CSV guards the properties' values and the history's with one leading ' (not with --raw-cells).
        guarded = [not raw_cells and (name.startswith("prop_") or (stem == "case_history" and name == "value")) for name in header]
        body = [[unescape_csv(cell) if guarded[index] else cell for index, cell in enumerate(row)] for row in table[1:]]
        sources = []
        for suffix in (".sav", ".dta"):
            path = folder / f"{stem}{suffix}"
            if not path.exists():
                if (folder / f"records{suffix}").exists():
                    mismatches.append(f"{path.name} is missing beside records{suffix}")
                continue
            read = pyreadstat.read_sav if suffix == ".sav" else pyreadstat.read_dta
            data, meta = read(str(path), disable_datetime_conversion=True, output_format="dict")
            kinds = meta.original_variable_types
            columns = [
                (data[name], kinds.get(name, "").startswith(("SDATE", "DATE", "ADATE", "EDATE")) or kinds.get(name, "") == "%td")
                for name in meta.column_names
            ]
            if len(columns) != len(header) or meta.number_rows != len(body):
                mismatches.append(f"{path.name}: {len(columns)} variables and {meta.number_rows} rows, {stem}.csv has {len(header)} and {len(body)}")
                continue
            epoch = (lambda n: SPSS_EPOCH + datetime.timedelta(seconds=n)) if suffix == ".sav" else (lambda n: STATA_EPOCH + datetime.timedelta(days=n))
            sources.append((path.name, lambda row, column, columns=columns, epoch=epoch: (columns[column][0][row], columns[column][1], epoch)))
        if book is not None:
            if stem not in book.sheetnames:
                if len(body) <= 1048575:  # a longer one is left out of the workbook, as Excel holds no more rows
                    mismatches.append(f"records.xlsx: no sheet {stem} beside {stem}.csv")
            else:
                rows = list(book[stem].iter_rows(values_only=True))
                if [str(cell) for cell in rows[0]] != header or len(rows) - 1 != len(body):
                    mismatches.append(f"records.xlsx {stem}: its header or {len(rows) - 1} rows are not {stem}.csv's ({len(body)} rows)")
                else:
                    sources.append((f"records.xlsx {stem}", lambda row, column, rows=rows: (rows[row + 1][column], None, None)))
        for name, value in sources:
            for row, cells in enumerate(body):
                for column, expected in enumerate(cells):
                    found, is_date, epoch = value(row, column)
                    compared[0] += 1
                    if expected == "":
                        if not (found is None or found == "" or is_nan(found)):
                            mismatch(name, row + 1, header[column], "(missing)", found)
                        continue
                    if isinstance(found, (datetime.datetime, datetime.date)):
                        ok = xlsx_date(found) == expected
                    elif isinstance(found, str):
                        ok = found.rstrip(" ") == expected.rstrip(" ") if name.endswith(".sav") else xlsx_text(found) == expected
                    elif is_date:
                        ok = as_number(found) is not None and epoch(as_number(found)).isoformat() == expected
                    else:
                        number = as_number(found)
                        try:
                            ok = number is not None and abs(number - float(expected)) <= 1e-12 * max(1.0, abs(float(expected)))
                        except ValueError:
                            ok = False
                    if not ok:
                        mismatch(name, row + 1, header[column], expected, found)
            checked.append(name)
    return checked


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--unanswered-code", default=".", help="the export's --unanswered-code (default '.')")
    args = parser.parse_args()
    folder = args.folder
    records = {}
    with open(folder / "records.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                record = json.loads(line)
                records[record["id"]] = record
    with open(folder / "codebook.csv", newline="", encoding="utf-8") as f:
        raw = list(csv.reader(f, strict=True))
    codebook_rows = [raw[0]] + [[unescape_csv(cell) for cell in row] for row in raw[1:]]
    columns = [Column(dict(zip(codebook_rows[0], row))) for row in codebook_rows[1:]]
    # records.csv says which empty values were asked and not answered (the code) and which not asked (empty).
    if (folder / "records.csv").exists():
        with open(folder / "records.csv", newline="", encoding="utf-8") as f:
            table = list(csv.reader(f, strict=True))
        for row in table[1:]:
            UNANSWERED[row[0]] = {name for name, cell in zip(table[0], row) if cell == args.unanswered_code}
    checked = []
    for name, check in (("records.sav", check_sav), ("records.dta", check_dta), ("records.xlsx", check_xlsx)):
        if not (folder / name).exists():
            continue
        checked.append(name[7:])
        try:
            if name == "records.xlsx":
                check(folder, records, columns, args.unanswered_code, codebook_rows)
            else:
                check(folder, records, columns, args.unanswered_code)
        except Exception as error:  # a reader refusing the file is a failure, not a crash
            mismatches.append(f"{name}: cannot be read: {type(error).__name__}: {error}")
    if not checked:
        mismatches.append(f"{folder} holds none of records.sav, records.dta, records.xlsx")
    elif (folder / "records.xlsx").exists():
        try:
            checked += check_repeat_files(folder, args.unanswered_code)
        except Exception as error:  # a reader refusing a file is a failure, not a crash
            mismatches.append(f"a repeat's .sav or .dta cannot be read: {type(error).__name__}: {error}")
    try:
        summary = json.loads((folder / "export.json").read_text(encoding="utf-8")) if (folder / "export.json").exists() else {}
        checked += check_case_files(folder, bool(summary.get("rawCells")))
    except Exception as error:  # a reader refusing a file is a failure, not a crash
        mismatches.append(f"a case file's .sav, .dta or sheet cannot be read: {type(error).__name__}: {error}")
    if mismatches:
        for line in mismatches[:80]:
            print(f"stats files: {line}")
        print(f"stats files: {len(mismatches)} mismatch(es) in {folder}")
        sys.exit(1)
    print(f"stats files: ok ({len(records)} records, {compared[0]} values; {', '.join(checked)})")


if __name__ == "__main__":
    main()
