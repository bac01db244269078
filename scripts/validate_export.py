#!/usr/bin/env python3
"""Checks an `intake export` folder with tools Intake did not write.

- every CSV parses with Python's csv module in strict mode, every row as wide as its header;
- fhir-bundle.json parses as an HL7 FHIR R4B Bundle with fhir.resources (pydantic models);
- every QuestionnaireResponse matches its Questionnaire: linkIds exist, answers are typed as the
  item is, codes come from the item's answerOptions, items follow the Questionnaire's order;
- every subject and Consent.patient reference names a Patient in the bundle, one Patient per key;
- reports.jsonl, reports_long.csv and removed.csv (when written) agree with export.json;
- cases.csv agrees with export.json (one row per case, ids unique, patient keys of the records'
  kind), and every case_history.csv row names a case of cases.csv, in the order made;
- datapackage.json passes `frictionless validate`;
- records.sps runs in GNU PSPP without an error or warning and reads every record;
- records.R runs in R with warnings as errors and gives a data frame of every record and column;
- counts agree with export.json, and (with --versions N) the records span N questionnaire versions.

Exits non-zero with a message naming the file and the problem. Usage:
    validate_export.py FOLDER [--versions N] [--frictionless PATH] [--pspp PATH] [--rscript PATH]
"""
import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

problems = []


def problem(message):
    problems.append(message)


def check_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, strict=True)
        header = next(reader)
        if len(set(header)) != len(header):
            problem(f"{path.name}: duplicate column names")
        rows = 0
        for number, row in enumerate(reader, start=2):
            if len(row) != len(header):
                problem(f"{path.name}:{number}: {len(row)} fields, header has {len(header)}")
            rows += 1
    return header, rows


VALUE_KEYS = {
    "boolean": "valueBoolean",
    "choice": "valueCoding",
    "integer": "valueInteger",
    "decimal": "valueDecimal",
    "date": "valueDate",
    "text": "valueString",
    "string": "valueString",
}


def index_items(items, into, order, parent):
    for item in items:
        link = item["linkId"]
        if link in into:
            problem(f"Questionnaire linkId {link} is not unique")
        into[link] = item
        order[link] = len(order)
        item["_parent"] = parent
        index_items(item.get("item", []), into, order, link)


def check_response_items(items, questionnaire, order, parent, where):
    last = -1
    for item in items:
        link = item.get("linkId")
        definition = questionnaire.get(link)
        if definition is None:
            problem(f"{where}: linkId {link} is not in its Questionnaire")
            continue
        if definition["_parent"] != parent:
            problem(f"{where}: {link} is nested under {parent}, its Questionnaire has it under {definition['_parent']}")
        # A repeating group (a repeat's instances) appears once per instance, one after another.
        if order[link] < last or (order[link] == last and not (definition.get("repeats") and definition["type"] == "group")):
            problem(f"{where}: {link} is out of the Questionnaire's order")
        last = order[link]
        answers = item.get("answer", [])
        nested = item.get("item", [])
        if answers and nested:
            problem(f"{where}: {link} has both answers and nested items")
        kind = definition["type"]
        if kind == "group":
            if answers:
                problem(f"{where}: group {link} has answers")
            check_response_items(nested, questionnaire, order, link, where)
            continue
        if not answers:
            problem(f"{where}: {link} has no answer")
        if len(answers) > 1 and not definition.get("repeats"):
            problem(f"{where}: {link} has {len(answers)} answers but does not repeat")
        expected = VALUE_KEYS.get(kind)
        options = {(o["valueCoding"]["system"], o["valueCoding"]["code"]) for o in definition.get("answerOption", [])}
        for answer in answers:
            keys = [k for k in answer if k.startswith("value")]
            if keys != [expected]:
                problem(f"{where}: {link} is {kind} but answered with {keys}")
                continue
            if kind == "choice":
                coding = answer["valueCoding"]
                if (coding.get("system"), coding.get("code")) not in options:
                    problem(f"{where}: {link} answered with a code not among its answerOptions")


