import Basics
import FoundationEssentials
import Glibc
import Store
import Telemetry
import Vocabulary

extension TripReportPage {
    /// Speed bands of the track's colours, in km/h.
    static let speedBands: [(below: Double, colour: String, label: String)] = [
        (10, "#1565c0", "under 10 km/h"), (30, "#2e7d32", "10–30"), (60, "#ef6c00", "30–60"), (.infinity, "#c62828", "over 60"),
    ]

    /// The map: Leaflet with the track in segments coloured by speed, the
    /// events as markers on it, a scale bar, and the tiles when they load.
    /// The script marks the page (`data-track-points`, `data-tiles-loaded`)
    /// once drawn, for tests.
    var leafletMap: String {
        let points = report.points
        let track = zip(points, summary.speeds).map { point, speed in
            "[\(Self.coordinate(point.lat)),\(Self.coordinate(point.lon)),\(Self.number(speed))]"
        }.joined(separator: ",")
        let markers = mapEvents.map { event in
            "[\(Self.coordinate(event.point.lat)),\(Self.coordinate(event.point.lon)),\"\(event.colour)\",\(Self.javaScriptString(event.label))]"
        }.joined(separator: ",")
        let bands = Self.speedBands.map { "[\($0.below.isFinite ? Self.number($0.below) : "1e9"),\"\($0.colour)\"]" }.joined(separator: ",")
        return """
            <div id="map" role="img" aria-label="track on a map"></div>
            <script>\(map?.script ?? "")</script>
            <script>
            (function () {
              var track = [\(track)], events = [\(markers)], bands = [\(bands)], tiles = \(tiles.map(Self.javaScriptString) ?? "null");
              var root = document.documentElement, map = L.map("map", { preferCanvas: true, attributionControl: tiles !== null });
              root.dataset.tilesLoaded = "0";
              if (tiles !== null) {
                L.tileLayer(tiles, { maxZoom: 19, attribution: "&copy; OpenStreetMap contributors" })
                  .on("tileload", function () { root.dataset.tilesLoaded = String(Number(root.dataset.tilesLoaded) + 1); })
                  .addTo(map);
              }
              L.control.scale({ imperial: false }).addTo(map);
              function colour(speed) { for (var i = 0; i < bands.length; i++) if (speed < bands[i][0]) return bands[i][1]; return bands[bands.length - 1][1]; }
              for (var i = 1; i < track.length; i++) {
                L.polyline([track[i - 1], track[i]], { color: colour(track[i][2]), weight: 5, opacity: 0.9 })
                  .bindTooltip(Math.round(track[i][2]) + " km/h").addTo(map);
              }
              events.forEach(function (e) {
                L.circleMarker([e[0], e[1]], { radius: 7, color: "#222", weight: 2, fillColor: e[2], fillOpacity: 1 }).bindTooltip(e[3]).addTo(map);
              });
              if (track.length > 0) map.fitBounds(L.latLngBounds(track.map(function (p) { return [p[0], p[1]]; })).pad(0.1), { maxZoom: 17 });
              else map.setView([0, 0], 1);
              root.dataset.trackPoints = String(track.length);
              root.dataset.mapEvents = String(events.length);
            })();
            </script>
            """
    }

    /// Trip start and end, requirements missing or lost, and telemetry
    /// gaps, placed at the position nearest their time.
    var mapEvents: [(point: TripPoint, colour: String, label: String)] {
        let points = report.points
        guard !points.isEmpty else { return [] }
        func nearest(_ time: Double) -> TripPoint {
            var low = 0, high = points.count - 1
            while low < high {
                let middle = (low + high) / 2
                if points[middle].time < time { low = middle + 1 } else { high = middle }
            }
            return low > 0 && abs(points[low - 1].time - time) < abs(points[low].time - time) ? points[low - 1] : points[low]
        }
        let (from, to) = span
        var events: [(TripPoint, String, String)] = [(points[0], "#2e7d32", "trip start \(Self.clock(report.trip.start.timeIntervalSince1970))")]
        if let end = report.trip.end?.timeIntervalSince1970 { events.append((points[points.count - 1], "#c62828", "trip end \(Self.clock(end))")) }
        for event in report.events {
            let time = event.time.timeIntervalSince1970
            guard time >= from, time <= to else { continue }
            switch event.kind {
            case EventKind.requirementsMissing.rawValue, EventKind.requirementsLostWhileRunning.rawValue, EventKind.telemetryGapDetected.rawValue:
                events.append((nearest(time), "#fdd835", "\(event.kind) \(Self.clock(time))"))
            default: break
            }
        }
        return events
    }

