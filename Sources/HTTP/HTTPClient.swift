internal import CCurl
internal import Dispatch

/// HTTP/1.1 and HTTPS through libcurl. Certificate and host-name checks are
/// always on; `caFile` adds a PEM bundle of CAs to trust on top of the
/// system's. Each request runs on a Dispatch queue, off the cooperative pool.
public struct HTTPClient: Sendable {
    public var caFile: String?
    /// Where the system's CA certificates live (Debian's hashed directory).
    static let systemCertificates = "/etc/ssl/certs"

    public init(caFile: String? = nil) {
        self.caFile = caFile
        _ = Self.globalInit
    }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()
    private static let queue = DispatchQueue(label: "waymark.http", attributes: .concurrent)

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let caFile = caFile
        let result: Result<HTTPResponse, HTTPError> = await withCheckedContinuation { continuation in
            Self.queue.async { continuation.resume(returning: Self.perform(request, caFile: caFile)) }
        }
        return try result.get()
    }

    private static func perform(_ request: HTTPRequest, caFile: String?) -> Result<HTTPResponse, HTTPError> {
        let url = request.redactedURL
        guard request.url.hasPrefix("https://") || request.url.hasPrefix("http://") else {
            return .failure(.invalidRequest(url: url, detail: "only http and https are supported"))
        }
        guard let curl = curl_easy_init() else { return .failure(.invalidRequest(url: url, detail: "libcurl could not start")) }
        defer { curl_easy_cleanup(curl) }
        var body = waymark_buffer(data: nil, length: 0, capacity: 0, limit: 64 << 20, dropped: 0)
        var headerBytes = waymark_buffer(data: nil, length: 0, capacity: 0, limit: 1 << 20, dropped: 0)
        defer {
            waymark_buffer_free(&body)
            waymark_buffer_free(&headerBytes)
        }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let milliseconds = Int(request.timeout.components.seconds * 1000 + request.timeout.components.attoseconds / 1_000_000_000_000_000)

        var code = waymark_curl_string(curl, WAYMARK_CURLOPT_URL, request.url)
        func set(_ next: @autoclosure () -> CURLcode) { if code == CURLE_OK { code = next() } }
        set(waymark_curl_string(curl, WAYMARK_CURLOPT_PROTOCOLS_STR, "http,https"))
        set(waymark_curl_long(curl, WAYMARK_CURLOPT_NOSIGNAL, 1))
        set(waymark_curl_long(curl, WAYMARK_CURLOPT_SSL_VERIFYPEER, 1))
        set(waymark_curl_long(curl, WAYMARK_CURLOPT_SSL_VERIFYHOST, 2))
        set(waymark_curl_long(curl, WAYMARK_CURLOPT_TIMEOUT_MS, milliseconds))
        set(waymark_curl_long(curl, WAYMARK_CURLOPT_CONNECTTIMEOUT_MS, min(milliseconds, 10_000)))
        set(waymark_curl_string(curl, WAYMARK_CURLOPT_ACCEPT_ENCODING, ""))
        if let caFile {
            set(waymark_curl_string(curl, WAYMARK_CURLOPT_CAINFO, caFile))
            set(waymark_curl_string(curl, WAYMARK_CURLOPT_CAPATH, systemCertificates))
        }
        set(waymark_curl_string(curl, WAYMARK_CURLOPT_CUSTOMREQUEST, request.method))
        if request.method == "HEAD" { set(waymark_curl_long(curl, WAYMARK_CURLOPT_NOBODY, 1)) }
        for (name, value) in request.headers { headerList = curl_slist_append(headerList, "\(name): \(value)") }
        // An empty Expect stops libcurl from waiting for `100 Continue` on large bodies.
        headerList = curl_slist_append(headerList, "Expect:")
        set(waymark_curl_headers(curl, headerList))
        if let bytes = request.body {
            set(bytes.withUnsafeBytes { waymark_curl_body(curl, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int($0.count)) })
        }
        set(waymark_curl_collect(curl, &body, &headerBytes))
        set(errorText.withUnsafeMutableBufferPointer { waymark_curl_error_buffer(curl, $0.baseAddress) })
        guard code == CURLE_OK else { return .failure(.invalidRequest(url: url, detail: String(cString: curl_easy_strerror(code)))) }

        let outcome = curl_easy_perform(curl)
        let detail = errorText.withUnsafeBufferPointer { buffer in
            let text = String(cString: buffer.baseAddress!)
            return text.isEmpty ? String(cString: curl_easy_strerror(outcome)) : text
        }
        switch outcome {
        case CURLE_OK:
            break
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .failure(.tls(url: url, detail: detail))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timedOut(url: url))
        default:
            return .failure(.connection(url: url, detail: detail))
        }
        let bodyArray = body.data.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: body.length)) } ?? []
        let headerText = headerBytes.data.map { String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: headerBytes.length), as: UTF8.self) } ?? ""
        return .success(HTTPResponse(status: Int(waymark_curl_status(curl)), headers: Self.headers(headerText), body: bodyArray))
    }

    /// Header lines of the last response (after any `100 Continue` or redirects).
    static func headers(_ text: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            if line.hasPrefix("HTTP/") {
                headers = [:]
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: " \t\r")
            }
        }
        return headers
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
