/// Why an identity may not use a group, told the way a developer needs it: the groups it does
/// have, and the near-miss that most likely explains the refusal.
///
/// On a device the same mistakes all surface as a bare `errSecMissingEntitlement` (-34018),
/// and mixing up `group.` and team-prefixed identifiers is the most common keychain bug. So a
/// refusal compares the requested identifier with every group the identity has, and names the
/// specific slip: a doubled or missing team prefix, `group.` where `TEAMID.` belongs or the
/// reverse, another team's id, a difference in letter case, or a group that is only in the
/// other entitlement list.
struct AccessGroupRefusal {
    /// What was asked for.
    enum Scope {
        /// A keychain access group (items, keysets).
        case accessGroup
        /// An application group (group containers).
        case applicationGroup
    }

    /// The identifier asked for, as given (possibly invalid).
    let requested: String
    let identity: Identity
    let scope: Scope

    /// The groups that would have satisfied the request.
    var candidates: [GroupIdentifier] {
        scope == .accessGroup ? identity.accessGroups : identity.applicationGroups
    }

    private var shown: String { GroupIdentifier.printable(requested) }

    /// Every near-miss found, most specific first, without duplicates; never empty: when no
    /// near-miss applies, the advice is how to add the entitlement.
    var explanations: [String] {
        var found: [String] = []
        found += otherListExplanations()
        found += doubledPrefixExplanations()
        found += prefixExplanations()
        found += caseExplanations()
        found += otherTeamExplanations()
        if found.isEmpty, let missing = missingPrefixExplanation() { found.append(missing) }
        if found.isEmpty { found.append(advice()) }
        var seen = Set<String>()
        return found.filter { seen.insert($0).inserted }
    }

    // MARK: Near-misses

    /// A keychain access group (or the application identifier) asked for as a container.
    private func otherListExplanations() -> [String] {
        guard scope == .applicationGroup, let group = GroupIdentifier(rawValue: requested) else { return [] }
        if identity.keychainAccessGroups.contains(group) {
            return ["\(group) is one of this identity's keychain access groups (keychain-access-groups), not an application group: only groups listed in \(EntitlementsFile.Key.applicationGroups) have a container; add it there (application groups are usually written \"group.<name>\")"]
        }
        if identity.applicationIdentifier == group {
            return ["\(group) is this identity's application identifier, not an application group: only groups listed in \(EntitlementsFile.Key.applicationGroups) have a container"]
        }
        return []
    }

    /// `ABCDE12345.ABCDE12345.x` or `group.group.x`.
    private func doubledPrefixExplanations() -> [String] {
        let components = requested.split(separator: ".", omittingEmptySubsequences: false)
        guard components.count >= 3, components[0] == components[1], Self.isPrefix(components[0]) else { return [] }
        let single = String(requested.dropFirst(components[0].count + 1))
        let has = candidates.contains { $0.rawValue == single }
        return ["the prefix \"\(components[0]).\" is written twice; \(has ? "this identity has \(single)" : "the single form \(GroupIdentifier.printable(single)) would be meant"). This happens when code prepends the team id to a group that already carries it, e.g. one read from the entitlements after $(AppIdentifierPrefix) was expanded"]
    }

    /// A missing prefix, an extra one, or the other kind of prefix on the same name.
    private func prefixExplanations() -> [String] {
        let (prefix, name) = Self.split(requested)
        var found: [String] = []
        for candidate in candidates {
            let candidatePrefix = candidate.isApplicationGroupStyle ? "group" : candidate.teamID ?? ""
            if candidate.name == requested {
                found.append(candidate.isApplicationGroupStyle
                    ? "\(shown) lacks its prefix: this identity has \(candidate); application groups are written with \"group.\""
                    : "\(shown) lacks its team prefix: this identity has \(candidate); keychain access groups carry the team prefix \"\(candidatePrefix).\" (written $(AppIdentifierPrefix) in the entitlements)")
            } else if let prefix, name == candidate.rawValue, prefix != candidatePrefix {
                // (The same prefix twice is the doubled-prefix case, explained on its own.)
                found.append(candidate.isApplicationGroupStyle
                    ? "\(shown) has an extra prefix \"\(prefix).\": this identity has \(candidate); application groups are used as keychain access groups as written, without a team prefix"
                    : "\(shown) has an extra prefix \"\(prefix).\": this identity has \(candidate)")
            } else if let prefix, name == candidate.name, prefix != candidatePrefix {
                if prefix == "group" {
                    found.append("\(shown) uses \"group.\" where this identity has the team-prefixed \(candidate): keychain access groups carry the team prefix \"\(candidatePrefix).\", not \"group.\"")
                } else if candidate.isApplicationGroupStyle {
                    found.append("\(shown) uses the team prefix \"\(prefix).\" where this identity has the application group \(candidate): application groups keep their \"group.\" prefix, also when used as keychain access groups")
                } else {
                    found.append("\(shown) is for team \(prefix), but this identity has \(candidate) of team \(candidatePrefix): a team's groups are reachable only by that team's apps")
                }
            }
        }
        return found
    }

    /// An identifier that would be valid with a prefix, when no group of the identity is near.
    private func missingPrefixExplanation() -> String? {
        guard Self.split(requested).prefix == nil, GroupIdentifier(rawValue: "ABCDE12345." + requested) != nil else { return nil }
        let first = String(requested.prefix { $0 != "." })
        if GroupIdentifier.isValidTeamID(first.uppercased()) {
            return "team ids are upper case: write \"\(GroupIdentifier.printable(first.uppercased() + requested.dropFirst(first.count)))\""
        }
        let team = identity.teamID ?? "<TEAMID>"
        return "\(shown) has no prefix: keychain access groups are written \"\(team).\(shown)\" (listed as \"$(AppIdentifierPrefix)\(shown)\" in keychain-access-groups) and application groups \"group.\(shown)\""
    }

