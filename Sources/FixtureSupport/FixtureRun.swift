/// Parses `arguments`, runs `body`, and turns what it throws into the fixtures' exit statuses:
/// 64 with `usage: <message>` for a ``UsageError``, 1 with `error <description>` for any other
/// error (both on standard error), otherwise what `body` returned.
package func runFixture(_ arguments: [String], _ body: (FixtureOptions) throws -> Int32) -> Int32 {
    do {
        return try body(try FixtureOptions(arguments))
    } catch {
        return exitStatus(for: error)
    }
}

/// ``runFixture(_:_:)`` for a command that awaits.
package func runFixture(_ arguments: [String], _ body: (FixtureOptions) async throws -> Int32) async -> Int32 {
    do {
        return try await body(try FixtureOptions(arguments))
    } catch {
        return exitStatus(for: error)
    }
}

private func exitStatus(for error: any Error) -> Int32 {
    if let usage = error as? UsageError {
        printError("usage: \(usage.message)")
        return 64
    }
    printError("error \(error)")
    return 1
}
