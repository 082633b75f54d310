import Foundation

/// The helper scripts the peers run, shipped as resources of this target.
public enum PeerTemplates {
    public static func path(_ name: String) -> String {
        let base = (name as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension
        return Bundle.module.path(forResource: base, ofType: ext, inDirectory: "Templates")
            ?? Bundle.module.bundlePath + "/Templates/" + name
    }
}
