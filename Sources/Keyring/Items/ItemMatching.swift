#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Apple's matching rules for one stored item against a query (docs/SECITEM.md, "Matching rules").
///
/// - Every attribute the query gives must match; absent ones match anything.
/// - Strings match byte for byte, or without regard to case when ``ItemQuery/caseInsensitive``
///   is set (`kSecMatchCaseInsensitive`). An absent attribute equals `""` (and an absent port
///   `0`), because the device stores absent attributes as empty values.
/// - Synchronizable: ``ItemQuery/Synchronizable/no`` (the default, as when the key is absent)
///   matches only items that do not synchronize, `.yes` only those that do, `.any` both.
/// - A persistent reference selects exactly the item it was issued for.
/// - The access group is not checked here: the caller only searches groups the query allows.
extension ItemQuery {
    /// Whether `item` satisfies every attribute this query gives.
    func matches(_ item: KeychainItem) -> Bool {
        guard item.itemClass == itemClass else { return false }
        if let accessGroup, item.accessGroup != accessGroup { return false }
        switch synchronizable {
        case .no where item.isSynchronizable, .yes where !item.isSynchronizable: return false
        default: break
        }
        if let accessibility, item.accessibility != accessibility { return false }
        if let persistentReference, item.persistentReference != persistentReference { return false }
        if let port, (item.port ?? 0) != port { return false }
        if let generic, (item.generic ?? Data()) != generic { return false }
        // Apple stores an absent creator or type as 0 and absent flags as false.
        if let creator, !creator.matches(item.creator ?? .absent) { return false }
        if let type, !type.matches(item.type ?? .absent) { return false }
        if let isInvisible, (item.isInvisible ?? false) != isInvisible { return false }
        if let isNegative, (item.isNegative ?? false) != isNegative { return false }
        if !key.matches(item.key) || !certificate.matches(item.certificate) { return false }
        for attribute in TextAttribute.all {
            guard let wanted = attribute.readQuery(self) else { continue }
            if !stringsMatch(wanted, attribute.readItem(item) ?? "") { return false }
        }
        return true
    }

    private func stringsMatch(_ wanted: String, _ stored: String) -> Bool {
        if caseInsensitive {
            return wanted.equalsIgnoringCase(stored)
        }
        return wanted.hasSameUTF8(as: stored)
    }

    /// What this query searches for, for "not found" messages: the attributes it gives
    /// (never a secret; binary attributes by size only) and the groups searched.
    func summary(searching groups: [GroupIdentifier]) -> String {
        var parts: [String] = []
        for attribute in TextAttribute.all {
            if let value = attribute.readQuery(self) { parts.append("\(attribute.name) \"\(GroupIdentifier.printable(value))\"") }
        }
        if let port { parts.append("port \(port)") }
        if let generic { parts.append("generic data (\(generic.count) bytes)") }
        if let creator { parts.append("creator \(creator.summary)") }
        if let type { parts.append("type \(type.summary)") }
        if let isInvisible { parts.append(isInvisible ? "invisible" : "not invisible") }
        if let isNegative { parts.append(isNegative ? "negative" : "not negative") }
        parts += key.summary + certificate.summary
        if let accessibility { parts.append("accessibility \(accessibility.rawValue) (\(accessibility))") }
        if let persistentReference { parts.append("persistent reference (\(persistentReference.count) bytes)") }
        switch synchronizable {
        case .no: parts.append("not synchronizable")
        case .yes: parts.append("synchronizable")
        case .any: break
        }
        if caseInsensitive { parts.append("case-insensitive") }
        let what = itemClass.noun
        let groupList = groups.map(\.rawValue).joined(separator: ", ")
        let attributes = parts.isEmpty ? "any \(what)" : "\(what) with \(parts.joined(separator: ", "))"
        return "\(attributes) in access group\(groups.count == 1 ? "" : "s") [\(groupList)]"
    }
}
