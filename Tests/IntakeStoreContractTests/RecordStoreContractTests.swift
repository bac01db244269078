import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

// The store contract (IntakeStoreTesting), run against every store this package has (``StoreKind``):
// one test per requirement, parameterized over the stores.

/// Every requirement of the `RecordStore` protocol.
struct RecordStoreContractTests {
    @Test(arguments: StoreKind.allCases) func ingestRecognisesDuplicatesAndConflictsWithinOneBatch(_ kind: StoreKind) async throws {
        try await RecordStoreContract.ingestRecognisesDuplicatesAndConflictsWithinOneBatch(kind)
    }

    @Test(arguments: StoreKind.allCases) func aGroupsAlertsReachEveryCoordinatorOnceInOrder(_ kind: StoreKind) async throws {
        try await RecordStoreContract.aGroupsAlertsReachEveryCoordinatorOnceInOrder(kind)
    }

    @Test(arguments: StoreKind.allCases) func anIdOfAnotherTeamsRecordIsTakenWhateverTheContent(_ kind: StoreKind) async throws {
        try await RecordStoreContract.anIdOfAnotherTeamsRecordIsTakenWhateverTheContent(kind)
    }

    @Test(arguments: StoreKind.allCases) func updatesAreOptimisticAndScopedToTheTeam(_ kind: StoreKind) async throws {
        try await RecordStoreContract.updatesAreOptimisticAndScopedToTheTeam(kind)
    }

    @Test(arguments: StoreKind.allCases) func everyRevisionKeepsItsBody(_ kind: StoreKind) async throws {
        try await RecordStoreContract.everyRevisionKeepsItsBody(kind)
    }

    @Test(arguments: StoreKind.allCases) func exportsPageByChangeCursorWithinTeamAndQuestionnaire(_ kind: StoreKind) async throws {
        try await RecordStoreContract.exportsPageByChangeCursorWithinTeamAndQuestionnaire(kind)
    }

    @Test(arguments: StoreKind.allCases) func exportsFilterByRecordId(_ kind: StoreKind) async throws {
        try await RecordStoreContract.exportsFilterByRecordId(kind)
    }

    @Test(arguments: StoreKind.allCases) func secretsAreMadeOnceAndKept(_ kind: StoreKind) async throws {
        try await RecordStoreContract.secretsAreMadeOnceAndKept(kind)
    }

    @Test(arguments: StoreKind.allCases) func lookupIsScopedRankedAndEscapesWildcards(_ kind: StoreKind) async throws {
        try await RecordStoreContract.lookupIsScopedRankedAndEscapesWildcards(kind)
    }

    @Test(arguments: StoreKind.allCases) func lookupFindsArabicNamesWhicheverLetterVariantIsTyped(_ kind: StoreKind) async throws {
        try await RecordStoreContract.lookupFindsArabicNamesWhicheverLetterVariantIsTyped(kind)
    }

    @Test(arguments: StoreKind.allCases) func tokensExpireAndDisabledUsersLoseAccess(_ kind: StoreKind) async throws {
        try await RecordStoreContract.tokensExpireAndDisabledUsersLoseAccess(kind)
    }

    @Test(arguments: StoreKind.allCases) func failedSignInsAreCountedAndLockTheAccountUntilUnlocked(_ kind: StoreKind) async throws {
        try await RecordStoreContract.failedSignInsAreCountedAndLockTheAccountUntilUnlocked(kind)
    }

    @Test(arguments: StoreKind.allCases) func publishingTheSameVersionTwiceIsANoOp(_ kind: StoreKind) async throws {
        try await RecordStoreContract.publishingTheSameVersionTwiceIsANoOp(kind)
    }

    @Test(arguments: StoreKind.allCases) func teamsAndUsersAreUniqueByNameAndListedInOrder(_ kind: StoreKind) async throws {
        try await RecordStoreContract.teamsAndUsersAreUniqueByNameAndListedInOrder(kind)
    }

    @Test(arguments: StoreKind.allCases) func aQuestionnaireStateChangesOnlyFromTheStateSeen(_ kind: StoreKind) async throws {
        try await RecordStoreContract.aQuestionnaireStateChangesOnlyFromTheStateSeen(kind)
    }

    @Test(arguments: StoreKind.allCases) func questionnairesAreListedNewestFirst(_ kind: StoreKind) async throws {
        try await RecordStoreContract.questionnairesAreListedNewestFirst(kind)
    }

    @Test(arguments: StoreKind.allCases) func aRecordKeepsWhoSentItAndWhen(_ kind: StoreKind) async throws {
        try await RecordStoreContract.aRecordKeepsWhoSentItAndWhen(kind)
    }
}
