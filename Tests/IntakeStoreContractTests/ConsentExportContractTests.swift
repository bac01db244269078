import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

/// Consent governing exports, on every store.
struct ConsentExportContractTests {
    @Test(arguments: StoreKind.allCases) func anExportWithAConsentFilterHoldsOnlyRecordsConsentAllows(_ kind: StoreKind) async throws {
        try await PatientStoreContract.anExportWithAConsentFilterHoldsOnlyRecordsConsentAllows(kind)
    }
}