def check_fhir(path):
    from fhir.resources.R4B.bundle import Bundle

    text = path.read_text(encoding="utf-8")
    try:
        Bundle.model_validate_json(text)
    except Exception as error:  # pydantic.ValidationError, with every problem listed
        problem(f"{path.name}: not a valid FHIR R4B Bundle: {error}")
        return 0, 0
    bundle = json.loads(text)
    questionnaires = {}
    responses = 0
    for entry in bundle.get("entry", []):
        resource = entry["resource"]
        if resource["resourceType"] == "Questionnaire":
            items, order = {}, {}
            index_items(resource.get("item", []), items, order, None)
            for item in items.values():
                for condition in item.get("enableWhen", []):
                    if condition["question"] not in items:
                        problem(f"Questionnaire {resource['version']}: enableWhen of {item['linkId']} names unknown {condition['question']}")
            questionnaires[resource["url"] + "|" + resource["version"]] = (items, order)
    patients = {}
    for entry in bundle.get("entry", []):
        resource = entry["resource"]
        if resource["resourceType"] == "Patient":
            if entry["fullUrl"] in patients:
                problem(f"Patient {resource.get('id')} appears twice")
            patients[entry["fullUrl"]] = resource
    for entry in bundle.get("entry", []):
        resource = entry["resource"]
        if resource["resourceType"] == "Consent":
            if resource.get("patient", {}).get("reference") not in patients:
                problem(f"Consent {resource.get('id')}: its patient is not in the bundle")
            if resource.get("status") != "active" or resource.get("provision", {}).get("type") not in ("permit", "deny"):
                problem(f"Consent {resource.get('id')}: status or provision.type missing")
        if resource["resourceType"] != "QuestionnaireResponse":
            continue
        reference = resource.get("subject", {}).get("reference")
        if reference and not reference.startswith("#") and reference not in patients:
            problem(f"QuestionnaireResponse {resource['id']}: its subject {reference} is not in the bundle")
        responses += 1
        where = f"QuestionnaireResponse {resource['id']}"
        target = questionnaires.get(resource.get("questionnaire"))
        if target is None:
            problem(f"{where}: its questionnaire {resource.get('questionnaire')} is not in the bundle")
            continue
        if resource.get("status") not in ("completed", "in-progress"):
            problem(f"{where}: status {resource.get('status')}")
        check_response_items(resource.get("item", []), target[0], target[1], None, where)
    return len(questionnaires), responses


def check_spss(folder, records, pspp):
    check = folder / ".validate.sps"
    check.write_text('INSERT FILE="records.sps".\nCOMPUTE validate_one = 1.\n'
                     'AGGREGATE OUTFILE=* /BREAK=validate_one /validate_cases=N.\nLIST.\n', encoding="utf-8")
    try:
        result = subprocess.run([pspp, check.name], cwd=folder, capture_output=True, text=True)
    finally:
        check.unlink()
    output = result.stdout + result.stderr
    complaints = [line for line in output.splitlines() if "error:" in line or "warning:" in line]
    if result.returncode != 0 or complaints:
        problem("records.sps does not run cleanly in PSPP:\n" + "\n".join(complaints[:20] or [output[-2000:]]))
        return
    counts = [line for line in output.splitlines() if line.strip().startswith("|") and "1.00|" in line]
    cases = counts[-1].strip("|").split("|")[-1].strip() if counts else None
    if cases != str(records):
        problem(f"records.sps read {cases} cases, export.json says {records} records")


