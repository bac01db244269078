import ArgumentParser
import Foundation
import IntakeCore
import IntakeServer
import IntakeService

/// `intake admin purge-tombstones --older-than-days N`: forget deleted records for good.
struct PurgeTombstonesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge-tombstones",
        abstract: "Remove the tombstones of records deleted more than N days ago, and say how many.",
        discussion: """
            A tombstone (id, who deleted it, when, why) tells late readers and incremental exports that a record was deleted. \
            After the retention period nobody needs it: purging removes it; the deletion stays on the audit trail. \
            A tombstone holding its team's newest change, or one a referral points to, stays until a later purge.
            """)

    @OptionGroup var databaseOptions: ServerDatabaseOptions
    @Option(help: "Tombstones of records deleted more than this many days ago go (1 to 36500).") var olderThanDays: Int

    func run() async throws {
        guard RecordService.tombstoneRetention.contains(olderThanDays) else {
            throw ValidationError("--older-than-days is a whole number from 1 to 36500.")
        }
        let (purge, cutoff) = try await databaseOptions.services().records.purgeTombstones(
            olderThanDays: olderThanDays, by: AuditText.localActor)
        let kept =
            purge.kept == 0
            ? "" : "; \(purge.kept) old enough stay (the newest change of their team, or a referral points to them) until a later purge"
        print("Purged \(purge.purged) tombstone(s) of records deleted before \(Timestamp.string(from: cutoff))\(kept).")
    }
}
