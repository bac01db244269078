import Foundation
import Testing

@testable import IntakeFieldwork

/// Rosters are read as strict CSV; each bad row is named by its line and column, never by its
/// values; the same row always gets the same patient id.
struct RosterTests {
    @Test func aRosterIsReadWithQuotesLineBreaksAndEitherSpellingOfItsColumns() throws {
        let csv =
            "\u{FEFF}givenName,Family_Name,date_of_birth,sex,external_id\r\n"
            + "Amina,\"Haddad, née Khan\",1990-04-12,Female,UNHCR-1\r\n"
            + "\r\n"
            + "\"Ḥasan\",\"O\"\"Brien\",,,\n"
        let roster = try Roster(csv: csv)
        #expect(roster.problems.isEmpty, "\(roster.problems)")
        #expect(roster.rows.map(\.line) == [2, 4])
        #expect(roster.rows[0].patient.familyName == "Haddad, née Khan" && roster.rows[0].patient.sex == "female")
        #expect(
            roster.rows[1].patient.familyName == "O\"Brien" && roster.rows[1].patient.dateOfBirth == nil
                && roster.rows[1].patient.externalId == nil)
        #expect(try Roster(csv: csv).rows.map(\.patient.id) == roster.rows.map(\.patient.id), "the same rows, the same ids")
        #expect(Set(roster.rows.map(\.patient.id)).count == 2)
    }

    @Test func groupsAndConsentGoWithEachRow() throws {
        let csv = """
            given_name,family_name,data_groups,consent,consent_method
            Amina,Haddad,arm_a; arm_b,sponsors_and_partners,written
            Omar,Khalil,,,
            Sara,Nasser,Arm A,everyone,
            """
        let roster = try Roster(csv: csv)
        #expect(roster.rows.count == 2)
        #expect(
            roster.rows[0].patient.dataGroups == ["arm_a", "arm_b"]
                && roster.rows[0].patient.consent == .init(scope: "sponsors_and_partners", method: "written"))
        #expect(roster.rows[1].patient.dataGroups == nil && roster.rows[1].patient.consent == nil)
        #expect(
            Set(roster.problems.map(\.description)) == [
                "row 4, column data_groups: names lowercase letters, digits and _, separated by ;",
                "row 4, column consent: is no_sharing, sponsors_and_partners, all_qualified_researchers or empty",
                "row 4, column consent: consent and consent_method are given together",
            ], "\(roster.problems)")
    }

    @Test func eachBadRowIsNamedByLineAndColumnWithoutItsValues() throws {
        let csv = """
            given_name,family_name,date_of_birth,sex,external_id
            Amina,Haddad,1990-02-30,female,A-1
            ,Khan,,,
            Chen,Li,,robot,A-1
            Dana,Li,,,A-2
            "Eve","Li"
            Finn,Ray,,,A-2
            """
        let roster = try Roster(csv: csv)
        #expect(roster.rows.map(\.line) == [5])
        #expect(
            roster.problems.map(\.description) == [
                "row 2, column date_of_birth: not a date; write it as YYYY-MM-DD",
                "row 3, column given_name: required",
                "row 4, column sex: is female, male, other or unknown",
                "row 4, column external_id: the same as row 2's",
                "row 6: 2 fields where the header has 5",
                "row 7, column external_id: the same as row 5's",
            ])
        #expect(!roster.problems.map(\.description).joined().contains("1990-02-30"), "never the value")
    }

    @Test func aRosterThatCannotBeReadSaysWhy() {
        #expect(throws: RosterError.self) { try Roster(csv: "") }
        #expect(throws: RosterError.self) { try Roster(csv: "given_name,surname\nA,B\n") }
        #expect(throws: RosterError.self) { try Roster(csv: "given_name,family_name\n\"A,B\n") }
        #expect(throws: RosterError.self) { try Roster(csv: "given_name\nA\n") }
        do {
            _ = try Roster(csv: "given_name,family_name\nA,B\"C\n")
            Issue.record("a stray quote is refused")
        } catch {
            #expect("\(error)".hasPrefix("line 2:"))
        }
    }
}
