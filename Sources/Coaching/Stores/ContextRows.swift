import Accounts
import Billing
import Crypto
import Foundation
import HearthPlatform
import LLM
import Memory
import Personas
import PostgresNIO

/// The tagged rows of a turn's context, as `hearth_turn_context`, a send's `hearth_turn_send_context` and its
/// `hearth_turn_begin` return them (kind, id, number, name, model, url, reference, sealed; migrations 0030 and 0036;
/// the messages in one `history` row since migration 0032, ``HistoryFrames``), gathered into a
/// ``TurnStore/Context``. Rows of other kinds are the caller's.
struct ContextRows {
    typealias Columns = (String, UUID?, Int?, String?, String?, String?, String?, Data?)

    /// A row's columns read cell by cell: PostgresNIO's `decode(Columns.self)` goes through a parameter pack and
    /// `Optional`'s generic decoding, which look up type metadata at run time for every row (reading the rows was
    /// 1.7% of a back-to-back profile, 1.3% after).
    static func columns(of row: PostgresRow) throws -> Columns {
        var cells = row.makeIterator()
        func next() throws -> PostgresCell {
            guard let cell = cells.next() else { throw PostgresRow.UnexpectedColumns(expected: 8) }
            return cell
        }
        let columns: Columns = try (next().decode(String.self), next().decodeIfPresent(UUID.self), next().decodeIfPresent(Int.self),
                                    next().decodeIfPresent(String.self), next().decodeIfPresent(String.self),
                                    next().decodeIfPresent(String.self), next().decodeIfPresent(String.self),
                                    next().decodeIfPresent(Data.self))
        guard cells.next() == nil else { throw PostgresRow.UnexpectedColumns(expected: 8) }
        return columns
    }

    let keys: UserDataKeys
    let userID: UUID
    let threadID: UUID
    /// Read from a `key` row, or set by a caller that sealed with it already.
    var key: SymmetricKey?
    private(set) var admission: Admission?
    private(set) var requestLimit: RateLimit?
    private var sessionType: SessionType?
    private var domain: String?
    private var domainPinned = false
    private var crisisAt: Date?
    private var domainStamp: Int64?
    private var persona: PersonaContent?
    private var sealedProfile: Data?
    private var memoryRows: [TurnMemory.Row] = []
    private var providers: [ProviderSetting] = []
    private var history: [HistoryFrames.Message] = []

    /// A `thread` row came: the thread is the person's.
    var hasThread: Bool { sessionType != nil }

    init(keys: UserDataKeys, userID: UUID, threadID: UUID) {
        (self.keys, self.userID, self.threadID) = (keys, userID, threadID)
    }

    /// Takes one row. A `gate` row (first, when the statement checks the session) throws the 401 or 429 of a
    /// session that is not live or a request over its limit.
    mutating func take(_ row: Columns) throws {
        let (kind, id, number, name, model, url, reference, sealed) = row
        switch kind {
        case "gate":
            requestLimit = try SessionGate(gateRowName: name, quota: model.flatMap { Int64($0) }, window: reference.flatMap { Int($0) },
                                           used: url.flatMap { Int64($0) }, reset: number).admit()
        case "thread":
            sessionType = name.flatMap(SessionType.init(rawValue:))
            domain = model
            crisisAt = url.flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:))
            domainPinned = reference == "pinned"
        case "admission":
            admission = try reference.map(Admission.init(json:))
        case "domains":
            domainStamp = reference.flatMap { Int64($0) }
        case "persona":
            persona = try reference.map { try JSONDecoder().decode(PersonaContent.self, from: Data($0.utf8)) }
        case "key":
            guard let number, let sealed else { return }
            key = try keys.unwrap(masterVersion: number, wrapped: Array(sealed), of: userID)
        case "profile":
            sealedProfile = sealed
        case _ where TurnMemory.rowKinds.contains(kind):
            memoryRows.append(.init(kind: kind, id: id, number: number, name: name, model: model, url: url, reference: reference, sealed: sealed))
        case "provider":
            guard let position = number.flatMap(ProviderSetting.Position.init(rawValue:)), let name, let model else { return }
            providers.append(ProviderSetting(position: position, kind: name, model: model, baseURL: url, apiKeyReference: reference))
        case "history":
            history = try HistoryFrames.messages(count: number ?? 0, roles: name, frames: sealed)
        default:
            return
        }
    }

    /// The context, its profile and memory opened; `nil` when there was no `thread` row (not the person's thread)
    /// or no key (the user no longer exists).
    func context() throws -> TurnStore.Context? {
        guard let sessionType, let key else { return nil }
        let profile = try sealedProfile.map { try ContextProfile(sealed: Array($0), key: key, userID: userID) } ?? ContextProfile()
        let memory = try TurnMemory.open(threadID: threadID, rows: memoryRows, key: key)
        return TurnStore.Context(sessionType: sessionType, domain: domain, domainPinned: domainPinned, crisisAt: crisisAt,
                                 domainStamp: domainStamp, persona: persona, key: key, profile: profile, memory: memory,
                                 providers: providers, history: history, admission: admission)
    }
}
