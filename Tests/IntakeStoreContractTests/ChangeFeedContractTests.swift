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

/// Every requirement of the change feed, on every store.
struct ChangeFeedContractTests {
    @Test(arguments: StoreKind.allCases) func theFeedListsEachRecordAtItsLatestChangeAndDeletions(_ kind: StoreKind) async throws {
        try await ChangeFeedContract.theFeedListsEachRecordAtItsLatestChangeAndDeletions(kind)
    }

    @Test(arguments: StoreKind.allCases) func aPurgeMovesTheHorizonPastTheDeletionsItRemoved(_ kind: StoreKind) async throws {
        try await ChangeFeedContract.aPurgeMovesTheHorizonPastTheDeletionsItRemoved(kind)
    }

    @Test(arguments: StoreKind.allCases) func aReaderFollowingTheFeedWhileTwoServersSaveMissesNothing(_ kind: StoreKind) async throws {
        try await ChangeFeedContract.aReaderFollowingTheFeedWhileTwoServersSaveMissesNothing(kind)
    }
}