def check_r(folder, records, columns, rscript):
    program = (
        'options(warn = 2); source("records.R", encoding = "UTF-8"); '
        'cat("validate_dimensions", nrow(records), ncol(records), "\\n")'
    )
    result = subprocess.run([rscript, "-e", program], cwd=folder, capture_output=True, text=True)
    output = result.stdout + result.stderr
    if result.returncode != 0:
        problem("records.R fails in R:\n" + output[-2000:])
        return
    dimensions = [line.split()[1:] for line in output.splitlines() if line.startswith("validate_dimensions")]
    if dimensions != [[str(records), str(columns)]]:
        problem(f"records.R gives {dimensions}, expected {records} rows and {columns} columns")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--versions", type=int)
    parser.add_argument("--frictionless", default="frictionless")
    parser.add_argument("--pspp", default="pspp")
    parser.add_argument("--rscript", default="Rscript")
    args = parser.parse_args()
    folder = args.folder
    summary = json.loads((folder / "export.json").read_text(encoding="utf-8"))
    records = summary["records"]

    header, rows = check_csv(folder / "records.csv")
    if rows != records:
        problem(f"records.csv has {rows} rows, export.json says {records} records")
    check_csv(folder / "records_long.csv")
    codebook_header, codebook_rows = check_csv(folder / "codebook.csv")
    if codebook_rows != len(header):
        problem(f"codebook.csv describes {codebook_rows} columns, records.csv has {len(header)}")
    if args.versions:
        with open(folder / "records.csv", newline="", encoding="utf-8") as f:
            seen = {row["questionnaire_version"] for row in csv.DictReader(f, strict=True)}
        if len(seen) != args.versions:
            problem(f"records.csv spans {len(seen)} questionnaire versions, expected {args.versions}")
    lines = sum(1 for line in open(folder / "records.jsonl", encoding="utf-8") if line.strip())
    if lines != records:
        problem(f"records.jsonl has {lines} lines, export.json says {records} records")

    versions, responses = check_fhir(folder / "fhir-bundle.json")
    if responses != records:
        problem(f"fhir-bundle.json has {responses} QuestionnaireResponses, export.json says {records} records")
    if versions != len(summary["versions"]):
        problem(f"fhir-bundle.json has {versions} Questionnaires, export.json lists {len(summary['versions'])} versions")

    if (folder / "reports.jsonl").exists():
        reports = [json.loads(line) for line in open(folder / "reports.jsonl", encoding="utf-8") if line.strip()]
        if len(reports) != summary.get("reports"):
            problem(f"reports.jsonl has {len(reports)} reports, export.json says {summary.get('reports')}")
        for number, report in enumerate(reports, start=1):
            if set(report) != {"date", "patientKey", "recordedAt", "series", "values", "version"} or not isinstance(report["values"], dict):
                problem(f"reports.jsonl:{number}: not a report (keys {sorted(report)})")
    if (folder / "reports_long.csv").exists():
        check_csv(folder / "reports_long.csv")
    if (folder / "removed.csv").exists():
        removed_header, removed_rows = check_csv(folder / "removed.csv")
        if removed_header != ["record_id", "reason"] or removed_rows != summary.get("removed"):
            problem(f"removed.csv has {removed_rows} rows under {removed_header}, export.json says {summary.get('removed')}")

    if (folder / "cases.csv").exists():
        with open(folder / "cases.csv", newline="", encoding="utf-8") as handle:
            case_rows = list(csv.DictReader(handle, strict=True))
        check_csv(folder / "cases.csv")
        if len(case_rows) != summary.get("cases"):
            problem(f"cases.csv has {len(case_rows)} cases, export.json says {summary.get('cases')}")
        ids = [row["case_id"] for row in case_rows]
        if len(set(ids)) != len(ids):
            problem("cases.csv lists a case twice")
        lists = set(summary.get("caseLists") or [])
        for number, row in enumerate(case_rows, start=2):
            if row["list"] not in lists or row["status"] not in ("open", "closed"):
                problem(f"cases.csv:{number}: list {row['list']!r} or status {row['status']!r} is not one export.json names")
            if row["patient_key"] and not row["patient_key"].startswith("pk-"):
                problem(f"cases.csv:{number}: the patient key is not a pseudonymous key")
        if (folder / "case_history.csv").exists():
            check_csv(folder / "case_history.csv")
            with open(folder / "case_history.csv", newline="", encoding="utf-8") as handle:
                changes = list(csv.DictReader(handle, strict=True))
            known = set(ids)
            last = {}
            for number, change in enumerate(changes, start=2):
                if change["case_id"] not in known:
                    problem(f"case_history.csv:{number}: names a case cases.csv does not list")
                elif change["source"] not in ("opened", "visit", "coordinator"):
                    problem(f"case_history.csv:{number}: the source {change['source']!r} is not opened, visit or coordinator")
                elif change["source"] != "opened":
                    # Visits and coordinators' changes in the order made (the opening's rows come
                    # first, stamped with the opening record's own clock).
                    if change["at"] < last.get(change["case_id"], ""):
                        problem(f"case_history.csv:{number}: a change listed before an earlier one of its case")
                    last[change["case_id"]] = change["at"]

    result = subprocess.run([args.frictionless, "validate", str(folder / "datapackage.json")], capture_output=True, text=True)
    if result.returncode != 0:
        problem("frictionless validate failed:\n" + result.stdout[-4000:] + result.stderr[-2000:])

    if (folder / "records.sps").exists():
        check_spss(folder, records, args.pspp)
    if (folder / "records.R").exists():
        check_r(folder, records, len(header), args.rscript)
    # SPSS, Stata and Excel files, read by pyreadstat and openpyxl, against records.jsonl value by value.
    if any((folder / name).exists() for name in ("records.sav", "records.dta", "records.xlsx")) and (folder / "records.jsonl").exists():
        stats = subprocess.run([sys.executable, str(Path(__file__).with_name("stats-files.py")), str(folder)], capture_output=True, text=True)
        if stats.returncode != 0:
            problem("records.sav/.dta/.xlsx differ from records.jsonl:\n" + stats.stdout[-4000:] + stats.stderr[-2000:])

    if problems:
        for message in problems[:50]:
            print(f"validate_export: {message}", file=sys.stderr)
        print(f"validate_export: {len(problems)} problem(s) in {folder}", file=sys.stderr)
        sys.exit(1)
    print(f"validate_export: ok: {records} records, {versions} questionnaire versions, {len(header)} columns, FHIR, CSV, data package, SPSS syntax, R script and SPSS/Stata/Excel files valid")


if __name__ == "__main__":
    main()
