#!/usr/bin/env python3
"""fhirclient (SMART on FHIR's Python client, strict R4 models) unchanged against `intake serve`'s /fhir.

A throwaway server on 127.0.0.1 (a SQLite file, or the PostgreSQL URL given), a team with a
coordinator and a field worker, a researcher (external access), the bundled questionnaire
published; three registry patients (consent all_qualified_researchers, sponsors_and_partners,
no_sharing) and records sent through Intake's own API, three of them linked to those patients.
Then, through fhirclient pointed at http://127.0.0.1:PORT/fhir with the server's bearer tokens:
the CapabilityStatement; the coordinator reads a QuestionnaireResponse and its Questionnaire, and
searches responses two a page to the end (the server's absolute next links), by questionnaire,
by authored (fhirclient's $gt/$gte/$lt operators and FHIR's prefixes), by subject and _id; reads
a Patient; every response's answers equal Intake's own JSON Lines export of the same records,
value by value. The researcher sees only the record whose patient shares with all qualified
researchers (the same as their JSON Lines export) and no Patient; a field worker and a request
without a token are refused.

usage: scripts/fhir-client.py --intake .build/debug/intake [--database URL]
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from intake_server import ClientRun, api  # noqa: E402

RUN = ClientRun("fhir-client")
FORM = RUN.FORM
check = RUN.check
run = RUN.run


def fhir_client(base, token):
    """fhirclient as documented, its requests session carrying the server's bearer token."""
    from fhirclient import client
    smart = client.FHIRClient(settings={"app_id": "intake-fhir-client", "api_base": base + "/fhir"})
    if token:
        smart.server.session.headers["Authorization"] = f"Bearer {token}"
    return smart


def search(resource, struct, server):
    """Every resource of a search, following the next links; and how many pages that took."""
    pages = 0
    resources = []
    for bundle in resource.where(struct=struct).perform_iter(server):
        pages += 1
        for link in bundle.link or []:
            if link.relation == "next":
                check(re.match(r"https?://[^/]+/fhir/", link.url) is not None, f"next links are absolute: {link.url}")
        resources += [entry.resource for entry in bundle.entry or [] if entry.resource]
    return resources, pages


def questionnaire_layout(questionnaire):
    """linkId -> (section, index) from the Questionnaire's items (each question's prefix is its position)."""
    positions = {}

    def walk(items):
        for item in items or []:
            if item.prefix and re.fullmatch(r"\d+\.\d+", item.prefix):
                section, index = item.prefix.split(".")
                positions[item.linkId] = (section, index)
            walk(item.item)

    walk(questionnaire.item)
    return positions


