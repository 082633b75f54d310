import DBus
import Radio

extension MonitorPattern {
    /// `(yyay)`: start position, AD type, content, in that order.
    var value: DBusValue { .structure([.byte(offset), .byte(adType), .bytes(content)]) }
}
