import Foundation
import HearthPlatform
import Hummingbird

/// The App Store's two ways in:
/// - `POST /webhooks/appstore/{tenant}`: App Store Server Notifications V2, the URL set in App Store Connect
///   (the tenant by its slug: Apple sends no client key). Any answer but a 2xx makes Apple retry, which is what
///   our transient failures want.
/// - `POST /v1/me/subscription/verify`: the app, right after a purchase or restore, with StoreKit's signed data.
public struct AppStoreController<Context: HearthRequestContextProtocol>: Sendable {
    struct NotificationBody: Decodable {
        let signedPayload: String
    }

    struct Received: ResponseEncodable {
        let outcome: AppStoreNotifications.Outcome
    }

    struct PurchaseBody: Decodable {
        let signedTransaction: String
        let signedRenewalInfo: String?
    }

    let notifications: AppStoreNotifications
    let purchases: AppStorePurchases
    let tenants: TenantStore

    public init(database: Database, tenants: TenantStore) {
        self.notifications = AppStoreNotifications(database: database)
        self.purchases = AppStorePurchases(database: database)
        self.tenants = tenants
    }

    /// `webhooks`: a group with no client key; `signedIn`: the signed-in app routes.
    public func addRoutes(webhooks: RouterGroup<Context>, signedIn: RouterGroup<Context>) {
        webhooks.post("appstore/:tenant", use: receive)
        signedIn.post("me/subscription/verify", use: verify)
    }

    @Sendable func receive(_ request: Request, context: Context) async throws -> Received {
        let slug = try context.parameters.require("tenant")
        guard let tenant = try await tenants.find(slug: slug) else {
            throw APIError.notFound("No such tenant.")
        }
        let body = try await request.decode(as: NotificationBody.self, context: context)
        do {
            let outcome = try await notifications.receive(signedPayload: body.signedPayload, tenantID: tenant.id)
            context.logger.info("App Store notification", metadata: ["outcome": .string(outcome.rawValue)])
            return Received(outcome: outcome)
        } catch let error as AppStoreVerificationError {
            context.logger.warning("App Store notification refused", metadata: ["reason": .string(error.description)])
            throw APIError.badRequest("signed_payload_invalid", "The signed payload did not verify: \(error.description)")
        }
    }

    @Sendable func verify(_ request: Request, context: Context) async throws -> SubscriptionView {
        let body = try await request.decode(as: PurchaseBody.self, context: context)
        let view: SubscriptionView?
        do {
            view = try await purchases.verify(signedTransaction: body.signedTransaction, signedRenewalInfo: body.signedRenewalInfo,
                                              tenantID: context.requireTenant().id, userID: context.requireIdentity().userID)
        } catch let error as AppStoreVerificationError {
            throw APIError(.unprocessableContent, code: "signed_data_invalid", message: "The signed App Store data did not verify: \(error.description)")
        }
        guard let view else {
            throw APIError.sessionRevoked
        }
        return view
    }
}