def compare(response, line, positions, where):
    """Every item of a QuestionnaireResponse (as fhirclient read it) against the JSON Lines line of
    the same record; and every answer of the line the Questionnaire asks is in the response."""
    compared = 0
    answers = line.get("answers", {})

    def same_number(a, b):
        return a is not None and b is not None and abs(float(a) - float(b)) < 1e-9

    def value(item, answer, path):
        nonlocal compared
        (kind, expected), = answer.items()
        given = item.get("answer", [])
        first = given[0] if given else {}
        if kind in ("geopoint", "dictionary"):
            parts = {part["linkId"]: part for part in item.get("item", [])}
            check(len(parts) == len(expected), f"{path}: {len(parts)} parts, the export has {len(expected)}")
            for field, raw in expected.items():
                part = parts.get(f"{item['linkId']}.{field}")
                if check(part is not None, f"{path}.{field} is in the response"):
                    value(part, {"decimal": raw} if kind == "geopoint" else raw, f"{path}.{field}")
            return
        compared += 1
        if kind == "integer":
            ok = first.get("valueInteger") == expected and isinstance(first.get("valueInteger"), int)
        elif kind == "decimal":
            ok = same_number(first.get("valueDecimal"), expected)
        elif kind == "text":
            ok = first.get("valueString") == expected
        elif kind == "date":
            ok = first.get("valueDate") == expected
        elif kind == "yesNo":
            ok = first.get("valueBoolean") is expected
        elif kind == "choice":
            ok = first.get("valueCoding", {}).get("code") == expected
        elif kind == "choices":
            ok = [a.get("valueCoding", {}).get("code") for a in given] == expected
        elif kind == "attachment":
            attachment = first.get("valueAttachment", {})
            ok = attachment.get("size") == expected["size"] and attachment.get("contentType") == expected["mediaType"]
        else:
            ok = False
        check(ok, f"{path}: fhirclient read {json.dumps(given, ensure_ascii=False)}, the export has {json.dumps(answer, ensure_ascii=False)}")

    def visit(items, given, path):
        seen = set()
        counts = {}
        for item in items:
            link = item["linkId"]
            position = positions.get(link)
            if not check(position is not None, f"{path}: item {link} is a question of the Questionnaire"):
                continue
            index = position[1]
            seen.add(index)
            answer = given.get(index)
            if "answer" not in item and "item" in item and answer is not None and "instances" in answer:
                instance = counts.get(link, 0)
                counts[link] = instance + 1
                instances = answer["instances"]
                if check(instance < len(instances), f"{path}/{link}[{instance}] is in the export"):
                    visit(item.get("item", []), instances[instance], f"{path}/{link}[{instance}]")
                continue
            if check(answer is not None, f"{path}/{link} is in the export"):
                value(item, answer, f"{path}/{link}")
        asked = {index for (section, index) in positions.values() if section == path.split("/")[1]}
        for index in given:
            if index in asked and index not in seen:
                check(False, f"{path}: the export's answer {index} is not in the response")

    sections = {}
    for section in response.get("item", []):
        number = section["linkId"].replace("section-", "")
        sections[number] = section
        visit(section.get("item", []), answers.get(number, {}), f"{where}/{number}")
    for number, given in answers.items():
        asked = {index for (s, index) in positions.values() if s == number}
        if any(index in asked for index in given):
            check(number in sections, f"{where}: section {number} is in the response")
    return compared


