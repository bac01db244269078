import Foundation
import IntakeCore

/// A notification's subject as the stores keep it: a JSON object of strings, keys sorted.
package enum NotificationSubject {
    /// Keys sorted; written by the codec's writer (one is made for each alert of each record received).
    package static func encode(_ subject: [String: String]) -> String {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        for (key, value) in subject.sorted(by: { $0.key < $1.key }) {
            writer.key(key)
            writer.string(value)
        }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    package static func decode(_ text: String) -> [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: String] ?? [:]
    }
}
