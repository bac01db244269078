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

/// Every requirement of collector-only questionnaires, on every store.
struct CollectorOnlyContractTests {
    @Test(arguments: StoreKind.allCases) func flippingTheSettingCountsTheQuestionnairesRecordsAsChanged(_ kind: StoreKind) async throws {
        try await CollectorOnlyContract.flippingTheSettingCountsTheQuestionnairesRecordsAsChanged(kind)
    }

    @Test(arguments: StoreKind.allCases) func twoServersFlippingAtOnceLeaveOneSettingAndUniqueCursors(_ kind: StoreKind) async throws {
        try await CollectorOnlyContract.twoServersFlippingAtOnceLeaveOneSettingAndUniqueCursors(kind)
    }
}