    private func caseExplanations() -> [String] {
        let lowered = requested.lowercased()
        return candidates
            .filter { $0.rawValue != requested && $0.rawValue.lowercased() == lowered }
            .map { "identifiers are case-sensitive: this identity has \($0), which differs from \(shown) only in letter case" }
    }

    /// A team-prefixed request for a team the identity has no group of.
    private func otherTeamExplanations() -> [String] {
        let (prefix, name) = Self.split(requested)
        guard let team = prefix, team != "group",
              let own = identity.teamID, own != team,
              !candidates.contains(where: { $0.teamID == team }),
              // A group of the same name is explained more precisely as a prefix mix-up.
              !candidates.contains(where: { $0.name == name })
        else { return [] }
        return ["\(shown) belongs to team \(team), but this identity's team is \(own): another team's groups are never reachable; check the team id (GROUPVAULT_TEAM_ID) and the entitlements"]
    }

    /// What to do when nothing near was found.
    private func advice() -> String {
        guard GroupIdentifier(rawValue: requested) != nil else {
            return "access groups are written \"<TEAMID>.<name>\" (keychain access groups) or \"group.<name>\" (application groups)"
        }
        switch scope {
        case .accessGroup where candidates.isEmpty:
            return "this identity has no access groups: give it an entitlements file (GROUPVAULT_ENTITLEMENTS or Identity(entitlementsAt:)) or a team and bundle id (GROUPVAULT_TEAM_ID and GROUPVAULT_BUNDLE_ID)"
        case .applicationGroup where candidates.isEmpty:
            return "this identity has no application groups: list the group under \(EntitlementsFile.Key.applicationGroups) in its entitlements file"
        case .accessGroup:
            let (prefix, name) = Self.split(requested)
            if prefix == "group" {
                return "to share it, list it under \(EntitlementsFile.Key.applicationGroups) in the entitlements of every app that uses it"
            }
            return "to share it, list it under keychain-access-groups in the entitlements of every app that uses it, written \"$(AppIdentifierPrefix)\(GroupIdentifier.printable(name))\""
        case .applicationGroup:
            return "to use its container, list it under \(EntitlementsFile.Key.applicationGroups) in the entitlements of every app that uses it"
        }
    }

    // MARK: Parsing

    /// `group` or a team id: the first component of a well-formed identifier.
    private static func isPrefix(_ component: Substring) -> Bool {
        component == "group" || GroupIdentifier.isValidTeamID(String(component))
    }

    /// The prefix (`group` or a team id) and the rest; no prefix when the first component is
    /// neither.
    private static func split(_ string: String) -> (prefix: String?, name: String) {
        guard let dot = string.firstIndex(of: "."), isPrefix(string[..<dot]) else { return (nil, string) }
        return (String(string[..<dot]), String(string[string.index(after: dot)...]))
    }
}

extension Identity {
    /// The ``KeyringStatus/missingEntitlement`` error for using the keychain access group
    /// `group` without being entitled to it: lists this identity's access groups and explains
    /// the near-miss behind the refusal (see ``AccessGroupRefusal``).
    package func missingEntitlement(for group: GroupIdentifier, operation: String) -> KeyringError {
        let refusal = AccessGroupRefusal(requested: group.rawValue, identity: self, scope: .accessGroup)
        return KeyringError(
            .missingEntitlement,
            "\(operation): \(group) is not one of this identity's access groups \(Self.list(accessGroups)): \(refusal.explanations.joined(separator: "; "))",
            underlyingError: nil,
            remedy: .grantEntitlement(group: group.rawValue))
    }

    /// The ``KeyringStatus/missingEntitlement`` error for a caller holding an unvalidated access
    /// group string, such as a `kSecAttrAccessGroup` value. A malformed string is refused with
    /// the same status a device returns (-34018), and the explanation says what is malformed,
    /// typically a missing team prefix.
    package func missingEntitlement(forRawGroup raw: String, operation: String) -> KeyringError {
        if let group = GroupIdentifier(rawValue: raw) {
            return missingEntitlement(for: group, operation: operation)
        }
        let problem = GroupIdentifier.problem(with: raw) ?? "it is malformed"
        let refusal = AccessGroupRefusal(requested: raw, identity: self, scope: .accessGroup)
        return KeyringError(
            .missingEntitlement,
            "\(operation): \"\(GroupIdentifier.printable(raw))\" is not a valid access group (\(problem)), so no identity is entitled to it; this identity's access groups are \(Self.list(accessGroups)): \(refusal.explanations.joined(separator: "; "))")
    }

    /// The ``KeyringStatus/missingEntitlement`` error for using the group container of `group`
    /// without the application group entitlement: lists this identity's application groups and
    /// explains the near-miss, e.g. a keychain access group asked for as a container.
    package func missingContainerEntitlement(for group: GroupIdentifier, operation: String) -> KeyringError {
        let refusal = AccessGroupRefusal(requested: group.rawValue, identity: self, scope: .applicationGroup)
        return KeyringError(
            .missingEntitlement,
            "\(operation): \(group) is not one of this identity's application groups \(Self.list(applicationGroups)): \(refusal.explanations.joined(separator: "; "))")
    }

    private static func list(_ groups: [GroupIdentifier]) -> String {
        "[" + groups.map(\.rawValue).joined(separator: ", ") + "]"
    }
}
