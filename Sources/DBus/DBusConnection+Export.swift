internal import CDBus
import Synchronization

extension DBusConnection {
    /// Exports `object` at `path` (`dbus_connection_try_register_object_path`).
    public func export(_ object: DBusObject, at path: String) throws(DBusError) {
        guard DBusMarshal.isValidObjectPath(path) else { throw .invalidArgument("invalid object path \(path.debugDescription)") }
        let result: Result<Void, DBusError> = lock.withLock { _ in
            guard isOpen else { return .failure(.disconnected) }
            if objects[path] == nil {
                var error = LibDBusError()
                guard dbus_connection_try_register_object_path(
                    raw, path, DBusConnection.objectVTable, Unmanaged.passUnretained(self).toOpaque(), &error.raw) != 0
                else { return .failure(.remote(error.name, message: error.message)) }
            }
            objects[path] = object
            return .success(())
        }
        try result.get()
    }

    public func unexport(path: String) {
        lock.withLock { _ in
            guard objects.removeValue(forKey: path) != nil, isOpen else { return }
            dbus_connection_unregister_object_path(raw, path)
        }
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged`.
    public func emitPropertiesChanged(path: String, interface: String, changed: [String: DBusValue]) throws(DBusError) {
        try emit(
            path: path, interface: "org.freedesktop.DBus.Properties", name: "PropertiesChanged",
            arguments: [.string(interface), .vardict(changed), .array(element: "s", [])])
    }

    // Written once here and only read by libdbus afterwards.
    nonisolated(unsafe) private static let objectVTable: UnsafeMutablePointer<DBusObjectPathVTable> = {
        let table = UnsafeMutablePointer<DBusObjectPathVTable>.allocate(capacity: 1)
        table.initialize(to: DBusObjectPathVTable())
        // Runs inside `dbus_connection_dispatch`, so under the lock.
        table.pointee.message_function = { _, message, context in
            guard let message, let context else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let connection = Unmanaged<DBusConnection>.fromOpaque(context).takeUnretainedValue()
            let call = DBusMessage(retaining: message)
            guard call.kind == .methodCall, let path = call.path, let object = connection.objects[path] else {
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            }
            if let method = object.method(call.member, of: call.interface), let onLoop = method.onLoop {
                // After the dispatch, in order with the signals read with it.
                connection.deliveries.append(({ call in
                    if call.signature == method.input { onLoop(call) }
                    if dbus_message_get_no_reply(call.raw) == 0, let reply = try? call.makeReturn([]) { try? connection.send(reply) }
                }, call))
                return DBUS_HANDLER_RESULT_HANDLED
            }
            // Called from libdbus's dispatch, which cannot wait: each call is
            // answered in a task of its own, as a server answers requests.
            Task { await connection.answer(call, for: object, at: path) }
            return DBUS_HANDLER_RESULT_HANDLED
        }
        return table
    }()

    private func answer(_ call: DBusMessage, for object: DBusObject, at path: String) async {
        let reply: DBusMessage?
        do {
            reply = try call.makeReturn(try await handle(call, for: object, at: path))
        } catch let error as DBusError {
            reply = call.makeError(error.name ?? .failed, error.description)
        } catch {
            reply = call.makeError(.failed, String(describing: error))
        }
        guard let reply, dbus_message_get_no_reply(call.raw) == 0 else { return }
        try? send(reply)
    }

    private func handle(_ call: DBusMessage, for object: DBusObject, at path: String) async throws -> [DBusValue] {
        let member = call.member ?? ""
        let arguments = try call.arguments()
        switch (call.interface, member) {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            return [.string(DBusIntrospection.xml(for: object))]
        case ("org.freedesktop.DBus.Properties", "Get"):
            guard call.signature == "ss", let property = try property(arguments, in: object) else {
                throw DBusError.remote(.invalidArgs, message: "Get takes (ss)")
            }
            return [.variant(await property.get())]
        case ("org.freedesktop.DBus.Properties", "GetAll"):
            guard call.signature == "s", let name = arguments[0].string else {
                throw DBusError.remote(.invalidArgs, message: "GetAll takes (s)")
            }
            guard let interface = object.interface(named: name) else {
                throw DBusError.remote(.unknownInterface, message: "no interface \(name) at \(path)")
            }
            var values: [String: DBusValue] = [:]
            for property in interface.properties { values[property.name] = await property.get() }
            return [.vardict(values)]
        case ("org.freedesktop.DBus.Properties", "Set"):
            guard call.signature == "ssv", let property = try property(arguments, in: object),
                  case .variant(let value) = arguments[2] else {
                throw DBusError.remote(.invalidArgs, message: "Set takes (ssv)")
            }
            guard let set = property.set else {
                throw DBusError.remote(.propertyReadOnly, message: "\(property.name) is read-only")
            }
            guard value.signature == property.signature else {
                throw DBusError.remote(.invalidArgs, message: "\(property.name) has type \(property.signature), not \(value.signature)")
            }
            try await set(value)
            try emitPropertiesChanged(path: path, interface: arguments[0].string ?? "", changed: [property.name: await property.get()])
            return []
        default:
            guard call.interface.map({ object.interface(named: $0) != nil }) ?? !object.interfaces.isEmpty else {
                throw DBusError.remote(.unknownInterface, message: "no interface \(call.interface ?? "") at \(path)")
            }
            guard let method = object.method(member, of: call.interface) else {
                throw DBusError.remote(.unknownMethod, message: "no method \(member) at \(path)")
            }
            guard call.signature == method.input else {
                throw DBusError.remote(.invalidArgs, message: "\(member) takes (\(method.input)), not (\(call.signature))")
            }
            if let callerHandler = method.callerHandler {
                // The bus stamps every message it routes with its sender.
                guard let caller = call.sender else { throw DBusError.remote(.accessDenied, message: "\(member) needs a caller on a bus") }
                return try await callerHandler(caller, arguments)
            }
            return try await method.handler(arguments)
        }
    }

    private func property(_ arguments: [DBusValue], in object: DBusObject) throws(DBusError) -> DBusProperty? {
        guard let interfaceName = arguments.first?.string, let name = arguments.dropFirst().first?.string else { return nil }
        guard let property = object.interface(named: interfaceName)?.properties.first(where: { $0.name == name }) else {
            throw .remote(.unknownProperty, message: "no property \(interfaceName).\(name)")
        }
        return property
    }
}