    /// Speed on the timelines' axis, from the positions.
    var speed: String {
        let height = 140.0
        let speeds = summary.speeds
        let high = max(speeds.max() ?? 0, 10)
        func y(_ value: Double) -> Double { 10 + (high - value) / high * (height - 24) }
        let path = zip(report.points, speeds).map { "\(Self.number(x($0.time))),\(Self.number(y($1)))" }.joined(separator: " ")
        return """
            <svg id="speed" width="\(Int(Self.width))" height="\(Int(height))" role="img" aria-label="speed">
            <polyline id="speed-path" data-points="\(speeds.count)" points="\(path)"/>
            <text class="axis" x="4" y="\(Self.number(y(high) + 4))">\(Int(high.rounded())) km/h</text><text class="axis" x="4" y="\(Self.number(y(0)))">0</text>
            </svg>
            """
    }

    /// A scale bar for the SVG track: a round length near a fifth of its width.
    static func scaleBar(metresPerPixel: Double, width: Double, height: Double) -> String {
        guard metresPerPixel.isFinite, metresPerPixel > 0 else { return "" }
        let target = metresPerPixel * width / 5
        let magnitude = pow(10, (log10(target)).rounded(.down))
        let length = [1.0, 2, 5, 10].map { $0 * magnitude }.last { $0 <= target } ?? magnitude
        let pixels = length / metresPerPixel
        let label = length >= 1000 ? "\(number(length / 1000)) km" : "\(Int(length)) m"
        return #"<g id="scale-bar"><line x1="12" y1="\#(number(height - 12))" x2="\#(number(12 + pixels))" y2="\#(number(height - 12))" stroke="black" stroke-width="3"/><text class="axis" x="12" y="\#(number(height - 18))">\#(label)</text></g>"#
    }

    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        return String((value * 1e6).rounded() / 1e6)
    }

    /// A JavaScript string literal that cannot end its script element.
    static func javaScriptString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension TripReportPage {
    /// Satellites used and the horizontal error estimate, where the receiver gave them.
    var fixQuality: String {
        let height = 120.0
        let series: [(id: String, label: String, values: [(Double, Double)])] = [
            ("satellites-path", "satellites used", report.points.compactMap { point in point.satellites.map { (point.time, Double($0)) } }),
            ("eph-path", "horizontal error (m)", report.points.compactMap { point in point.eph.map { (point.time, $0) } }),
        ].filter { !$0.values.isEmpty }
        guard !series.isEmpty else { return "<p>The receiver gave no satellite count or error estimate.</p>" }
        return series.map { series in
            let values = series.values.map(\.1)
            let (low, high) = (min(values.min()!, 0), max(values.max()!, 1))
            func y(_ value: Double) -> Double { 10 + (high - value) / (high - low) * (height - 24) }
            let path = series.values.map { "\(Self.number(x($0.0))),\(Self.number(y($0.1)))" }.joined(separator: " ")
            return """
                <figure><figcaption>\(series.label), \(Self.number(values.min()!)) to \(Self.number(values.max()!))</figcaption>
                <svg class="quality" width="\(Int(Self.width))" height="\(Int(height))"><polyline id="\(series.id)" class="sensor-path" data-points="\(series.values.count)" points="\(path)"/></svg></figure>
                """
        }.joined()
    }

    /// Each position and reading of the trip at its time: its sample
    /// acknowledged by the backend (green) or still queued (grey).
    var uploadTimeline: String {
        let height = 36.0
        let samples = (report.points.compactMap { point in point.seq.map { (point.time, $0) } }
            + report.readings.compactMap { reading in reading.seq.map { (reading.time, $0) } })
        let queued = samples.filter { report.queuedSeqs.contains($0.1) }.count
        let ticks = samples.map { time, seq in
            let x = Self.number(x(time))
            return #"<line x1="\#(x)" x2="\#(x)" y1="6" y2="\#(Int(height) - 6)" stroke="\#(report.queuedSeqs.contains(seq) ? "gray" : "green")"/>"#
        }.joined()
        return """
            <svg id="uploads-timeline" width="\(Int(Self.width))" height="\(Int(height))" role="img" aria-label="uploads" data-queued="\(queued)" data-acknowledged="\(samples.count - queued)">\(ticks)</svg>
            <p class="legend"><span style="background:green"></span>acknowledged<span style="background:gray"></span>queued</p>
            """
    }
}
