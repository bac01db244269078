import Foundation
import IntakeService

extension IntakeServices {
    /// A lookup in `user`'s team, as the API and the console make it: on the audit trail (the
    /// fields searched by, never what was searched for), and without the records of collector-only
    /// questionnaires another field worker collected. Asks for one more than `query.limit`, to
    /// tell whether there are more: the page (which may then hold fewer) and that.
    /// `via`: where it was asked when not the API (`console`), for the trail.
    public func lookup(_ query: LookupQuery, by user: User, via: String? = nil) async throws -> (page: [LookupMatch], more: Bool) {
        let fields = [
            ("givenName", query.givenName != nil), ("familyName", query.familyName != nil), ("dateOfBirth", query.dateOfBirth != nil),
            ("externalId", query.externalId != nil),
        ].filter(\.1).map(\.0)
        var details = ["fields": fields.joined(separator: ","), "team": String(query.teamId)]
        if let via { details["via"] = via }
        try await audit.record(.lookup, by: user.username, details: details)
        var asked = query
        asked.limit += 1
        let matches = try await records.lookup(asked)
        let hidden = try await access.collectorOnly(for: user)
        let page = matches.prefix(query.limit).filter {
            RecordAccessPolicy.sees(user, collectorOnly: hidden.contains($0.questionnaire.id), collector: $0.collector)
        }
        return (Array(page), matches.count > query.limit)
    }
}
