import Foundation
import Hummingbird
import IntakeCore
import IntakeExport

/// `GET /fhir/metadata`: what this server does, as an R4 CapabilityStatement (public, as FHIR
/// clients read it before signing in). No SMART extension: a client sends the server's bearer
/// token itself.
extension FHIRRoutes {
    /// When what this statement says last changed.
    static let capabilityDate = "2026-11-26"

    func capabilityStatement(_ request: Request) throws -> Response {
        let root = base(request)
        func parameter(_ name: String, _ type: String, _ definition: String?, _ documentation: String) -> OrderedJSON {
            var members: [(String, OrderedJSON)] = [("name", .string(name))]
            if let definition { members.append(("definition", .string("http://hl7.org/fhir/SearchParameter/\(definition)"))) }
            members.append(("type", .string(type)))
            members.append(("documentation", .string(documentation)))
            return .object(members)
        }
        func resource(_ type: String, _ documentation: String, _ parameters: [OrderedJSON]) -> OrderedJSON {
            .object([
                ("type", .string(type)),
                ("profile", .string("http://hl7.org/fhir/StructureDefinition/\(type)")),
                ("documentation", .string(documentation)),
                ("interaction", .array([.object([("code", .string("read"))]), .object([("code", .string("search-type"))])])),
                ("versioning", .string("no-version")),
                ("readHistory", .bool(false)),
                ("updateCreate", .bool(false)),
                ("searchParam", .array(parameters)),
            ])
        }
        let id = parameter("_id", "token", "Resource-id", "The resource id (comma: any of them).")
        let resources: [OrderedJSON] = [
            resource(
                "Questionnaire",
                "Every published version of each questionnaire (drafts aside), for any signed-in user; its url is the address it is read at.",
                [
                    id,
                    parameter("url", "uri", "Questionnaire-url", "The canonical URL (with |version or not)."),
                    parameter("version", "token", "Questionnaire-version", "The version (a hash of the questionnaire's files)."),
                    parameter("title", "string", "Questionnaire-title", "The title starts with this (:exact, :contains)."),
                    parameter("status", "token", "Questionnaire-status", "active or retired."),
                ]),
            resource(
                "QuestionnaireResponse",
                "A record as a JSON Lines export holds it: coordinators read their team's, researchers what each patient's consent shares with their access level; always de-identified.",
                [
                    id,
                    parameter(
                        "questionnaire", "reference", "QuestionnaireResponse-questionnaire",
                        "Questionnaire/{id}, a bare id, or the canonical URL the responses carry."),
                    parameter(
                        "authored", "date", "QuestionnaireResponse-authored",
                        "When it was last saved: eq, ne, gt, lt, ge, le, sa, eb (or >, <, >=, <=); repeat it for a range."),
                    parameter("subject", "reference", "QuestionnaireResponse-subject", "Patient/{patient key}."),
                    parameter("patient", "reference", "QuestionnaireResponse-patient", "Patient/{patient key}."),
                    parameter("status", "token", "QuestionnaireResponse-status", "completed or in-progress."),
                ]),
            resource(
                "Patient", "The patients of the records a caller may export with identifiers (coordinators); never for researchers.",
                [
                    id,
                    parameter("identifier", "token", "Patient-identifier", "The patient key, or the external id (system|value)."),
                    parameter("name", "string", "Patient-name", "A given or family name starts with this (:exact, :contains)."),
                    parameter("family", "string", "individual-family", "The family name starts with this."),
                    parameter("given", "string", "individual-given", "The given name starts with this."),
                    parameter("gender", "token", "individual-gender", "male, female, other or unknown."),
                    parameter("birthdate", "date", "individual-birthdate", "The date of birth, with a prefix as for dates."),
                ]),
        ]
        let statement = OrderedJSON.object([
            ("resourceType", .string("CapabilityStatement")),
            ("url", .string("\(root)/metadata")),
            ("name", .string("IntakeFHIR")),
            ("title", .string("Intake FHIR R4 API")),
            ("status", .string("active")),
            ("date", .string(Self.capabilityDate)),
            ("publisher", .string("Intake")),
            (
                "description",
                .string(
                    "Read-only FHIR R4 over Intake's records: questionnaires, their responses and (for coordinators) patients, with the access, consent and de-identification of Intake's exports."
                )
            ),
            ("kind", .string("instance")),
            ("software", .object([("name", .string("Intake"))])),
            ("implementation", .object([("description", .string("Intake reference server")), ("url", .string(root))])),
            ("fhirVersion", .string("4.0.1")),
            ("format", .array([.string("json"), .string("application/fhir+json")])),
            (
                "rest",
                .array([
                    .object([
                        ("mode", .string("server")),
                        (
                            "documentation",
                            .string(
                                "Searches page with _count (default \(FHIRSearchSpec.countDefault), at most \(FHIRSearchSpec.countMost)) and the absolute next link; unknown parameters are ignored unless Prefer: handling=strict."
                            )
                        ),
                        (
                            "security",
                            .object([
                                ("cors", .bool(false)),
                                (
                                    "description",
                                    .string(
                                        "Send Authorization: Bearer <token>, a token of this Intake server (intake admin token create, or POST /v1/sessions); only this statement is public."
                                    )
                                ),
                            ])
                        ),
                        ("resource", .array(resources)),
                    ])
                ])
            ),
        ])
        return Self.resource(statement.text)
    }
}
