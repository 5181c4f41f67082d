/// The widget's display preferences, which the app sets and the widget reads: stored in the
/// group's SharedDefaults suite as one Codable value, so a change is one write and one
/// notification, and both processes agree on the shape.
public struct WidgetStyle: Codable, Equatable, Sendable {
    /// The SharedDefaults key.
    public static let key = "widgetStyle"
    /// What the widget shows before the app has chosen anything.
    public static let standard = WidgetStyle(theme: "light", refreshInterval: 60)

    /// `light` or `dark`.
    public var theme: String
    /// How often the widget refreshes its timeline, in seconds.
    public var refreshInterval: Int

    /// A style.
    public init(theme: String, refreshInterval: Int) {
        self.theme = theme
        self.refreshInterval = refreshInterval
    }
}
