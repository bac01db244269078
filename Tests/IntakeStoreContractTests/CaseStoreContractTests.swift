import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

/// Every requirement of the `CaseStore` protocol, on every store.
struct CaseStoreContractTests {
    @Test(arguments: StoreKind.allCases) func casesAreKeptWholeAndPulledOnlyByThoseWhoFollowThem(_ kind: StoreKind) async throws {
        try await CaseStoreContract.casesAreKeptWholeAndPulledOnlyByThoseWhoFollowThem(kind)
    }

    @Test(arguments: StoreKind.allCases) func theCaseFeedCarriesEachRecordsCaseWork(_ kind: StoreKind) async throws {
        try await CaseStoreContract.theCaseFeedCarriesEachRecordsCaseWork(kind)
    }

    @Test(arguments: StoreKind.allCases) func openCasesAreListedByDueAndCounted(_ kind: StoreKind) async throws {
        try await CaseStoreContract.openCasesAreListedByDueAndCounted(kind)
    }

    @Test(arguments: StoreKind.allCases) func caseNoticesAreStoredOncePerUserAndEvent(_ kind: StoreKind) async throws {
        try await CaseStoreContract.caseNoticesAreStoredOncePerUserAndEvent(kind)
    }

    @Test(arguments: StoreKind.allCases) func theCursorMovesOnlyFromWhereItStood(_ kind: StoreKind) async throws {
        try await CaseStoreContract.theCursorMovesOnlyFromWhereItStood(kind)
    }

    @Test(arguments: StoreKind.allCases) func twoServersAdvancingAtOnceWriteOnce(_ kind: StoreKind) async throws {
        try await CaseStoreContract.twoServersAdvancingAtOnceWriteOnce(kind)
    }
}
