import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

struct TeamReportsContractTests {
    @Test(arguments: StoreKind.allCases) func aTeamsCurrentReportsAreReadInPages(_ kind: StoreKind) async throws {
        try await TeamReportsContract.aTeamsCurrentReportsAreReadInPages(kind)
    }

    @Test(arguments: StoreKind.allCases) func anOpenInvitationBlocksAnotherAndAClosedOneDoesNot(_ kind: StoreKind) async throws {
        try await TeamStoreContract.anOpenInvitationBlocksAnotherAndAClosedOneDoesNot(kind)
    }

    @Test(arguments: StoreKind.allCases) func twoServersInvitingOnePersonAtOnceMakeOneInvitation(_ kind: StoreKind) async throws {
        try await TeamStoreContract.twoServersInvitingOnePersonAtOnceMakeOneInvitation(kind)
    }

    @Test(arguments: StoreKind.allCases) func anAcceptanceTellsEveryCoordinatorAndNoOneElse(_ kind: StoreKind) async throws {
        try await TeamStoreContract.anAcceptanceTellsEveryCoordinatorAndNoOneElse(kind)
    }

    @Test(arguments: StoreKind.allCases) func aRecordsReferralsAreListedInEveryStateAndOnlyActiveOnesGiveAccess(_ kind: StoreKind)
        async throws
    {
        try await ReferralStoreContract.aRecordsReferralsAreListedInEveryStateAndOnlyActiveOnesGiveAccess(kind)
    }
}
