import Foundation
import HearthPlatform

/// The app's own word after a purchase (or a restore): StoreKit's signed transaction, and its renewal info when
/// the app has it, verified and applied to the signed-in person. The purchase moves to them from anyone who held
/// it before: an App Store subscription belongs to the Apple ID, and a reinstall's new account restores it.
public struct AppStorePurchases: Sendable {
    let database: Database
    let settings: AppStoreSettingsStore
    let subscriptions: SubscriptionStore

    public init(database: Database) {
        self.database = database
        self.settings = AppStoreSettingsStore(database: database)
        self.subscriptions = SubscriptionStore(database: database)
    }

    /// The person's subscription afterwards (unchanged when the data is older than what it holds).
    /// - Throws: ``AppStoreVerificationError`` for data that is not the tenant's signed App Store data.
    public func verify(signedTransaction: String, signedRenewalInfo: String?, tenantID: UUID, userID: UUID,
                       now: Date = Date()) async throws -> SubscriptionView? {
        let verifier = try await settings.verifier(tenantID: tenantID)
        let (transaction, renewal) = try await verifier.purchase(signedTransaction: signedTransaction, signedRenewalInfo: signedRenewalInfo)
        guard transaction.isAutoRenewable else {
            throw APIError.validation("Only auto-renewable subscriptions entitle coaching; this is a \(transaction.type ?? "purchase").")
        }
        let signedAt = [transaction.signedDate, renewal?.signedDate].compactMap { $0 }.max()?.appleDate ?? now
        let entitlement = try Entitlement(transaction: transaction, renewal: renewal, signedAt: signedAt, now: now)
        return try await database.withTenant(tenantID) { [self] connection in
            _ = try await subscriptions.apply(entitlement, userID: userID, on: connection)
            return try await subscriptions.view(userID: userID, on: connection, now: now)
        }
    }
}
