import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

/// What exports of registry patients' records need, on every store.
struct PatientExportContractTests {
    @Test(arguments: StoreKind.allCases) func anExportCarriesEachRecordsConsentAndGroupsAndFiltersByGroup(_ kind: StoreKind) async throws {
        try await PatientExportContract.anExportCarriesEachRecordsConsentAndGroupsAndFiltersByGroup(kind)
    }

    @Test(arguments: StoreKind.allCases) func anIncrementalExportListsWhatConsentNoLongerSharesWithItsReader(_ kind: StoreKind) async throws
    {
        try await PatientExportContract.anIncrementalExportListsWhatConsentNoLongerSharesWithItsReader(kind)
    }

    @Test(arguments: StoreKind.allCases) func consentChangesRacingRecordSavesKeepCursorsInOrder(_ kind: StoreKind) async throws {
        try await PatientExportContract.consentChangesRacingRecordSavesKeepCursorsInOrder(kind)
    }

    @Test(arguments: StoreKind.allCases) func anExportsReportsFollowItsPatientsTeamConsentAndGroups(_ kind: StoreKind) async throws {
        try await PatientExportContract.anExportsReportsFollowItsPatientsTeamConsentAndGroups(kind)
    }

    @Test(arguments: StoreKind.allCases) func twoFirstReportsOfOneSeriesWithDifferentKindsFixOneKind(_ kind: StoreKind) async throws {
        try await PatientExportContract.twoFirstReportsOfOneSeriesWithDifferentKindsFixOneKind(kind)
    }
}
