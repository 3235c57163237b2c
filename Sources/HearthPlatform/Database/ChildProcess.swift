import Foundation
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts helper programs (`initdb`, `pg_ctl`, the Postgres watchdog) with `posix_spawn`.
///
/// Foundation's `Process` proved unreliable for this from async code (children left unreaped, waits that
/// never return), and it lets children inherit descriptors we need private. Here every descriptor we open
/// is close-on-exec, and waiting happens on NIO's blocking thread pool, not on a cooperative thread.
public enum ChildProcess {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `arguments` in `directory` to completion; returns its exit status and combined output.
    /// - Parameters:
    ///   - environment: replaces the inherited environment when given.
    ///   - input: written to the child's standard input.
    public static func run(
        _ arguments: [String], in directory: String, environment: [String: String]? = nil, input: String? = nil
    ) async throws -> (code: Int32, output: String) {
        try await NIOThreadPool.singleton.runIfActive {
            let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-child-\(RandomBytes.uuid().uuidString)").path
            let outputFD = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard outputFD >= 0 else { throw Failure(description: "cannot create \(outputPath)") }
            defer { unlink(outputPath) }
            var inputPath = "/dev/null"
            if let input {
                inputPath = outputPath + ".in"
                try input.write(toFile: inputPath, atomically: false, encoding: .utf8)
            }
            defer { if input != nil { unlink(inputPath) } }
            let inputFD = open(inputPath, O_RDONLY | O_CLOEXEC)
            defer { close(inputFD) }
            let pid: pid_t
            do {
                pid = try spawn(arguments, in: directory, stdin: inputFD, stdout: outputFD, environment: environment)
                close(outputFD)
            } catch {
                close(outputFD)
                throw error
            }
            let code = wait(pid)
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            return (code, output)
        }
    }

    /// Starts `arguments` in the background, its output appended to `logPath` and its input empty; returns its pid,
    /// for ``wait(_:)`` or a signal.
    public static func start(_ arguments: [String], in directory: String, environment: [String: String], logPath: String) throws -> pid_t {
        let outputFD = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard outputFD >= 0 else { throw Failure(description: "cannot open \(logPath)") }
        defer { close(outputFD) }
        let inputFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(inputFD) }
        return try spawn(arguments, in: directory, stdin: inputFD, stdout: outputFD, environment: environment)
    }

    /// Starts `arguments` with its standard input reading from a new pipe; returns the child and the pipe's
    /// write end (close-on-exec, so no other child inherits it). Closing it sends the child end-of-file.
    static func startWithInputPipe(_ arguments: [String], in directory: String) throws -> (pid: pid_t, input: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure(description: "pipe failed") }
        // Set before any other child can be spawned by this process (spawns happen on one actor at a time).
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let nullFD = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(nullFD); close(fds[0]) }
        do {
            let pid = try spawn(arguments, in: directory, stdin: fds[0], stdout: nullFD)
            return (pid, fds[1])
        } catch {
            close(fds[1])
            throw error
        }
    }

    /// Blocks until `pid` exits; returns its exit status (128 + signal when killed).
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private static func spawn(
        _ arguments: [String], in directory: String, stdin: Int32, stdout: Int32, environment: [String: String]? = nil
    ) throws -> pid_t {
        // `sh -c 'cd DIR && exec "$@"'` sets the working directory without relying on non-portable spawn APIs.
        let command = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 onto 0/1/2 clears close-on-exec for exactly these three.
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stdout, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let result = envp.map { envp in
            envp.withUnsafeBufferPointer { posix_spawn(&pid, "/bin/sh", &actions, nil, argv, $0.baseAddress) }
        } ?? posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        guard result == 0 else { throw Failure(description: "cannot start \(arguments.first ?? "?"): \(String(cString: strerror(result)))") }
        return pid
    }
}
