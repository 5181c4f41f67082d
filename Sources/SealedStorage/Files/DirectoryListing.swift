import SystemPackage

/// The names in a directory (without "." and ".."), read with `opendir`/`readdir` through ``Syscall``.
package enum DirectoryListing {
    /// The entry names of `directory`, sorted; empty when it cannot be read. For callers to
    /// whom an unreadable directory means "nothing to do" (sweeping leftovers); a caller that
    /// reports what is there should use ``entries(in:)``, which says why it could not look.
    package static func names(in directory: FilePath) -> [String] {
        (try? entries(in: directory)) ?? []
    }

    /// The entry names of `directory`, sorted.
    /// - Throws: ``StorageError`` naming the directory when it cannot be listed.
    package static func entries(in directory: FilePath) throws(StorageError) -> [String] {
        do {
            return try Syscall.listDirectory(directory).sorted()
        } catch {
            throw StorageError(.system(error), operation: "list directory", path: directory)
        }
    }
}
