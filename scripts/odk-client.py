#!/usr/bin/env python3
"""pyodk, ODK Central's official Python client, unchanged against `intake serve`. Run by scripts/test.

A throwaway server on 127.0.0.1 (a SQLite file, or the PostgreSQL URL given), a team with a
coordinator and a field worker, the bundled questionnaire published, records sent through
Intake's own API. Then, through pyodk pointed at http://127.0.0.1:PORT/odk: the coordinator lists
projects and forms, reads the submissions as a table page by page (the server's nextLink too) and
with a filter; the field worker creates a submission from an XForm instance; the coordinator
sets its review state with a comment and finds it by that state. Everything pyodk read must equal
Intake's own JSON Lines export of the same records, value by value.

usage: scripts/odk-client.py [--intake .build/debug/intake] [--database URL]
"""
import json
import time
import uuid
import os
import sys
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from intake_server import ClientRun, api, layout  # noqa: E402
RUN = ClientRun("odk-client")
FORM = RUN.FORM
check = RUN.check
run = RUN.run


def client(base, work, username, password, project):
    from pyodk.client import Client
    config = os.path.join(work, f"{username}.toml")
    with open(config, "w", encoding="utf-8") as file:
        file.write(f'[central]\nbase_url = "{base}/odk"\nusername = "{username}"\npassword = "{password}"\ndefault_project_id = {project}\n')
    return Client(config_path=config, cache_path=os.path.join(work, f"{username}-cache.toml"))


def odata_value(answer):
    """What the OData feed holds for a JSON Lines answer ({kind: value})."""
    if answer is None:
        return None
    (kind, value), = answer.items()
    if kind == "yesNo":
        return "yes" if value else "no"
    if kind == "choices":
        return " ".join(value)
    if kind == "decimal":
        return float(value)
    if kind == "geopoint":
        coordinates = [value["longitude"], value["latitude"]] + ([value["altitude"]] if "altitude" in value else [])
        # As Central: `properties` only when the point has an accuracy.
        point = {"type": "Point", "coordinates": coordinates}
        if value.get("accuracy") is not None:
            point["properties"] = {"accuracy": value.get("accuracy")}
        return point
    if kind == "dictionary":
        return {field: odata_value(inner) for field, inner in value.items()}
    if kind == "attachment":
        return value["sha256"]
    return value


def same(odata, expected):
    if isinstance(expected, float) or isinstance(odata, float):
        return odata is not None and expected is not None and abs(float(odata) - float(expected)) < 1e-9
    if isinstance(expected, str) and isinstance(odata, str) and len(expected) == 64:
        return odata.startswith(expected)  # a file: its name is its SHA-256 and type
    if isinstance(expected, dict) and isinstance(odata, dict):
        return set(expected) <= set(odata) and all(same(odata.get(k), v) for k, v in expected.items()) and all(odata[k] is None for k in set(odata) - set(expected))
    return odata == expected


def compare(row, line, sections, where):
    """Every value of an OData row against the JSON Lines export's line of the same record."""
    answers = line.get("answers", {})
    check(row["__system"]["formVersion"] == line["questionnaire"]["version"], f"{where}: formVersion")
    check(row["__system"]["submitterName"] == line["collector"], f"{where}: submitterName")
    state = {"received": None, "has_issues": "hasIssues"}.get(line.get("reviewState"), line.get("reviewState"))
    check(row["__system"]["reviewState"] == state, f"{where}: reviewState {row['__system']['reviewState']} vs {line.get('reviewState')}")
    check(row["patient"]["sex"] == line.get("patient", {}).get("sex"), f"{where}: patient sex")
    check(row["patient"]["given_name"] is None and "givenName" not in line.get("patient", {}), f"{where}: names are not served")
    compared = 0
    for number, (name, entries) in enumerate(sections, start=1):
        group = row.get(name, {})
        section_answers = answers.get(str(number), {})

        def visit(entries, values, given, path):
            nonlocal compared
            for entry in entries:
                answer = given.get(str(entry["index"]))
                if "repeat" in entry:
                    instances = (answer or {}).get("instances", [])
                    odata = values.get(entry["key"], [])
                    if check(len(odata) == len(instances), f"{path}/{entry['key']}: {len(odata)} instances, the export has {len(instances)}"):
                        for i, (instance, expanded) in enumerate(zip(instances, odata)):
                            # Central's expanded rows name themselves and their parent.
                            check(isinstance(expanded.get("__id"), str) and any(k.startswith("__Submissions") and k.endswith("-id") for k in expanded),
                                  f"{path}/{entry['key']}[{i}] carries __id and its parent's id: {sorted(k for k in expanded if k.startswith('__'))}")
                            visit(entry["repeat"], {k: v for k, v in expanded.items() if not k.startswith("__")}, instance, f"{path}/{entry['key']}[{i}]")
                    continue
                expected = odata_value(answer)
                got = values.get(entry["key"], "absent")
                check(same(got, expected), f"{path}/{entry['key']}: pyodk read {json.dumps(got, ensure_ascii=False)}, the export has {json.dumps(expected, ensure_ascii=False)}")
                compared += 1
        visit(entries, group, section_answers, f"{where}/{name}")
    return compared


