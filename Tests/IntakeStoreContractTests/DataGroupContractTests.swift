import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

/// Data groups, on every store.
struct DataGroupContractTests {
    @Test(arguments: StoreKind.allCases) func patientsJoinAndLeaveDefinedDataGroupsAllOrNothing(_ kind: StoreKind) async throws {
        try await PatientStoreContract.patientsJoinAndLeaveDefinedDataGroupsAllOrNothing(kind)
    }

    @Test(arguments: StoreKind.allCases) func aGroupDeletedWhileAPatientJoinsItIsNeverLeftHalfWay(_ kind: StoreKind) async throws {
        try await PatientStoreContract.aGroupDeletedWhileAPatientJoinsItIsNeverLeftHalfWay(kind)
    }
}
