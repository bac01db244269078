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

/// Every requirement of transfers, on every store.
struct TransferContractTests {
    @Test(arguments: StoreKind.allCases) func aTransferredRecordLeavesItsTeamsFeedAndExportsAndJoinsTheOther(_ kind: StoreKind) async throws
    {
        try await TransferContract.aTransferredRecordLeavesItsTeamsFeedAndExportsAndJoinsTheOther(kind)
    }

    @Test(arguments: StoreKind.allCases) func aPatientMovesWithAllTheirRecordsAndAPatientsRecordOnlyWithThem(_ kind: StoreKind) async throws
    {
        try await TransferContract.aPatientMovesWithAllTheirRecordsAndAPatientsRecordOnlyWithThem(kind)
    }

    @Test(arguments: StoreKind.allCases) func twoServersMovingOneRecordAtOnceMoveItOnce(_ kind: StoreKind) async throws {
        try await TransferContract.twoServersMovingOneRecordAtOnceMoveItOnce(kind)
    }
}
