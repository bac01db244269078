import Foundation

/// This installation's device id, sent as `Intake-Device-Id` so the server keeps, with each
/// revision, which device saved it: a random id in `device-id` in the data directory, made on
/// first use. It names the machine's copy of Intake, never a person.
public enum DeviceId {
    /// The id kept in `directory`, made when missing; nil when it can be neither read nor made
    /// (requests then go without one).
    public static func load(in directory: URL) -> String? {
        let file = directory.appendingPathComponent("device-id")
        if let data = FileManager.default.contents(atPath: file.path),
            case let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), isValid(text)
        {
            return text
        }
        let id = UUID().uuidString.lowercased()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard FileManager.default.createFile(atPath: file.path, contents: Data((id + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else {
            return nil
        }
        return id
    }

    static func isValid(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || [46, 95, 58, 45].contains($0) }
    }
}
