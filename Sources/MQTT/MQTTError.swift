internal import CMosquitto

/// Why the broker could not be reached, refused us, or dropped us; each
/// says what to check.
public enum MQTTError: Error, Equatable, CustomStringConvertible {
    /// A libmosquitto call failed (`MOSQ_ERR_*`), while doing `during`.
    case library(code: Int32, during: String, text: String)
    /// The broker refused the connection with MQTT 5 reason code `reasonCode`.
    case refused(reasonCode: Int32, text: String)
    /// The broker refused a message on `topic` (its PUBACK's reason code).
    case publishRefused(topic: String, reasonCode: Int32, text: String)
    /// A TLS connection to `host` ended before the broker answered.
    case handshake(host: String, text: String)
    case setup(String, Int32)

    init(code: Int32, during: String) {
        self = .library(code: code, during: during, text: String(cString: mosquitto_strerror(code)))
    }

    init(reasonCode: Int32) {
        self = .refused(reasonCode: reasonCode, text: String(cString: mosquitto_reason_string(reasonCode)))
    }

    init(topic: String, reasonCode: Int32) {
        self = .publishRefused(topic: topic, reasonCode: reasonCode, text: String(cString: mosquitto_reason_string(reasonCode)))
    }

    /// The broker's refusal of a message on `topic`, from its PUBACK.
    public static func refusal(on topic: String, reasonCode: Int32) -> MQTTError { MQTTError(topic: topic, reasonCode: reasonCode) }

    public var description: String {
        switch self {
        case .library(let code, let during, let text):
            let fix: String
            switch mosq_err_t(rawValue: code) {
            case MOSQ_ERR_TLS, MOSQ_ERR_TLS_HANDSHAKE:
                fix = "the broker's certificate is not trusted or does not name the host: set [MQTT] CAFile to the CA that signed it"
            case MOSQ_ERR_ERRNO, MOSQ_ERR_NO_CONN, MOSQ_ERR_CONN_LOST, MOSQ_ERR_EAI, MOSQ_ERR_CONN_REFUSED:
                fix = "check [MQTT] Broker and that the broker runs and is reachable"
            case MOSQ_ERR_AUTH, MOSQ_ERR_NOT_SUPPORTED:
                fix = "check [MQTT] Username and PasswordFile"
            default:
                fix = "see the broker's log"
            }
            return "MQTT: \(during) failed: \(text); \(fix)"
        case .refused(let reasonCode, let text):
            let fix = switch reasonCode {
            case 0x86, 0x87, 0x8C: "check [MQTT] Username and PasswordFile"
            case 0x85: "the broker refused [MQTT] ClientId: pick another"
            default: "see the broker's log"
            }
            return "MQTT: the broker refused the connection: \(text) (reason 0x\(String(reasonCode, radix: 16))); \(fix)"
        case .publishRefused(let topic, let reasonCode, let text):
            let fix = reasonCode == 0x87
                ? "the broker's ACL does not let this user publish there: grant it, or change [MQTT] TopicPrefix"
                : "see the broker's log"
            return "MQTT: the broker refused a message on \(topic): \(text) (reason 0x\(String(reasonCode, radix: 16))); \(fix); the samples stay queued"
        case .handshake(let host, let text):
            return "MQTT: the TLS connection to \(host) ended before the broker answered (\(text)); "
                + "if the broker's certificate is not trusted or does not name the host, set [MQTT] CAFile to the CA that signed it; "
                + "if the broker wants a client certificate, set CertFile and KeyFile"
        case .setup(let call, let errno):
            return "MQTT: \(call) failed (errno \(errno))"
        }
    }
}
