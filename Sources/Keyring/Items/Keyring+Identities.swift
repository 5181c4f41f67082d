#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A certificate and the private key that belongs to it: what `kSecClassIdentity` finds.
public struct IdentityItems: Sendable, Hashable {
    /// The certificate item.
    public let certificate: KeychainItem
    /// The private key item whose application label equals the certificate's public key hash.
    public let privateKey: KeychainItem
}

/// Identities as Apple defines them: not items of their own, but a stored certificate whose
/// `kSecAttrPublicKeyHash` equals a stored private key's `kSecAttrApplicationLabel`, both
/// visible to the caller (the key may be in another of its access groups).
extension Keyring {
    /// The identities whose certificate matches `certificates` and whose private key matches
    /// `keys`, in the certificates' order, at most `limit`.
    ///
    /// - Parameters:
    ///   - certificates: A ``ItemClass/certificate`` query.
    ///   - keys: A ``ItemClass/key`` query; its key class is always private.
    ///   - limit: How many identities at most.
    ///   - includingSecrets: As in ``items(matching:limit:includingSecrets:)``, for both items.
    /// - Throws: what ``items(matching:limit:includingSecrets:)`` throws.
    public func identities(
        matching certificates: ItemQuery, keys: ItemQuery = ItemQuery(.key),
        limit: MatchLimit = .all, includingSecrets: Bool = true
    ) throws(KeyringError) -> [IdentityItems] {
        try pairs(certificates: certificates, keys: keys, limit: limit) { (query: ItemQuery) throws(KeyringError) -> [KeychainItem] in
            try items(matching: query, limit: .all, includingSecrets: includingSecrets)
        }
    }

    /// ``identities(matching:keys:limit:includingSecrets:)`` with the private keys' bytes in the
    /// clear and no prompt, for the `Security` module (see ``itemsForKeyUse(matching:limit:)``).
    package func identitiesForKeyUse(matching certificates: ItemQuery, keys: ItemQuery = ItemQuery(.key), limit: MatchLimit = .all) throws(KeyringError) -> [IdentityItems] {
        try pairs(certificates: certificates, keys: keys, limit: limit) { (query: ItemQuery) throws(KeyringError) -> [KeychainItem] in
            try itemsForKeyUse(matching: query)
        }
    }

    private func pairs(
        certificates: ItemQuery, keys: ItemQuery, limit: MatchLimit,
        readKeys: (ItemQuery) throws(KeyringError) -> [KeychainItem]
    ) throws(KeyringError) -> [IdentityItems] {
        var certificateQuery = certificates
        certificateQuery.itemClass = .certificate
        let found = try items(matching: certificateQuery, limit: .all, includingSecrets: true)
        guard !found.isEmpty else { return [] }
        var keyQuery = keys
        keyQuery.itemClass = .key
        keyQuery.key.keyClass = .private
        // Apple pairs by hash alone: a key in any group the caller can read completes an identity.
        keyQuery.synchronizable = .any
        var byLabel: [Data: KeychainItem] = [:]
        for key in try readKeys(keyQuery) {
            guard let label = key.key?.applicationLabel, byLabel[label] == nil else { continue }
            byLabel[label] = key
        }
        var result: [IdentityItems] = []
        let maximum: Int
        switch limit {
        case .one: maximum = 1
        case .all: maximum = .max
        case .count(let count): maximum = max(count, 1)
        }
        for certificate in found {
            guard let hash = certificate.certificate?.publicKeyHash, let key = byLabel[hash] else { continue }
            result.append(IdentityItems(certificate: certificate, privateKey: key))
            if result.count == maximum { break }
        }
        return result
    }
}
