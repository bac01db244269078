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

/// Every requirement of grants, on every store.
struct GrantStoreContractTests {
    @Test(arguments: StoreKind.allCases) func grantsGiveAccessUntilTheyExpireOrAreRevoked(_ kind: StoreKind) async throws {
        try await GrantStoreContract.grantsGiveAccessUntilTheyExpireOrAreRevoked(kind)
    }

    @Test(arguments: StoreKind.allCases) func aGrantRacingTheRecordsDeletionNeverOutlivesIt(_ kind: StoreKind) async throws {
        try await GrantStoreContract.aGrantRacingTheRecordsDeletionNeverOutlivesIt(kind)
    }

    @Test(arguments: StoreKind.allCases) func aGrantGoesToWhoeverIsOutsideTheRecordsTeamWhenGiven(_ kind: StoreKind) async throws {
        try await GrantStoreContract.aGrantGoesToWhoeverIsOutsideTheRecordsTeamWhenGiven(kind)
    }
}
