import Foundation
import HearthPlatform

/// A person's subscription as verified App Store data describes it: what `SubscriptionStore.apply` writes into
/// `subscriptions`. Derived from the transaction (what was bought, until when, whether it was taken back), the
/// renewal info (billing retry, grace period, auto-renew) and, for a notification, Apple's own status and type.
public struct Entitlement: Sendable, Equatable {
    public var status: SubscriptionView.Status
    public var productId: String
    public var originalTransactionId: String
    public var expiresAt: Date?
    public var graceEndsAt: Date?
    public var autoRenew: Bool?
    public var environment: String
    /// The newest signedDate among the data: an older one never overwrites a newer one.
    public var signedAt: Date

    /// - Parameters:
    ///   - notificationType: The notification's type, when it came in one; `REFUND` and `REVOKE` say which way
    ///     the purchase was taken back.
    ///   - appleStatus: The notification's `data.status` (1 active, 2 expired, 3 billing retry, 4 grace period,
    ///     5 revoked), Apple's own reading at signing time; derived from the data when absent (the app's call).
    /// - Throws: ``Entitlement/incomplete(_:)`` when verified data lacks what linking a purchase needs (its product,
    ///   its original transaction, its environment): Apple's libraries verify such data, so the refusal is Hearth's own.
    public init(transaction: TransactionInfo, renewal: RenewalInfo?, notificationType: String? = nil, appleStatus: Int? = nil,
                signedAt: Date, now: Date = Date()) throws {
        guard let productId = transaction.productId else { throw Self.incomplete("productId") }
        guard let originalTransactionId = transaction.originalTransactionId else { throw Self.incomplete("originalTransactionId") }
        guard let environment = transaction.environment else { throw Self.incomplete("environment") }
        let graceEndsAt = renewal?.gracePeriodExpiresDate?.appleDate
        let expiresAt = transaction.expiresDate?.appleDate
        let takenBack: SubscriptionView.Status = transaction.inAppOwnershipType == "FAMILY_SHARED" ? .revoked : .refunded
        self.status = switch (notificationType, appleStatus) {
        case ("REFUND", _): .refunded
        case ("REVOKE", _): .revoked
        case (_, 5): takenBack
        case _ where transaction.revocationDate != nil: takenBack
        case (_, 1): .active
        case (_, 2): .expired
        case (_, 3): .billingRetry
        case (_, 4): .gracePeriod
        default:
            if renewal?.isInBillingRetryPeriod == true {
                (graceEndsAt.map { $0 > now } ?? false) ? .gracePeriod : .billingRetry
            } else {
                (expiresAt.map { $0 > now } ?? false) ? .active : .expired
            }
        }
        self.productId = productId
        self.originalTransactionId = originalTransactionId
        self.expiresAt = expiresAt
        self.graceEndsAt = status == .gracePeriod ? graceEndsAt : nil
        self.autoRenew = renewal?.autoRenewStatus.map { $0 == 1 }
        self.environment = environment
        self.signedAt = signedAt
    }

    /// The refusal of a verified purchase that cannot be linked: 422 `incomplete_purchase`, naming the field.
    static func incomplete(_ field: String) -> APIError {
        APIError(.unprocessableContent, code: "incomplete_purchase", message: "The verified transaction has no \(field); a purchase needs one to be linked.")
    }
}
