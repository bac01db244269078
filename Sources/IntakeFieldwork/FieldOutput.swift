import Foundation

/// Where a command's report goes: lines for the person, and problems (standard error on a terminal).
public protocol FieldOutput: AnyObject {
    func write(_ text: String)
    func writeError(_ text: String)
}

/// Standard output and standard error.
public final class StandardOutput: FieldOutput {
    public init() {}

    public func write(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    public func writeError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
