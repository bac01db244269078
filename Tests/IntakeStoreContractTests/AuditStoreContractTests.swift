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

/// Every requirement of the audit trail, on every store.
struct AuditStoreContractTests {
    @Test(arguments: StoreKind.allCases) func eventsAreNumberedChainedAndReadBackFiltered(_ kind: StoreKind) async throws {
        try await AuditStoreContract.eventsAreNumberedChainedAndReadBackFiltered(kind)
    }

    @Test(arguments: StoreKind.allCases) func recordSavesAndConsentChangesAreOnTheTrailWithThem(_ kind: StoreKind) async throws {
        try await AuditStoreContract.recordSavesAndConsentChangesAreOnTheTrailWithThem(kind)
    }

    @Test(arguments: StoreKind.allCases) func twoServersAppendingAtOnceMakeOneChain(_ kind: StoreKind) async throws {
        try await AuditStoreContract.twoServersAppendingAtOnceMakeOneChain(kind)
    }
}