def main():
    try:
        from fhirclient import client  # noqa: F401
        from fhirclient.models.capabilitystatement import CapabilityStatement  # noqa: F401
    except ImportError:
        raise SystemExit("fhir-client: fhirclient is not installed: .venv/bin/pip install fhirclient==4.4.0")
    from fhirclient.models.questionnaire import Questionnaire
    from fhirclient.models.questionnaireresponse import QuestionnaireResponse
    from fhirclient.models.patient import Patient
    from fhirclient.server import FHIRNotFoundException, FHIRPermissionDeniedException, FHIRUnauthorizedException

    work = RUN.work

    RUN.bootstrap(('rita',))
    server, base = RUN.serve()
    try:
        tokens = {name: run("admin", "token", "create", name) for name in ("fatima", "cora", "rita")}

        # Three registry patients with their consent; a record of each, and three unlinked.
        patients = {}
        for scope, given in [("all_qualified_researchers", "Amal"), ("sponsors_and_partners", "Basel"), ("no_sharing", "Dina")]:
            registered = api(base, "POST", "/v1/patients", tokens["cora"], {"givenName": given, "familyName": "Haddad", "sex": "female"})
            api(base, "PUT", f"/v1/patients/{registered['id']}/consent", tokens["cora"], {"scope": scope, "method": "written"})
            patients[scope] = registered["id"]
        samples = os.path.join(work, "records.jsonl")
        run("sample", "--count", "6", "--seed", "17", "--collector", "fatima", "--output", samples)
        records = [json.loads(line) for line in open(samples, encoding="utf-8")]
        linked = {}
        for record, scope in zip(records, patients):
            record["patientId"] = patients[scope]
            linked[scope] = record["id"].lower()
        stored = api(base, "POST", "/v1/records/batch", tokens["fatima"], {"records": records})
        check(all(r["outcome"] == "created" for r in stored["results"]), f"records not stored: {stored}")
        ids = {r["id"].lower() for r in records}

        # The CapabilityStatement, public, parsed by fhirclient's strict models.
        anonymous = fhir_client(base, None)
        statement = anonymous.server.capabilityStatement
        check(statement.fhirVersion == "4.0.1" and statement.rest[0].mode == "server", "an R4 server's CapabilityStatement")
        types = {r.type for r in statement.rest[0].resource}
        check(types == {"Questionnaire", "QuestionnaireResponse", "Patient"}, f"resources: {types}")
        check(anonymous.ready, "fhirclient is ready (no SMART: a bearer token of the server's own)")
        try:
            QuestionnaireResponse.where(struct={}).perform_resources_iter(anonymous.server).__next__()
            check(False, "a search without a token is refused")
        except FHIRUnauthorizedException:
            pass

        # The coordinator: a response read, its Questionnaire at the canonical's address.
        cora = fhir_client(base, tokens["cora"])
        first = QuestionnaireResponse.read(records[0]["id"].lower(), cora.server)
        check(first.id == records[0]["id"].lower() and first.status == "completed", f"read {first.id}")
        canonical, _, version = first.questionnaire.partition("|")
        check(re.fullmatch(r"http://127\.0\.0\.1:\d+/fhir/Questionnaire/[A-Za-z0-9.\-]+", canonical) is not None, f"the canonical is an address: {canonical}")
        questionnaire = Questionnaire.read(canonical.rsplit("/", 1)[1], cora.server)
        check(questionnaire.url == canonical and questionnaire.version == version, "the Questionnaire read is the version the response names")
        positions = questionnaire_layout(questionnaire)
        check(len(positions) > 20, f"{len(positions)} questions in the Questionnaire")
        try:
            QuestionnaireResponse.read("00000000-0000-4000-8000-000000000000", cora.server)
            check(False, "an unknown id is 404")
        except FHIRNotFoundException:
            pass

        # JSON only: fhirclient's own session asking for XML gets 406, never JSON it did not ask for.
        answer = cora.server.session.get(cora.server.base_uri + "QuestionnaireResponse", params={"_format": "xml"})
        check(answer.status_code == 406 and answer.json().get("resourceType") == "OperationOutcome", f"_format=xml: {answer.status_code}")
        answer = cora.server.session.get(cora.server.base_uri + "Questionnaire", headers={"Accept": "application/fhir+xml"})
        check(answer.status_code == 406, f"Accept: application/fhir+xml: {answer.status_code}")
        # A page beyond the maximum is served at the maximum, and its self link says so.
        bundle = cora.server.request_json("QuestionnaireResponse?_count=100000")
        check(any(link["relation"] == "self" and "_count=500" in link["url"] for link in bundle["link"]), f"_count beyond 500: {bundle['link']}")

        # Searches, two a page to the end.
        everything, pages = search(QuestionnaireResponse, {"_count": "2"}, cora.server)
        check({r.id for r in everything} == ids and len(everything) == 6 and pages == 3, f"{len(everything)} responses in {pages} pages")
        by_questionnaire, _ = search(QuestionnaireResponse, {"questionnaire": first.questionnaire, "_count": "2"}, cora.server)
        check({r.id for r in by_questionnaire} == ids, "by the canonical the responses carry")
        by_reference, _ = search(QuestionnaireResponse, {"questionnaire": "Questionnaire/" + questionnaire.id}, cora.server)
        check({r.id for r in by_reference} == ids, "by Questionnaire/{id}")
        authored = {r.id: r.authored.as_json() for r in everything}
        times = sorted(set(authored.values()))
        middle = times[len(times) // 2]

        def after(t):
            return {i for i, a in authored.items() if a > t}

        for struct, expected in [
            ({"authored": {"$gt": middle}}, after(middle)),
            ({"authored": {"$gte": middle}}, {i for i, a in authored.items() if a >= middle}),
            ({"authored": {"$lt": middle}}, {i for i, a in authored.items() if a < middle}),
            ({"authored": {"$gte": times[0], "$lte": middle}}, {i for i, a in authored.items() if a <= middle}),
            ({"authored": "gt" + middle}, after(middle)),
            ({"authored": "le" + middle[:10]}, {i for i, a in authored.items() if a[:10] <= middle[:10]}),
        ]:
            found, _ = search(QuestionnaireResponse, dict(struct, _count="2"), cora.server)
            check({r.id for r in found} == expected, f"authored {struct}: {len(found)} found, {len(expected)} expected")
        subject = first.subject.reference
        check(subject.startswith("Patient/"), f"the subject is a Patient reference: {subject}")
        by_subject, _ = search(QuestionnaireResponse, {"subject": subject}, cora.server)
        check([r.id for r in by_subject] == [first.id], f"by subject: {[r.id for r in by_subject]}")
        by_id, _ = search(QuestionnaireResponse, {"_id": f"{records[1]['id'].lower()},{records[2]['id'].lower()}"}, cora.server)
        check({r.id for r in by_id} == {records[1]["id"].lower(), records[2]["id"].lower()}, "by _id")

        # A Patient, for the coordinator: a registry patient's identity.
        patient = Patient.read(subject.split("/", 1)[1], cora.server)
        check(patient.name[0].family == "Haddad" and patient.name[0].given == ["Amal"], "the coordinator sees the patient's name")
        found_patients, _ = search(Patient, {"name": "hadd", "_count": "2"}, cora.server)
        check(len(found_patients) == 3, f"three registry patients named Haddad: {len(found_patients)}")

        # Every value fhirclient read equals Intake's own JSON Lines export.
        export = api(base, "GET", f"/v1/exports?questionnaire={FORM}&format=jsonl", tokens["cora"])
        lines = {json.loads(l)["id"].lower(): json.loads(l) for l in export.splitlines() if l.strip()}
        compared = 0
        for response in everything:
            line = lines.get(response.id)
            if check(line is not None, f"{response.id} is in the export"):
                compared += compare(response.as_json(), line, positions, response.id)
                check(response.as_json()["authored"] == line["updatedAt"], f"{response.id}: authored is updatedAt")
        print(f"fhir-client: {len(everything)} responses read through fhirclient in {pages} pages; {compared} values equal the JSON Lines export's")

        # The researcher: only what consent shares with them, as their JSON Lines export; no Patient.
        rita = fhir_client(base, tokens["rita"])
        seen, _ = search(QuestionnaireResponse, {"_count": "2"}, rita.server)
        exported = {json.loads(l)["id"].lower() for l in api(base, "GET", f"/v1/exports?questionnaire={FORM}&format=jsonl", tokens["rita"]).splitlines() if l.strip()}
        check({r.id for r in seen} == {linked["all_qualified_researchers"]} == exported, f"the researcher sees {len(seen)} responses, exports {len(exported)}")
        for scope in ("sponsors_and_partners", "no_sharing"):
            try:
                QuestionnaireResponse.read(linked[scope], rita.server)
                check(False, f"a record of a patient sharing {scope} never reaches an external researcher")
            except FHIRNotFoundException:
                pass
        try:
            Patient.read(subject.split("/", 1)[1], rita.server)
            check(False, "a researcher never reads a Patient")
        except FHIRPermissionDeniedException:
            pass
        fatima = fhir_client(base, tokens["fatima"])
        try:
            search(QuestionnaireResponse, {}, fatima.server)
            check(False, "a field worker does not read records, as they do not export")
        except FHIRPermissionDeniedException:
            pass
    finally:
        server.terminate()
        server.wait(timeout=30)
    RUN.finish(f"fhirclient: ok ({len(everything)} responses in {pages} pages, {compared} values equal to the JSON Lines export, the researcher saw {len(seen)})")


main()
