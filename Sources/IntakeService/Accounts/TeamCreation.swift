/// Who may form a team.
public enum TeamCreation: String, Sendable {
    /// Only admins create teams.
    case admins
    /// Admins, and a field worker or coordinator without a team, who then coordinates it.
    case members
}
