/// Finding a run of bytes among bytes, on the buffer itself.
///
/// Foundation's `firstRange(of:)` on an array and `Data.range(of:)` are generic searches that
/// make a protocol witness call for every byte: on records' JSON they were more than half of
/// `intake flush`'s CPU.
public enum ByteSearch {
    /// Whether `needle` occurs in `haystack` (an empty needle does).
    public static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        return haystack.withUnsafeBufferPointer { bytes in
            needle.withUnsafeBufferPointer { wanted in
                guard bytes.count >= wanted.count else { return false }
                let last = bytes.count - wanted.count
                var index = 0
                while index <= last {
                    if bytes[index] == first {
                        var matched = 1
                        while matched < wanted.count && bytes[index + matched] == wanted[matched] { matched += 1 }
                        if matched == wanted.count { return true }
                    }
                    index += 1
                }
                return false
            }
        }
    }
}
