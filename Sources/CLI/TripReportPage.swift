import Basics
import Command
import FoundationEssentials
import Glibc
import Store
import Telemetry
import Vocabulary

/// The trip report as one self-contained HTML file: the map through Leaflet
/// inlined from Debian's libjs-leaflet (or, without it, the track as SVG),
/// the timelines as inline SVG on one time axis, CSS and a little script.
/// Only the map's tiles come from the network, when there is one: offline
/// the track is drawn on its own, with a scale bar. Element ids
/// (`track-path`, `rssi-path`, `speed-path`) and the data attributes the
/// map's script sets are stable for tests.
struct TripReportPage {
    let report: TripReport
    /// When the report was written, for its footer.
    let written: Double
    /// Leaflet, when installed.
    var map: MapAssets?
    /// The tiles' URL template; nil for none.
    var tiles: String?
    /// The time axis every timeline shares (`Self.span(of:)`), and the
    /// summary's figures and speeds, each worked out once.
    let span: (from: Double, to: Double)
    let summary: TripSummary

    init(report: TripReport, written: Double, map: MapAssets? = nil, tiles: String? = nil) {
        (self.report, self.written, self.map, self.tiles) = (report, written, map, tiles)
        span = Self.span(of: report)
        summary = TripSummary(report)
    }

    static let width = 800.0

