import Foundation

/// A typed answer to one question.
///
/// In JSON each answer is an object with exactly one key naming its type:
/// `{"integer": 42}`, `{"choices": ["fever", "cough"]}`, `{"dictionary": {"dose": {"decimal": 5}}}`.
public enum Answer: Hashable, Sendable {
    case text(String)
    case integer(Int)
    case decimal(Double)
    case date(LocalDate)
    case yesNo(Bool)
    case choice(String)
    case choices([String])
    case dictionary([String: Answer])
    /// A place (record format 2).
    case geopoint(GeoPoint)
    /// A repeat group's answers (record format 2): one entry per instance, in order, each the
    /// answers to the group's questions by their question index (an instance may be empty).
    case instances([[Int: Answer]])
    /// A file, by its content (record format 2).
    case attachment(AttachmentRef)

    /// The JSON key of this answer's type.
    public var kind: String { RecordCodec.kindKey(self).description }

    /// The record format that first has this kind of answer.
    public var format: Int {
        switch self {
        case .geopoint, .attachment: 2
        case .instances(let list): max(2, list.lazy.flatMap(\.values).map(\.format).max() ?? 2)
        case .dictionary(let fields): fields.values.map(\.format).max() ?? 1
        default: 1
        }
    }
}