def instance_xml(record, sections, version):
    """A sample record written as an XForm instance of the form."""
    def text(answer):
        (kind, value), = answer.items()
        if kind == "yesNo":
            return "yes" if value else "no"
        if kind == "choices":
            return " ".join(value)
        if kind == "geopoint":
            return " ".join(str(value[k]) for k in ("latitude", "longitude", "altitude", "accuracy") if k in value)
        return str(value)

    def elements(entries, given):
        out = ""
        for entry in entries:
            answer = given.get(str(entry["index"]))
            if answer is None or "attachment" in answer:
                out += f"<{entry['key']}/>"
            elif "repeat" in entry:
                for instance in answer["instances"]:
                    out += f"<{entry['key']}>{elements(entry['repeat'], instance)}</{entry['key']}>"
            elif "dictionary" in answer:
                out += f"<{entry['key']}>" + "".join(f"<{f}>{escape(text(answer['dictionary'][f]))}</{f}>" for f in entry["fields"] if f in answer["dictionary"]) + f"</{entry['key']}>"
            else:
                out += f"<{entry['key']}>{escape(text(answer))}</{entry['key']}>"
        return out

    patient = record["patient"]
    xml = f'<data id="{FORM}" version="{version}"><patient>'
    for element, key in [("given_name", "givenName"), ("family_name", "familyName"), ("date_of_birth", "dateOfBirth"), ("sex", "sex"), ("external_id", "externalId")]:
        xml += f"<{element}>{escape(patient.get(key, ''))}</{element}>"
    xml += "</patient>"
    for number, (name, entries) in enumerate(sections, start=1):
        xml += f"<{name}>{elements(entries, record['answers'].get(str(number), {}))}</{name}>"
    return xml + f"<meta><instanceID>uuid:{record['id'].lower()}</instanceID></meta></data>"


