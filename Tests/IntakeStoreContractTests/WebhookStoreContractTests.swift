import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

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
