extension Array where Element == Answer? {
    /// `count` places holding no answer. `Array(repeating: nil, count:)` copies its value into
    /// each place through `Optional`'s value witness, a call a place (a twentieth of an export's
    /// CPU, `perf record`); this stores the empty case's bits in a loop the compiler sees through.
    package static func noAnswers(_ count: Int) -> [Answer?] {
        [Answer?](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            for place in 0..<count { (base + place).initialize(to: nil) }
            initialized = count
        }
    }
}
