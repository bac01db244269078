/// A request a service cannot carry out, in the service's words. Services know no HTTP: the
/// server's edge (``ErrorMiddleware``) gives each kind its status, the command line prints it.
///
/// Messages never carry answers or patient identities.
public struct ServiceError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// What was asked for does not exist (404).
        case notFound
        /// The request itself is wrong (400).
        case invalid
        /// A questionnaire's files have problems, each listed in ``problems`` (422).
        case invalidQuestionnaire
        /// Well formed, but not something this server can act on, for the reason `code` names (422).
        case unprocessable(code: String)
    }

    public var kind: Kind
    public var description: String
    /// Individual problems, when there are several.
    public var problems: [String]

    public init(_ kind: Kind, _ description: String, problems: [String] = []) {
        self.kind = kind
        self.description = description
        self.problems = problems
    }
}
