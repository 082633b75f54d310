internal import Basics
internal import HTTP
internal import FoundationEssentials

/// The backend's acknowledgement of a batch: a JSON body `{"accepted": N}`.
struct Acknowledgement: Decodable {
    /// How many samples the backend accepted.
    var accepted: Int

    /// Nil for any other body.
    init?(_ response: HTTPResponse) {
        guard let decoded = try? OutsideJSON.decode(Acknowledgement.self, from: response.body) else { return nil }
        self = decoded
    }
}
