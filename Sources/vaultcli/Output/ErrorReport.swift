/// The `--json` shape of an error, written as one line on standard error instead of
/// `vaultcli: <message>` when `--json` was given (docs/CLI.md, "Errors").
struct ErrorReport: Encodable {
    /// The exit status's name: `usage`, `notConfigured`, `notFound`, `refused`, `failed`.
    var code: String
    /// The exit status the process ends with.
    var status: Int32
    /// What is wrong, escaped as every error line is; the same text as without `--json`.
    var message: String
    /// A command that fixes it or explains more, when vaultcli knows one.
    var remedy: String?

    init(status: ExitStatus, message: String, remedy: String?) {
        code = status.name
        self.status = status.rawValue
        self.message = message
        self.remedy = remedy
    }
}
