import FixtureSupport
import Keyring

/// A fixture command: takes its arguments, returns the process exit status.
typealias FixtureCommand = @Sendable ([String]) async -> Int32

extension FixtureOptions {
    /// The application group named by `--group`.
    func group() throws -> GroupIdentifier {
        try GroupIdentifier(validating: try string("group"))
    }

    /// A keyring whose identity is entitled to `--group` (or to `--entitled-group` when given,
    /// to play a process outside the group), over the home in GROUPVAULT_HOME.
    func keyring() throws -> Keyring {
        let entitled = try GroupIdentifier(validating: try string("entitled-group", default: try string("group")))
        let identity = Identity(
            teamID: try string("team", default: "ABCDE12345"),
            bundleID: try string("bundle", default: "com.example.fixture"),
            applicationGroups: [entitled])
        return Keyring(identity: identity, home: try .fromEnvironment())
    }
}
