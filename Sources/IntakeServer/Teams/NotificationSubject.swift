import Foundation

/// A notification's subject as the stores keep it: a JSON object of strings, keys sorted.
package enum NotificationSubject {
    package static func encode(_ subject: [String: String]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: subject, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    package static func decode(_ text: String) -> [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: String] ?? [:]
    }
}
