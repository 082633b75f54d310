import Basics
package import Command
import Config
import Control
import DBus
package import FoundationEssentials
internal import Glibc
import Logging
import QRCode
package import Session
import Store
import Uplink
import Vocabulary

/// `login`, `logout` and `whoami`.
package enum SessionCommands {
    package static let specs: [CommandSpec] = [
        CommandSpec(name: "login", summary: "Log in once (device code with a QR code, or --username); a valid session is kept.",
                    details: "With a valid session it only says who is logged in, without contacting the provider; --force logs out first. By default it uses the device code grant, showing the link, the code and a QR code of the link in the terminal. --username uses the password grant; the password is prompted for without echo, or read from standard input. Then it fetches the account and remote settings and tells a running daemon, which arms.", options: [
            OptionSpec(name: "--force", help: "log out first, then log in again"),
            OptionSpec(name: "--username", valueName: "USER", help: "use the password grant; the password is prompted for"),
            OptionSpec(name: "--password-stdin", help: "read the password from standard input"),
        ], run: login),
        CommandSpec(name: "logout", summary: "Revoke the tokens (best effort) and clear the session.",
                    details: "Also offline: the session is cleared whether or not the provider answers. The only command that logs out.", run: logout),
        CommandSpec(name: "whoami", summary: "Show who is logged in, from the store.",
                    details: "Exit 1 when not authorized. Never prints a token.", options: [
            OptionSpec(name: "--json", help: "one JSON object"),
        ], run: whoami),
    ]

    /// Opens the store and the session manager, printing why not.
    /// Login arms recording and logout disarms it; nothing else in the session does.
    private static func setIntent(_ intent: RecordingIntent, _ store: GatewayStore) {
        do { try RecordingStore(database: store.database).setIntent(intent) } catch { Log.error("cannot store the recording intent: \(error)") }
    }

    /// The store and the session manager; the exit code (already reported) when either cannot be had.
    private static func open(_ invocation: Invocation) -> Result<(GatewayStore, FleetPolicy), ExitCode> {
        guard let configuration = Configuration.load(for: invocation) else { return .failure(.config) }
        let store: GatewayStore
        switch StoreAccess.open(invocation, for: invocation.command ?? "login") {
        case .store(let opened): store = opened
        case .absent: return .failure(.software)
        case .failed(let code): return .failure(code)
        }
        do {
            return .success((store, try SessionFactory.policy(configuration, store: store)))
        } catch {
            Log.error("\(error)")
            return .failure(.config)
        }
    }

    static func login(_ invocation: Invocation) async -> ExitCode {
        let store: GatewayStore, policy: FleetPolicy
        switch open(invocation) {
        case .success(let opened): (store, policy) = opened
        case .failure(let code): return code
        }
        let session = policy.session
        do {
            if invocation.flag("--force") {
                await session.logout()
            } else if let existing = try await session.current(), existing.isAuthorized(now: Date().timeIntervalSince1970) {
                // A valid session: say who, and leave the provider alone.
                if existing.account == nil { try await session.completeLogin() }
                print(try await greeting(session, prefix: "Already logged in as"))
                return .ok
            }
            if let username = invocation.values["--username"] {
                guard let password = readPassword(fromStandardInput: invocation.flag("--password-stdin")) else {
                    Log.error("login: no password given")
                    return .usage
                }
                _ = try await session.loginWithPassword(username: username, password: password)
            } else {
                let code = try await session.beginDeviceLogin()
                let link = code.verificationURIComplete ?? code.verificationURI
                print("To log in, open \(code.verificationURI) and enter the code \(code.userCode)")
                print("or scan this with a phone:\n")
                if let qr = QRCode(link) { print(qr.terminalText + "\n") }
                fflush(nil)
                _ = try await cancellableOnInterrupt { () async throws(SessionError) in try await session.finishDeviceLogin(code, clock: ContinuousClock()) }
            }
            try await session.completeLogin()
            do {
                try await policy.update()
            } catch {
                Log.warning("login: remote settings not fetched: \(error)")
            }
            print(try await greeting(session, prefix: "Logged in as"))
            setIntent(.armed, store)
            await tellDaemon()
            return .ok
        } catch {
            Log.error("login: \(error)")
            switch error {
            case .cancelled: return .failure
            case .unreachable: return .unavailable
            case .configuration: return .config
            default: return .noPermission
            }
        }
    }

    static func logout(_ invocation: Invocation) async -> ExitCode {
        let store: GatewayStore, policy: FleetPolicy
        switch open(invocation) {
        case .success(let opened): (store, policy) = opened
        case .failure(let code): return code
        }
        let session = policy.session
        await session.logout()
        setIntent(.disarmed, store)
        print("Logged out.")
        await tellDaemon()
        return .ok
    }

    static func whoami(_ invocation: Invocation) async -> ExitCode {
        guard Configuration.load(for: invocation) != nil else { return .config }
        var stored: PersistedSession?
        do {
            switch StoreAccess.open(invocation, for: "whoami", create: false) {
            case .store(let store): stored = try SessionStore(database: store.database).load()
            case .absent: stored = nil
            case .failed(let code): return code
            }
        } catch {
            Log.error("whoami: \(error)")
            return .ioError
        }
        let identity = Identity(stored, now: Date().timeIntervalSince1970)
        if invocation.flag("--json") {
            JSONEncoder.snakeCase.printLine(identity)
        } else {
            print(identity.text)
        }
        return identity.authorized ? .ok : .failure
    }

    /// What `whoami` shows: never a token.
    package struct Identity: Encodable {
        package var loggedIn: Bool
        package var authorized: Bool
        package var subject: String?
        package var name: String?
        package var email: String?
        package var userId: String?
        package var vehicleId: String?
        package var apiBaseUrl: String?
        package var accessTokenExpires: Date?
        package var notAuthorizedReason: String?

        package init(_ session: PersistedSession?, now: Double) {
            loggedIn = session != nil
            authorized = session?.isAuthorized(now: now) ?? false
            subject = session?.claims?.subject
            name = session?.claims?.name
            email = session?.claims?.email
            userId = session?.account?.userID
            vehicleId = session?.account?.vehicleID
            apiBaseUrl = session?.account?.apiBaseURL
            accessTokenExpires = session?.accessExpiresAt.map { Date(timeIntervalSince1970: $0) }
            notAuthorizedReason = session?.invalidated?.rawValue
        }

        package var text: String {
            guard loggedIn else { return "Not logged in." }
            var line = "\(name ?? subject ?? "someone")\(email.map { " <\($0)>" } ?? "")"
            if let userId { line += ": user \(userId)" }
            if let vehicleId { line += ", vehicle \(vehicleId)" }
            if let notAuthorizedReason { line += "\nThe session is no longer authorized (\(notAuthorizedReason)); run waymark login." }
            return line
        }
    }

    private static func greeting(_ session: SessionManager, prefix: String) async throws(SessionError) -> String {
        let current = try await session.current()
        let identity = Identity(current, now: Date().timeIntervalSince1970)
        return "\(prefix) \(identity.text)."
    }

    /// Runs `body`, cancelling it on Ctrl-C.
    private static func cancellableOnInterrupt<T: Sendable>(_ body: @escaping @Sendable () async throws(SessionError) -> T) async throws(SessionError) -> T {
        let interrupts = SignalSource([SIGINT])
        // The body's result; nil from the watcher, which then cancels the body.
        let result = await withTaskGroup(of: Result<T, SessionError>?.self) { group in
            group.addTask {
                do throws(SessionError) { return .success(try await body()) } catch { return .failure(error) }
            }
            group.addTask {
                for await _ in interrupts.stream { break }
                return nil
            }
            var result: Result<T, SessionError>?
            for await outcome in group {
                if let outcome { result = outcome }
                group.cancelAll()
            }
            return result
        }
        guard let result else { throw .cancelled }
        return try result.get()
    }

    /// The password, read without echo from the terminal, or one line of stdin.
    private static func readPassword(fromStandardInput: Bool) -> String? {
        if fromStandardInput {
            return readLine(strippingNewline: true).flatMap { $0.isEmpty ? nil : $0 }
        }
        let tty = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var saved = termios()
        tcgetattr(tty, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(tty, TCSAFLUSH, &silent)
        defer { tcsetattr(tty, TCSAFLUSH, &saved) }
        _ = "Password: ".withCString { write(tty, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        _ = "\n".withCString { write(tty, $0, 1) }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Calls a method of a running daemon (Reload re-reads the session);
    /// false when no daemon answered.
    @discardableResult
    static func tellDaemon(method: String = "Reload") async -> Bool {
        guard let bus = try? await DBusConnection.system() else { return false }
        defer { bus.close() }
        return (try? await bus.call(destination: ControlInterface.busName, path: ControlInterface.path,
                                    interface: ControlInterface.interface, method: method, arguments: [], timeout: .seconds(2))) != nil
    }
}
