import Foundation

/// The App Store's signed payloads, decoded after verification (``AppStoreVerifier``), with the fields Hearth
/// reads under Apple's own names (App Store Server API and Notifications V2). Dates are milliseconds since 1970,
/// as Apple sends them. Encodable so `hearth appstore verify` can print what it verified. A transaction's or a
/// renewal info's fields are optional, as in Apple's libraries: verifying one requires none of them; what a
/// purchase needs to be linked is asked for afterwards (``Entitlement``).
public protocol SignedPayload: Codable, Sendable {
    /// When the App Store signed it: the time the certificate chain is validated at (now, when absent).
    var signedDate: Int64? { get }
}

/// `responseBodyV2DecodedPayload`: an App Store Server Notification V2.
public struct NotificationPayload: SignedPayload, Equatable {
    public struct AppData: Codable, Sendable, Equatable {
        public var appAppleId: Int64?
        public var bundleId: String?
        public var bundleVersion: String?
        public var environment: String?
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?
        /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        public var status: Int?

        public init(appAppleId: Int64?, bundleId: String?, environment: String?, signedTransactionInfo: String? = nil,
                    signedRenewalInfo: String? = nil, status: Int? = nil) {
            self.appAppleId = appAppleId
            self.bundleId = bundleId
            self.environment = environment
            self.signedTransactionInfo = signedTransactionInfo
            self.signedRenewalInfo = signedRenewalInfo
            self.status = status
        }
    }

    /// The app a notification without `data` is about (a renewal-date extension's summary, app metadata).
    public struct AppIdentity: Codable, Sendable, Equatable {
        public var appAppleId: Int64?
        public var bundleId: String?
        public var environment: String?
    }

    public var notificationType: String
    public var subtype: String?
    public var notificationUUID: String
    public var version: String?
    public var signedDate: Int64?
    public var data: AppData?
    public var summary: AppIdentity?
    public var appData: AppIdentity?

    public init(notificationType: String, subtype: String? = nil, notificationUUID: String, signedDate: Int64, data: AppData?) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.version = "2.0"
        self.signedDate = signedDate
        self.data = data
    }

    /// The app the notification is about, wherever Apple put it.
    var app: AppIdentity? {
        if let data { return AppIdentity(appAppleId: data.appAppleId, bundleId: data.bundleId, environment: data.environment) }
        return summary ?? appData
    }
}

/// `JWSTransactionDecodedPayload`: one purchase or renewal of an auto-renewable subscription.
public struct TransactionInfo: SignedPayload, Equatable {
    public var transactionId: String?
    public var originalTransactionId: String?
    public var bundleId: String?
    public var productId: String?
    public var purchaseDate: Int64?
    public var expiresDate: Int64?
    public var type: String?
    /// The UUID the app passed at purchase: Hearth gives each person theirs (`GET /v1/me/subscription`).
    public var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    public var revocationDate: Int64?
    public var revocationReason: Int?
    public var environment: String?
    public var signedDate: Int64?

    /// Only auto-renewable subscriptions entitle coaching (a payload without a type is taken as one).
    var isAutoRenewable: Bool { type == nil || type == "Auto-Renewable Subscription" }

    public init(transactionId: String, originalTransactionId: String, bundleId: String, productId: String, purchaseDate: Int64?,
                expiresDate: Int64?, appAccountToken: String?, inAppOwnershipType: String? = "PURCHASED", revocationDate: Int64? = nil,
                revocationReason: Int? = nil, environment: String, signedDate: Int64) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.bundleId = bundleId
        self.productId = productId
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.type = "Auto-Renewable Subscription"
        self.appAccountToken = appAccountToken
        self.inAppOwnershipType = inAppOwnershipType
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.environment = environment
        self.signedDate = signedDate
    }
}

/// `JWSRenewalInfoDecodedPayload`: what happens at the end of the current period.
public struct RenewalInfo: SignedPayload, Equatable {
    public var originalTransactionId: String?
    public var productId: String?
    public var autoRenewProductId: String?
    /// 1 on, 0 off.
    public var autoRenewStatus: Int?
    public var expirationIntent: Int?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Int64?
    public var renewalDate: Int64?
    public var environment: String?
    public var signedDate: Int64?

    public init(originalTransactionId: String, productId: String?, autoRenewStatus: Int?, isInBillingRetryPeriod: Bool? = nil,
                gracePeriodExpiresDate: Int64? = nil, environment: String, signedDate: Int64) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = productId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.environment = environment
        self.signedDate = signedDate
    }
}

extension Int64 {
    /// Apple's milliseconds since 1970 as a date.
    var appleDate: Date { Date(timeIntervalSince1970: Double(self) / 1000) }
}
