import Foundation
import HearthPlatform
import Hummingbird

/// `GET /v1/me/subscription` (FR35): the signed-in person's trial or subscription, renewal date and limits.
public struct SubscriptionController<Context: HearthRequestContextProtocol>: Sendable {
    let subscriptions: SubscriptionStore

    public init(subscriptions: SubscriptionStore) {
        self.subscriptions = subscriptions
    }

    /// `group`: the signed-in app routes.
    public func addRoutes(to group: RouterGroup<Context>) {
        group.get("me/subscription", use: show)
    }

    @Sendable func show(_ request: Request, context: Context) async throws -> SubscriptionView {
        // A signed-in person whose account is gone has no live session either; answered like one.
        guard let view = try await subscriptions.view(tenantID: context.requireTenant().id, userID: context.requireIdentity().userID) else {
            throw APIError.sessionRevoked
        }
        return view
    }
}
