import Foundation
import HearthPlatform

/// Whatever App Store signed data a file holds, verified: a notification (the webhook's body or its bare
/// `signedPayload`, with its transaction and renewal info verified too), a transaction or a renewal info.
/// What `hearth appstore verify` prints.
public struct SignedDocument: Encodable, Sendable {
    public let type: String
    public var notification: NotificationPayload?
    public var transaction: TransactionInfo?
    public var renewalInfo: RenewalInfo?
}

extension AppStoreVerifier {
    public func document(_ text: String) async throws -> SignedDocument {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let jws: String
        if trimmed.hasPrefix("{") {
            struct Body: Decodable { let signedPayload: String }
            guard let body = try? JSONDecoder().decode(Body.self, from: Data(trimmed.utf8)) else {
                throw AppStoreVerificationError(.invalidFormat, "a JSON file must be a notification body: {\"signedPayload\": \"…\"}")
            }
            jws = body.signedPayload
        } else {
            jws = trimmed
        }
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Secrets.decodeBase64URL(String(parts[1])),
              let fields = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
            throw AppStoreVerificationError(.invalidFormat, "not a compact JWS (three base64url parts with a JSON payload)")
        }
        if fields["notificationUUID"] != nil {
            let notification = try await self.notification(jws)
            var document = SignedDocument(type: "notification", notification: notification)
            if let signed = notification.data?.signedTransactionInfo {
                (document.transaction, document.renewalInfo) = try await purchase(signedTransaction: signed,
                                                                                  signedRenewalInfo: notification.data?.signedRenewalInfo)
            }
            return document
        }
        if fields["transactionId"] != nil {
            return SignedDocument(type: "transaction", transaction: try await transaction(jws))
        }
        if fields["autoRenewStatus"] != nil || fields["renewalDate"] != nil {
            return SignedDocument(type: "renewalInfo", renewalInfo: try await renewalInfo(jws))
        }
        throw AppStoreVerificationError(.invalidFormat, "the payload is not a notification, a transaction or a renewal info")
    }
}
