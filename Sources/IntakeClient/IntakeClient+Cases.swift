import Foundation
import IntakeCore

/// Cases (docs/cases.md): the pull of those the account follows, one case, and a coordinator's
/// assigning and closing.
extension IntakeClient {
    /// A page of the open cases the account follows, changed after `after` (with `all`, a
    /// coordinator's every case of the team, open or closed).
    public func cases(after: Int64, limit: Int = 500, all: Bool = false) async throws(ClientError) -> FollowedCase.Page {
        let (status, data) = try await send("GET", "/v1/cases?after=\(after)&limit=\(limit)" + (all ? "&all=true" : ""), body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        do {
            return try FollowedCase.page(data)
        } catch {
            throw ClientError.unexpected("the server's answer is not a page of cases (\(error.message))")
        }
    }

    /// One case the account may see (its whole id).
    public func followedCase(_ id: UUID) async throws(ClientError) -> FollowedCase {
        let (status, data) = try await send("GET", "/v1/cases/\(id.uuidString.lowercased())", body: nil)
        return try Self.followedCase(status, data)
    }

    /// Assigns a case to a member of its team, or to the team (nil): a coordinator's.
    public func assignCase(_ id: UUID, to assignee: String?) async throws(ClientError) -> FollowedCase {
        let body = try? JSONSerialization.data(withJSONObject: ["assignee": assignee.map { $0 as Any } ?? NSNull()])
        let (status, data) = try await send("PUT", "/v1/cases/\(id.uuidString.lowercased())/assignee", body: body)
        return try Self.followedCase(status, data)
    }

    /// Closes a case without a visit, or opens it again: a coordinator's.
    public func setCaseStatus(_ id: UUID, closed: Bool) async throws(ClientError) -> FollowedCase {
        let body = try? JSONSerialization.data(withJSONObject: ["status": closed ? "closed" : "open"])
        let (status, data) = try await send("PUT", "/v1/cases/\(id.uuidString.lowercased())/status", body: body)
        return try Self.followedCase(status, data)
    }

    private static func followedCase(_ status: Int, _ data: Data) throws(ClientError) -> FollowedCase {
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        do {
            return try JSONReader.document(data) { reader throws(JSONReadError) in try FollowedCase.read(&reader) }
        } catch {
            throw ClientError.unexpected("the server's answer is not a case (\(error.message))")
        }
    }
}
