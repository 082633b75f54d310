import Storage

/// Samples the outbox did not take, and whether a full disk is why: that
/// one is a missing requirement, any other is logged with what was lost.
package struct CommitError: Error, CustomStringConvertible {
    package let underlying: any Error

    package var isDiskFull: Bool { (underlying as? StorageError)?.isFull == true }

    package var description: String { "\(underlying)" }
}
