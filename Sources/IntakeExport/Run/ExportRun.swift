import Foundation

/// Streams records, a page at a time, through several formatters at once: one pass over the
/// records, however many files, and memory for one page.
public struct ExportRun {
    public struct Output {
        public var formatter: any ExportFormatter
        public var sink: any ExportSink

        public init(formatter: any ExportFormatter, sink: any ExportSink) {
            self.formatter = formatter
            self.sink = sink
        }
    }

    /// Writes headers, every page `nextPage` returns until it returns nil, then footers; returns
    /// how many records were written, and tells `progress` the count after each page. The sinks
    /// are closed when it succeeds.
    public static func run(
        _ outputs: [Output], progress: (Int) -> Void = { _ in }, nextPage: () async throws -> [ExportInput]?
    ) async throws -> Int {
        for output in outputs { try await output.sink.write(Array(try output.formatter.header().utf8)) }
        var count = 0
        var chunk: [UInt8] = []
        while let page = try await nextPage() {
            for output in outputs where output.formatter.readsRecords {
                chunk.removeAll(keepingCapacity: true)
                for input in page { try output.formatter.write(input, into: &chunk) }
                if !chunk.isEmpty { try await output.sink.write(chunk) }
            }
            count += page.count
            progress(count)
        }
        for output in outputs {
            try await output.sink.write(Array(try output.formatter.footer().utf8))
            try await output.sink.close()
        }
        return count
    }

    /// Writes one formatter's output through `write`, for sinks that cannot be objects (an HTTP
    /// response body writer); returns how many records were written.
    public static func stream(
        _ formatter: any ExportFormatter, nextPage: () async throws -> [ExportInput]?, write: ([UInt8]) async throws -> Void
    ) async throws -> Int {
        try await write(Array(try formatter.header().utf8))
        var count = 0
        var chunk: [UInt8] = []
        while formatter.readsRecords, let page = try await nextPage() {
            chunk.removeAll(keepingCapacity: true)
            for input in page { try formatter.write(input, into: &chunk) }
            if !chunk.isEmpty { try await write(chunk) }
            count += page.count
        }
        try await write(Array(try formatter.footer().utf8))
        return count
    }
}

extension ExportRecord {
    /// Ready for an export: keyed (keeping a key it already has), de-identified unless asked,
    /// and with its dates moved when asked (once: a record whose dates were moved keeps them).
    public func prepared(keyer: PatientKeyer?, includeIdentifiers: Bool, shiftDates: Bool = false) -> ExportRecord {
        var prepared = ExportRecord(
            record, revision: revision, keyer: keyer, includeIdentifiers: includeIdentifiers, registry: registry, reviewState: reviewState)
        if let patientKey { prepared.patientKey = patientKey }
        if prepared.ageYears == nil { prepared.ageYears = ageYears }
        if datesShifted {
            prepared.datesShifted = true
        } else if shiftDates, let keyer {
            prepared.shift(by: keyer.dateShift(patientKey: prepared.patientKey, recordId: record.id))
        }
        return prepared
    }
}
