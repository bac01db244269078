import Foundation

/// The case a follow-up record was filled for, and the case's properties as the visit saw them.
///
/// The record carries what it saw, so everything that reads the record (its checks on the
/// server, its calculations, exports settling show-if) reads `case.name` as the form did, long
/// after the case has changed; and two visits made offline from the same properties can be told
/// apart from one made after the other (docs/record-format.md#case).
public struct CaseLink: Hashable, Sendable {
    /// The case's id.
    public var id: UUID
    /// The list the case is in (`follow-up`): the list the record's questionnaire follows.
    public var list: String
    /// The case's revision the visit was made from (1 when it was opened): two visits made from
    /// one revision, offline on two machines, saw neither the other, and their changes to one
    /// property are a conflict (docs/cases.md).
    public var revision: Int
    /// By the 1-based place of each property among those the questionnaire reads
    /// (``CaseRules/Follow/properties``): the values the form showed and used.
    public var properties: [Int: Answer]

    public init(id: UUID, list: String, revision: Int = 1, properties: [Int: Answer] = [:]) {
        self.id = id
        self.list = list
        self.revision = revision
        self.properties = properties
    }
}
