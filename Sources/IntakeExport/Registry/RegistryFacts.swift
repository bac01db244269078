import Foundation

/// What the patient registry says of a record's patient, as a server export carries it: the
/// current sharing scope and how it was given, and the data groups the patient is in.
///
/// A record that points to no registry patient has none.
public struct RegistryFacts: Sendable, Hashable {
    /// `no_sharing`, `sponsors_and_partners` or `all_qualified_researchers`; nil while no consent is recorded.
    public var sharingScope: String?
    /// `verbal`, `written` or `electronic`, for the current scope.
    public var consentMethod: String?
    /// When the current scope was recorded.
    public var consentedAt: Date?
    /// Sorted by name.
    public var dataGroups: [String]

    /// Every sharing scope, narrowest first.

    public init(sharingScope: String?, consentMethod: String? = nil, consentedAt: Date? = nil, dataGroups: [String] = []) {
        self.sharingScope = sharingScope
        self.consentMethod = consentMethod
        self.consentedAt = consentedAt
        self.dataGroups = dataGroups.sorted()
    }
}
