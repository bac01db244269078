import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeFHIR
@testable import IntakeServer
@testable import IntakeService

/// FHIR R4 REST under /fhir, over HTTP, on SQLite and PostgreSQL alike (`INTAKE_TEST_STORE`):
/// the CapabilityStatement in public, questionnaires, records as QuestionnaireResponses read from
/// the JSON Lines export (its access, consent, de-identification and values), searches paged by
/// absolute next links, patients for coordinators only. fhirclient itself drives it in
/// scripts/fhir-client.py.
struct FHIRRoutesTests {
    static func application(_ server: TestServer) -> some ApplicationProtocol {
        server.application(modules: [FHIRModule()])
    }

    /// A search's every entry, following the absolute next links to the end.
    static func all(_ client: some TestClientProtocol, _ path: String, as user: String, in server: TestServer) async throws
        -> (resources: [[String: Any]], pages: Int, total: Int?)
    {
        var resources: [[String: Any]] = []
        var pages = 0
        var next: String? = path
        var total: Int?
        while let uri = next, pages < 50 {
            let answer = try await client.fhir(uri, as: user, in: server)
            #expect(answer.status == .ok, "\(uri): \(answer.text.prefix(300))")
            pages += 1
            if total == nil { total = answer.json["total"] as? Int }
            resources += (answer.json["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
            next = nil
            for link in answer.json["link"] as? [[String: Any]] ?? [] where link["relation"] as? String == "next" {
                let url = try #require(link["url"] as? String)
                #expect(url.hasPrefix("http://") && URL(string: url)?.host != nil, "next links are absolute: \(url)")
                let start = try #require(url.range(of: "/fhir/"))
                next = String(url[start.lowerBound...])
            }
        }
        return (resources, pages, total)
    }

    static func ids(_ resources: [[String: Any]]) -> Set<String> { Set(resources.compactMap { $0["id"] as? String }) }

    static func outcome(
        _ answer: TestResponse, _ status: HTTPResponse.Status, _ code: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(answer.status == status, "\(answer.status): \(answer.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(answer.json["resourceType"] as? String == "OperationOutcome", "\(answer.text.prefix(300))", sourceLocation: sourceLocation)
        #expect(answer.headers[.contentType]?.hasPrefix("application/fhir+json") == true, sourceLocation: sourceLocation)
        let issue = (answer.json["issue"] as? [[String: Any]])?.first
        #expect(issue?["severity"] as? String == "error" && issue?["diagnostics"] is String, sourceLocation: sourceLocation)
        if let code { #expect(issue?["code"] as? String == code, "\(answer.text.prefix(300))", sourceLocation: sourceLocation) }
    }

    @Test func metadataIsPublicStrictR4AndEverythingElseNeedsAToken() async throws {
        let server = try await TestServer.make()
        try await Self.application(server).test(.router) { client in
            let metadata = try await client.fhir("/fhir/metadata", as: nil, in: server)
            #expect(metadata.status == .ok && metadata.headers[.contentType] == "application/fhir+json; charset=utf-8")
            let statement = metadata.json
            // What R4's CapabilityStatement has: fhirclient refuses any other key.
            let allowed: Set<String> = [
                "resourceType", "id", "meta", "implicitRules", "language", "text", "contained", "extension", "modifierExtension", "url",
                "version", "name",
                "title", "status", "experimental", "date", "publisher", "contact", "description", "useContext", "jurisdiction", "purpose",
                "copyright", "kind",
                "instantiates", "imports", "software", "implementation", "fhirVersion", "format", "patchFormat", "implementationGuide",
                "rest", "messaging",
                "document",
            ]
            #expect(Set(statement.keys).isSubset(of: allowed), "\(Set(statement.keys).subtracting(allowed))")
            #expect(statement["resourceType"] as? String == "CapabilityStatement" && statement["fhirVersion"] as? String == "4.0.1")
            #expect(
                statement["status"] as? String == "active" && statement["kind"] as? String == "instance"
                    && (statement["format"] as? [String])?.contains("json") == true)
            #expect((statement["date"] as? String)?.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil)
            let rest = try #require((statement["rest"] as? [[String: Any]])?.first)
            #expect(rest["mode"] as? String == "server")
            let resources = rest["resource"] as? [[String: Any]] ?? []
            #expect(Set(resources.compactMap { $0["type"] as? String }) == ["Questionnaire", "QuestionnaireResponse", "Patient"])
            for resource in resources {
                #expect((resource["interaction"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["read", "search-type"])
                for parameter in resource["searchParam"] as? [[String: Any]] ?? [] {
                    #expect(parameter["name"] is String && parameter["type"] is String)
                }
            }
            let responses = try #require(resources.first { $0["type"] as? String == "QuestionnaireResponse" })
            let names = Set((responses["searchParam"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            #expect(names.isSuperset(of: ["_id", "questionnaire", "authored", "subject", "patient"]))

            let stale = try await client.execute(uri: "/fhir/metadata", method: .get, headers: [.authorization: "Bearer stale"])
            #expect(stale.status == .ok, "the metadata is public: a stale token is ignored")
            Self.outcome(try await client.fhir("/fhir/QuestionnaireResponse", as: nil, in: server), .unauthorized, "login")
            Self.outcome(try await client.fhir("/fhir/Questionnaire", as: nil, in: server), .unauthorized, "login")
            Self.outcome(try await client.fhir("/fhir/Patient/x", as: nil, in: server), .unauthorized, "login")
            Self.outcome(try await client.fhir("/fhir/Observation", as: "coordinator-a", in: server), .notFound)
            Self.outcome(try await client.fhir("/fhir/QuestionnaireResponse/x/_history/1", as: "coordinator-a", in: server), .notFound)
            let post = try await client.execute(
                uri: "/fhir/QuestionnaireResponse", method: .post,
                headers: [.authorization: "Bearer \(server.tokens["coordinator-a"]!)", .contentType: "application/fhir+json"],
                body: ByteBuffer(string: "{}"))
            Self.outcome(post, .methodNotAllowed, "not-supported")

            // JSON only: XML (or anything without JSON) asked for is 406, never a JSON answer.
            for format in ["xml", "application/fhir%2Bxml", "text/turtle", "html"] {
                Self.outcome(
                    try await client.fhir("/fhir/QuestionnaireResponse?_format=\(format)", as: "coordinator-a", in: server), .notAcceptable,
                    "not-supported")
            }
            Self.outcome(try await client.fhir("/fhir/metadata?_format=xml", as: nil, in: server), .notAcceptable, "not-supported")
            for format in ["json", "application/fhir%2Bjson", "application/json"] {
                #expect(
                    try await client.fhir("/fhir/QuestionnaireResponse?_format=\(format)", as: "coordinator-a", in: server).status == .ok,
                    "\(format)")
            }
            let xml = try await client.execute(
                uri: "/fhir/Questionnaire", method: .get,
                headers: [.authorization: "Bearer \(server.tokens["coordinator-a"]!)", .accept: "application/fhir+xml"])
            Self.outcome(xml, .notAcceptable, "not-supported")
            let browser = try await client.execute(
                uri: "/fhir/Questionnaire", method: .get,
                headers: [
                    .authorization: "Bearer \(server.tokens["coordinator-a"]!)", .accept: "text/html,application/xhtml+xml,*/*;q=0.8",
                ])
            #expect(browser.status == .ok, "a browser's Accept allows anything")
            // Beyond the page's maximum: served at the maximum, and the self link says so.
            let many = try await client.fhir("/fhir/QuestionnaireResponse?_count=100000", as: "coordinator-a", in: server)
            let links = (many.json["link"] as? [[String: Any]]) ?? []
            #expect(
                links.contains { ($0["relation"] as? String) == "self" && ($0["url"] as? String)?.contains("_count=500") == true },
                "\(links)")
        }
    }

    @Test func questionnairesAreEachPublishedVersionReadableAtTheirCanonicalURL() async throws {
        let server = try await TestServer.make()
        try await Self.application(server).test(.router) { client in
            let found = try await client.fhir("/fhir/Questionnaire", as: "fieldworker-a", in: server)
            #expect(
                found.status == .ok && found.json["resourceType"] as? String == "Bundle" && found.json["type"] as? String == "searchset")
            #expect(found.json["total"] as? Int == 1)
            let entry = try #require((found.json["entry"] as? [[String: Any]])?.first)
            let questionnaire = try #require(entry["resource"] as? [String: Any])
            let id = try #require(questionnaire["id"] as? String)
            #expect(id.wholeMatch(of: /[A-Za-z0-9\-\.]{1,64}/) != nil)
            #expect(questionnaire["version"] as? String == server.questionnaire.version && questionnaire["status"] as? String == "active")
            let url = try #require(questionnaire["url"] as? String)
            #expect(url == "http://127.0.0.1/fhir/Questionnaire/\(id)" || url.hasSuffix("/fhir/Questionnaire/\(id)"), "\(url)")
            #expect(entry["fullUrl"] as? String == url)
            let read = try await client.fhir("/fhir/Questionnaire/\(id)", as: "researcher", in: server)
            #expect(read.status == .ok && read.json["id"] as? String == id && read.json["resourceType"] as? String == "Questionnaire")
            let items = (read.json["item"] as? [[String: Any]] ?? []).flatMap { $0["item"] as? [[String: Any]] ?? [] }.compactMap {
                $0["linkId"] as? String
            }
            #expect(
                items.contains("household_size") && !items.contains("document_photo"),
                "identifying questions are left out, as the responses leave them out")
            Self.outcome(try await client.fhir("/fhir/Questionnaire/nothing", as: "researcher", in: server), .notFound, "not-found")
            let byVersion = try await client.fhir(
                "/fhir/Questionnaire?version=\(server.questionnaire.version)&title=refugee", as: "admin", in: server)
            #expect(byVersion.json["total"] as? Int == 1, "\(byVersion.text.prefix(300))")
            let byURL = try await client.fhir("/fhir/Questionnaire?url=\(FHIRQuery.encoded(url))", as: "admin", in: server)
            #expect(byURL.json["total"] as? Int == 1)
            let none = try await client.fhir("/fhir/Questionnaire?status=retired", as: "admin", in: server)
            #expect(none.json["total"] as? Int == 0 && none.json["entry"] == nil, "an empty search has no entry array")
        }
    }

    @Test func responsesAreTheExportsRecordsReadSearchedAndPaged() async throws {
        let server = try await TestServer.make()
        let records = (1...5).map { server.record(seed: UInt64(100 + $0), familyName: "Haddad") }
        _ = try await server.services.records.ingest(records, owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        let other = server.record(seed: 120, collector: "fieldworker-b")
        _ = try await server.services.records.ingest([other], owner: RecordOwner(teamId: 2, username: "fieldworker-b"))
        let ids = Set(records.map { $0.id.uuidString.lowercased() })
        try await Self.application(server).test(.router) { client in
            let first = try #require(records.first)
            let read = try await client.fhir(
                "/fhir/QuestionnaireResponse/\(first.id.uuidString.lowercased())", as: "coordinator-a", in: server)
            #expect(read.status == .ok && read.headers[.contentType] == "application/fhir+json; charset=utf-8", "\(read.text.prefix(300))")
            let response = read.json
            #expect(
                response["resourceType"] as? String == "QuestionnaireResponse"
                    && response["id"] as? String == first.id.uuidString.lowercased())
            #expect(response["status"] as? String == "completed" && !read.text.contains("Haddad"), "de-identified, as the export")
            let canonical = try #require(response["questionnaire"] as? String)
            #expect(canonical.hasSuffix("|\(first.questionnaire.version)") && canonical.contains("/fhir/Questionnaire/"))
            let url = String(canonical.split(separator: "|").first ?? "")
            let start = try #require(url.range(of: "/fhir/"))
            let address = String(url[start.lowerBound...])
            let questionnaire = try await client.fhir(address, as: "coordinator-a", in: server)
            #expect(
                questionnaire.status == .ok && questionnaire.json["version"] as? String == first.questionnaire.version,
                "the canonical is where it is read")
            let subject = try #require((response["subject"] as? [String: Any])?["reference"] as? String)
            #expect(subject.hasPrefix("Patient/"))
            let key = String(subject.dropFirst("Patient/".count))
            #expect(((response["subject"] as? [String: Any])?["identifier"] as? [String: Any])?["value"] as? String == key)
            let authored = try #require(response["authored"] as? String)
            #expect(authored.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/) != nil)

            Self.outcome(
                try await client.fhir("/fhir/QuestionnaireResponse/\(UUID().uuidString.lowercased())", as: "coordinator-a", in: server),
                .notFound, "not-found")
            Self.outcome(
                try await client.fhir("/fhir/QuestionnaireResponse/not-a-uuid", as: "coordinator-a", in: server), .notFound, "not-found")
            Self.outcome(
                try await client.fhir("/fhir/QuestionnaireResponse/\(other.id.uuidString.lowercased())", as: "coordinator-a", in: server),
                .notFound)
            let theirs = try await client.fhir(
                "/fhir/QuestionnaireResponse/\(other.id.uuidString.lowercased())", as: "coordinator-b", in: server)
            #expect(theirs.status == .ok)

            // Paged two at a time, to the end, by absolute next links.
            let paged = try await Self.all(client, "/fhir/QuestionnaireResponse?_count=2", as: "coordinator-a", in: server)
            #expect(
                paged.total == 5 && paged.pages == 3 && paged.resources.count == 5 && Self.ids(paged.resources) == ids,
                "\(paged.pages) pages")
            let most = try await client.fhir("/fhir/QuestionnaireResponse?_count=100000", as: "coordinator-a", in: server)
            #expect(most.status == .ok && most.text.contains("_count=500"), "at most 500 a page")
            let empty = try await client.fhir("/fhir/QuestionnaireResponse?_count=0", as: "coordinator-a", in: server)
            #expect(empty.json["total"] as? Int == 5 && empty.json["entry"] == nil)
            let selfLink = (empty.json["link"] as? [[String: Any]])?.first { $0["relation"] as? String == "self" }?["url"] as? String
            #expect(
                selfLink?.hasPrefix("http://") == true && selfLink?.hasSuffix("/fhir/QuestionnaireResponse?_count=0") == true,
                "\(selfLink ?? "")")

            // questionnaire: Questionnaire/{id}, a bare id, the canonical URL, the questionnaire's own id.
            let resourceId = try #require(address.split(separator: "/").last.map(String.init))
            for value in [
                "Questionnaire%2F\(resourceId)", resourceId, FHIRQuery.encoded(canonical), "refugee-health",
                "urn%3Aintake%3Aquestionnaire%3Arefugee-health",
            ] {
                let search = try await client.fhir("/fhir/QuestionnaireResponse?questionnaire=\(value)", as: "coordinator-a", in: server)
                #expect(search.json["total"] as? Int == 5, "questionnaire=\(value): \(search.text.prefix(200))")
            }
            let typed = try await client.fhir(
                "/fhir/QuestionnaireResponse?questionnaire:Questionnaire=\(resourceId)", as: "coordinator-a", in: server)
            #expect(typed.json["total"] as? Int == 5)
            let unknown = try await client.fhir(
                "/fhir/QuestionnaireResponse?questionnaire=Questionnaire%2Fnothing", as: "coordinator-a", in: server)
            #expect(unknown.status == .ok && unknown.json["total"] as? Int == 0)
            let otherVersion = try await client.fhir(
                "/fhir/QuestionnaireResponse?questionnaire=\(FHIRQuery.encoded(canonical + "x"))", as: "coordinator-a", in: server)
            #expect(otherVersion.json["total"] as? Int == 0, "another version's canonical matches none")

            // authored: FHIR's prefixes and fhirclient's >, <, >=, <=; repeated, a range.
            let times = records.map(\.updatedAt).sorted()
            let middle = Timestamp.string(from: times[2])
            let after = Set(records.filter { $0.updatedAt > times[2] }.map { $0.id.uuidString.lowercased() })
            let before = Set(records.filter { $0.updatedAt < times[2] }.map { $0.id.uuidString.lowercased() })
            let atMost = ids.subtracting(after)
            let atLeast = ids.subtracting(before)
            let exactly = atMost.subtracting(before)
            let cases: [(String, Set<String>)] = [
                ("authored=gt\(middle)", after), ("authored=%3E\(middle)", after), ("authored=>\(middle)", after),
                ("authored=ge\(middle)", atLeast), ("authored=%3E%3D\(middle)", atLeast), ("authored=>=\(middle)", atLeast),
                ("authored=lt\(middle)", before), ("authored=%3C\(middle)", before), ("authored=<=\(middle)", atMost),
                ("authored=le\(middle)", atMost), ("authored=eq\(middle)", exactly), ("authored=\(middle)", exactly),
                ("authored=ge1950&authored=lt2200-01-01", ids), ("authored=gt\(middle)&authored=lt\(middle)", []),
                ("authored=lt1950-01-01T00:00:00%2B02:00", []), ("authored=ne\(middle)", after.union(before)),
                ("authored=lt1950,gt\(middle)", after),
            ]
            for (query, expected) in cases {
                let search = try await client.fhir("/fhir/QuestionnaireResponse?\(query)&_count=100", as: "coordinator-a", in: server)
                #expect(search.status == .ok, "\(query): \(search.text.prefix(200))")
                let found = Self.ids((search.json["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] })
                #expect(found == expected, "\(query): \(found.count) found, \(expected.count) expected")
            }
            let day = String(middle.prefix(10))
            let sameDay = Set(records.filter { Timestamp.string(from: $0.updatedAt).hasPrefix(day) }.map { $0.id.uuidString.lowercased() })
            let onDay = try await client.fhir("/fhir/QuestionnaireResponse?authored=\(day)", as: "coordinator-a", in: server)
            #expect(onDay.json["total"] as? Int == sameDay.count, "a date is its whole day")
            for bad in [
                "authored=gt2024-13-01", "authored=soon", "authored=gt2024-02-30", "authored=ap2024-01-01", "_count=-1", "_count=many",
                "authored:missing=true",
            ] {
                Self.outcome(try await client.fhir("/fhir/QuestionnaireResponse?\(bad)", as: "coordinator-a", in: server), .badRequest)
            }

            // subject and patient; _id; status.
            for query in [
                "subject=Patient%2F\(key)", "patient=\(key)", "subject:Patient=\(key)",
                "subject=\(FHIRQuery.encoded("http://example.org/fhir/Patient/" + key))",
            ] {
                let search = try await client.fhir("/fhir/QuestionnaireResponse?\(query)", as: "coordinator-a", in: server)
                let found = (search.json["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
                #expect(
                    !found.isEmpty && found.allSatisfy { ($0["subject"] as? [String: Any])?["reference"] as? String == subject }, "\(query)"
                )
            }
            let group = try await client.fhir("/fhir/QuestionnaireResponse?subject=Group%2F1", as: "coordinator-a", in: server)
            #expect(group.json["total"] as? Int == 0)
            let two = records.prefix(2).map { $0.id.uuidString.lowercased() }
            let byId = try await client.fhir(
                "/fhir/QuestionnaireResponse?_id=\(two.joined(separator: ","))", as: "coordinator-a", in: server)
            #expect(byId.json["total"] as? Int == 2)
            let completed = try await client.fhir("/fhir/QuestionnaireResponse?status=completed", as: "coordinator-a", in: server)
            #expect(completed.json["total"] as? Int == records.filter { $0.status == .complete }.count)

            // Unknown parameters: ignored (and left out of the links), refused when strict.
            let lenient = try await client.fhir("/fhir/QuestionnaireResponse?colour=blue&_count=1", as: "coordinator-a", in: server)
            #expect(lenient.status == .ok && lenient.json["total"] as? Int == 5 && !lenient.text.contains("colour"))
            let strict = try await client.fhir(
                "/fhir/QuestionnaireResponse?colour=blue", as: "coordinator-a", in: server,
                headers: [HTTPField.Name("Prefer")!: "handling=strict"])
            Self.outcome(strict, .badRequest, "invalid")

            // Every value is the JSON Lines export's.
            let export = try await client.send(.get, "/v1/exports?format=jsonl", as: "coordinator-a", in: server)
            let lines = Dictionary(
                ConsentFixture.lines(export.text).compactMap { line in (line["id"] as? String).map { ($0.lowercased(), line) } },
                uniquingKeysWith: { a, _ in a })
            var compared = 0
            for resource in paged.resources {
                let id = try #require(resource["id"] as? String)
                let line = try #require(lines[id])
                let (count, problems) = Self.compare(resource, line, questionnaire: server.questionnaire)
                #expect(problems.isEmpty, "\(id): \(problems.prefix(5))")
                compared += count
            }
            #expect(compared > 50, "\(compared) values compared")

            let audit = try await server.services.audit.events(AuditQuery(actor: "coordinator-a", action: "export"))
            #expect(
                audit.contains { $0.details["via"] == "fhir" && $0.details["resource"] == "QuestionnaireResponse" },
                "reads are audited as exports")
        }
    }

    @Test func fieldWorkersAndResearchersAreRefusedWhatTheyMayNotExport() async throws {
        let server = try await TestServer.make()
        let record = server.record(seed: 130, familyName: "Haddad", givenName: "Samira")
        _ = try await server.services.records.ingest([record], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        try await Self.application(server).test(.router) { client in
            for user in ["fieldworker-a", "admin"] {
                Self.outcome(try await client.fhir("/fhir/QuestionnaireResponse", as: user, in: server), .forbidden, "forbidden")
                Self.outcome(
                    try await client.fhir("/fhir/QuestionnaireResponse/\(record.id.uuidString.lowercased())", as: user, in: server),
                    .forbidden)
                Self.outcome(try await client.fhir("/fhir/Patient", as: user, in: server), .forbidden)
            }
            let response = try await client.fhir(
                "/fhir/QuestionnaireResponse/\(record.id.uuidString.lowercased())", as: "coordinator-a", in: server)
            let subject = try #require((response.json["subject"] as? [String: Any])?["reference"] as? String)
            Self.outcome(try await client.fhir("/fhir/\(subject)", as: "researcher", in: server), .forbidden, "forbidden")
            Self.outcome(try await client.fhir("/fhir/Patient?name=Haddad", as: "researcher", in: server), .forbidden)

            let patient = try await client.fhir("/fhir/\(subject)", as: "coordinator-a", in: server)
            #expect(patient.status == .ok && patient.json["resourceType"] as? String == "Patient", "\(patient.text.prefix(300))")
            #expect("Patient/\(patient.json["id"] as? String ?? "")" == subject)
            let name = (patient.json["name"] as? [[String: Any]])?.first
            #expect(name?["family"] as? String == "Haddad" && name?["given"] as? [String] == ["Samira"], "a coordinator sees identities")
            let key = String(subject.dropFirst("Patient/".count))
            for query in ["name=hadd", "family:exact=Haddad", "given=sam", "name:contains=amir", "identifier=\(key)", "_id=\(key)"] {
                let search = try await client.fhir("/fhir/Patient?\(query)", as: "coordinator-a", in: server)
                #expect(
                    Self.ids((search.json["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }) == [key],
                    "\(query): \(search.text.prefix(200))")
            }
            if let sex = record.patient.sex {
                let search = try await client.fhir("/fhir/Patient?gender=\(sex.rawValue)", as: "coordinator-a", in: server)
                #expect(search.json["total"] as? Int == 1)
            }
            if let born = record.patient.dateOfBirth {
                let search = try await client.fhir(
                    "/fhir/Patient?birthdate=\(born.description)&birthdate=ge1900", as: "coordinator-a", in: server)
                #expect(search.json["total"] as? Int == 1)
            }
            let nobody = try await client.fhir("/fhir/Patient?family:exact=haddad", as: "coordinator-a", in: server)
            #expect(nobody.json["total"] as? Int == 0, ":exact is exact")
            Self.outcome(try await client.fhir("/fhir/\(subject)", as: "coordinator-b", in: server), .notFound, "not-found")
            Self.outcome(try await client.fhir("/fhir/Patient?birthdate=born", as: "coordinator-a", in: server), .badRequest)
        }
    }

    @Test(arguments: [false, true]) func researchersGetExactlyWhatConsentAllows(unlinkedReach: Bool) async throws {
        var made = try await TestServer.make { $0.unlinkedRecordsReachResearchers = unlinkedReach }
        try await made.addUser("study-reader", role: .researcher, team: nil)
        let server = made
        let ids = try await ConsentFixture.records(server)
        try await Self.application(server).test(.router) { client in
            let set = try await client.send(
                .patch, "/v1/users/study-reader", as: "admin", in: server, body: Data(#"{"researchAccess": "study"}"#.utf8))
            #expect(set.status == .ok)
            func id(_ state: String) -> String { ids[state]!.uuidString.lowercased() }
            var external: Set<String> = [id("all_qualified_researchers")]
            var study: Set<String> = [id("sponsors_and_partners"), id("all_qualified_researchers")]
            if unlinkedReach {
                external.insert(id("unlinked"))
                study.insert(id("unlinked"))
            }
            for (user, expected) in [
                ("researcher", external), ("study-reader", study), ("coordinator-a", Set(ids.values.map { $0.uuidString.lowercased() })),
            ] {
                let found = try await Self.all(client, "/fhir/QuestionnaireResponse?_count=1", as: user, in: server)
                #expect(Self.ids(found.resources) == expected && found.total == expected.count, "\(user)")
                let exported = try await ConsentFixture.exported(client, as: user, in: server)
                #expect(Set(exported.map { $0.uuidString.lowercased() }) == expected, "\(user): the same records as a JSON Lines export")
                for (state, record) in ids {
                    let read = try await client.fhir("/fhir/QuestionnaireResponse/\(record.uuidString.lowercased())", as: user, in: server)
                    #expect(read.status == (expected.contains(record.uuidString.lowercased()) ? .ok : .notFound), "\(user) reads \(state)")
                }
            }
            for never in ["no_sharing", "unconsented"] {
                let byId = try await client.fhir("/fhir/QuestionnaireResponse?_id=\(id(never))", as: "study-reader", in: server)
                #expect(byId.json["total"] as? Int == 0, "\(never) never reaches a researcher")
            }
            let shared = try await client.fhir(
                "/fhir/QuestionnaireResponse/\(id("all_qualified_researchers"))", as: "researcher", in: server)
            let tags = ((shared.json["meta"] as? [String: Any])?["tag"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(tags.contains("all_qualified_researchers"))
            #expect(((shared.json["subject"] as? [String: Any])?["reference"] as? String)?.hasPrefix("Patient/") == true)
            #expect(shared.json["contained"] == nil && !shared.text.contains("\"family\""))
            let patients = try await client.fhir("/fhir/Patient", as: "coordinator-a", in: server)
            #expect(patients.json["total"] as? Int == 5, "one patient a record: four registered, one not: \(patients.text.prefix(200))")
            let subject = try #require((shared.json["subject"] as? [String: Any])?["reference"] as? String)
            let patient = try await client.fhir("/fhir/\(subject)", as: "coordinator-a", in: server)
            let name = (patient.json["name"] as? [[String: Any]])?.first
            #expect(
                name?["family"] as? String == "3" && name?["given"] as? [String] == ["P"],
                "a registry patient as the registry names them: \(patient.text.prefix(300))")
            let patientTags = ((patient.json["meta"] as? [String: Any])?["tag"] as? [[String: Any]] ?? []).compactMap {
                $0["code"] as? String
            }
            #expect(patientTags == ["all_qualified_researchers"])
            Self.outcome(try await client.fhir("/fhir/\(subject)", as: "study-reader", in: server), .forbidden)
        }
    }

    // MARK: Values

    /// Every item of a QuestionnaireResponse against the JSON Lines line of the same record; the
    /// number of values compared and what differs.
    static func compare(_ response: [String: Any], _ line: [String: Any], questionnaire: Questionnaire) -> (Int, [String]) {
        var problems: [String] = []
        var compared = 0
        let answers = line["answers"] as? [String: [String: Any]] ?? [:]
        func question(_ key: String) -> Question? { questionnaire.allQuestions.first { $0.key == key } }
        func value(_ item: [String: Any], _ answer: [String: Any], _ where: String) {
            guard let (kind, expected) = answer.first, answer.count == 1 else { return problems.append("\(`where`): \(answer)") }
            let given = item["answer"] as? [[String: Any]] ?? []
            let first = given.first ?? [:]
            compared += 1
            switch kind {
            case "integer": if first["valueInteger"] as? Int != expected as? Int { problems.append("\(`where`): \(first) vs \(expected)") }
            case "decimal":
                if let a = first["valueDecimal"] as? Double, let b = expected as? Double, abs(a - b) < 1e-9 {
                } else {
                    problems.append("\(`where`): \(first) vs \(expected)")
                }
            case "text": if first["valueString"] as? String != expected as? String { problems.append("\(`where`): text") }
            case "date": if first["valueDate"] as? String != expected as? String { problems.append("\(`where`): \(first) vs \(expected)") }
            case "yesNo": if first["valueBoolean"] as? Bool != expected as? Bool { problems.append("\(`where`): \(first) vs \(expected)") }
            case "choice":
                if (first["valueCoding"] as? [String: Any])?["code"] as? String != expected as? String {
                    problems.append("\(`where`): \(first) vs \(expected)")
                }
            case "choices":
                let codes = given.compactMap { ($0["valueCoding"] as? [String: Any])?["code"] as? String }
                if codes != expected as? [String] ?? [] { problems.append("\(`where`): \(codes) vs \(expected)") }
            case "attachment":
                if (first["valueAttachment"] as? [String: Any])?["size"] as? Int != (expected as? [String: Any])?["size"] as? Int {
                    problems.append("\(`where`): attachment")
                }
            case "geopoint", "dictionary":
                let fields = expected as? [String: Any] ?? [:]
                let parts = item["item"] as? [[String: Any]] ?? []
                compared -= 1
                for (field, raw) in fields {
                    guard let part = parts.first(where: { $0["linkId"] as? String == "\(item["linkId"] as? String ?? "").\(field)" }) else {
                        problems.append("\(`where`).\(field) missing")
                        continue
                    }
                    value(part, kind == "geopoint" ? ["decimal": raw] : raw as? [String: Any] ?? [:], "\(`where`).\(field)")
                }
                if parts.count != fields.count { problems.append("\(`where`): \(parts.count) parts, \(fields.count) fields") }
            default: problems.append("\(`where`): \(kind)")
            }
        }
        func visit(_ items: [[String: Any]], _ given: [String: Any], _ where: String) {
            var seen: Set<String> = []
            for (index, item) in items.enumerated() {
                guard let key = item["linkId"] as? String, let question = question(key) else {
                    problems.append("\(`where`): unknown item \(item["linkId"] ?? "")")
                    continue
                }
                let answer = given[String(question.position.index)] as? [String: Any]
                seen.insert(String(question.position.index))
                if question.isRepeat {
                    let instances = answer?["instances"] as? [[String: Any]] ?? []
                    let position = items[..<index].filter { $0["linkId"] as? String == key }.count
                    guard position < instances.count else {
                        problems.append("\(`where`)/\(key)[\(position)]: not in the export")
                        continue
                    }
                    visit(item["item"] as? [[String: Any]] ?? [], instances[position], "\(`where`)/\(key)[\(position)]")
                } else if let answer {
                    value(item, answer, "\(`where`)/\(key)")
                } else {
                    problems.append("\(`where`)/\(key): not in the export")
                }
            }
            // Every answer of the export is in the response, but those a de-identified export leaves out.
            for (index, _) in given where !seen.contains(index) {
                if let question = questionnaire.allQuestions.first(where: {
                    $0.position.index == Int(index) && "\($0.position.section)" == `where`.split(separator: "/").first.map(String.init)
                }),
                    question.isIdentifying
                {
                    continue
                }
                problems.append("\(`where`): answer \(index) is not in the response")
            }
        }
        for section in response["item"] as? [[String: Any]] ?? [] {
            guard let link = section["linkId"] as? String, link.hasPrefix("section-") else { continue }
            let number = String(link.dropFirst("section-".count))
            visit(section["item"] as? [[String: Any]] ?? [], answers[number] ?? [:], number)
        }
        let sections = Set(
            (response["item"] as? [[String: Any]] ?? []).compactMap {
                ($0["linkId"] as? String).map { String($0.dropFirst("section-".count)) }
            })
        for (number, given) in answers where !sections.contains(number) && !given.isEmpty {
            problems.append("section \(number) is not in the response")
        }
        return (compared, problems)
    }
}

extension TestClientProtocol {
    /// A GET as fhirclient sends it (`Accept: application/json`), as `user` (nil: no token).
    func fhir(_ uri: String, as user: String?, in server: TestServer, headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers: HTTPFields = [.accept: "application/json", HTTPField.Name("Accept-Charset")!: "UTF-8"]
        if let user { headers[.authorization] = "Bearer \(server.tokens[user] ?? user)" }
        headers.append(contentsOf: extra)
        return try await execute(uri: uri, method: .get, headers: headers)
    }
}
