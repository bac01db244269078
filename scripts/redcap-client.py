#!/usr/bin/env python3
"""PyCap, the Python client of REDCap's API, unchanged against `intake serve`. Run by scripts/test.

A throwaway server on 127.0.0.1 (a SQLite file, or the PostgreSQL URL given), a team with a
coordinator and a field worker, the bundled questionnaire published, records sent through
Intake's own API. Then, through PyCap pointed at http://127.0.0.1:PORT/redcap/refugee-health/api/
with REDCap-style tokens: the version, the project, the data dictionary (record id first), the
export field names, the instruments and repeating instruments; every record exported in the flat
format, whole and by records, fields, forms and filterLogic, raw and as labels; a record imported
by the field worker. Every value PyCap read must equal Intake's own JSON Lines export of the same
records, and the imported record must hold what was sent. A bad token and a field worker's export
are refused as REDCap refuses them.

usage: scripts/redcap-client.py [--intake .build/debug/intake] [--database URL]
"""
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from intake_server import ClientRun, api, layout  # noqa: E402

RUN = ClientRun("redcap-client")
FORM = RUN.FORM
check = RUN.check
run = RUN.run


def positions(sections):
    """Question key → (section number, index, the repeat's index or None)."""
    found = {}
    for number, (_, entries) in enumerate(sections, start=1):
        for entry in entries:
            found[entry["key"]] = (number, entry["index"], None)
            for member in entry.get("repeat", []):
                found[member["key"]] = (number, member["index"], entry["index"])
    return found


def raw(answer):
    """A JSON Lines answer ({kind: value}) as REDCap's raw text."""
    (kind, value), = answer.items()
    if kind == "yesNo":
        return "1" if value else "0"
    if kind in ("integer", "decimal"):
        return float(value)
    if kind == "geopoint":
        return [float(value[k]) for k in ("latitude", "longitude", "altitude", "accuracy") if k in value]
    if kind == "attachment":
        return value["sha256"]
    return value


def same(found, expected):
    if isinstance(expected, float):
        try:
            return abs(float(found) - expected) < 1e-9
        except ValueError:
            return False
    if isinstance(expected, list):
        try:
            return [float(x) for x in found.split(" ")] == expected
        except ValueError:
            return False
    if isinstance(expected, str) and len(expected) == 64 and found.startswith(expected):
        return True  # a file: its name is its SHA-256 and type
    return found == expected


def expected_rows(line, metadata, where):
    """The flat rows a JSON Lines record must give: {(instrument, instance): {column: value}}."""
    answers = line.get("answers", {})
    rows = {("", ""): {"record_id": line["id"].lower()}}
    patient = {"given_name": "givenName", "family_name": "familyName", "date_of_birth": "dateOfBirth", "sex": "sex", "external_id": "externalId"}
    for field in metadata:
        if field["form_name"] == "patient" and field["field_name"] in patient:
            rows[("", "")][field["field_name"]] = line.get("patient", {}).get(patient[field["field_name"]], "")
            continue
        annotation = field["field_annotation"]
        if not annotation.startswith("@INTAKE-QUESTION="):
            continue
        key, _, part = annotation[len("@INTAKE-QUESTION="):].partition("/")
        if field["field_type"] == "descriptive" or key not in where:
            continue
        section, index, group = where[key]
        given = answers.get(str(section), {})
        if group is None:
            targets = [(("", ""), given.get(str(index)))]
        else:
            instances = given.get(str(group), {}).get("instances", [])
            targets = [((field["form_name"], str(n)), instance.get(str(index))) for n, instance in enumerate(instances, start=1)]
        for row_key, answer in targets:
            row = rows.setdefault(row_key, {"record_id": line["id"].lower()})
            if answer is not None and part:
                answer = answer.get("dictionary", {}).get(part)
            if field["field_type"] == "checkbox":
                codes = [c.split(",", 1)[0].strip() for c in field["select_choices_or_calculations"].split(" | ")]
                chosen = None if answer is None else set(answer.get("choices", []))
                for code in codes:
                    suffix = "".join(c if c.isalnum() and c.isascii() else "_" for c in code.lower())
                    row[f"{field['field_name']}___{suffix}"] = "1" if chosen is not None and code in chosen else "0"  # unanswered is unchecked
            else:
                row[field["field_name"]] = "" if answer is None else raw(answer)
    return rows


