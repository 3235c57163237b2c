import CoachingDomains
import Foundation
import LLM
import Memory
import Safety

/// What the turn decides about a message before the provider is called (ARCHITECTURE.md, step 3), in process:
/// whether it shows a crisis, and which coaching domain it belongs to.
struct TurnClassification: Sendable {
    let crisis: CrisisAssessment
    let route: DomainRouter.Route
    /// The domain the answer is coached in (the route's, when it is enabled).
    let domain: DomainDefinition?
    /// The thread is in crisis support: this message showed a crisis, or one did within ``TurnSafety/supportWindow``.
    let crisisSupport: Bool
}

/// The safety side of the turn: the crisis detector, how long a thread stays in crisis support, and the
/// resources sent with the `crisis` event.
struct TurnSafety: Sendable {
    /// After a crisis the thread is answered with crisis-support instructions for this long since the last
    /// message that showed one; after it, coaching resumes as before (FR22).
    static let supportWindow: TimeInterval = 2 * 60 * 60

    let detector = CrisisDetector()

    /// `crisis`: the message's assessment (``detector``), which a send makes before its statement reads the thread
    /// (it reads the message alone), or the one recorded with a retried answer. `pinned`: the person chose the
    /// thread's domain, so it is not routed.
    func classify(_ message: String, crisis: CrisisAssessment, catalog: DomainCatalog, recent: [String], threadDomain: String?,
                  pinned: Bool, crisisAt: Date?, now: Date = Date()) -> TurnClassification {
        let route = pinned ? DomainRouter.Route(domain: threadDomain, confidence: 1, routed: false)
            : catalog.router.route(message, recent: recent, current: threadDomain)
        let recentCrisis = crisisAt.map { now.timeIntervalSince($0) < Self.supportWindow } ?? false
        return TurnClassification(crisis: crisis, route: route, domain: catalog.definition(route.domain),
                                  crisisSupport: crisis.isCrisis || recentCrisis)
    }

    /// What a message whose crisis reading hangs on the conversation is read after
    /// (``CrisisDetector/reassess(_:alone:conversation:)``), oldest first: the person's last three messages in the
    /// thread and the summaries of this session so far; in a thread with none, their last session's summary.
    static func conversation(history: [ChatMessage], memory: TurnMemory) -> [String] {
        let said = history.filter { $0.role == .user }.suffix(3).map(\.content)
        let summaries = memory.summaries
        let partials = summaries.filter { $0.kind == .partial }.map(\.summary.text)
        guard said.isEmpty, partials.isEmpty else { return partials + said }
        return summaries.first { $0.kind == .session }.map { [$0.summary.text] } ?? []
    }

    /// The resources for the event: the tenant's own for the locale (as stored, `nil` when it has none), else
    /// Hearth's built-in list for it.
    static func resources(stored: Data?, locale: String?) -> [CrisisResource] {
        stored.flatMap(SafetySettings.resources(json:)) ?? CrisisResources.select(locale, from: CrisisResources.builtIn)?.resources ?? []
    }
}

/// The `crisis` stream event (docs/api.md): sent right after `start` when the message showed a crisis, so the
/// app can show the resources before the answer arrives.
struct CrisisEvent: Encodable, Sendable {
    let kind: CrisisKind
    let resources: [CrisisResource]
}

/// The `guardrail` event: the answer crossed the coaching scope or tone rules and was redirected; `content` is
/// the whole answer as stored, which the app shows instead of what it has received so far.
struct GuardrailEvent: Encodable, Sendable {
    let concern: ResponseReview.Concern
    let content: String
}
