// Tests reach the peers through this module, as they did before the peers
// moved to `Sources/Peers` for the demo and the bench.
@_exported public import Peers