def repeating_forms(metadata, where):
    return {f["form_name"] for f in metadata if f["field_annotation"] and where.get(f["field_annotation"][17:].split("/")[0], (0, 0, None))[2] is not None}


def compare(records, lines, metadata, where):
    compared = 0
    by_record = {}
    for row in records:
        by_record.setdefault(row["record_id"], []).append(row)
    check(set(by_record) == set(lines), f"the records PyCap exported are the export's: {sorted(by_record)} vs {sorted(lines)}")
    for record_id, rows in by_record.items():
        line = lines.get(record_id)
        if line is None:
            continue
        expected = expected_rows(line, metadata, where)
        got = {(r.get("redcap_repeat_instrument", ""), str(r.get("redcap_repeat_instance", ""))): r for r in rows}
        check(set(got) == set(expected), f"{record_id}: rows {sorted(got)} vs {sorted(expected)}")
        for row_key, values in expected.items():
            row = got.get(row_key, {})
            for column, value in values.items():
                if check(same(row.get(column, "absent"), value), f"{record_id} {row_key} {column}: PyCap read {row.get(column, 'absent')!r}, the export has {value!r}"):
                    compared += 1
        complete = "2" if line["status"] == "complete" else "0"
        base = got.get(("", ""), {})
        repeating = repeating_forms(metadata, where)
        check(all(base[c] == complete for c in base if c.endswith("_complete") and c[:-9] not in repeating), f"{record_id}: form_complete is {complete}")
    return compared


def flat(record, metadata, where):
    """A JSON Lines record as the flat rows PyCap imports (the fields the project has)."""
    rows = expected_rows(record, metadata, where)
    out = []
    for (instrument, instance), values in rows.items():
        row = {k: (" ".join(str(x) for x in v) if isinstance(v, list) else (repr(v) if isinstance(v, float) and not v.is_integer() else (str(int(v)) if isinstance(v, float) else v))) for k, v in values.items() if v != ""}
        if instrument:
            row["redcap_repeat_instrument"] = instrument
            row["redcap_repeat_instance"] = instance
        elif record["status"] == "complete":
            row.update({f"{form}_complete": "2" for form in {f["form_name"] for f in metadata} - repeating_forms(metadata, where)})
        out.append(row)
    return out


