import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

/// Races between two stores on the same data, as two servers make them.
struct RecordStoreConcurrencyContractTests {
    @Test(arguments: StoreKind.allCases) func twoWritersPostingOneIdAtOnceGiveOneCreated(_ kind: StoreKind) async throws {
        try await RecordStoreConcurrencyContract.twoWritersPostingOneIdAtOnceGiveOneCreated(kind)
    }

    @Test(arguments: StoreKind.allCases) func overlappingBatchesAndRepeatsInOneGroupStoreEachRecordOnce(_ kind: StoreKind) async throws {
        try await RecordStoreConcurrencyContract.overlappingBatchesAndRepeatsInOneGroupStoreEachRecordOnce(kind)
    }

    @Test(arguments: StoreKind.allCases) func aRequestTheDatabaseRefusesFailsAloneInItsGroup(_ kind: StoreKind) async throws {
        try await RecordStoreConcurrencyContract.aRequestTheDatabaseRefusesFailsAloneInItsGroup(kind)
    }

    @Test(arguments: StoreKind.allCases) func aGroupHeldOpenBeforeItsCommitIsNeverPassedAndHoldsNoIngestBack(_ kind: StoreKind) async throws
    {
        try await HeldCommitContract.aGroupHeldOpenBeforeItsCommitIsNeverPassedAndHoldsNoIngestBackWhereWritersNeedNotTakeTurns(kind)
    }

    @Test(arguments: StoreKind.allCases) func failedSignInsCountedByTwoServersAtOnceAreAllCounted(_ kind: StoreKind) async throws {
        try await RecordStoreConcurrencyContract.failedSignInsCountedByTwoServersAtOnceAreAllCounted(kind)
    }

    @Test(arguments: StoreKind.allCases) func twoEditsAtOneBaseRevisionGiveOneNewRevisionAndOneStale(_ kind: StoreKind) async throws {
        try await RecordStoreConcurrencyContract.twoEditsAtOneBaseRevisionGiveOneNewRevisionAndOneStale(kind)
    }

    @Test(arguments: StoreKind.allCases) func aReaderFollowingTheCursorSeesEveryChangeOnce(_ kind: StoreKind) async throws {
        try await RecordStoreConcurrencyContract.aReaderFollowingTheCursorSeesEveryChangeOnce(kind)
    }
}
