extension AuthState {
    /// The notification the app posts after every write of the auth state. It carries nothing:
    /// it only tells the widget to re-read the sealed record, which stays the truth.
    public static let changedNotification = "com.example.notes.auth-changed"
}
