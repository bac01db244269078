import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServer
import IntakeServerTestSupport
import IntakeService
import IntakeStoreTesting
import NIOCore
import Testing

/// Every requirement of deleting records, on every store.
struct TombstoneStoreContractTests {
    @Test(arguments: StoreKind.allCases) func aDeletedRecordLeavesOnlyItsTombstone(_ kind: StoreKind) async throws {
        try await TombstoneStoreContract.aDeletedRecordLeavesOnlyItsTombstone(kind)
    }

    @Test(arguments: StoreKind.allCases) func incrementalExportsListDeletionsOnce(_ kind: StoreKind) async throws {
        try await TombstoneStoreContract.incrementalExportsListDeletionsOnce(kind)
    }

    @Test(arguments: StoreKind.allCases) func purgingOldTombstonesNeverMovesACursorBack(_ kind: StoreKind) async throws {
        try await TombstoneStoreContract.purgingOldTombstonesNeverMovesACursorBack(kind)
    }

    @Test(arguments: StoreKind.allCases) func racingDeletionsAndEditsEndInOneTombstone(_ kind: StoreKind) async throws {
        try await TombstoneStoreContract.racingDeletionsAndEditsEndInOneTombstone(kind)
    }
}
