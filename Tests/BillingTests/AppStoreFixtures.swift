import Billing
import Foundation
import HearthTestSupport

/// App Store payloads as Apple shapes them, for the tenant the tests configure (bundle `com.example.coach`,
/// app Apple ID 1234567890), signed by a test CA.
struct AppStoreFixtures {
    static let bundleId = "com.example.coach"
    static let appAppleId: Int64 = 1_234_567_890
    static let monthly = "com.example.coach.premium.monthly"

    let ca: AppStoreTestCA
    var environment = "Sandbox"

    var settings: AppStoreSettings {
        AppStoreSettings(bundleId: Self.bundleId, appAppleId: Self.appAppleId, environments: ["Production", "Sandbox"],
                         rootCertificates: [ca.rootDER])
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    func transaction(originalID: String = "2000000000000001", transactionID: String? = nil, product: String = monthly,
                     expires: Date, signed: Date = Date(), appAccountToken: UUID? = nil, revoked: Date? = nil,
                     ownership: String = "PURCHASED", bundleId: String = bundleId) -> TransactionInfo {
        TransactionInfo(transactionId: transactionID ?? originalID, originalTransactionId: originalID, bundleId: bundleId,
                        productId: product, purchaseDate: Self.millis(expires.addingTimeInterval(-30 * 86_400)),
                        expiresDate: Self.millis(expires), appAccountToken: appAccountToken?.uuidString.lowercased(),
                        inAppOwnershipType: ownership, revocationDate: revoked.map(Self.millis), revocationReason: revoked == nil ? nil : 0,
                        environment: environment, signedDate: Self.millis(signed))
    }

    func renewal(originalID: String = "2000000000000001", autoRenew: Bool = true, billingRetry: Bool? = nil, graceEnds: Date? = nil,
                 signed: Date = Date()) -> RenewalInfo {
        RenewalInfo(originalTransactionId: originalID, productId: Self.monthly, autoRenewStatus: autoRenew ? 1 : 0,
                    isInBillingRetryPeriod: billingRetry, gracePeriodExpiresDate: graceEnds.map(Self.millis), environment: environment,
                    signedDate: Self.millis(signed))
    }

    /// A signed notification about `transaction` (and `renewal`), with Apple's status code for it.
    func notification(_ type: String, subtype: String? = nil, id: UUID = UUID(), signed: Date = Date(), transaction: TransactionInfo?,
                      renewal: RenewalInfo? = nil, status: Int? = nil, appAppleId: Int64? = appAppleId,
                      bundleId: String = bundleId) throws -> String {
        let data = NotificationPayload.AppData(
            appAppleId: appAppleId, bundleId: bundleId, environment: environment,
            signedTransactionInfo: try transaction.map { try ca.sign($0) }, signedRenewalInfo: try renewal.map { try ca.sign($0) },
            status: status
        )
        return try ca.sign(NotificationPayload(notificationType: type, subtype: subtype, notificationUUID: id.uuidString.lowercased(),
                                               signedDate: Self.millis(signed), data: data))
    }
}
