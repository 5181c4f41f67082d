// The README's one-line shim: on Apple platforms `import Foundation` brings the Security
// framework's names too, so wrapper files often import only Foundation. On Linux, Foundation
// cannot do that; one file re-exporting Security gives every file of the module those names.
// KeychainStatus.swift below imports only Foundation and compiles because of this line.
@_exported import Security
