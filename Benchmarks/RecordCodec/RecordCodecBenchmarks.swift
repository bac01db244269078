import Benchmark
import Foundation
import IntakeCore
import IntakeStore

/// The micro paths of a record: reading and writing its bytes, validating it, sealing and
/// opening it, hashing it. `swift package benchmark` runs them (release build).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(2))

    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Questionnaires/refugee-health")
    let questionnaire = try! QuestionnaireLoader.load(directory: folder.standardizedFileURL)
    var generator = SampleGenerator(questionnaire: questionnaire, seed: 1)
    let records = (0..<100).map { _ in generator.next() }
    let encoded = records.map { RecordCodec.encode($0) }
    let validator = Validator(questionnaire: questionnaire, today: LocalDate(year: 2100, month: 1, day: 1)!)
    let cipher = RecordCipher(key: RecordCipher.generateKey())
    let sealed = zip(records, encoded).map { try! cipher.seal(Data($1), id: $0.id) }

    Benchmark("QuestionnaireLoader.load (bundled questionnaire, every language)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try QuestionnaireLoader.load(directory: folder.standardizedFileURL)) }
    }
    Benchmark("RecordCodec.decode (100 records)") { benchmark in
        for _ in benchmark.scaledIterations {
            for bytes in encoded { blackHole(try RecordCodec.decode(bytes)) }
        }
    }
    Benchmark("RecordCodec.encode (100 records)") { benchmark in
        for _ in benchmark.scaledIterations {
            for record in records { blackHole(RecordCodec.encode(record)) }
        }
    }
    Benchmark("Validator.validate (100 records)") { benchmark in
        for _ in benchmark.scaledIterations {
            for record in records { blackHole(validator.validate(record)) }
        }
    }
    Benchmark("RecordCipher.seal (100 records)") { benchmark in
        for _ in benchmark.scaledIterations {
            for (record, bytes) in zip(records, encoded) { blackHole(try cipher.seal(Data(bytes), id: record.id)) }
        }
    }
    Benchmark("RecordCipher.open (100 records)") { benchmark in
        for _ in benchmark.scaledIterations {
            for (record, payload) in zip(records, sealed) { blackHole(try cipher.open(payload, id: record.id)) }
        }
    }
    Benchmark("RecordCodec.contentHash (100 records)") { benchmark in
        for _ in benchmark.scaledIterations {
            for bytes in encoded { blackHole(RecordCodec.contentHash(ofCanonical: bytes)) }
        }
    }
}
