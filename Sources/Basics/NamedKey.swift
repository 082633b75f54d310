/// A coding key made from its name at run time: for JSON whose keys are
/// data (a sensor's quantities, an object of any members), not a fixed enum.
public struct NamedKey: CodingKey, Sendable, Hashable {
    public var stringValue: String
    public var intValue: Int? { nil }

    public init(_ name: String) { stringValue = name }
    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}
