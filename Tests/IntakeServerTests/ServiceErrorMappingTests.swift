import Foundation
import HTTPTypes
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Services throw one error, ``ServiceError``; the API gives each kind its status and code in one
/// place (`APIError.init(_:)`), which every door (the console and the façades too) goes through.
struct ServiceErrorMappingTests {
    @Test func eachKindOfServiceErrorHasOneStatusAndCode() throws {
        let tombstone = Tombstone(
            recordId: UUID(), teamId: 1, questionnaireId: "q", revision: 2, deletedAt: Date(timeIntervalSince1970: 1_800_000_000),
            deletedBy: "lead",
            reason: "twice")
        let cases: [(ServiceError, HTTPResponse.Status, String)] = [
            (.notFound("no such thing"), .notFound, "not_found"),
            (ServiceError(.invalid, "bad"), .badRequest, "bad_request"),
            (.invalidRequest("bad value"), .unprocessableContent, "invalid_request"),
            (.refused("wrong_date_kind", "dates only"), .unprocessableContent, "wrong_date_kind"),
            (.forbidden("not yours"), .forbidden, "forbidden"),
            (.forbidden("read only", code: "read_only_grant"), .forbidden, "read_only_grant"),
            (.conflict("already_member", "in the team"), .conflict, "already_member"),
            (.wrongPasscode(remaining: 2), .forbidden, "wrong_passcode"),
            (.deleted(tombstone), .gone, "deleted"),
            (ServiceError(.invalidQuestionnaire, "problems", problems: ["a", "b"]), .unprocessableContent, "invalid_questionnaire"),
        ]
        for (error, status, code) in cases {
            let answer = try #require(APIError.answer(for: error))
            #expect(answer.status == status && answer.code == code, "\(error.kind)")
            #expect(answer.message == error.description)
        }
        #expect(APIError(.wrongPasscode(remaining: 2)).details == .object(["remaining": .integer(2)]))
        #expect(
            APIError(ServiceError.deleted(tombstone)).details
                == .object(["deletedAt": .string("2027-01-15T08:00:00.000Z"), "deletedBy": .string("lead")]))
        #expect(
            ServiceError.deleted(tombstone).isMissing && ServiceError.noRecord(UUID()).isMissing && !ServiceError.forbidden("x").isMissing)
        #expect(APIError.answer(for: CocoaError(.fileNoSuchFile)) == nil, "anything else is the server's failure, not a refusal")
    }
}
