/// An error that keeps the error underneath it as a value, and may say what to do about it.
///
/// Every GroupVault error conforms (``KeyringError``, `VaultError`, `GroupMessagingError`,
/// `GroupDatabaseError`, `SharedDefaultsError`, `SyncError`), under the same two names, so a
/// chain is walked the same way whatever module each link comes from:
///
/// ```swift
/// if let errno = error.cause(as: Errno.self), errno == .noSpace { ... }
/// ```
public protocol ChainedError: Error {
    /// The error this one was made from (a storage failure, a SQLite result, a nested
    /// library error), or `nil` when this error is where the failure was found.
    var underlyingError: (any Error)? { get }
    /// What to do about it, when the library knows for certain.
    var remedy: ErrorRemedy? { get }
}

extension ChainedError {
    /// This error's causes, nearest first: `underlyingError`, then its `underlyingError`, and so
    /// on while each link is a ``ChainedError``.
    public var underlyingErrors: [any Error] {
        var chain: [any Error] = []
        var next = underlyingError
        // A chain is built by wrapping, so it cannot loop; the bound is against a hand-made one.
        while let error = next, chain.count < 64 {
            chain.append(error)
            next = (error as? any ChainedError)?.underlyingError
        }
        return chain
    }

    /// The nearest cause of type `type`, e.g. the `Errno` under a storage failure, or the
    /// ``SQLiteFailure`` under a keyring database failure.
    public func cause<Cause: Error>(as type: Cause.Type) -> Cause? {
        for error in underlyingErrors { if let match = error as? Cause { return match } }
        return nil
    }

    /// This error's remedy, or else the nearest cause's: a disk-full errno deep in the chain
    /// still tells the caller to free space.
    public var nearestRemedy: ErrorRemedy? {
        if let remedy { return remedy }
        for error in underlyingErrors { if let remedy = (error as? any ChainedError)?.remedy { return remedy } }
        return nil
    }
}
