import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

/// Every requirement of the `ReviewStore` protocol, on every store.
struct ReviewStoreContractTests {
    @Test(arguments: StoreKind.allCases) func aReviewIsDecidedLockedReopenedAndKeptInItsThread(_ kind: StoreKind) async throws {
        try await ReviewStoreContract.aReviewIsDecidedLockedReopenedAndKeptInItsThread(kind)
    }

    @Test(arguments: StoreKind.allCases) func exportsFilterByReviewStateAndCarryIt(_ kind: StoreKind) async throws {
        try await ReviewStoreContract.exportsFilterByReviewStateAndCarryIt(kind)
    }

    @Test(arguments: StoreKind.allCases) func aLockAndAnEditAtOnceTakeTurns(_ kind: StoreKind) async throws {
        try await ReviewStoreContract.aLockAndAnEditAtOnceTakeTurns(kind)
    }
}

extension ReviewStoreContractTests {
    @Test(arguments: StoreKind.allCases) func aReviewListIsPagedAndCountedWhole(_ kind: StoreKind) async throws {
        try await ReviewStoreContract.aReviewListIsPagedAndCountedWhole(kind)
    }

    @Test(arguments: StoreKind.allCases) func activityCountsRecordsPerDayQuestionnaireAndCollector(_ kind: StoreKind) async throws {
        try await ReviewStoreContract.activityCountsRecordsPerDayQuestionnaireAndCollector(kind)
    }
}