def main():
    work, env = RUN.work, RUN.env
    env["PYODK_CACHE_FILE"] = os.path.join(work, "pyodk-cache.toml")

    RUN.bootstrap()
    server, base = RUN.serve()
    try:
        fatima_token = run("admin", "token", "create", "fatima")
        cora_token = run("admin", "token", "create", "cora")
        samples = os.path.join(work, "records.jsonl")
        run("sample", "--count", "6", "--seed", "11", "--collector", "fatima", "--output", samples)
        records = [json.loads(line) for line in open(samples, encoding="utf-8")]
        sent, kept = records[:5], records[5]
        stored = api(base, "POST", "/v1/records/batch", fatima_token, {"records": sent})
        check(all(r["outcome"] == "created" for r in stored["results"]), f"records not stored: {stored}")

        # The coordinator, through pyodk: projects, forms, the XForm.
        cora = client(base, work, "cora", "cora-password-1", 0)
        projects = cora.projects.list()
        clinic = next((p for p in projects if p.name == "clinic"), None)
        check(clinic is not None, f"the team is a project: {projects}")
        project = clinic.id
        cora = client(base, work, "cora", "cora-password-1", project)
        forms = cora.forms.list()
        form = next((f for f in forms if f.xmlFormId == FORM), None)
        check(form is not None and form.state == "open" and len(form.hash) == 32, f"the questionnaire is an open form: {forms}")
        xform = cora.session.get(f"projects/{project}/forms/{FORM}.xml").text
        sections = layout(xform)
        print(f"odk-client: pyodk lists project {clinic.name} and form {form.xmlFormId} version {form.version}; its XForm has {len(sections)} sections")

        # The table, two rows a page, following the server's nextLink; with a count.
        first = cora.submissions.get_table(form_id=FORM, top=2, count=True, expand="*")
        check(first["@odata.count"] == 5 and len(first["value"]) == 2, f"first page: count {first.get('@odata.count')}, {len(first['value'])} rows")
        rows = list(first["value"])
        link = first.get("@odata.nextLink")
        pages = 1
        while link:
            page = cora.session.get(link.split("/odk/v1/", 1)[1]).json()
            rows += page["value"]
            link = page.get("@odata.nextLink")
            pages += 1
        check(len(rows) == 5 and pages == 3 and len({r["__id"] for r in rows}) == 5, f"paging gave {len(rows)} rows in {pages} pages")
        skipped = cora.submissions.get_table(form_id=FORM, skip=4, top=10)
        check([r["__id"] for r in skipped["value"]] == [rows[4]["__id"]], "$skip=4 gives the fifth row")
        check(cora.submissions.get_table(form_id=FORM, filter="__system/submissionDate lt 2000-01-01T00:00:00.000Z")["value"] == [], "a filter on the date")

        # What pyodk read equals Intake's own JSON Lines export, value by value.
        export = api(base, "GET", f"/v1/exports?questionnaire={FORM}&format=jsonl", cora_token)
        lines = {json.loads(l)["id"].lower(): json.loads(l) for l in export.splitlines() if l.strip()}
        compared = 0
        for row in rows:
            line = lines.get(row["__id"][5:])
            if check(line is not None, f"{row['__id']} is in the export"):
                compared += compare(row, line, sections, row["__id"])
        print(f"odk-client: {len(rows)} submissions read through pyodk in {pages} pages; {compared} values equal the JSON Lines export's")

        # Without $expand, each repeat is a navigation link; following it gives the expanded instances.
        followed = 0
        for plain in cora.submissions.get_table(form_id=FORM)["value"]:
            expanded = next(r for r in rows if r["__id"] == plain["__id"])
            for name, group in plain.items():
                if not isinstance(group, dict):
                    continue
                for key, nav in group.items():
                    if not key.endswith("@odata.navigationLink"):
                        continue
                    answer = cora.session.get(f"projects/{project}/forms/{FORM}.svc/{nav}")
                    check(answer.status_code == 200, f"{nav}: {answer.status_code} {answer.text[:200]}")
                    instances = answer.json().get("value", []) if answer.status_code == 200 else []
                    want = expanded[name][key.split("@")[0]]
                    check(instances == want, f"{nav} gives the instances $expand=* gives: {len(instances)} vs {len(want)}")
                    followed += len(instances)
        check(followed > 0, "some repeat instances were reached by their navigation links")

        # The field worker sends a submission as an XForm instance.
        fatima = client(base, work, "fatima", "fatima-password-1", project)
        xml = instance_xml(kept, sections, form.version)
        created = fatima.submissions.create(xml=xml, form_id=FORM, device_id="collect:test")
        instance = f"uuid:{kept['id'].lower()}"
        check(created.instanceId == instance, f"the submission is stored as {instance}: {created}")
        try:
            fatima.submissions.create(xml=xml, form_id=FORM)
            check(False, "the same instanceID sent twice is refused")
        except Exception as error:
            check("409" in str(error), f"a duplicate is a conflict: {error}")
        record = api(base, "GET", f"/v1/records/{kept['id'].lower()}", fatima_token)
        sent_answers = {s: {i: a for i, a in answers.items() if "attachment" not in a} for s, answers in kept["answers"].items()}
        got_answers = record["record"]["answers"] if "record" in record else record["answers"]
        for s, answers in sent_answers.items():
            for i, a in answers.items():
                if not check(got_answers.get(s, {}).get(i) == a or ("decimal" in a and same(odata_value(got_answers.get(s, {}).get(i)), odata_value(a))),
                             f"the XForm submission kept answer {s}.{i}"):
                    break

        # The coordinator reviews it, with a comment, and finds it by its state.
        cora.submissions.review(instance, "approved", form_id=FORM, comment="Checked against the clinic card")
        approved = cora.submissions.get_table(form_id=FORM, filter="__system/reviewState eq 'approved'", expand="*")["value"]
        check([r["__id"] for r in approved] == [instance], f"the approved submission is found by its state: {[r['__id'] for r in approved]}")
        # Comments: the one the review carried is listed back, by whom (an actor id) and when.
        added = cora.submissions.add_comment(instance, "Weight rechecked", form_id=FORM)
        listed = list(cora.submissions.list_comments(instance, form_id=FORM))
        check([c.body for c in listed] == ["Checked against the clinic card", "Weight rechecked"] and all(c.actorId == added.actorId for c in listed),
              f"list_comments gives the comments in order: {[(c.body, c.actorId) for c in listed]}")
        # The submitter is one actor id everywhere: creation's answer, the table, a filter on it.
        check(approved and approved[0]["__system"]["submitterId"] == str(created.submitterId),
              f"the table's submitterId is creation's: {approved[0]['__system']['submitterId'] if approved else None} vs {created.submitterId}")
        got = cora.submissions.get(instance, form_id=FORM)
        check(got.instanceId == instance and got.submitterId == created.submitterId and got.reviewState == "approved",
              f"submissions.get: {got.instanceId} by {got.submitterId}, {got.reviewState}")
        by_submitter = cora.submissions.get_table(form_id=FORM, filter=f"__system/submitterId eq {created.submitterId}")["value"]
        check(instance in [r["__id"] for r in by_submitter], f"$filter=__system/submitterId eq {created.submitterId} finds fatima's submission")
        export = api(base, "GET", f"/v1/exports?questionnaire={FORM}&format=jsonl", cora_token)
        line = next(json.loads(l) for l in export.splitlines() if json.loads(l)["id"].lower() == kept["id"].lower())
        check(line["reviewState"] == "approved", "the export says approved too")
        if approved:
            compare(approved[0], line, sections, instance)
        thread = api(base, "GET", f"/v1/records/{kept['id'].lower()}/review", cora_token)
        check(any(e.get("text") == "Checked against the clinic card" for e in thread.get("thread", thread.get("entries", []))), f"the comment is in the review thread: {thread}")
        try:
            cora.submissions.review(instance, "edited", form_id=FORM)
            check(False, "a reviewer cannot set 'edited'")
        except Exception as error:
            check("400" in str(error), f"'edited' is refused: {error}")
        print("odk-client: a submission created through pyodk, reviewed and found by its review state")

        # submissions.list: each submission's metadata, the table's ids, the same submitter ids.
        listed = cora.submissions.list(form_id=FORM)
        table_ids = {r["__id"] for r in cora.submissions.get_table(form_id=FORM)["value"]}
        check({s.instanceId for s in listed} == table_ids and len(listed) == 6, f"submissions.list lists the table's {len(table_ids)} submissions: {len(listed)}")
        mine = next((s for s in listed if s.instanceId == instance), None)
        check(mine is not None and mine.submitterId == created.submitterId and mine.reviewState == "approved", f"submissions.list: {mine}")
        # The project's last submission is the newest submission's date; a form has no media files.
        newest = max(r["__system"]["submissionDate"] for r in cora.submissions.get_table(form_id=FORM)["value"])
        got_project = cora.projects.get(project)
        check(got_project.lastSubmission is not None and got_project.lastSubmission[:19] == newest[:19],
              f"the project's lastSubmission is the newest submission: {got_project.lastSubmission} vs {newest}")
        attachments = cora.session.get(f"projects/{project}/forms/{FORM}/attachments")
        check(attachments.status_code == 200 and attachments.json() == [], f"a form's attachments: {attachments.status_code} {attachments.text[:200]}")

        # submissions.edit: a new version of the instance (its own instanceID, the replaced one as
        # deprecatedID) is the record's next revision; the comment joins its thread.
        edited = json.loads(json.dumps(kept))
        changed = None
        for number, (name, entries) in enumerate(sections, start=1):
            for entry in entries:
                answer = edited["answers"].get(str(number), {}).get(str(entry["index"]))
                if changed is None and answer and "text" in answer and "repeat" not in entry:
                    answer["text"] = answer["text"] + " (corrected)"
                    changed = (str(number), str(entry["index"]), answer["text"])
        check(changed is not None, "the sample has a text answer to edit")
        xml = instance_xml(edited, sections, form.version)
        new_version = f"uuid:{uuid.uuid4()}"
        xml = xml.replace(f"<meta><instanceID>{instance}</instanceID></meta>", f"<meta><instanceID>{new_version}</instanceID><deprecatedID>{instance}</deprecatedID></meta>")
        before = api(base, "GET", f"/v1/records/{kept['id'].lower()}", cora_token)
        cora.submissions.edit(instance, xml, form_id=FORM, comment="Spelling corrected with the patient")
        after = api(base, "GET", f"/v1/records/{kept['id'].lower()}", cora_token)
        got_answers = after["record"]["answers"] if "record" in after else after["answers"]
        check(changed and got_answers.get(changed[0], {}).get(changed[1]) == {"text": changed[2]}, "the edit's answer is stored")
        check(after.get("revision", 0) == before.get("revision", 0) + 1, f"the edit is the next revision: {before.get('revision')} → {after.get('revision')}")
        check("Spelling corrected with the patient" in [c.body for c in cora.submissions.list_comments(instance, form_id=FORM)], "the edit's comment is listed")
        try:
            cora.submissions.edit(instance, xml.replace(f"<deprecatedID>{instance}</deprecatedID>", ""), form_id=FORM)
            check(False, "an edit without deprecatedID is refused")
        except Exception as error:
            check("400" in str(error), f"an edit without deprecatedID is a 400: {error}")
        print("odk-client: submissions.list, a project's lastSubmission, a form's attachments and submissions.edit work through pyodk")

        # Cases as entities. The screenings above opened follow-up cases a moment after they were
        # stored; the case list is an entity list, its cases are entities.
        cases = []
        deadline = time.time() + 30
        while time.time() < deadline:
            cases = api(base, "GET", "/v1/cases?all=true&limit=1000", cora_token)["cases"]
            time.sleep(1)
            if cases and len(api(base, "GET", "/v1/cases?all=true&limit=1000", cora_token)["cases"]) == len(cases):
                break
        check(len(cases) > 0, "the screenings opened cases")
        lists = cora.entity_lists.list()
        check([entity_list.name for entity_list in lists] == ["follow-up"], f"the case list is an entity list: {[l.name for l in lists]}")
        check(lists and "phq2" in [p.name for p in (lists[0].properties or [])], "the entity list names its properties")
        entities = cora.entities.list(entity_list_name="follow-up")
        check({e.uuid for e in entities} == {c["id"] for c in cases}, f"the entities are the cases: {len(entities)} vs {len(cases)}")
        for entity in entities:
            case = next(c for c in cases if c["id"] == entity.uuid)
            name = " ".join(part for part in [case["patient"].get("givenName"), case["patient"].get("familyName")] if part)
            if not check(entity.currentVersion.label == name and entity.currentVersion.version == case["revision"]
                         and entity.currentVersion.data.get("phq2") == str(case["properties"]["phq2"]["integer"]),
                         f"entity {entity.uuid} is its case: {entity.currentVersion}"):
                break
        # The coordinator creates one; a field worker's machine then pulls it (left to the team).
        # With the follow-up published, the properties it reads take its types.
        run("admin", "publish", "follow-up")
        made = cora.entities.create(label="Nadia Saleh", data={"reason": "self_harm", "phq2": "4", "note": "seen at the market"},
                                    entity_list_name="follow-up")
        check(made.currentVersion.label == "Nadia Saleh" and made.currentVersion.data.get("phq2") == "4", f"the entity created: {made}")
        shown = api(base, "GET", f"/v1/cases/{made.uuid}", cora_token)
        check(shown["assignee"] is None and shown["properties"]["phq2"] == {"integer": 4} and shown["properties"]["reason"] == {"choice": "self_harm"},
              f"the entity is a case left to the team, its data in the follow-up's types: {shown}")
        env["INTAKE_KIOSK"] = "1"
        pulled = run("cases", "pull", "--server", base, "--token", fatima_token)
        check("open on this machine" in pulled, f"intake cases pull: {pulled}")
        listed = run("cases", "list")
        check(made.uuid[:8] in listed, f"the field worker's machine pulled the entity created through pyodk: {listed}")
        fatima = client(base, work, "fatima", "fatima-password-1", project)
        try:
            fatima.entities.create(label="Someone", data={}, entity_list_name="follow-up")
            check(False, "a field worker cannot create an entity")
        except Exception as error:
            check("403" in str(error), f"a field worker's entity is refused: {error}")
        try:
            cora.entities.create(label="Someone", data={"phq2": "four"}, entity_list_name="follow-up")
            check(False, "a value that does not fit its property is refused")
        except Exception as error:
            check("422" in str(error), f"phq2 'four' is refused: {error}")
        print(f"odk-client: pyodk lists the case list and its {len(entities)} entities, and creates one that a field worker's machine pulls")

        # Updates: from the version read, a stale version refused, a field worker refused; the
        # field worker's machine gets the change at its next pull.
        updated = cora.entities.update(made.uuid, entity_list_name="follow-up", label="Nadia Saleh", data={"phq2": "5"},
                                       base_version=made.currentVersion.version)
        check(updated.currentVersion.version == made.currentVersion.version + 1 and updated.currentVersion.data.get("phq2") == "5",
              f"the update is the case's next version: {updated.currentVersion}")
        try:
            cora.entities.update(made.uuid, entity_list_name="follow-up", data={"phq2": "1"}, base_version=made.currentVersion.version)
            check(False, "an update from a stale version is refused")
        except Exception as error:
            check("409" in str(error), f"a stale baseVersion is a 409: {error}")
        try:
            fatima.entities.update(made.uuid, entity_list_name="follow-up", data={"phq2": "1"}, force=True)
            check(False, "a field worker cannot update an entity")
        except Exception as error:
            check("403" in str(error), f"a field worker's update is refused: {error}")
        run("cases", "pull", "--server", base, "--token", fatima_token)
        shown = run("cases", "show", made.uuid[:8])
        check("5" in shown.split("phq2", 1)[-1][:40], f"the field worker's machine has the update: {shown}")

        # merge: one row matches the entity created (by label) and changes it, one is new.
        table = cora.entities.get_table(entity_list_name="follow-up")["value"]
        check(any(row["__id"] == made.uuid and row["phq2"] == "5" and row["__system"]["version"] == updated.currentVersion.version
                  for row in table), f"get_table reads the entities: {[r for r in table if r['__id'] == made.uuid]}")
        before = len(table)
        merged = cora.entities.merge([{"label": "Nadia Saleh", "phq2": "6", "reason": "self_harm"},
                                      {"label": "Omar Haddad", "phq2": "3", "reason": "low_mood"}],
                                     entity_list_name="follow-up", source_keys=["label", "phq2", "reason"])
        check(len(merged.to_insert) == 1 and len(merged.to_update) == 1, f"merge inserts one and updates one: {merged}")
        table = cora.entities.get_table(entity_list_name="follow-up")["value"]
        check(len(table) == before + 1 and any(row["label"] == "Omar Haddad" and row["phq2"] == "3" for row in table)
              and any(row["__id"] == made.uuid and row["phq2"] == "6" for row in table), "merge created one entity and updated the other")
        # delete: a case opened by hand goes; one a screening opened is deleted with its record.
        check(cora.entities.delete(made.uuid, entity_list_name="follow-up") is True, "the entity made by hand is deleted")
        check(all(row["__id"] != made.uuid for row in cora.entities.get_table(entity_list_name="follow-up")["value"]),
              "a deleted entity is gone from the table")
        try:
            cora.entities.delete(cases[0]["id"], entity_list_name="follow-up")
            check(False, "a case a record opened is not deleted through its entity")
        except Exception as error:
            check("409" in str(error), f"deleting a record's case is a 409: {error}")
        print("odk-client: pyodk updates (with versions), merges and deletes entities, and gets the entity table")

        # A follow-up as ODK Collect fills it: the field worker reads the follow-up's XForm and its
        # entity-list attachment, picks a case of hers, fills the visit and sends it; the case is
        # visited and closed, and leaves her machine at its next pull.
        import csv
        import datetime
        import io
        import xml.etree.ElementTree as ET
        fatima = client(base, work, "fatima", "fatima-password-1", project)
        xform = fatima.session.get(f"projects/{project}/forms/follow-up.xml").text
        check('src="jr://file-csv/follow-up.csv"' in xform and 'update="1"' in xform,
              "the follow-up's XForm updates the entity it picks from follow-up.csv")
        rows = list(csv.DictReader(io.StringIO(fatima.session.get(f"projects/{project}/forms/follow-up/attachments/follow-up.csv").text)))
        mine = [c for c in api(base, "GET", "/v1/cases", fatima_token)["cases"] if c["status"] == "open"]
        check({row["name"] for row in rows} == {c["id"] for c in mine} and rows,
              f"the attachment lists the open cases she follows: {len(rows)} rows, {len(mine)} cases")
        row = rows[0]
        ns = {"x": "http://www.w3.org/2002/xforms"}
        model = ET.fromstring(xform).find(".//x:model", ns)
        data = model.find("x:instance/x:data", ns)
        values = {"intake_case": row["name"], "reason": row.get("reason", ""), "last_phq2": row.get("phq2", ""),
                  "visits_before": row.get("visits") or "0", "visit_date": datetime.date.today().isoformat(), "contact": "home",
                  "phq_interest": "0", "phq_down": "1", "phq2_score": "1", "self_harm": "no", "referral": "not_needed",
                  "outcome": "resolved"}
        visit_id = str(uuid.uuid4())
        for element in data.iter():
            name = element.tag.split("}")[-1]
            if name in values:
                element.text = values[name]
            elif name == "instanceID":
                element.text = f"uuid:{visit_id}"
            elif name == "entity":
                element.set("id", row["name"])
                element.set("baseVersion", row["__version"])
        ET.register_namespace("", ns["x"])
        submission = ET.tostring(data, encoding="unicode")
        fatima.submissions.create(xml=submission, form_id="follow-up", device_id="collect:follow-up")
        visited = {}
        deadline = time.time() + 30
        while time.time() < deadline:
            visited = api(base, "GET", f"/v1/cases/{row['name']}", cora_token)
            if visited.get("status") == "closed":
                break
            time.sleep(0.5)
        check(visited.get("status") == "closed" and len(visited.get("visits", [])) == 1,
              f"the visit sent through pyodk closed its case: {visited.get('status')}, {len(visited.get('visits', []))} visit(s)")
        stored_visit = api(base, "GET", f"/v1/records/{visit_id}", cora_token)
        link = (stored_visit.get("record") or stored_visit).get("case", {})
        check(link.get("id") == row["name"], f"the record names the case it visited: {link}")
        run("cases", "pull", "--server", base, "--token", fatima_token)
        check(row["name"][:8] not in run("cases", "list"), "the closed case left her machine at its next pull")
        print("odk-client: a follow-up filled from its XForm and entity list and sent through pyodk visits and closes its case")
    finally:
        server.terminate()
        server.wait(timeout=30)
    RUN.finish("odk-client: pyodk works against intake serve")


main()
