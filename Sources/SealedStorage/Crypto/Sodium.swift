import CSodium

/// The one place that initialises libsodium.
///
/// `sodium_init()` is idempotent and thread-safe; every entry point of this module calls
/// ``Sodium/ensureInitialized()`` first so no caller has to remember to.
package enum Sodium {
    private static let initialization: Int32 = sodium_init()

    /// Initialises libsodium once per process; traps if the library cannot start, because
    /// without a working random source no key or nonce this module makes could be trusted.
    package static func ensureInitialized() {
        precondition(initialization >= 0, "libsodium failed to initialise (sodium_init returned \(initialization))")
    }
}
