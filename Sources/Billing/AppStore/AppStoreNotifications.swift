import Foundation
import HearthPlatform
import PostgresNIO

/// App Store Server Notifications V2 (the webhook) and owner of `appstore_notifications`. A notification is
/// verified, its transaction and renewal info too, and then applied to the person the purchase belongs to, in one
/// transaction with its record. Apple retries anything but a 2xx, so what could succeed later throws — a database
/// failure, a purchase not yet linked to anyone, a product no plan lists, settings not yet made — and leaves no
/// record; a notification already recorded (Apple sent it again) changes nothing.
public struct AppStoreNotifications: Sendable {
    public enum Outcome: String, Codable, Sendable {
        case applied
        /// Signed before what the subscription already holds (it arrived out of order).
        case stale
        /// Nothing about a subscription in it: a TEST, a consumption request, another kind of product.
        case ignored
        /// Already received.
        case duplicate
    }

    let database: Database
    let settings: AppStoreSettingsStore
    let subscriptions: SubscriptionStore

    public init(database: Database) {
        self.database = database
        self.settings = AppStoreSettingsStore(database: database)
        self.subscriptions = SubscriptionStore(database: database)
    }

    /// - Throws: ``AppStoreVerificationError`` for data that is not the tenant's signed App Store data.
    public func receive(signedPayload: String, tenantID: UUID, now: Date = Date()) async throws -> Outcome {
        let verifier = try await settings.verifier(tenantID: tenantID)
        let notification = try await verifier.notification(signedPayload)
        guard let notificationID = UUID(uuidString: notification.notificationUUID) else {
            throw AppStoreVerificationError(.invalidFormat, "notificationUUID \(notification.notificationUUID) is not a UUID")
        }
        let purchase = try await Self.purchase(in: notification, verifier: verifier, now: now)
        return try await database.withTenant(tenantID) { [self] connection in
            // Recorded first: a second delivery running at the same time waits here, then finds it.
            let recorded = try await connection.query(
                """
                INSERT INTO appstore_notifications (tenant_id, notification_uuid, notification_type, subtype, environment, signed_at,
                                                    outcome, original_transaction_id)
                VALUES (hearth_tenant_id(), \(notificationID), \(notification.notificationType), \(notification.subtype),
                        \(notification.app?.environment), \(notification.signedDate?.appleDate ?? now), 'ignored',
                        \(purchase?.entitlement.originalTransactionId))
                ON CONFLICT (tenant_id, notification_uuid) DO NOTHING
                RETURNING true
                """,
                logger: database.logger
            )
            guard try await recorded.collect().count == 1 else { return .duplicate }
            guard let purchase else { return .ignored }
            guard let userID = try await subscriptions.holder(originalTransactionId: purchase.entitlement.originalTransactionId,
                                                              appAccountToken: purchase.appAccountToken, on: connection) else {
                throw APIError.conflict("purchase_not_linked",
                                        "No person holds this purchase yet: the app verifies it after purchase, or sets appAccountToken.")
            }
            let outcome: Outcome = switch try await subscriptions.apply(purchase.entitlement, userID: userID, on: connection) {
            case .applied: .applied
            case .stale: .stale
            }
            try await connection.query(
                """
                UPDATE appstore_notifications SET outcome = \(outcome.rawValue), user_id = \(userID)
                WHERE notification_uuid = \(notificationID)
                """,
                logger: database.logger
            )
            return outcome
        }
    }

    /// The subscription the notification describes, verified; `nil` when it describes none.
    private static func purchase(in notification: NotificationPayload, verifier: AppStoreVerifier, now: Date)
        async throws -> (entitlement: Entitlement, appAccountToken: String?)? {
        guard let data = notification.data, let signedTransaction = data.signedTransactionInfo else { return nil }
        let (transaction, renewal) = try await verifier.purchase(signedTransaction: signedTransaction, signedRenewalInfo: data.signedRenewalInfo)
        guard transaction.isAutoRenewable else { return nil }
        let entitlement = try Entitlement(transaction: transaction, renewal: renewal, notificationType: notification.notificationType,
                                      appleStatus: data.status, signedAt: notification.signedDate?.appleDate ?? now, now: now)
        return (entitlement, transaction.appAccountToken)
    }
}
