import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

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
