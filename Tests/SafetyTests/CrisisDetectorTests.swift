import Safety
import Testing

@Suite struct CrisisDetectorTests {
    let detector = CrisisDetector()

    @Test func directStatementsAreCrises() {
        #expect(detector.assess("I want to kill myself").crisis == .suicidal)
    }
}
