import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

/// Every requirement of referrals, on every store.
struct ReferralStoreContractTests {
    @Test(arguments: StoreKind.allCases) func aReferralMovesFromOpenToCompletedAndEachSideIsTold(_ kind: StoreKind) async throws {
        try await ReferralStoreContract.aReferralMovesFromOpenToCompletedAndEachSideIsTold(kind)
    }

    @Test(arguments: StoreKind.allCases) func referralsAreRefusedForAnotherTeamsRecordAndListedBySide(_ kind: StoreKind) async throws {
        try await ReferralStoreContract.referralsAreRefusedForAnotherTeamsRecordAndListedBySide(kind)
    }

    @Test(arguments: StoreKind.allCases) func aReferralFollowsItsRecordAndItsPeople(_ kind: StoreKind) async throws {
        try await ReferralStoreContract.aReferralFollowsItsRecordAndItsPeople(kind)
    }
}
