import Capture
package import Recording
import Vocabulary

/// A reconcile's conditions as a capture's `requirements` record keeps
/// them, so that replay reconciles as the daemon did.
extension RecordingCore.Conditions {
    package var captured: [String: String] {
        ["missing": missing.map(\.rawValue).joined(separator: " "), "intent": intent.rawValue, "authorized": String(authorized)]
    }

    /// From a `requirements` record; a capture older than these keys was
    /// made by an armed, authorized gateway, as one that records is.
    package init(captured detail: [String: String]) {
        self.init(intent: detail["intent"].flatMap(Reconciler.Intent.init(rawValue:)) ?? .armed,
                  authorized: detail["authorized"].map { $0 == "true" } ?? true,
                  missing: (detail["missing"] ?? "").split(separator: " ").compactMap { Requirement(rawValue: String($0)) })
    }
}
