import IntakeService

/// A JSON request body the server reads with `JSONDecoder`, after checking it strictly: its
/// top-level object may hold only ``fields``, and `null` only in ``nullable`` ones. An unknown
/// field (a typo, a field of another version) is refused instead of ignored.
protocol RequestBody: Decodable {
    static var fields: Set<String> { get }
    /// Fields where `null` means something ("team": null takes a user out of their team).
    static var nullable: Set<String> { get }
}

extension RequestBody {
    static var nullable: Set<String> { [] }
}
