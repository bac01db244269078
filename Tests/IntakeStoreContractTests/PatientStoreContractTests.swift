import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

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
