import Foundation

/// A place: latitude and longitude in decimal degrees (WGS 84), with an altitude and an accuracy
/// in metres when the device gave them.
public struct GeoPoint: Hashable, Sendable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var accuracy: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil, accuracy: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
    }

    /// Why the point is not a place on Earth, or nil.
    public var problem: String? {
        guard [latitude, longitude, altitude ?? 0, accuracy ?? 0].allSatisfy(\.isFinite) else {
            return "the coordinates are not finite numbers"
        }
        guard (-90...90).contains(latitude) else { return "the latitude is not between -90 and 90" }
        guard (-180...180).contains(longitude) else { return "the longitude is not between -180 and 180" }
        if let accuracy, accuracy < 0 { return "the accuracy is negative" }
        return nil
    }

    /// `31.9539 35.9106 800 5`: latitude, longitude, then altitude and accuracy when known (ODK's form).
    public var description: String {
        ([latitude, longitude] + [altitude, accuracy].prefix { $0 != nil }.map { $0! }).map(Self.number).joined(separator: " ")
    }

    static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension GeoPoint {
    /// A geopoint's parts as exports lay them out: one number column each.
    public static let fields = [
        CompoundField(key: "latitude", type: .decimal(ClosedBounds(lower: -90, upper: 90)), isRequired: true),
        CompoundField(key: "longitude", type: .decimal(ClosedBounds(lower: -180, upper: 180)), isRequired: true),
        CompoundField(key: "altitude", type: .decimal(.unbounded), isRequired: false),
        CompoundField(key: "accuracy", type: .decimal(ClosedBounds(lower: 0)), isRequired: false),
    ]

    /// One of ``parts`` by name, without making the others.
    public func part(_ name: String) -> Answer? {
        switch name {
        case "latitude": .decimal(latitude)
        case "longitude": .decimal(longitude)
        case "altitude": altitude.map(Answer.decimal)
        case "accuracy": accuracy.map(Answer.decimal)
        default: nil
        }
    }

    /// The point as named decimal parts (those it has).
    public var parts: [String: Answer] {
        var parts: [String: Answer] = ["latitude": .decimal(latitude), "longitude": .decimal(longitude)]
        if let altitude { parts["altitude"] = .decimal(altitude) }
        if let accuracy { parts["accuracy"] = .decimal(accuracy) }
        return parts
    }

    /// Reads a point typed or pasted in the usual forms: `31.9539, 35.9106`, ODK's
    /// `31.9539 35.9106 800 5` (altitude, accuracy), `geo:31.9539,35.9106`, a map link holding
    /// `@31.9539,35.9106` or `q=31.9539,35.9106`, or degrees, minutes and seconds with their
    /// hemispheres (`31°57'14"N 35°54'38"E`). Nil when it is none of these or not a place.
    public init?(parsing raw: String) {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if let point = Self.fromLink(text) ?? Self.fromNumbers(text) ?? Self.fromDegrees(text), point.problem == nil {
            self = point
        } else {
            return nil
        }
    }

    private static func fromNumbers(_ text: String) -> GeoPoint? {
        var body = Substring(text)
        let geo = body.lowercased().hasPrefix("geo:")
        if geo { body = body.dropFirst(4) }
        if let semicolon = body.firstIndex(of: ";") { body = body[..<semicolon] }  // geo:…;u=5
        // Commas separate, or blanks do (ODK's `lat lon alt acc`), never both: `31,95 35,91` is
        // decimal commas, not four numbers, and is refused rather than misread.
        let parts =
            body.contains(",")
            ? body.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            : body.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        // With commas: latitude and longitude (and altitude in a geo: URI); `31,95, 35,91` is refused.
        guard body.contains(",") ? (2...(geo ? 3 : 2)).contains(parts.count) : (2...4).contains(parts.count) else { return nil }
        var numbers: [Double] = []
        for part in parts {
            guard let number = Double(part), number.isFinite, !part.contains(where: \.isLetter) else { return nil }
            numbers.append(number)
        }
        return GeoPoint(
            latitude: numbers[0], longitude: numbers[1], altitude: numbers.count > 2 ? numbers[2] : nil,
            accuracy: numbers.count > 3 ? numbers[3] : nil)
    }

    /// `https://maps.google.com/?q=31.95,35.91`, `https://www.openstreetmap.org/#map=16/31.95/35.91`, `…/@31.95,35.91,15z`.
    private static func fromLink(_ text: String) -> GeoPoint? {
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else { return nil }
        // A pasted link may hold spaces or Arabic place names: encode what a URL may not hold.
        guard
            let url = URLComponents(string: text)
                ?? text.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed.union(CharacterSet(charactersIn: "#%"))).flatMap(
                    URLComponents.init(string:))
        else { return nil }
        /// `31.95,35.91`: exactly two numbers in a query value; the path's `@31.95,35.91,15z` has a zoom after them.
        func pair(_ value: String?, zoomAfter: Bool = false) -> GeoPoint? {
            guard let parts = value?.removingPercentEncoding?.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }),
                zoomAfter ? parts.count >= 2 : parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1])
            else { return nil }
            return GeoPoint(latitude: lat, longitude: lon)
        }
        let items = url.queryItems ?? []
        func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
        // OpenStreetMap's ?mlat=…&mlon=…; Google's ?q= or ?query=; Apple's ?ll=.
        if let lat = item("mlat").flatMap(Double.init), let lon = item("mlon").flatMap(Double.init) {
            return GeoPoint(latitude: lat, longitude: lon)
        }
        for name in ["q", "query", "ll", "destination"] { if let point = pair(item(name)) { return point } }
        // Google's /@31.95,35.91,15z in the path.
        if let at = url.path.range(of: "/@") { return pair(String(url.path[at.upperBound...].prefix { $0 != "/" }), zoomAfter: true) }
        if let range = text.range(of: "map=") {
            let parts = text[range.upperBound...].split(separator: "/").prefix(3).map(String.init)
            if parts.count == 3, let lat = Double(parts[1]), let lon = Double(parts[2].prefix { $0.isNumber || $0 == "." || $0 == "-" }) {
                return GeoPoint(latitude: lat, longitude: lon)
            }
        }
        return nil
    }

    /// `31°57'14.2"N 35°54'38"E`, `31 57 14 N, 35 54 38 E`, `N31°57.237' E35°54.633'`.
    private static func fromDegrees(_ text: String) -> GeoPoint? {
        let upper = text.uppercased()
        guard upper.contains(where: { "NSEW".contains($0) }) else { return nil }
        var values: [Double] = []
        var hemispheres: [Character] = []
        var current: [Double] = []
        var number = ""
        func flushNumber() -> Bool {
            guard !number.isEmpty else { return true }
            guard let value = Double(number) else { return false }
            current.append(value)
            number = ""
            return true
        }
        func flushValue() -> Bool {
            guard flushNumber(), !current.isEmpty, current.count <= 3 else { return current.isEmpty }
            var degrees = current[0]
            if current.count > 1 { degrees += current[1] / 60 }
            if current.count > 2 { degrees += current[2] / 3600 }
            values.append(degrees)
            current = []
            return true
        }
        for character in upper {
            if character.isNumber || character == "." {
                number.append(character)
            } else if "NSEW".contains(character) {
                hemispheres.append(character)
                if !current.isEmpty || !number.isEmpty { guard flushValue() else { return nil } }
            } else if "°'\"′″ ".contains(character) || character == "º" {
                guard flushNumber() else { return nil }
            } else if character == "," {
                guard flushValue() else { return nil }
            } else {
                return nil
            }
        }
        guard flushValue(), values.count == 2, hemispheres.count == 2 else { return nil }
        var latitude: Double?, longitude: Double?
        for (value, hemisphere) in zip(values, hemispheres) {
            switch hemisphere {
            case "N": latitude = value
            case "S": latitude = -value
            case "E": longitude = value
            default: longitude = -value
            }
        }
        guard let latitude, let longitude else { return nil }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }
}
