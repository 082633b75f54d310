/// Facts about this build.
public enum Waymark {
    public static let version = "0.1.0"
}
