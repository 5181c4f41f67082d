/// Who a process is to the keyring: its team, bundle, and the groups it is entitled to.
///
/// On Apple platforms the kernel enforces entitlements from the code signature. Linux has no
/// such mechanism, so GroupVault checks them cooperatively, as the iOS simulator does: an
/// identity is a declaration, and SECURITY.md says which attacker that does and does not stop.
public struct Identity: Sendable, Hashable, CustomStringConvertible {
    /// The 10-character team identifier, e.g. `ABCDE12345`.
    public var teamID: String?
    /// The bundle identifier, e.g. `com.example.app`.
    public var bundleID: String?
    /// `TEAMID.bundle.id`: the application identifier, itself an access group.
    public var applicationIdentifier: GroupIdentifier?
    /// The `keychain-access-groups` entitlement, in order.
    public var keychainAccessGroups: [GroupIdentifier]
    /// The `com.apple.security.application-groups` entitlement, in order.
    public var applicationGroups: [GroupIdentifier]

    /// Creates an identity from already validated parts.
    ///
    /// When `applicationIdentifier` is `nil` and both `teamID` and `bundleID` are known, it is
    /// `TEAMID.bundleID`, as Xcode would sign it.
    public init(
        teamID: String? = nil,
        bundleID: String? = nil,
        applicationIdentifier: GroupIdentifier? = nil,
        keychainAccessGroups: [GroupIdentifier] = [],
        applicationGroups: [GroupIdentifier] = []
    ) {
        self.teamID = teamID
        self.bundleID = bundleID
        if let applicationIdentifier {
            self.applicationIdentifier = applicationIdentifier
        } else if let teamID, let bundleID {
            self.applicationIdentifier = GroupIdentifier(rawValue: "\(teamID).\(bundleID)")
        } else {
            self.applicationIdentifier = nil
        }
        self.keychainAccessGroups = keychainAccessGroups
        self.applicationGroups = applicationGroups
    }

    /// The keychain access groups this identity may use, in Apple's order: the
    /// `keychain-access-groups` entitlement, then the application identifier, then the
    /// application groups. Duplicates keep their first position.
    public var accessGroups: [GroupIdentifier] {
        var seen = Set<GroupIdentifier>()
        return (keychainAccessGroups + [applicationIdentifier].compactMap { $0 } + applicationGroups)
            .filter { seen.insert($0).inserted }
    }

    /// Where an item goes when the caller names no access group: the first of ``accessGroups``.
    public var defaultAccessGroup: GroupIdentifier? { accessGroups.first }

    /// Whether items in `group` may be read and written by this identity.
    public func isEntitled(toAccessGroup group: GroupIdentifier) -> Bool {
        // Membership in ``accessGroups`` without building it: every keyring operation asks.
        keychainAccessGroups.contains(group) || applicationIdentifier == group || applicationGroups.contains(group)
    }

    /// Whether this identity may use the group container of `group`.
    public func isEntitled(toApplicationGroup group: GroupIdentifier) -> Bool {
        applicationGroups.contains(group)
    }

    /// The application identifier and the groups; identities hold no secrets.
    public var description: String {
        "Identity(\(name), access groups: \(accessGroups.map(\.rawValue)), application groups: \(applicationGroups.map(\.rawValue)))"
    }

    /// `the identity ABCDE12345.com.example.app`, for an error's reason: a person reads a name,
    /// not a debug dump of the groups (which their own entitlements, or `vaultcli identity`, show).
    package var subject: String { "the identity \(name)" }

    private var name: String { applicationIdentifier?.rawValue ?? bundleID ?? "anonymous" }
}
