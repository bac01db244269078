import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

/// The lookup ranking against a brute-force reading of its definition.
struct LookupRankingContractTests {
    @Test(arguments: StoreKind.allCases) func lookupsRankExactlyAsDefined(_ kind: StoreKind) async throws {
        try await LookupRankingContract.lookupsRankExactlyAsDefined(kind)
    }
}
