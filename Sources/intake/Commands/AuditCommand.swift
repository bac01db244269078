import ArgumentParser
import Foundation
import IntakeCore
import IntakeServer
import IntakeService

/// `intake admin audit`: the server's audit trail, read straight from its database.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Read, verify, export and fingerprint the server's audit trail.",
        discussion: """
            Every sign-in, record created, edited or read, lookup, export, consent and account change is an event, \
            chained to the one before by its SHA-256 hash; the database refuses to change or delete one. \
            'verify' finds an event changed, deleted, inserted or reordered; keep what 'head' prints somewhere else \
            and pass it to 'verify --expect-head' later to find events removed from the end too.
            """,
        subcommands: [List.self, Verify.self, Export.self, Head.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Events, oldest first, filtered.")
        @OptionGroup var databaseOptions: ServerDatabaseOptions
        @Option(help: "Only this user's actions.") var actor: String?
        @Option(help: "Only this action, or actions starting with it and a dot (record: record.create, record.update, …).") var action:
            String?
        @Option(help: "Only actions on this record, patient, user or team.") var subject: String?
        @Option(help: "From this time (2026-11-24 or 2026-11-24T08:00:00Z).") var from: String?
        @Option(help: "Before this time.") var to: String?
        @Option(help: "After this event number.") var after: Int64 = 0
        @Option(help: "At most this many.") var limit = 100

        func run() async throws {
            var query = AuditQuery(after: after, actor: actor, action: action, subject: subject, limit: max(1, min(limit, 10_000)))
            query.from = try from.map { try Self.time($0, "--from") }
            query.to = try to.map { try Self.time($0, "--to") }
            let events = try await databaseOptions.services().audit.events(query)
            if events.isEmpty { print("No audit event matches.") }
            for event in events { print(AuditText.line(event)) }
        }

        static func time(_ text: String, _ name: String) throws -> Date {
            if let time = Timestamp.date(from: text) { return time }
            if let day = LocalDate(iso: text) {
                return Date(timeIntervalSince1970: Double(CivilDays.days(year: day.year, month: day.month, day: day.day)) * 86_400)
            }
            throw ValidationError("\(name) is a time such as 2026-11-24T08:00:00Z, or a UTC day such as 2026-11-24.")
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify", abstract: "Check every event's hash and its place in the chain.")
        @OptionGroup var databaseOptions: ServerDatabaseOptions
        @Option(
            help: ArgumentHelp(
                "A head kept from 'intake admin audit head' (SEQ:HASH): check it is still in the trail.", valueName: "seq:hash"))
        var expectHead: String?

        func run() async throws {
            let expected = try expectHead.map(AuditText.head)
            let report = try await databaseOptions.services().audit.verify(expectedHead: expected)
            if let problem = report.problem {
                printError("The audit trail is NOT sound: \(problem.message). \(report.checked) event(s) before it check out.")
                throw ExitCode.failure
            }
            let head = report.head.map { " Head: \($0.seq):\($0.hash)" } ?? ""
            print("The audit trail is sound: \(report.checked) event(s), each hash and link checked.\(head)")
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Every event, with its hashes, as JSON Lines (to archive or check elsewhere).")
        @OptionGroup var databaseOptions: ServerDatabaseOptions
        @Option(name: [.short, .long], help: ArgumentHelp("The file to write (must not exist).", valueName: "file")) var out: String

        func run() async throws {
            guard !FileManager.default.fileExists(atPath: out) else { throw ValidationError("\(out) exists; choose a new file.") }
            guard FileManager.default.createFile(atPath: out, contents: nil, attributes: [.posixPermissions: 0o600]),
                let handle = FileHandle(forWritingAtPath: out)
            else { throw ValidationError("Cannot create \(out); check that its folder exists and is writable.") }
            defer { try? handle.close() }
            let audit = try await databaseOptions.services().audit
            var after: Int64 = 0
            var count = 0
            while true {
                let page = try await audit.events(AuditQuery(after: after, limit: 1_000))
                guard let last = page.last else { break }
                try handle.write(contentsOf: Data(page.map { AuditText.json($0) + "\n" }.joined().utf8))
                count += page.count
                after = last.seq
            }
            try handle.synchronize()
            print("Wrote \(count) audit event(s) to \(out).")
        }
    }

    struct Head: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "head", abstract: "The newest event's number and hash (SEQ:HASH), to keep somewhere else.")
        @OptionGroup var databaseOptions: ServerDatabaseOptions

        func run() async throws {
            guard let head = try await databaseOptions.services().audit.head() else {
                print("The audit trail is empty.")
                return
            }
            print("\(head.seq):\(head.hash)")
        }
    }
}

/// How the audit commands write events.
enum AuditText {
    /// Who acts through `intake admin` on the database itself: the account on this machine.
    static var localActor: String { "local:" + ProcessInfo.processInfo.userName }

    static func line(_ event: AuditEvent) -> String {
        let details = event.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return [
            String(event.seq), event.at, event.actor.isEmpty ? "-" : event.actor, event.action, event.subject.isEmpty ? "-" : event.subject,
            details,
        ]
        .joined(separator: "\t")
    }

    static func json(_ event: AuditEvent) -> String {
        let object: [String: Any] = [
            "seq": event.seq, "at": event.at, "actor": event.actor, "action": event.action, "subject": event.subject,
            "details": event.details,
            "previousHash": event.previousHash, "hash": event.hash,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// `SEQ:HASH` as 'head' prints it.
    static func head(_ text: String) throws -> (seq: Int64, hash: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let seq = Int64(parts[0]), seq > 0, parts[1].utf8.count == 64,
            parts[1].utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
        else { throw ValidationError("--expect-head is SEQ:HASH as 'intake admin audit head' printed it, such as 42:9f86d0…") }
        return (seq, String(parts[1]))
    }
}
