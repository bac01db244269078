/// What to do with an edit whose record changed on the server since it was loaded.
public enum ConflictPolicy: String, CaseIterable, Sendable {
    /// Merge as `merge` does, then show each answer both sides changed, side by side, and let
    /// the person choose.
    case ask
    /// Keep the server's record; the edit is set aside (not sent, not lost).
    case keepServer = "keep-server"
    /// Save the edit over the server's record (which stays in the record's history).
    case keepMine = "keep-mine"
    /// Three-way per answer: changes of one side are kept; answers both sides changed to different
    /// values are conflicts, and an edit with conflicts is set aside for `ask`.
    case merge
}
