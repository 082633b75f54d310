enum DemoError: Error, CustomStringConvertible {
    case failed(String)
    case usage(String)

    var description: String {
        switch self {
        case .failed(let what): what
        case .usage(let what): "usage: waymark-demo [--waymark PATH] [--drive TRACK.gpx] [--out TRIP.geojson] [--report TRIP.html] [--mqtt on]: \(what)"
        }
    }
}
