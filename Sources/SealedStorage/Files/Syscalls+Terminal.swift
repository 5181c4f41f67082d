import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Syscall {
    /// The number of columns of the terminal `descriptor` refers to (`ioctl(2)` with
    /// `TIOCGWINSZ`), or `nil` when it is not a terminal or reports no size (a pseudo-terminal
    /// nobody sized reports 0). For command-line output that fits the window; no file is
    /// opened, read or changed.
    package static func terminalColumns(_ descriptor: FileDescriptor) -> Int? {
        var size = winsize()
        do {
            try retrying { ioctl(descriptor.rawValue, UInt(TIOCGWINSZ), &size) }
        } catch {
            return nil
        }
        return size.ws_col > 0 ? Int(size.ws_col) : nil
    }
}
