/// Recognises the record names SharedDefaults gives its entries: `sd-<suite tag>-<key tag>`,
/// each tag 32 lowercase hex digits (docs/FORMAT.md, SharedDefaults). The key is sealed inside
/// the record, so such a name says nothing to a person; `records list` hides these records
/// unless asked (`--include-internal`) and points to `vaultcli defaults list`, which shows
/// them by their key.
enum SharedDefaultsRecordName {
    static func matches(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "sd" && parts.dropFirst().allSatisfy { tag in
            tag.count == 32 && tag.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
        }
    }
}
