import Foundation

/// A hostile identity provider (`Templates/oidc_fault_proxy.py`): a proxy in
/// front of a real glewlwyd whose answers a test rewrites, delays and counts.
public final class OIDCFaultProxy: @unchecked Sendable {
    public let port: Int
    public let process: ChildProcess
    public var issuer: String { "http://127.0.0.1:\(port)/api/oidc" }

    /// Starts glewlwyd with this proxy's address as its issuer, then the proxy.
    public static func inFrontOfGlewlwyd(
        directory: TemporaryDirectory, accessTokenSeconds: Int = 3600, oneUseRefresh: Bool = false
    ) throws -> (Glewlwyd, OIDCFaultProxy) {
        let port = try FreePort.tcp()
        let provider = try Glewlwyd(directory: directory, accessTokenSeconds: accessTokenSeconds, oneUseRefresh: oneUseRefresh,
                                    issuer: "http://127.0.0.1:\(port)/api/oidc")
        return (provider, try OIDCFaultProxy(directory: directory, port: port, upstream: provider.port))
    }

    init(directory: TemporaryDirectory, port: Int, upstream: Int) throws {
        self.port = port
        process = try ChildProcess("/usr/bin/python3", [PeerTemplates.path("oidc_fault_proxy.py"), String(port), String(upstream)],
                                   aptPackage: "python3", logPath: directory.file("oidc-proxy.log"))
        try FreePort.waitForListener(port: port, process: process)
    }

    deinit { stop() }

    public func stop() { process.stop() }

    /// Replaces the faults (see the script's header).
    public func setFaults(_ json: String) throws {
        _ = try FreePort.exchange(port: port, "POST", "/_control/faults", Data(json.utf8))
    }

    /// Token requests seen, by grant type.
    public func counts() throws -> [String: Int] {
        try JSONDecoder().decode([String: Int].self, from: try FreePort.exchange(port: port, "GET", "/_control/counts"))
    }

    /// The last token answer as glewlwyd sent it, as JSON.
    public func lastTokenAnswer() throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: try FreePort.exchange(port: port, "GET", "/_control/last")) as? [String: Any]) ?? [:]
    }
}
