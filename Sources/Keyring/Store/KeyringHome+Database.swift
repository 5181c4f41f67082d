import SealedStorage

extension KeyringHome {
    /// The keyring database of this home's master secret, as one operation finds it after its
    /// look (`checked`): the database an earlier operation concluded after a look that found
    /// the same (``HomeDirectories/Conclusions``), else the checks made again.
    ///
    /// - Parameter passphraseMode: whether the home is in passphrase mode, as the operation
    ///   already looked (``isPassphraseProtected(_:)``); `nil` to look only when nothing is
    ///   remembered. A remembered database implies that the home was not in passphrase mode.
    /// - Returns: the database, and whether the home is in passphrase mode.
    func database(inPassphraseMode passphraseMode: Bool?, _ checked: CheckedKeychains) throws(KeyringError) -> (database: KeyringDatabase, passphraseMode: Bool) {
        if passphraseMode != true, let database = directories.rememberedConclusions(as: checked.look).database {
            return (database, false)
        }
        let passphraseMode = if let passphraseMode { passphraseMode } else { try isPassphraseProtected(checked) }
        let database = try KeyringDatabase.shared(for: self, master: masterKey(inPassphraseMode: passphraseMode, checked))
        if !passphraseMode { directories.remember({ $0.database = database }, as: checked.look) }
        return (database, passphraseMode)
    }
}
