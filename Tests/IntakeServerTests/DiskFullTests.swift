import Foundation
import GRDB
import HummingbirdTesting
import IntakeCore
import IntakePostgres
import IntakeSQLite
import IntakeServerTestSupport
import PostgresNIO
import Testing
import _ConnectionPoolModule

@testable import IntakeServer
@testable import IntakeService

/// A server whose disk fills answers 503 with a JSON error (never 500), loses nothing it
/// acknowledged, and serves again by itself once space returns; on the store the tests run on
/// (scripts/test runs them on both). SQLite's database file, or PostgreSQL's record tables (a
/// tablespace), sit on a small tmpfs this test mounts (as root, as scripts/test runs).
@Suite(.serialized) struct DiskFullTests {
    /// A tmpfs of `megabytes` at a new folder. Fails, never skips, when it cannot be mounted.
    static func smallFilesystem(megabytes: Int) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intake-full-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0777", "tmpfs", folder.path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            throw TestFailure(
                "cannot mount a \(megabytes) MB tmpfs at \(folder.path): this test fills a small disk and needs root (scripts/test runs as root)"
            )
        }
        return folder
    }

    static func unmount(_ folder: URL) {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = ["-l", folder.path]
        try? umount.run()
        umount.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Fills the filesystem at `folder` with a file, leaving about `free` bytes.
    static func fill(_ folder: URL, leaving free: Int) throws -> URL {
        let filler = folder.appendingPathComponent("filler")
        let available = try folder.resourceValues(forKeys: [.volumeAvailableCapacityKey]).volumeAvailableCapacity ?? 0
        let size = max(0, available - free)
        FileManager.default.createFile(atPath: filler.path, contents: nil)
        let handle = try FileHandle(forWritingTo: filler)
        let block = Data(count: 1 << 16)
        var written = 0
        while written < size {
            let chunk = block.prefix(min(block.count, size - written))
            do { try handle.write(contentsOf: chunk) } catch { break }
            written += chunk.count
        }
        try handle.close()
        return filler
    }

    /// Grows `filler` until the filesystem is full: a store may have freed space, or kept room in
    /// pages a refused write had already added, since the disk was last filled.
    static func fillUp(_ filler: URL) throws {
        let handle = try FileHandle(forWritingTo: filler)
        defer { try? handle.close() }
        try handle.seekToEnd()
        let block = Data(count: 1 << 12)
        while (try? handle.write(contentsOf: block)) != nil {}
    }

    struct TestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Each store tells a full or unreachable database (503) from a failing request (nil: the
    /// usual answer); file errors are told apart the same way.
    @Test func eachStoreTellsAnOutageFromAFailingRequest() async throws {
        let store = try await TestServer.make().services.store
        if store is SQLiteRecordStore {
            #expect(store.outage(DatabaseError(resultCode: .SQLITE_FULL)) == .full)
            #expect(store.outage(DatabaseError(resultCode: .SQLITE_IOERR)) == .unavailable)
            #expect(store.outage(DatabaseError(resultCode: .SQLITE_CONSTRAINT)) == nil)
        } else {
            #expect(store.outage(ConnectionPoolError.connectionCreationCircuitBreakerTripped) == .unavailable)
            #expect(store.outage(ConnectionPoolError.requestCancelled) == nil)
        }
        #expect(store.outage(RecordStoreError.notFound("x")) == nil)
        #expect(StoreOutage.of(fileError: POSIXError(.ENOSPC)) == .full)
        #expect(StoreOutage.of(fileError: CocoaError(.fileWriteOutOfSpace)) == .full)
        #expect(StoreOutage.of(fileError: POSIXError(.EACCES)) == nil)
    }

    @Test func aFullDiskAnswers503KeepsWhatWasAcknowledgedAndServesAgainWhenSpaceReturns() async throws {
        let small = try Self.smallFilesystem(megabytes: 8)
        // Unmounted only once nothing of PostgreSQL's is left on it (its checkpoints would fail after).
        var keepMounted = false
        defer { if !keepMounted { Self.unmount(small) } }
        let server = try await TestServer.make { configuration in
            if TestServer.store == .sqlite { configuration.database = small.appendingPathComponent("server.sqlite").path }
        }
        let tables = ["record", "recordRevision", "lookupEntry", "auditEvent"]
        let tablespace = "intake_full_\(UInt32.random(in: 0...UInt32.max))"
        let postgres = server.services.store as? PostgresRecordStore
        func sql(_ text: String) async throws {
            try await postgres?.client.query(PostgresQuery(unsafeSQL: text), logger: PostgresRecordStore.logger)
        }
        var tablespaceMade = false
        var failure: (any Error)?
        do {
            if postgres != nil {
                // PostgreSQL's write-ahead log stays on its own disk; the records' tables move to the small one.
                let place = small.appendingPathComponent("tablespace")
                try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
                try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: place.path)
                try await sql("CREATE TABLESPACE \(tablespace) LOCATION '\(place.path)'")
                tablespaceMade = true
                for table in tables { try await sql("ALTER TABLE \(table) SET TABLESPACE \(tablespace)") }
            }
            try await fillAndRecover(server, filler: try Self.fill(small, leaving: 512 * 1024))
        } catch {
            failure = error
        }
        // Space back, and the database's files off the small disk, whatever happened above.
        try? FileManager.default.removeItem(at: small.appendingPathComponent("filler"))
        if tablespaceMade {
            do {
                try await Self.restore(tables, from: tablespace, sql)
            } catch {
                keepMounted = true
                throw TestFailure("could not move the tables back off \(small.path) (left mounted): \(error)")
            }
        }
        if let failure { throw failure }
    }

    static func restore(_ tables: [String], from tablespace: String, _ sql: (String) async throws -> Void) async throws {
        for table in tables { try await sql("ALTER TABLE \(table) SET TABLESPACE pg_default") }
        try await sql("CHECKPOINT")
        try await sql("DROP TABLESPACE \(tablespace)")
    }

    private func fillAndRecover(_ server: TestServer, filler: URL) async throws {
        try await server.application().test(.router) { client in
            var acknowledged: [PatientResponse] = []
            var refused: PatientResponse?
            for seed in 1...400 {
                let record = server.record(seed: UInt64(seed))
                let answer = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
                if answer.status == .created {
                    acknowledged.append(record)
                    continue
                }
                #expect(answer.status == .serviceUnavailable, "a full disk is 503, not \(answer.status): \(answer.text)")
                #expect(answer.errorCode == "storage_full", "\(answer.text)")
                #expect(answer.headers[.retryAfter] != nil && answer.headers[.contentType]?.hasPrefix("application/json") == true)
                refused = record
                break
            }
            let unstored = try #require(refused, "the disk never filled after \(acknowledged.count) records")
            let firstStored = try #require(acknowledged.first, "some records were stored before the disk filled")
            // A batch meets the full disk the same way; nothing of it is half stored. The disk is
            // filled to its last byte first, and the batch is larger than any room left in a page.
            try Self.fillUp(filler)
            let batch = Batch(records: (901...940).map { server.record(seed: UInt64($0)) })
            let batchAnswer = try await client.send(.post, "/v1/records/batch", as: "fieldworker-a", in: server, json: batch)
            #expect(batchAnswer.status == .serviceUnavailable && batchAnswer.errorCode == "storage_full", "\(batchAnswer.text)")
            // A read goes on the audit trail first: while the trail cannot grow it is 503 too, never 500.
            let read = try await client.send(.get, "/v1/records/\(firstStored.id.uuidString.lowercased())", as: "coordinator-a", in: server)
            #expect(read.status == .ok || (read.status == .serviceUnavailable && read.errorCode == "storage_full"), "\(read.text)")

            // Space returns: the same server takes records again, with no restart, and every acknowledged record is there.
            try FileManager.default.removeItem(at: filler)
            for record in acknowledged {
                let read = try await client.send(.get, "/v1/records/\(record.id.uuidString.lowercased())", as: "coordinator-a", in: server)
                #expect(read.status == .ok, "an acknowledged record is kept: \(read.text)")
            }
            #expect(
                try await client.send(.get, "/v1/records/\(unstored.id.uuidString.lowercased())", as: "coordinator-a", in: server).status
                    == .notFound)
            let again = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: unstored)
            #expect(again.status == .created, "\(again.text)")
            let batchAgain = try await client.send(.post, "/v1/records/batch", as: "fieldworker-a", in: server, json: batch)
            #expect(
                batchAgain.status == .ok && (batchAgain.json["summary"] as? [String: Int])?["created"] == batch.records.count,
                "\(batchAgain.text)")
            let audit = try await server.services.audit.verify()
            #expect(audit.isSound, "the audit chain is whole after the outage")
        }
    }
}
