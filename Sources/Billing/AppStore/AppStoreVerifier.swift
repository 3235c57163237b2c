import Crypto
import Foundation
import HearthPlatform
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies App Store signed data the way Apple's App Store Server Library does (`SignedDataVerifier` with online
/// checks off), in its order: a compact JWS signed ES256 whose `x5c` holds three certificates; the leaf and the
/// intermediate must chain to a configured root under RFC 5280, valid at the payload's `signedDate` (the only field
/// read before the signature holds; now when there is none), with Apple's OIDs on the leaf (receipt signing) and the
/// intermediate (WWDR); the signature must verify under the leaf's key; only then is the payload decoded, and the
/// bundle id and app Apple ID, then the environment, must be the tenant's. Revocation (OCSP) is not checked: it needs
/// Apple's servers on every verification, and Apple's library makes it optional too.
public struct AppStoreVerifier: Sendable {
    let roots: [Certificate]
    let bundleId: String
    let appAppleId: Int64?
    let environments: Set<String>

    public init(roots: [Certificate], bundleId: String, appAppleId: Int64?, environments: Set<String>) {
        self.roots = roots
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environments = environments
    }

    public func notification(_ signedPayload: String) async throws -> NotificationPayload {
        let notification = try await verified(signedPayload, as: NotificationPayload.self)
        let app = notification.app
        try check(bundleId: app?.bundleId)
        // Apple's library checks the app Apple ID of a production app; a tenant may accept both environments, so
        // here it is checked when the data says Production or the tenant takes Production data alone.
        if (app?.environment == "Production" || environments == ["Production"]) && app?.appAppleId != appAppleId {
            throw AppStoreVerificationError(.invalidAppIdentifier, "app Apple ID \(app?.appAppleId.map(String.init) ?? "(none)") is not "
                                            + "this tenant's \(appAppleId.map(String.init) ?? "(none)")")
        }
        try check(environment: app?.environment)
        return notification
    }

    /// Transactions carry no app Apple ID; the bundle id and environment are what Apple's library checks.
    public func transaction(_ signedTransaction: String) async throws -> TransactionInfo {
        let transaction = try await verified(signedTransaction, as: TransactionInfo.self)
        try check(bundleId: transaction.bundleId)
        try check(environment: transaction.environment)
        return transaction
    }

    public func renewalInfo(_ signedRenewalInfo: String) async throws -> RenewalInfo {
        let renewal = try await verified(signedRenewalInfo, as: RenewalInfo.self)
        try check(environment: renewal.environment)
        return renewal
    }

    /// A purchase as a notification or the app carries it: its transaction, and its renewal info when there is
    /// one, which must be about the same purchase.
    public func purchase(signedTransaction: String, signedRenewalInfo: String?) async throws -> (TransactionInfo, RenewalInfo?) {
        let transaction = try await transaction(signedTransaction)
        guard let signedRenewalInfo else { return (transaction, nil) }
        let renewal = try await renewalInfo(signedRenewalInfo)
        guard renewal.originalTransactionId == transaction.originalTransactionId else {
            throw AppStoreVerificationError(.invalidFormat, "the renewal info is about purchase \(renewal.originalTransactionId ?? "(none)"), "
                                            + "the transaction about \(transaction.originalTransactionId ?? "(none)")")
        }
        return (transaction, renewal)
    }

    private func check(bundleId: String?) throws {
        guard bundleId == self.bundleId else {
            throw AppStoreVerificationError(.invalidAppIdentifier, "bundle id \(bundleId ?? "(none)") is not this tenant's \(self.bundleId)")
        }
    }

    private func check(environment: String?) throws {
        guard let environment, environments.contains(environment) else {
            throw AppStoreVerificationError(.invalidEnvironment,
                                            "environment \(environment ?? "(none)") is not accepted (accepted: \(environments.sorted().joined(separator: ", ")))")
        }
    }

