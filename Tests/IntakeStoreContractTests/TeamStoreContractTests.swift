import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

/// Every requirement of the `TeamStore` protocol (members, invitations, notifications), on every store.
struct TeamStoreContractTests {
    @Test(arguments: StoreKind.allCases) func reassignmentReopensRetargetingMovesAndNobodyHearsOfTheirOwnAct(_ kind: StoreKind) async throws
    {
        try await ReferralStoreContract.reassignmentReopensRetargetingMovesAndNobodyHearsOfTheirOwnAct(kind)
    }

    @Test(arguments: StoreKind.allCases) func membersAndFormerMembersAreTheTeamsCollectors(_ kind: StoreKind) async throws {
        try await TeamStoreContract.membersAndFormerMembersAreTheTeamsCollectors(kind)
    }

    @Test(arguments: StoreKind.allCases) func aShortIdFindsTheTeamsLiveRecordsOnly(_ kind: StoreKind) async throws {
        try await TeamStoreContract.aShortIdFindsTheTeamsLiveRecordsOnly(kind)
    }

    @Test(arguments: StoreKind.allCases) func aMemberFormsOneTeamAndLeadsItEvenWhenTwoTriesRace(_ kind: StoreKind) async throws {
        try await TeamStoreContract.aMemberFormsOneTeamAndLeadsItEvenWhenTwoTriesRace(kind)
    }

    @Test(arguments: StoreKind.allCases) func anInvitationGoesFromPendingToConfirmedAndTheInviteeJoins(_ kind: StoreKind) async throws {
        try await TeamStoreContract.anInvitationGoesFromPendingToConfirmedAndTheInviteeJoins(kind)
    }

    @Test(arguments: StoreKind.allCases) func wrongPasscodesAreCountedAndLockTheInvitation(_ kind: StoreKind) async throws {
        try await TeamStoreContract.wrongPasscodesAreCountedAndLockTheInvitation(kind)
    }

    @Test(arguments: StoreKind.allCases) func invitationsExpireAndAreRefusedForWhoCannotJoin(_ kind: StoreKind) async throws {
        try await TeamStoreContract.invitationsExpireAndAreRefusedForWhoCannotJoin(kind)
    }

    @Test(arguments: StoreKind.allCases) func declinedAndRevokedInvitationsNotifyAndStayClosed(_ kind: StoreKind) async throws {
        try await TeamStoreContract.declinedAndRevokedInvitationsNotifyAndStayClosed(kind)
    }

    @Test(arguments: StoreKind.allCases) func coordinatorsChangeRolesAndRemoveMembersButNeverTheLastCoordinator(_ kind: StoreKind)
        async throws
    {
        try await TeamStoreContract.coordinatorsChangeRolesAndRemoveMembersButNeverTheLastCoordinator(kind)
    }

    @Test(arguments: StoreKind.allCases) func notificationsAreReadCountedAndDeletedPerUser(_ kind: StoreKind) async throws {
        try await TeamStoreContract.notificationsAreReadCountedAndDeletedPerUser(kind)
    }

    @Test(arguments: StoreKind.allCases) func wrongPasscodesTriedAtOnceByTwoServersAreAllCounted(_ kind: StoreKind) async throws {
        try await TeamStoreContract.wrongPasscodesTriedAtOnceByTwoServersAreAllCounted(kind)
    }

    @Test(arguments: StoreKind.allCases) func anInvitationConfirmedTwiceAtOnceJoinsOnce(_ kind: StoreKind) async throws {
        try await TeamStoreContract.anInvitationConfirmedTwiceAtOnceJoinsOnce(kind)
    }

    @Test(arguments: StoreKind.allCases) func anAnnouncementReachesEveryMemberOrEveryoneButItsAuthorOnce(_ kind: StoreKind) async throws {
        try await TeamStoreContract.anAnnouncementReachesEveryMemberOrEveryoneButItsAuthorOnce(kind)
    }

    @Test(arguments: StoreKind.allCases) func readNotificationsPastTheirRetentionArePurgedAndUnreadOnesKept(_ kind: StoreKind) async throws
    {
        try await TeamStoreContract.readNotificationsPastTheirRetentionArePurgedAndUnreadOnesKept(kind)
    }
}
