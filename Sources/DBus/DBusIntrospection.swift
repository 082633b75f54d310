internal import Basics

/// Introspection XML for an exported object.
enum DBusIntrospection {
    static func xml(for object: DBusObject) -> String {
        var xml = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
            <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
            <method name="Set"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="in"/></method>
            <signal name="PropertiesChanged"><arg type="s"/><arg type="a{sv}"/><arg type="as"/></signal>
          </interface>

        """
        for interface in object.interfaces {
            xml += "  <interface name=\"\(interface.name)\">\n"
            for method in interface.methods {
                xml += "    <method name=\"\(method.name)\">"
                xml += args(method.input, direction: "in") + args(method.output, direction: "out")
                xml += "</method>\n"
            }
            for property in interface.properties {
                let access = property.set == nil ? "read" : "readwrite"
                xml += "    <property name=\"\(property.name)\" type=\"\(property.signature.markupEscaped)\" access=\"\(access)\"/>\n"
            }
            for signal in interface.signals {
                xml += "    <signal name=\"\(signal.name)\">" + args(signal.signature, direction: nil) + "</signal>\n"
            }
            xml += "  </interface>\n"
        }
        return xml + "</node>\n"
    }

    private static func args(_ signature: String, direction: String?) -> String {
        DBusSignature.split(signature).map { type in
            let dir = direction.map { " direction=\"\($0)\"" } ?? ""
            return "<arg type=\"\(type.markupEscaped)\"\(dir)/>"
        }.joined()
    }
}
