import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

struct TestRecordContractTests {
    @Test(arguments: StoreKind.allCases) func testRecordsAreKeptApartPerVersionAndTeam(_ kind: StoreKind) async throws {
        try await TestRecordContract.testRecordsAreKeptApartPerVersionAndTeam(kind)
    }
}
