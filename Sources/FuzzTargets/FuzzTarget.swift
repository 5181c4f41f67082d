/// One coverage-guided fuzz target: a parser of GroupVault driven by arbitrary bytes, with the
/// checks that decide whether what it did with them was right.
///
/// The same callback runs under libFuzzer (`scripts/fuzz <name>`, through the GroupVaultFuzz
/// executable) and in `swift test`, which replays every committed file of
/// `Fuzz/Corpus/<name>/`. A callback never traps on purpose: a violated expectation is thrown
/// as a ``FuzzFinding``, which the libFuzzer driver turns into a crash (so libFuzzer saves the
/// input) and the tests into a failure.
///
/// ```swift
/// let target = FuzzTarget.named("group-identifier")!
/// let outcome = try target.run(Array("group.com.example".utf8))   // .accepted
/// ```
package struct FuzzTarget: Sendable {
    /// The name used on the command line and as the corpus directory, e.g. `blob`.
    package let name: String
    /// What is fuzzed and what is checked, one line.
    package let summary: String
    private let body: @Sendable ([UInt8]) throws(FuzzFinding) -> FuzzOutcome
    private let makeSeeds: @Sendable () throws -> [String: [UInt8]]

    /// A target called `name` that checks each input with `body`, with `seeds` as its
    /// committed starting inputs.
    package init(
        name: String,
        summary: String,
        run body: @escaping @Sendable ([UInt8]) throws(FuzzFinding) -> FuzzOutcome,
        seeds: @escaping @Sendable () throws -> [String: [UInt8]]
    ) {
        self.name = name
        self.summary = summary
        self.body = body
        self.makeSeeds = seeds
    }

    /// Feeds `input` to the parser and checks the result.
    /// - Returns: Whether the parser accepted the input (produced a value) or refused it.
    /// - Throws: ``FuzzFinding`` when the parser's answer is wrong: an error of a kind it must
    ///   not give, or a value that breaks the parser's documented rules.
    @discardableResult
    package func run(_ input: [UInt8]) throws(FuzzFinding) -> FuzzOutcome {
        try body(input)
    }

    /// Seed inputs for `Fuzz/Corpus/<name>/`, by file name. A name starting with `valid-` marks
    /// an input the target must accept, which the corpus tests check, so a harness that can no
    /// longer reach the parser's success path (a changed key derivation, say) is noticed.
    package func seeds() throws -> [String: [UInt8]] {
        try makeSeeds()
    }

    /// Every target, in the order `make fuzz` runs them.
    package static var all: [FuzzTarget] {
        var targets = [blob, entitlements, sealedDocument]
        #if !canImport(Darwin)
        targets.append(secItem)
        targets.append(secKeyData)
        #endif
        #if os(Linux)
        targets.append(inotifyEvents)
        #endif
        targets.append(groupIdentifier)
        targets += [channelFrames, channelSealed, channelCBOR]
        targets.append(preferencesImport)
        targets.append(syncRow)
        targets.append(syncNotification)
        targets.append(syncSnapshot)
        targets.append(syncPayload)
        targets.append(jsonMemberNames)
        return targets
    }

    /// The target called `name`, if there is one on this platform.
    package static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}

/// What a target's parser did with one input.
package enum FuzzOutcome: Sendable, Equatable {
    /// The parser produced a value (and it passed every check).
    case accepted
    /// The parser refused the input with an error of an allowed kind.
    case refused
}

/// A wrong answer from a parser: the input broke no crash, but the result broke a rule.
package struct FuzzFinding: Error, Sendable, CustomStringConvertible {
    /// What was expected and what happened instead.
    package let message: String

    /// A finding that says `message`.
    package init(_ message: String) {
        self.message = message
    }

    /// The message.
    package var description: String { message }
}

/// Throws a ``FuzzFinding`` with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFinding) {
    if !condition { throw FuzzFinding(message()) }
}
