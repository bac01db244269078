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

/// Every requirement of webhooks and their deliveries, on every store.
struct WebhookStoreContractTests {
    @Test(arguments: StoreKind.allCases) func aWebhookGetsWhatHappensAfterItIsRegisteredInOrder(_ kind: StoreKind) async throws {
        try await WebhookStoreContract.aWebhookGetsWhatHappensAfterItIsRegisteredInOrder(kind)
    }

    @Test(arguments: StoreKind.allCases) func aClaimedWebhookIsHeldUntilItsRoundEndsOrItsLeaseRunsOut(_ kind: StoreKind) async throws {
        try await WebhookStoreContract.aClaimedWebhookIsHeldUntilItsRoundEndsOrItsLeaseRunsOut(kind)
    }

    @Test(arguments: StoreKind.allCases) func failuresAreCountedPostponedAndSuspendUntilResumed(_ kind: StoreKind) async throws {
        try await WebhookStoreContract.failuresAreCountedPostponedAndSuspendUntilResumed(kind)
    }

    @Test(arguments: StoreKind.allCases) func webhooksAreListedByOwnerOrCreatorLimitedAndDeleted(_ kind: StoreKind) async throws {
        try await WebhookStoreContract.webhooksAreListedByOwnerOrCreatorLimitedAndDeleted(kind)
    }

    @Test(arguments: StoreKind.allCases) func twoServersClaimingAtOnceNeverHoldTheSameWebhook(_ kind: StoreKind) async throws {
        try await WebhookStoreContract.twoServersClaimingAtOnceNeverHoldTheSameWebhook(kind)
    }

    @Test(arguments: StoreKind.allCases) func webhooksRegisteredAtOnceNeverPassTheLimit(_ kind: StoreKind) async throws {
        try await WebhookStoreContract.webhooksRegisteredAtOnceNeverPassTheLimit(kind)
    }
}

/// Every requirement of the patient registry and consent, on every store.
struct PatientStoreContractTests {
    @Test(arguments: StoreKind.allCases) func patientsAreRegisteredOnceAndAnExternalIdBelongsToOnePatient(_ kind: StoreKind) async throws {
        try await PatientStoreContract.patientsAreRegisteredOnceAndAnExternalIdBelongsToOnePatient(kind)
    }

    @Test(arguments: StoreKind.allCases) func patientsAreFoundByNameDateOfBirthOrExternalIdAndArchivedOnesOnlyWhenAsked(_ kind: StoreKind)
        async throws
    {
        try await PatientStoreContract.patientsAreFoundByNameDateOfBirthOrExternalIdAndArchivedOnesOnlyWhenAsked(kind)
    }

    @Test(arguments: StoreKind.allCases) func patientsAreFoundWhicheverArabicLetterVariantIsTyped(_ kind: StoreKind) async throws {
        try await PatientStoreContract.patientsAreFoundWhicheverArabicLetterVariantIsTyped(kind)
    }

    @Test(arguments: StoreKind.allCases) func aChangeBasedOnAnOlderRevisionIsRefusedAndExternalIdsStayUnique(_ kind: StoreKind) async throws
    {
        try await PatientStoreContract.aChangeBasedOnAnOlderRevisionIsRefusedAndExternalIdsStayUnique(kind)
    }

    @Test(arguments: StoreKind.allCases) func consentIsAnAppendOnlyHistoryWhoseLatestIsTheScope(_ kind: StoreKind) async throws {
        try await PatientStoreContract.consentIsAnAppendOnlyHistoryWhoseLatestIsTheScope(kind)
    }

    @Test(arguments: StoreKind.allCases) func twoServersRegisteringOneExternalIdAtOnceMakeOnePatient(_ kind: StoreKind) async throws {
        try await PatientStoreContract.twoServersRegisteringOneExternalIdAtOnceMakeOnePatient(kind)
    }
}

/// Consent governing exports, on every store.
struct ConsentExportContractTests {
    @Test(arguments: StoreKind.allCases) func anExportWithAConsentFilterHoldsOnlyRecordsConsentAllows(_ kind: StoreKind) async throws {
        try await PatientStoreContract.anExportWithAConsentFilterHoldsOnlyRecordsConsentAllows(kind)
    }
}

/// Data groups, on every store.
struct DataGroupContractTests {
    @Test(arguments: StoreKind.allCases) func patientsJoinAndLeaveDefinedDataGroupsAllOrNothing(_ kind: StoreKind) async throws {
        try await PatientStoreContract.patientsJoinAndLeaveDefinedDataGroupsAllOrNothing(kind)
    }

    @Test(arguments: StoreKind.allCases) func aGroupDeletedWhileAPatientJoinsItIsNeverLeftHalfWay(_ kind: StoreKind) async throws {
        try await PatientStoreContract.aGroupDeletedWhileAPatientJoinsItIsNeverLeftHalfWay(kind)
    }
}

/// Dated reports, on every store.
struct ReportContractTests {
    @Test(arguments: StoreKind.allCases) func datedReportsReplaceKeepHistoryAndReadByDocumentedBounds(_ kind: StoreKind) async throws {
        try await PatientStoreContract.datedReportsReplaceKeepHistoryAndReadByDocumentedBounds(kind)
    }
}

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

/// Every requirement of the `DeviceStore` protocol (enrolment codes, devices), on every store.
struct DeviceStoreContractTests {
    @Test(arguments: StoreKind.allCases) func aCodeEnrolsOneMachineEvenWhenTwoRace(_ kind: StoreKind) async throws {
        try await DeviceStoreContract.aCodeEnrolsOneMachineEvenWhenTwoRace(kind)
    }

    @Test(arguments: StoreKind.allCases) func wrongSecretsLockTheCodeAndExpiredCodesAreRefused(_ kind: StoreKind) async throws {
        try await DeviceStoreContract.wrongSecretsLockTheCodeAndExpiredCodesAreRefused(kind)
    }

    @Test(arguments: StoreKind.allCases) func aRevocationIsSeenByEveryServerAndReportsAreKept(_ kind: StoreKind) async throws {
        try await DeviceStoreContract.aRevocationIsSeenByEveryServerAndReportsAreKept(kind)
    }
}

struct TestRecordContractTests {
    @Test(arguments: StoreKind.allCases) func testRecordsAreKeptApartPerVersionAndTeam(_ kind: StoreKind) async throws {
        try await TestRecordContract.testRecordsAreKeptApartPerVersionAndTeam(kind)
    }
}

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
