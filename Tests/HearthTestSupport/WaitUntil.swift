/// Checks `condition` every `interval` until it holds; false if it still does not after `timeout`. For what a test
/// waits on in the background (a server's port, a pool's connection, a job's row): the timeout only bounds a
/// failure, so it is generous, since in a full parallel run on two cores a healthy server can take tens of seconds.
public func waitUntil(timeout: Duration = .seconds(120), every interval: Duration = .milliseconds(20),
                      _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: interval)
    }
    return false
}
