import Foundation

extension LocalStore.Configuration {
    /// How the command line opens the store. A passphrase protects it by default, chosen at
    /// first use: `INTAKE_PASSPHRASE` when set, else asked on the terminal through `ask` (twice,
    /// at least 8 characters, with the warning that it cannot be recovered); with neither, the
    /// first key cannot be made and the store says so. `INTAKE_KIOSK=1` opts out for shared kiosk
    /// machines: the key then sits in a device key file beside the data. A protected store takes
    /// `INTAKE_PASSPHRASE`, else asks (three tries). scrypt's cost is the configuration's (no
    /// variable lowers it: the cost a key was wrapped with is kept with it, and read back).
    ///
    /// Once unlocked, the key stays in the kernel's keyring for this login session until it has
    /// not been used for `INTAKE_UNLOCK_MINUTES` (30 by default; 0 keeps it for one command only):
    /// `intake key lock` forgets it at once.
    ///
    /// `ask` shows its prompt and returns what was typed without echo; nil when nobody can answer
    /// (or the person ended the input).
    public static func standard(
        environment: [String: String], ask: (@Sendable (String) -> String?)?, wording: PassphraseWording
    ) -> LocalStore.Configuration {
        let given = environment["INTAKE_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 }
        let asked = AskedOnce()
        var configuration = LocalStore.Configuration(
            passphrase: {
                if let given { return given }
                return try asked.value { notice in
                    guard let ask else {
                        throw LocalStoreError(
                            "this store is protected by a passphrase",
                            fix: "set INTAKE_PASSPHRASE, or run intake in a terminal to be asked for it")
                    }
                    guard let typed = ask(notice + wording.unlock) else {
                        throw LocalStoreError("no passphrase was typed", fix: "nothing was changed; run the command again and type it")
                    }
                    return typed
                }
            }, newStorePassphrase: given, allowsDeviceKey: environment["INTAKE_KIOSK"] == "1")
        if let ask, given == nil {
            configuration.passphraseTries = 3
            configuration.wrongPassphrase = { left in asked.forget(notice: wording.wrong(left)) }
            // A kiosk machine keeps its key in the device key file: nobody is asked to choose one.
            if !configuration.allowsDeviceKey {
                configuration.chooseNewPassphrase = {
                    try asked.value { _ in try Self.chooseNew(ask, wording: wording) }
                }
            }
        }
        // Kept only what a person typed: a passphrase from the environment is there each time.
        let minutes = environment["INTAKE_UNLOCK_MINUTES"].flatMap(Int.init) ?? 30
        if ask != nil, given == nil, minutes > 0 { configuration.keyAgent = KernelKeyAgent(idle: .seconds(minutes * 60)) }
        return configuration
    }

    /// A new passphrase, typed twice (three tries to type the same one twice).
    static func chooseNew(_ ask: @Sendable (String) -> String?, wording: PassphraseWording) throws -> String {
        var notice = wording.choose
        for _ in 0..<3 {
            guard let first = ask(notice + wording.new) else {
                throw LocalStoreError("no passphrase was chosen", fix: "nothing was changed; run the command again and choose one")
            }
            guard first.count >= 8 else {
                notice = wording.tooShort
                continue
            }
            guard let second = ask(wording.again) else {
                throw LocalStoreError("no passphrase was chosen", fix: "nothing was changed; run the command again and choose one")
            }
            if second == first { return first }
            notice = wording.differ
        }
        throw LocalStoreError("no passphrase was chosen after three tries", fix: "nothing was changed; run the command again")
    }
}

/// What the passphrase prompts say, in the person's language (the command line takes them from
/// its message catalogue), each ending as it is shown: a prompt with its space, a notice with its
/// line break. `choose` must say that the passphrase cannot be recovered.
public struct PassphraseWording: Sendable {
    public var unlock: String
    public var wrong: @Sendable (_ triesLeft: Int) -> String
    public var choose: String
    public var new: String
    public var again: String
    public var tooShort: String
    public var differ: String

    public init(
        unlock: String, wrong: @escaping @Sendable (_ triesLeft: Int) -> String, choose: String, new: String, again: String,
        tooShort: String, differ: String
    ) {
        self.unlock = unlock
        self.wrong = wrong
        self.choose = choose
        self.new = new
        self.again = again
        self.tooShort = tooShort
        self.differ = differ
    }
}

/// A passphrase asked once per process, or again after it was found wrong.
final class AskedOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var answer: String?
    private var notice = ""

    /// The answer; `ask` gets what to say first (why it is asked again).
    func value(_ ask: (_ notice: String) throws -> String) throws -> String {
        try lock.withLock {
            if let answer { return answer }
            let typed = try ask(notice)
            answer = typed
            notice = ""
            return typed
        }
    }

    /// Forgets a wrong answer: the next ``value(_:)`` asks again, saying `notice` first.
    func forget(notice: String) {
        lock.withLock {
            answer = nil
            self.notice = notice
        }
    }
}