def main():
    from redcap import Project, RedcapError

    work = RUN.work

    RUN.bootstrap()
    server, base = RUN.serve()
    try:
        cora_bearer = run("admin", "token", "create", "cora")
        fatima_bearer = run("admin", "token", "create", "fatima")
        cora_token = run("admin", "token", "create", "cora", "--redcap", "--name", "pycap")
        fatima_token = run("admin", "token", "create", "fatima", "--redcap", "--name", "pycap")
        check(len(cora_token) == 32 and cora_token.isupper() or cora_token.isdigit(), f"a REDCap token is 32 upper-case hexadecimal characters: {len(cora_token)}")
        samples = os.path.join(work, "records.jsonl")
        run("sample", "--count", "12", "--seed", "11", "--collector", "fatima", "--output", samples)
        records = [json.loads(line) for line in open(samples, encoding="utf-8")]
        sent, spare = records[:6], records[6:]
        stored = api(base, "POST", "/v1/records/batch", fatima_bearer, {"records": sent})
        check(all(r["outcome"] == "created" for r in stored["results"]), f"records not stored: {stored}")
        xform = api(base, "GET", f"/odk/v1/projects/1/forms/{FORM}.xml", cora_bearer)
        where = positions(layout(xform))

        url = f"{base}/redcap/{FORM}/api/"
        project = Project(url, cora_token)
        check(str(project.export_version()) == "14.0.0", f"content=version: {project.export_version()}")
        info = project.export_project_info()
        check(info["project_id"] == FORM and info["is_longitudinal"] == "0", f"content=project: {info}")
        metadata = project.export_metadata()
        check(metadata[0]["field_name"] == "record_id" and project.def_field == "record_id", "the record id field comes first")
        keys = ["field_name", "form_name", "section_header", "field_type", "field_label", "select_choices_or_calculations", "field_note",
                "text_validation_type_or_show_slider_number", "text_validation_min", "text_validation_max", "identifier", "branching_logic",
                "required_field", "custom_alignment", "question_number", "matrix_group_name", "matrix_ranking", "field_annotation"]
        check(all(list(row) == keys for row in metadata), "every data dictionary row has REDCap's 18 keys in order")
        check(not project.is_longitudinal, "a classic (not longitudinal) project")
        names = project.export_field_names()
        checkbox = next((f for f in metadata if f["field_type"] == "checkbox"), None)
        check(checkbox is not None and any(n["original_field_name"] == checkbox["field_name"] and n["export_field_name"].startswith(checkbox["field_name"] + "___") for n in names),
              "a checkbox's export field names are field___code")
        instruments = project.export_instruments()
        repeating = project.export_repeating_instruments_events()
        check(len(instruments) >= 4 and any(r["form_name"] == "household_members" for r in repeating), f"instruments {instruments}, repeating {repeating}")
        # REDCap keeps an instrument's fields together; notes are descriptive; show-if is branching logic.
        forms_in_order = [f["form_name"] for f in metadata]
        runs = [form for i, form in enumerate(forms_in_order) if i == 0 or forms_in_order[i - 1] != form]
        check(len(runs) == len(set(runs)), f"each instrument's fields come together in the data dictionary: {runs}")
        check([i["instrument_name"] for i in instruments] == list(dict.fromkeys(forms_in_order)), "the instruments are listed in the dictionary's order")
        by_name = {f["field_name"]: f for f in metadata}
        camp = by_name.get("camp_months", {})
        check(camp.get("branching_logic") == "[camp_stay] = '1'", f"show if: camp_stay = yes is [camp_stay] = '1': {camp.get('branching_logic')!r}")
        logic = [f["branching_logic"] for f in metadata if f["branching_logic"]]
        referenced = {name.split("(")[0] for text in logic for name in re.findall(r"\[([^\]]+)\]", text)}
        check(logic and referenced <= set(by_name), f"branching logic names only fields of the dictionary: {sorted(referenced - set(by_name))}")
        check(all(f["field_type"] != "descriptive" or f["text_validation_type_or_show_slider_number"] == "" for f in metadata), "a note is a descriptive field")
        print(f"redcap-client: PyCap reads version, project, {len(metadata)} fields in {len(instruments)} instruments ({len(repeating)} repeating), {len(names)} export field names, {len(logic)} with branching logic")

        export = api(base, "GET", f"/v1/exports?questionnaire={FORM}&format=jsonl", cora_bearer)
        lines = {json.loads(l)["id"].lower(): json.loads(l) for l in export.splitlines() if l.strip()}
        exported = project.export_records()
        compared = compare(exported, lines, metadata, where)
        # Numbers as REDCap writes them: a whole number never carries a ".0".
        numeric = {f["field_name"] for f in metadata if f["text_validation_type_or_show_slider_number"] in ("number", "integer")}
        trailing = sorted({f"{k}={v}" for row in exported for k, v in row.items() if k in numeric and re.fullmatch(r"-?\d+\.0+", v or "")})
        check(not trailing, f"whole numbers written without a fraction: {trailing[:5]}")
        repeat_rows = sum(1 for r in exported if r.get("redcap_repeat_instrument"))
        print(f"redcap-client: {len(lines)} records ({len(exported)} rows, {repeat_rows} of repeats) exported through PyCap; {compared} values equal the JSON Lines export's")

        # As researchers mostly read it: a pandas DataFrame (CSV, indexed by the record id; PyCap
        # asks formEventMapping first to learn the project is classic).
        frame = project.export_records(format_type="df")
        check(frame.index.names == ["record_id"] and len(frame) == len(exported) and set(frame.index) == set(lines),
              f"format_type='df' gives every row indexed by record_id: {frame.shape}, {frame.index.names}")
        dictionary = project.export_metadata(format_type="df")
        check(dictionary.index.name == "field_name" and len(dictionary) == len(metadata), f"the data dictionary as a DataFrame: {dictionary.shape}")
        first = sorted(lines)[0]
        only = project.export_records(records=[first])
        check({r["record_id"] for r in only} == {first}, "records[] picks records")
        radio = next(f for f in metadata if f["field_type"] == "radio")
        narrow = project.export_records(fields=[radio["field_name"], checkbox["field_name"]])
        check(all(set(r) <= {"record_id", "redcap_repeat_instrument", "redcap_repeat_instance", radio["field_name"]} | {n["export_field_name"] for n in names if n["original_field_name"] == checkbox["field_name"]} for r in narrow)
              and all(any(k.startswith(checkbox["field_name"] + "___") for k in r) for r in narrow if not r.get("redcap_repeat_instrument")),
              "fields[] gives those fields, a checkbox as its columns, and the record id")
        form = metadata[0]["form_name"]
        by_form = project.export_records(forms=[form])
        form_fields = {f["field_name"] for f in metadata if f["form_name"] == form}
        check(all(all(k.split("___")[0] in form_fields or k in ("record_id", "redcap_repeat_instrument", "redcap_repeat_instance", f"{form}_complete") for k in r) for r in by_form), "forms[] gives that instrument's fields")
        value = next(r[radio["field_name"]] for r in exported if r.get(radio["field_name"]))
        filtered = project.export_records(filter_logic=f"[{radio['field_name']}] = '{value}'")
        wanted = {r["record_id"] for r in exported if r.get(radio["field_name"]) == value and not r.get("redcap_repeat_instrument")}
        check({r["record_id"] for r in filtered} == wanted and wanted, f"filterLogic [{radio['field_name']}] = '{value}' gives {len(wanted)} records")
        labels = project.export_records(raw_or_label="label")
        choices = dict(c.split(", ", 1) for c in radio["select_choices_or_calculations"].split(" | "))
        row = next(r for r in labels if r.get(radio["field_name"]))
        check(row[radio["field_name"]] in choices.values(), f"rawOrLabel=label gives the choice's label: {row[radio['field_name']]!r}")
        print("redcap-client: records[], fields[], forms[], filterLogic and rawOrLabel=label work through PyCap")

        # The field worker imports a sample record, without what the project leaves out (identifying
        # answers): the first sample that is still valid without them (one may need a required one).
        fatima = Project(url, fatima_token)
        candidate, answer, refused = None, None, []
        for record in spare:
            record = {**record, "status": "complete"}
            rows = flat(record, metadata, where)
            try:
                answer = fatima.import_records(rows)
                candidate = record
                break
            except RedcapError as error:
                check("required" in str(error) and "No record was stored" in str(error), f"an import is refused only for a missing required answer, and whole: {error}")
                refused.append(str(error)[:160])
        if refused:
            print(f"redcap-client: {len(refused)} sample(s) refused without their identifying answers, e.g. {refused[0]}")
        if check(candidate is not None, "a sample record imports without its identifying answers"):
            check(answer == {"count": 1}, f"import_records answers {{'count': 1}}: {answer}")
            again = fatima.import_records(rows, return_content="ids")
            check(again == [candidate["id"].lower()], f"importing it again names the same record: {again}")
            revisions = api(base, "GET", f"/v1/records/{candidate['id'].lower()}/revisions", fatima_bearer)["revisions"]
            check(len(revisions) == 1, f"the same import again changes nothing and makes no revision: {len(revisions)} revisions")
            # A DataFrame round trip, as a researcher's pandas script does it: export, import back
            # (PyCap sends CSV; pandas writes whole numbers as 27.0 where a column has blanks).
            before = api(base, "GET", f"/v1/records/{candidate['id'].lower()}", cora_bearer)
            frame = project.export_records(format_type="df", records=[candidate["id"].lower()])
            answer = project.import_records(frame, import_format="df")
            check(answer == {"count": 1}, f"a DataFrame imports back: {answer}")
            after = api(base, "GET", f"/v1/records/{candidate['id'].lower()}", cora_bearer)
            check(after.get("record", after)["answers"] == before.get("record", before)["answers"], "an export imported back changes no answer")
            check(after.get("revision", 0) == before.get("revision", 0), f"and makes no revision: {before.get('revision')} -> {after.get('revision')}")
            stored = api(base, "GET", f"/v1/records/{candidate['id'].lower()}", fatima_bearer)
            record = stored.get("record", stored)
            line = {**candidate, "answers": record["answers"], "patient": record["patient"]}
            check(expected_rows(line, metadata, where) == expected_rows(candidate, metadata, where), "the imported record holds what was sent")
            try:
                fatima.export_records()
                check(False, "a field worker cannot export records")
            except RedcapError as error:
                check("privileges" in str(error), f"a field worker's export is refused: {error}")
            try:
                fatima.import_records([{"record_id": "x-1", "no_such_field": "1"}])
                check(False, "an unknown field is refused")
            except RedcapError as error:
                check("no_such_field" in str(error), f"an unknown field is named: {error}")
            # Three bad cells: all three said, nothing stored.
            numeric = [f["field_name"] for f in metadata if f["text_validation_type_or_show_slider_number"] in ("number", "integer")
                       and f["form_name"] != "household_members"][:2]
            radios = [f["field_name"] for f in metadata if f["field_type"] == "radio" and f["form_name"] != "household_members"][:1]
            if check(len(numeric) == 2 and radios, "two number fields and a choice to spoil"):
                bad = {"record_id": "x-2", numeric[0]: "abc", numeric[1]: "1,5", radios[0]: "no-such-code"}
                try:
                    fatima.import_records([bad])
                    check(False, "bad cells are refused")
                except RedcapError as error:
                    said = str(error)
                    check(all(name in said for name in numeric + radios), f"each of the three bad cells is named: {said[:400]}")
            print("redcap-client: a record imported through PyCap by the field worker holds what was sent; importing it again, or a DataFrame round trip, changes nothing and makes no revision")
        # Follow-up visits: with the follow-up published, the screening's project has it as a
        # repeating instrument, each visit a row under the record that opened its case.
        run("admin", "publish", "follow-up")
        cases = []
        for _ in range(60):
            cases = api(base, "GET", "/v1/cases?all=true&limit=1000", cora_bearer)["cases"]
            if cases:
                break
            time.sleep(0.5)
        if check(cases, "the screenings sent opened cases"):
            case = cases[0]
            followed = api(base, "GET", "/v1/questionnaires", cora_bearer)
            version = next(q["version"] for q in followed["questionnaires"] if q["id"] == "follow-up")
            props = dict(case["properties"])
            # The form shows each property in the type the follow-up declares: the reason, set
            # by an if() of texts, is a choice there.
            if "reason" in props:
                props["reason"] = {"choice": next(iter(props["reason"].values()))}
            places = {"reason": "1", "phq2": "2", "long_term_illness": "3", "self_harm": "4", "visits": "5"}
            visits = []
            for number, (interest, down) in enumerate([("1", "2"), ("0", "1")], start=1):
                made = f"2026-11-2{number}T09:00:00.000Z"
                answers = {"4": {"date": f"2026-11-2{number}"}, "5": {"choice": "home"}, "6": {"choice": interest}, "7": {"choice": down},
                           "8": {"integer": int(interest) + int(down)}, "9": {"yesNo": False}, "11": {"choice": "not_needed"},
                           "12": {"choice": "continue"}, "13": {"date": "2099-01-01"}, "3": {"integer": props.get("visits", {}).get("integer", 0)}}
                if "reason" in props:
                    answers["1"] = props["reason"]
                if "phq2" in props:
                    answers["2"] = props["phq2"]
                visit = {"format": 2, "id": str(uuid.uuid4()), "questionnaire": {"id": "follow-up", "version": version},
                         "patient": case["patient"], "answers": {"1": answers}, "status": "complete", "collector": "fatima",
                         "deviceId": "pycap-test", "createdAt": made, "updatedAt": made,
                         "case": {"id": case["id"], "list": "follow-up", "revision": 1,
                                  "properties": {places[k]: v for k, v in props.items() if k in places}}}
                try:
                    api(base, "POST", "/v1/records", fatima_bearer, visit)
                except urllib.error.HTTPError as error:
                    check(False, f"the visit is stored: {error.code} {error.read().decode()[:600]}")
                visits.append(visit["id"])
            shown = {}
            for _ in range(60):
                shown = api(base, "GET", f"/v1/cases/{case['id']}", cora_bearer)
                if len(shown.get("visits", [])) == 2:
                    break
                time.sleep(0.5)
            check(len(shown.get("visits", [])) == 2, f"the case has its two visits: {shown.get('visits')}")
            followups = Project(url, cora_token)
            repeating = followups.export_repeating_instruments_events()
            check(any(r["form_name"] == "follow_up" for r in repeating), f"the follow-up is a repeating instrument: {repeating}")
            check("follow_up" in [i["instrument_name"] for i in followups.export_instruments()], "the follow-up is an instrument")
            visit_fields = followups.export_metadata(forms=["follow_up"])
            check(visit_fields and visit_fields[0]["field_name"] == "follow_up_record_id"
                  and all(f["form_name"] == "follow_up" for f in visit_fields), f"the follow-up's fields: {[f['field_name'] for f in visit_fields][:5]}")
            opening = next(c for c in cases if c["id"] == case["id"])["openedBy"]
            rows = followups.export_records(records=[opening])
            visit_rows = [r for r in rows if r.get("redcap_repeat_instrument") == "follow_up"]
            check([r["redcap_repeat_instance"] for r in visit_rows] == [1, 2] and [r["follow_up_record_id"] for r in visit_rows] == visits
                  and all(r["record_id"] == opening and r["follow_up_outcome"] == "continue" for r in visit_rows),
                  f"the visits are rows of the opening record, in the order made: {[(r['redcap_repeat_instance'], r['follow_up_record_id']) for r in visit_rows]}")
            check([r["follow_up_phq2_score"] for r in visit_rows] == ["3", "1"], f"each visit holds its answers: {[r['follow_up_phq2_score'] for r in visit_rows]}")
            frame = followups.export_records(forms=["follow_up"], format_type="df")
            check("follow_up_record_id" in frame.columns and (frame["redcap_repeat_instrument"] == "follow_up").sum() == len(
                [r for r in followups.export_records(forms=["follow_up"]) if r["redcap_repeat_instrument"] == "follow_up"]), "a DataFrame of the visits")
            try:
                cora_project = Project(url, fatima_token)
                cora_project.import_records([visit_rows[0]])
                check(False, "a visit is not imported through the screening's project")
            except RedcapError as error:
                check("/redcap/follow-up/api/" in str(error), f"importing a visit names where visits go: {error}")
            print("redcap-client: the follow-up is a repeating instrument: PyCap reads each case's visits under the record that opened it, in the order made")
        # Files are not served: REDCap's XML error (its default for a request naming no format),
        # which PyCap reads as an error, never a 200 whose error text would be saved as the file.
        form = urllib.parse.urlencode({"token": cora_token, "content": "file", "action": "export", "record": "x", "field": "f"}).encode()
        try:
            urllib.request.urlopen(urllib.request.Request(url, data=form), timeout=60)
            check(False, "a file export is refused")
        except urllib.error.HTTPError as error:
            body = error.read().decode()
            check(error.code == 400 and "<error>" in body, f"a file export answers REDCap's XML error: {error.code} {body[:200]}")
        try:
            Project(url, "0" * 32).export_metadata()
            check(False, "an unknown token is refused")
        except RedcapError as error:
            check("permissions" in str(error), f"an unknown token: {error}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    RUN.finish("redcap-client: PyCap works against intake serve")


main()
