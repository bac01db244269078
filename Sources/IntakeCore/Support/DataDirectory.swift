import Foundation

/// Where Intake keeps its files on this machine, worked out from the environment it is handed
/// (it reads none itself): `INTAKE_DATA_DIR`, else `$XDG_DATA_HOME/intake`, else
/// `$HOME/.local/share/intake` (`$HOME/Library/Application Support/Intake` on macOS).
public enum DataDirectory {
    public static func resolve(environment: [String: String], home: @autoclosure () -> String = NSHomeDirectory()) -> URL {
        if let explicit = environment["INTAKE_DATA_DIR"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        let home = URL(fileURLWithPath: environment["HOME"] ?? home())
        #if os(macOS)
            return home.appendingPathComponent("Library/Application Support/Intake")
        #else
            if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
                return URL(fileURLWithPath: xdg).appendingPathComponent("intake")
            }
            return home.appendingPathComponent(".local/share/intake")
        #endif
    }
}
