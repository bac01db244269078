import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

/// Dated reports, on every store.
struct ReportContractTests {
    @Test(arguments: StoreKind.allCases) func datedReportsReplaceKeepHistoryAndReadByDocumentedBounds(_ kind: StoreKind) async throws {
        try await PatientStoreContract.datedReportsReplaceKeepHistoryAndReadByDocumentedBounds(kind)
    }
}
