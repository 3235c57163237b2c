@testable import Billing
import HearthPlatform
import Testing

/// What `hearth_coaching_admit` returns, read back (the SQL's own outcomes are driven end to end in TrialTests,
/// BudgetTests and RateLimitTests).
@Suite struct AdmissionTests {
    @Test func eachOutcomeIsReadWithItsDetails() throws {
        let admitted = try Admission(json: #"{"outcome": "admitted", "plan": "trial", "economy": "gpt-4o-mini"}"#)
        #expect(admitted.outcome == .admitted && admitted.economyModel == "gpt-4o-mini" && admitted.refusal == nil)

        let trial = try Admission(json: #"{"outcome": "subscription_required", "reason": "trial_ended"}"#)
        #expect(trial.refusal?.code == "subscription_required")
        #expect(trial.refusal?.message.contains("free trial has ended") == true)

        let budget = try Admission(json: #"{"outcome": "budget_exhausted", "limit": "monthly-budget", "quota": 5000000000, "reset": 172800}"#)
        #expect(budget.quota == 5_000_000_000 && budget.reset == 172_800 && budget.economyModel == nil)
        #expect(budget.refusal?.message.contains("renews in 2 days") == true)

        let limited = try Admission(json: #"{"outcome": "rate_limited", "limit": "concurrent-streams", "quota": 2, "window": null, "reset": 1}"#)
        #expect(limited.limit == "concurrent-streams" && limited.quota == 2 && limited.window == nil && limited.reset == 1)
        #expect(limited.refusal?.code == "rate_limited")
    }

    @Test(arguments: [#"{"outcome": "maybe"}"#, #"{"reason": "trial_ended"}"#, #"{"outcome": 1}"#, "not json", ""])
    func anUnknownOrMissingOutcomeIsAnError(_ json: String) {
        #expect(throws: (any Error).self) { try Admission(json: json) }
    }
}
