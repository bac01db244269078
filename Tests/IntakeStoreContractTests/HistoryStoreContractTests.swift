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

/// Every requirement of a record's history, on every store.
struct HistoryStoreContractTests {
    @Test(arguments: StoreKind.allCases) func eachRevisionKeepsWhoSavedItWhenAndFromWhichDevice(_ kind: StoreKind) async throws {
        try await HistoryStoreContract.eachRevisionKeepsWhoSavedItWhenAndFromWhichDevice(kind)
    }
}
