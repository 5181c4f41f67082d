import Foundation

/// A private D-Bus session bus: `dbus-daemon` started with a configuration of its own in
/// `directory`, listening on a Unix socket there, so the D-Bus peer never touches the user's
/// session bus. Stopped by ``stop()``; `--nofork` keeps it this process's child.
final class DBusSessionBus {
    /// The address clients connect to (`unix:path=...,guid=...`).
    let address: String
    private let process = Process()

    init(directory: URL) throws {
        guard let daemon = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw BenchmarkFailure("the D-Bus peer needs dbus-daemon: sudo apt-get install dbus-daemon")
        }
        let configuration = directory.appendingPathComponent("session.conf")
        // A session bus that lets its clients broadcast and match signals, and nothing else of the
        // system's configuration (no service activation, no includes).
        let text = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(directory.appendingPathComponent("bus").path)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try Data(text.utf8).write(to: configuration)
        process.executableURL = URL(fileURLWithPath: daemon)
        process.arguments = ["--config-file=\(configuration.path)", "--nofork", "--print-address=1"]
        let output = Pipe()
        process.standardOutput = output
        // It warns that it cannot raise its file limit; nothing the figure needs.
        process.standardError = FileHandle.nullDevice
        try process.run()
        address = try ChildLines(output).next(timeout: .seconds(30))
        guard address.hasPrefix("unix:") else { throw BenchmarkFailure("dbus-daemon printed \(address) for its address") }
    }

    deinit { stop() }

    /// Stops the daemon.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