    /// The JWS's payload, once its chain and signature hold.
    func verified<Payload: SignedPayload>(_ jws: String, as type: Payload.Type) async throws -> Payload {
        let parts = jws.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Secrets.decodeBase64URL(String(parts[0])), let payloadBytes = Secrets.decodeBase64URL(String(parts[1])),
              let signature = Secrets.decodeBase64URL(String(parts[2])) else {
            throw AppStoreVerificationError(.invalidFormat, "not a compact JWS (three base64url parts)")
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: headerBytes) else {
            throw AppStoreVerificationError(.invalidFormat, "the JWS header is not JSON")
        }
        guard header.alg == "ES256" else {
            throw AppStoreVerificationError(.invalidFormat, "algorithm \(header.alg ?? "(none)") is not ES256")
        }
        guard let x5c = header.x5c, x5c.count == 3 else {
            throw AppStoreVerificationError(.invalidFormat, "x5c holds \(header.x5c?.count ?? 0) certificates, not 3")
        }
        let leaf: Certificate
        let intermediate: Certificate
        do {
            guard let leafBytes = Data(base64Encoded: x5c[0]), let intermediateBytes = Data(base64Encoded: x5c[1]) else {
                throw AppStoreVerificationError(.invalidCertificate, "x5c is not base64")
            }
            leaf = try Certificate(derEncoded: Array(leafBytes))
            intermediate = try Certificate(derEncoded: Array(intermediateBytes))
        } catch let error as AppStoreVerificationError {
            throw error
        } catch {
            throw AppStoreVerificationError(.invalidCertificate, "x5c holds a certificate that does not parse")
        }

        // The one field read before the signature holds, as Apple's library reads it: the time to validate at.
        let signedAt = (try? JSONDecoder().decode(Dated.self, from: payloadBytes))?.signedDate?.appleDate ?? Date()
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: signedAt)
            AppStoreOIDPolicy()
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate])) {
        case .validCertificate:
            break
        case .couldNotValidate(let failures):
            let reasons = failures.map { String(describing: $0.policyFailureReason) }
            throw AppStoreVerificationError(
                .verificationFailure,
                reasons.isEmpty
                    ? "no chain from the leaf through the intermediate to a configured root"
                    : "the chain fails at \(ISO8601DateFormatter().string(from: signedAt)): \(reasons.joined(separator: "; "))"
            )
        }

        guard let key = P256.Signing.PublicKey(leaf.publicKey) else {
            throw AppStoreVerificationError(.verificationFailure, "the leaf's key is not a P-256 key")
        }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
              key.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8)) else {
            throw AppStoreVerificationError(.verificationFailure, "the signature does not verify under the leaf certificate's key")
        }
        do {
            return try JSONDecoder().decode(Payload.self, from: payloadBytes)
        } catch {
            throw AppStoreVerificationError(.invalidFormat, "the payload is not a \(Payload.self): \(Self.describe(error))")
        }
    }

    private struct Header: Decodable {
        let alg: String?
        let x5c: [String]?
    }

    private struct Dated: Decodable {
        let signedDate: Int64?
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "\(key.stringValue) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is malformed"
        default: "malformed JSON"
        }
    }
}

/// Apple's OIDs: the leaf must be a receipt-signing certificate and the intermediate Apple's WWDR CA, in a chain
/// of exactly three (as in Apple's library).
struct AppStoreOIDPolicy: VerifierPolicy {
    static let receiptSigner: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    static let wwdrIntermediate: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]

    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "the chain has \(chain.count) certificates, not 3")
        }
        guard chain[1].extensions.contains(where: { $0.oid == Self.wwdrIntermediate }) else {
            return .failsToMeetPolicy(reason: "the intermediate lacks Apple's WWDR OID 1.2.840.113635.100.6.2.1")
        }
        guard chain[0].extensions.contains(where: { $0.oid == Self.receiptSigner }) else {
            return .failsToMeetPolicy(reason: "the leaf lacks Apple's receipt-signing OID 1.2.840.113635.100.6.11.1")
        }
        return .meetsPolicy
    }
}

/// Why signed App Store data was refused, in Apple's terms (its library's `VerificationError`), with the exact
/// detail `hearth appstore verify` prints.
public struct AppStoreVerificationError: Error, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable {
        case invalidFormat = "invalid_jws_format"
        case invalidCertificate = "invalid_certificate"
        case verificationFailure = "verification_failure"
        case invalidAppIdentifier = "invalid_app_identifier"
        case invalidEnvironment = "invalid_environment"
    }

    public let reason: Reason
    public let detail: String

    init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(reason.rawValue): \(detail)" }
}