    var html: String {
        let trip = report.trip
        let start = trip.start.timeIntervalSince1970
        let end = trip.end?.timeIntervalSince1970
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Waymark trip \(trip.id.rawValue.markupEscaped)</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 16px; color: #222; background: #fff; }
            h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 20px 0 6px; }
            .facts { color: #555; } figure { margin: 0; } svg { background: #f7f7f4; border: 1px solid #ddd; display: block; }
            #track-path { fill: none; stroke: #1565c0; stroke-width: 3; stroke-linejoin: round; }
            #rssi-path, .sensor-path { fill: none; stroke: #6a1b9a; stroke-width: 2; }
            .trip-bound { stroke: #2e7d32; stroke-width: 2; } .gap { fill: #ef9a9a; opacity: .5; }
            #lost-timeout { fill: #ffe082; opacity: .6; } .requirement { stroke: #c62828; stroke-dasharray: 4 3; }
            .axis { fill: #666; font-size: 11px; } table { border-collapse: collapse; } td, th { border-bottom: 1px solid #eee; padding: 3px 8px; text-align: left; }
            #speed-path { fill: none; stroke: #ef6c00; stroke-width: 2; } .unheard { fill: #90a4ae; opacity: .35; }
            #map { width: \(Int(Self.width))px; height: 480px; border: 1px solid #ddd; background: #f7f7f4; }
            .legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
            </style>\(map.map { "<style>\($0.style)</style>" } ?? "")</head><body>
            <h1>Trip \(trip.id.rawValue.markupEscaped)</h1>
            <p class="facts">\(Self.clock(start)) to \(end.map(Self.clock) ?? "still open")\(trip.endReason.map { " · ended: " + $0.markupEscaped } ?? "")</p>
            <p id="summary"\(report.points.first.map { #" data-fixes="\#($0.time),\#(report.points.last!.time)""# } ?? "")>\(summary.line.markupEscaped)</p>
            <h2>Track</h2>
            \(map == nil ? track : leafletMap)
            <p class="legend">Speed:\(Self.speedBands.map { #"<span style="background:\#($0.colour)"></span>\#($0.label)"# }.joined())</p>
            <h2>Speed</h2>
            \(speed)
            <h2>Vehicle beacon RSSI</h2>
            \(rssi)
            \(sensors)
            <h2>Fix quality</h2>
            \(fixQuality)
            <h2>Uploads</h2>
            \(uploadTimeline)
            <h2>Events</h2>
            \(events)
            <h2>Samples</h2>
            \(samples)
            <p class="facts">Written by waymark \(Waymark.version) at \(CivilTime.iso8601(written)).</p>
            <script>
            // Where the track landed on the page, for anyone checking a screenshot of it.
            addEventListener("load", function () {
              var box = document.getElementById("\(map == nil ? "track" : "map")").getBoundingClientRect();
              document.documentElement.dataset.trackBox = [box.left, box.top, box.width, box.height].map(Math.round).join(",");
            });
            </script>
            </body></html>

            """
    }

    // MARK: track

    var track: String {
        let points = report.points
        let (width, height, pad) = (Self.width, 480.0, 24.0)
        guard let first = points.first else {
            return #"<svg id="track" width="\#(Int(width))" height="60"><polyline id="track-path" data-points="0" points=""/><text class="axis" x="12" y="34">No fixes were recorded in this trip.</text></svg>"#
        }
        let lats = points.map(\.lat), lons = points.map(\.lon)
        let (minLat, maxLat, minLon, maxLon) = (lats.min()!, lats.max()!, lons.min()!, lons.max()!)
        // Equirectangular, shrunk in longitude by the cosine of the middle latitude: true shape at a city's scale.
        let shrink = cos((minLat + maxLat) / 2 * .pi / 180)
        let spanX = max((maxLon - minLon) * shrink, 1e-9), spanY = max(maxLat - minLat, 1e-9)
        let scale = min((width - 2 * pad) / spanX, (height - 2 * pad) / spanY)
        func xy(_ point: TripPoint) -> (Double, Double) {
            (pad + (point.lon - minLon) * shrink * scale, height - pad - (point.lat - minLat) * scale)
        }
        let path = points.map { let (x, y) = xy($0); return "\(Self.number(x)),\(Self.number(y))" }.joined(separator: " ")
        let (sx, sy) = xy(first), (ex, ey) = xy(points.last!)
        return """
            <svg id="track" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="track">
            <polyline id="track-path" data-points="\(points.count)" points="\(path)"/>
            <circle id="track-start" cx="\(Self.number(sx))" cy="\(Self.number(sy))" r="7" fill="#2e7d32"><title>start \(Self.clock(first.time))</title></circle>
            <rect id="track-end" x="\(Self.number(ex - 6))" y="\(Self.number(ey - 6))" width="12" height="12" fill="#c62828"><title>end \(Self.clock(points.last!.time))</title></rect>
            <text class="axis" x="8" y="16">\(Self.distance(report.trip.distanceMeters)), \(points.count) fixes</text>
            \(Self.scaleBar(metresPerPixel: 111_194.9 / scale, width: width, height: height))
            </svg>
            """
    }

    // MARK: timelines

    /// The time axis every timeline shares: from the trip's start (or its
    /// first reading) to its end plus the beacon-lost timeout.
    static func span(of report: TripReport) -> (from: Double, to: Double) {
        let start = report.trip.start.timeIntervalSince1970
        let times = report.readings.map(\.time) + report.points.map(\.time)
        let from = min(start, times.min() ?? start)
        let lastBeacon = report.readings.filter { $0.source == "beacon" }.map(\.time).max()
        let to = max([report.trip.end?.timeIntervalSince1970, times.max(), lastBeacon.map { $0 + report.beaconLostTimeout }].compactMap { $0 }.max() ?? start + 1, from + 1)
        return (from, to)
    }

    func x(_ time: Double) -> Double {
        let (from, to) = span
        return 40 + (time - from) / (to - from) * (Self.width - 56)
    }

    var rssi: String {
        let beacon = report.readings.filter { $0.source == "beacon" && $0.quantity == "rssi" }
        let height = 220.0
        let values = beacon.map(\.value)
        let (low, high) = (min(values.min() ?? -100, -100), max(values.max() ?? -30, -30))
        func y(_ value: Double) -> Double { 12 + (high - value) / (high - low) * (height - 36) }
        var marks = ""
        let start = report.trip.start.timeIntervalSince1970
        marks += #"<line class="trip-bound" id="trip-start" x1="\#(Self.number(x(start)))" x2="\#(Self.number(x(start)))" y1="0" y2="\#(Int(height))"><title>trip start \#(Self.clock(start))</title></line>"#
        if let end = report.trip.end?.timeIntervalSince1970 {
            marks += #"<line class="trip-bound" id="trip-end" x1="\#(Self.number(x(end)))" x2="\#(Self.number(x(end)))" y1="0" y2="\#(Int(height))"><title>trip end \#(Self.clock(end))</title></line>"#
        }
        for period in summary.unheard {
            let (x0, x1) = (x(period.from), x(period.to))
            marks += #"<rect class="unheard" x="\#(Self.number(x0))" y="0" width="\#(Self.number(max(1, x1 - x0)))" height="\#(Int(height))"><title>beacon unheard \#(Self.clock(period.from)) to \#(Self.clock(period.to))</title></rect>"#
        }
        if let last = beacon.last?.time {
            let (x0, x1) = (x(last), x(last + report.beaconLostTimeout))
            marks += #"<rect id="lost-timeout" x="\#(Self.number(x0))" y="0" width="\#(Self.number(max(1, x1 - x0)))" height="\#(Int(height))"><title>BeaconLostTimeout (\#(Self.duration(report.beaconLostTimeout))) after the last sighting</title></rect>"#
        }
        let (from, to) = span
        for event in report.events {
            let detail = event.event?.detail ?? [:]
            if event.kind == EventKind.telemetryGapDetected.rawValue, let gapFrom = detail[.from].flatMap(CivilTime.parseISO8601), let gapTo = detail[.to].flatMap(CivilTime.parseISO8601),
               gapTo >= from, gapFrom <= to {
                let (x0, x1) = (x(max(gapFrom, from)), x(min(gapTo, to)))
                marks += #"<rect class="gap" x="\#(Self.number(x0))" y="0" width="\#(Self.number(max(1, x1 - x0)))" height="\#(Int(height))"><title>telemetry gap \#(Self.clock(gapFrom)) to \#(Self.clock(gapTo))</title></rect>"#
            } else if event.kind.hasPrefix("requirements"), case let time = event.time.timeIntervalSince1970, time >= from, time <= to {
                marks += #"<line class="requirement" x1="\#(Self.number(x(time)))" x2="\#(Self.number(x(time)))" y1="0" y2="\#(Int(height))"><title>\#(event.kind.markupEscaped) \#((detail[.missing] ?? "").markupEscaped)</title></line>"#
            }
        }
        let path = beacon.map { "\(Self.number(x($0.time))),\(Self.number(y($0.value)))" }.joined(separator: " ")
        return """
            <svg id="rssi" width="\(Int(Self.width))" height="\(Int(height))" role="img" aria-label="beacon RSSI">
            \(marks)
            <polyline id="rssi-path" data-points="\(beacon.count)" points="\(path)"/>
            <text class="axis" x="4" y="\(Self.number(y(high) + 4))">\(Int(high))</text><text class="axis" x="4" y="\(Self.number(y(low)))">\(Int(low)) dBm</text>
            <text class="axis" x="40" y="\(Int(height) - 4)">\(Self.clock(from))</text><text class="axis" x="\(Int(Self.width) - 150)" y="\(Int(height) - 4)">\(Self.clock(to))</text>
            </svg>
            """
    }

    var sensors: String {
        let series = Dictionary(grouping: report.readings.filter { $0.source != "beacon" }) { "\($0.source) \($0.quantity)" }
        guard !series.isEmpty else { return "" }
        var html = "<h2>Sensors</h2>"
        let height = 120.0
        for key in series.keys.sorted() {
            let readings = series[key]!
            let (source, quantity) = (readings[0].source, readings[0].quantity)
            let values = readings.map(\.value)
            let (low, high) = (values.min()!, max(values.max()!, values.min()! + 1e-9))
            func y(_ value: Double) -> Double { 10 + (high - value) / (high - low) * (height - 24) }
            let path = readings.map { "\(Self.number(x($0.time))),\(Self.number(y($0.value)))" }.joined(separator: " ")
            let label = report.sensorLabels[SensorID(rawValue: source)].map { "\($0) (\(source))" } ?? source
            html += """
                <figure><figcaption>\(label.markupEscaped): \(quantity.markupEscaped), \(Self.number(low)) to \(Self.number(high))</figcaption>
                <svg class="sensor" width="\(Int(Self.width))" height="\(Int(height))"><polyline class="sensor-path" data-points="\(readings.count)" points="\(path)"/></svg></figure>
                """
        }
        return html
    }

    // MARK: tables

    var events: String {
        guard !report.events.isEmpty else { return "<p>No events.</p>" }
        let rows = report.events.map { event in
            let detail = (event.event?.members ?? []).map { "\($0.name)=\($0.value)" }.joined(separator: " ")
            return "<tr><td>\(Self.clock(event.time.timeIntervalSince1970))</td><td>\(event.kind.markupEscaped)</td><td>\(detail.markupEscaped)</td></tr>"
        }
        return #"<table id="events"><tr><th>time</th><th>event</th><th>detail</th></tr>"# + rows.joined() + "</table>"
    }

    var samples: String {
        let uploads = report.uploads
        let quality = report.timeSources.sorted { $0.key < $1.key }.map { "\($0.key.markupEscaped) \($0.value)" }.joined(separator: ", ")
        return """
            <table id="uploads"><tr><th>recorded</th><th>queued</th><th>acknowledged</th><th>dead letter</th><th>dropped</th></tr>
            <tr><td>\(uploads.recorded)</td><td>\(uploads.queued)</td><td>\(uploads.acknowledged)</td><td>\(uploads.deadLettered)</td><td>\(uploads.dropped)</td></tr></table>
            <p>Time of the positions by source: \(quality.isEmpty ? "none" : quality).</p>
            """
    }

    // MARK: text

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        return String((value * 10).rounded() / 10)
    }

    static func clock(_ time: Double) -> String { String(CivilTime.iso8601(time.rounded()).map { $0 == "T" ? " " : $0 }) }

    static func duration(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded())
        return total >= 3600 ? "\(total / 3600) h \(total % 3600 / 60) min" : total >= 60 ? "\(total / 60) min \(total % 60) s" : "\(total) s"
    }

    static func distance(_ meters: Double) -> String {
        meters >= 1000 ? "\(number(meters / 1000)) km" : "\(Int(meters.rounded())) m"
    }
}
