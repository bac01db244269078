import Foundation

/// A typed answer to one question.
///
/// In JSON each answer is an object with exactly one key naming its type:
/// `{"integer": 42}`, `{"choices": ["fever", "cough"]}`, `{"dictionary": {"dose": {"decimal": 5}}}`.
public indirect enum Answer: Hashable, Sendable {
    case text(String)
    case integer(Int)
    case decimal(Double)
    case date(LocalDate)
    case yesNo(Bool)
    case choice(String)
    case choices([String])
    case dictionary([String: Answer])

    /// The JSON key of this answer's type.
    public var kind: String {
        switch self {
        case .text: "text"
        case .integer: "integer"
        case .decimal: "decimal"
        case .date: "date"
        case .yesNo: "yesNo"
        case .choice: "choice"
        case .choices: "choices"
        case .dictionary: "dictionary"
        }
    }
}

extension Answer: Codable {
    private enum Key: String, CodingKey, CaseIterable {
        case text, integer, decimal, date, yesNo, choice, choices, dictionary
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "An answer is an object with exactly one of the keys "
                        + Key.allCases.map(\.rawValue).joined(separator: ", ") + "."))
        }
        switch key {
        case .text: self = .text(try container.decode(String.self, forKey: key))
        case .integer: self = .integer(try container.decode(Int.self, forKey: key))
        case .decimal: self = .decimal(try container.decode(Double.self, forKey: key))
        case .date: self = .date(try container.decode(LocalDate.self, forKey: key))
        case .yesNo: self = .yesNo(try container.decode(Bool.self, forKey: key))
        case .choice: self = .choice(try container.decode(String.self, forKey: key))
        case .choices: self = .choices(try container.decode([String].self, forKey: key))
        case .dictionary: self = .dictionary(try container.decode([String: Answer].self, forKey: key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .text(let value): try container.encode(value, forKey: .text)
        case .integer(let value): try container.encode(value, forKey: .integer)
        case .decimal(let value): try container.encode(value, forKey: .decimal)
        case .date(let value): try container.encode(value, forKey: .date)
        case .yesNo(let value): try container.encode(value, forKey: .yesNo)
        case .choice(let value): try container.encode(value, forKey: .choice)
        case .choices(let value): try container.encode(value, forKey: .choices)
        case .dictionary(let value): try container.encode(value, forKey: .dictionary)
        }
    }
}
