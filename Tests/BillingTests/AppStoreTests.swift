import Foundation
import HearthPlatform
import HearthTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import Billing

/// The App Store end to end, through the webhook and the app's verify call on a live Hearth: a test CA stands in
/// for Apple's (configured as the tenant's root), and its signed notifications drive every state a subscription
/// can be in.
@Suite struct AppStoreTests {
    /// A tenant whose premium plan is bought by the fixtures' monthly product, with the test CA as its root.
    func configuredTenant(_ hearth: TestHearth, _ client: any TestClientProtocol, ca: AppStoreTestCA) async throws -> (Tenant, String) {
        let (tenant, key) = try await hearth.createTenant()
        let admin = try await adminToken(hearth, client, tenant: tenant)
        let saved = try await client.call(.put, "/operator/v1/tenants/\(tenant.slug)/billing/app-store", token: admin, json: [
            "bundleId": AppStoreFixtures.bundleId, "appAppleId": AppStoreFixtures.appAppleId, "environments": ["Sandbox", "Production"],
            "rootCertificates": [ca.rootDER.base64EncodedString()],
        ])
        #expect(saved.status == .ok)
        let plan = try await client.call(.put, "/operator/v1/tenants/\(tenant.slug)/billing/plans/premium", token: admin, json: [
            "name": "Premium", "productIds": [AppStoreFixtures.monthly], "requestsPerMinute": 120, "tokensPerDay": 200_000,
            "concurrentStreams": 3, "monthlyBudgetMicros": 4_000_000,
        ])
        #expect(plan.status == .ok)
        return (tenant, key)
    }

    /// A live Hearth with a configured tenant (`configuredTenant`) and one signed-in person of it.
    func withConfiguredTenant(
        _ body: @Sendable (TestHearth, any TestClientProtocol, Tenant, AppStoreFixtures, Coachee) async throws -> Void
    ) async throws {
        let hearth = try await TestHearth.make()
        let fixtures = AppStoreFixtures(ca: try AppStoreTestCA())
        try await hearth.test { client in
            let (tenant, key) = try await configuredTenant(hearth, client, ca: fixtures.ca)
            try await body(hearth, client, tenant, fixtures, try await Coachee.make(client, key: key))
        }
    }

    func post(_ client: any TestClientProtocol, _ tenant: Tenant, _ signedPayload: String) async throws -> APIResponse {
        try await client.call(.post, "/webhooks/appstore/\(tenant.slug)", json: ["signedPayload": signedPayload])
    }

    func subscription(_ client: any TestClientProtocol, _ person: Coachee) async throws -> APIResponse {
        try await client.call(.get, "/v1/me/subscription", clientKey: person.key, token: person.token)
    }

    @Test func operatorsConfigureTheAppStoreAndOnlyAdminsChangeIt() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, _) = try await hearth.createTenant()
        let ca = try AppStoreTestCA()
        try await hearth.test { client in
            let path = "/operator/v1/tenants/\(tenant.slug)/billing/app-store"
            let admin = try await adminToken(hearth, client, tenant: tenant)
            #expect(try await client.call(.get, path, token: admin).status == .notFound)
            let viewerEmail = "viewer@\(tenant.slug).example"
            try await hearth.createOperator(viewerEmail, role: .viewer, tenantID: tenant.id)
            let viewer = try await client.operatorToken(viewerEmail)
            let body: [String: any Sendable] = ["bundleId": "com.example.coach", "appAppleId": 99, "environments": ["Production"],
                                                "rootCertificates": [ca.rootDER.base64EncodedString()]]
            #expect(try await client.call(.put, path, token: viewer, json: body).status == .forbidden)
            let noAppID = try await client.call(.put, path, token: admin, json: ["bundleId": "com.example.coach", "environments": ["Production"]])
            #expect(noAppID.status == .unprocessableContent && noAppID.errorMessage?.contains("appAppleId") == true)
            let badRoot = try await client.call(.put, path, token: admin,
                                                json: ["bundleId": "com.example.coach", "environments": ["Sandbox"], "rootCertificates": ["bm9wZQ=="]])
            #expect(badRoot.status == .unprocessableContent)
            #expect(try await client.call(.put, path, token: admin, json: body).status == .ok)
            let shown = try await client.call(.get, path, token: viewer)
            #expect(shown.status == .ok && shown["bundleId"] as? String == "com.example.coach" && shown["environments"] as? [String] == ["Production"])
            #expect(shown["rootCertificates"] as? [String] == [ca.rootDER.base64EncodedString()])
        }
    }

    @Test func aPurchaseTheAppVerifiesEntitlesThePersonAtOnce() async throws {
        try await withConfiguredTenant { hearth, client, tenant, fixtures, person in
            let (ca, key) = (fixtures.ca, person.key)
            #expect(try await client.coach(person).status == .ok)
            try await hearth.admin("UPDATE subscriptions SET trial_ends_at = now() - interval '1 minute'")
            #expect(try await client.coach(person).status.code == 402)
            let shown = try await subscription(client, person)["appAccountToken"] as? String
            let token = try #require(shown.flatMap(UUID.init(uuidString:)))
            #expect(token == person.grant.user.id)

            let expires = Date().addingTimeInterval(30 * 86_400)
            let body: [String: any Sendable] = [
                "signedTransaction": try ca.sign(fixtures.transaction(expires: expires, appAccountToken: token)),
                "signedRenewalInfo": try ca.sign(fixtures.renewal()),
            ]
            let verified = try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token, json: body)
            #expect(verified.status == .ok && verified["status"] as? String == "active" && verified["canCoach"] as? Bool == true)
            #expect((verified["plan"] as? [String: Any])?["code"] as? String == "premium" && verified["autoRenew"] as? Bool == true)
            #expect(verified["renewsAt"] as? String != nil && verified["productId"] as? String == AppStoreFixtures.monthly)
            #expect(try await client.coach(person, "Back again, and subscribed.").status == .ok)
            #expect(try await hearth.adminString("SELECT plan_code || ' ' || environment FROM subscriptions") == "premium Sandbox")

            // Not signed by the configured root, another product, a renewal info about another purchase, garbage.
            let forged = try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token,
                                               json: ["signedTransaction": try AppStoreTestCA().sign(fixtures.transaction(expires: expires))])
            #expect(forged.status == .unprocessableContent && forged.errorCode == "signed_data_invalid")
            #expect(forged.errorMessage?.contains("verification_failure") == true)
            let unknown = try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token,
                                                json: ["signedTransaction": try ca.sign(fixtures.transaction(product: "com.example.coach.gems", expires: expires))])
            #expect(unknown.status == .unprocessableContent && unknown.errorCode == "unknown_product")
            let mismatched = try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token, json: [
                "signedTransaction": try ca.sign(fixtures.transaction(expires: expires)),
                "signedRenewalInfo": try ca.sign(fixtures.renewal(originalID: "999")),
            ])
            #expect(mismatched.status == .unprocessableContent)
            let garbage = try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token,
                                                json: ["signedTransaction": "not.a.jws"])
            #expect(garbage.status == .unprocessableContent && garbage.errorCode == "signed_data_invalid")
            var productless = fixtures.transaction(expires: expires)
            productless.productId = nil
            let incomplete = try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token,
                                                   json: ["signedTransaction": try ca.sign(productless)])
            #expect(incomplete.status == .unprocessableContent && incomplete.errorCode == "incomplete_purchase", "\(incomplete.text)")
            #expect(try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token, json: [:]).status == .badRequest)
            #expect(try await subscription(client, person)["status"] as? String == "active")
        }
    }

    @Test func aTenantWithoutAppStoreSettingsRefusesSoAppleRetriesLater() async throws {
        let hearth = try await TestHearth.make()
        let (tenant, key) = try await hearth.createTenant()
        let ca = try AppStoreTestCA()
        let fixtures = AppStoreFixtures(ca: ca)
        try await hearth.test { client in
            let person = try await Coachee.make(client, key: key)
            let verify = try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token,
                                               json: ["signedTransaction": try ca.sign(fixtures.transaction(expires: Date()))])
            #expect(verify.status == .conflict && verify.errorCode == "app_store_not_configured")
            let webhook = try await post(client, tenant, try fixtures.notification("TEST", transaction: nil))
            #expect(webhook.status == .conflict)
            #expect(try await client.call(.post, "/webhooks/appstore/no-such-tenant", json: ["signedPayload": "x"]).status == .notFound)
        }
    }

    @Test func notificationsDriveEveryStateTransition() async throws {
        try await withConfiguredTenant { hearth, client, tenant, fixtures, person in
            let token = person.grant.user.id
            let start = Date()
            var step = 0.0
            let month = 30.0 * 86_400
            /// One notification, signed a second after the last; returns the subscription afterwards.
            func notify(_ type: String, _ subtype: String? = nil, status: Int, expires: Date, revoked: Date? = nil, ownership: String = "PURCHASED",
                        autoRenew: Bool = true, billingRetry: Bool? = nil, graceEnds: Date? = nil) async throws -> APIResponse {
                step += 1
                let signed = start.addingTimeInterval(step)
                let transaction = fixtures.transaction(transactionID: "20000000000000\(Int(step))", expires: expires, signed: signed,
                                                       appAccountToken: token, revoked: revoked, ownership: ownership)
                let renewal = fixtures.renewal(autoRenew: autoRenew, billingRetry: billingRetry, graceEnds: graceEnds, signed: signed)
                let response = try await post(client, tenant, try fixtures.notification(type, subtype: subtype, signed: signed,
                                                                                        transaction: transaction, renewal: renewal, status: status))
                #expect(response.status == .ok && response["outcome"] as? String == "applied", "\(type): \(response.status)")
                return try await subscription(client, person)
            }
            let firstPeriod = start.addingTimeInterval(month)
            let secondPeriod = start.addingTimeInterval(2 * month)

            // trial → active
            var now = try await notify("SUBSCRIBED", "INITIAL_BUY", status: 1, expires: firstPeriod)
            #expect(now["status"] as? String == "active" && now["autoRenew"] as? Bool == true && now["renewsAt"] as? String != nil)
            #expect(try await client.coach(person).status == .ok)
            // auto-renew switched off: still active, no renewal date
            now = try await notify("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", status: 1, expires: firstPeriod, autoRenew: false)
            #expect(now["status"] as? String == "active" && now["autoRenew"] as? Bool == false && now["renewsAt"] == nil)
            // renewed: the period moves on
            now = try await notify("DID_RENEW", status: 1, expires: secondPeriod)
            let renewedUntil = try #require(now["expiresAt"] as? String)
            #expect(renewedUntil.hasPrefix(ISO8601DateFormatter().string(from: secondPeriod).prefix(16)))
            // active → grace period (still coached)
            now = try await notify("DID_FAIL_TO_RENEW", "GRACE_PERIOD", status: 4, expires: start.addingTimeInterval(-60), billingRetry: true,
                                   graceEnds: start.addingTimeInterval(6 * 86_400))
            #expect(now["status"] as? String == "grace_period" && now["canCoach"] as? Bool == true)
            #expect(try await client.coach(person).status == .ok)
            // grace period → billing retry (not coached, told why)
            now = try await notify("GRACE_PERIOD_EXPIRED", status: 3, expires: start.addingTimeInterval(-60), billingRetry: true)
            #expect(now["status"] as? String == "billing_retry" && now["canCoach"] as? Bool == false)
            let retrying = try await client.coach(person)
            #expect(retrying.status.code == 402 && retrying.errorMessage?.contains("payment") == true)
            // billing retry → active (recovered)
            now = try await notify("DID_RENEW", "BILLING_RECOVERY", status: 1, expires: secondPeriod)
            #expect(now["status"] as? String == "active")
            // active → expired
            now = try await notify("EXPIRED", "VOLUNTARY", status: 2, expires: start.addingTimeInterval(-60), autoRenew: false)
            #expect(now["status"] as? String == "expired" && now["canCoach"] as? Bool == false)
            #expect(try await client.coach(person).status.code == 402)
            // expired → active (resubscribed)
            now = try await notify("SUBSCRIBED", "RESUBSCRIBE", status: 1, expires: secondPeriod)
            #expect(now["status"] as? String == "active")
            // active → refunded
            now = try await notify("REFUND", status: 5, expires: secondPeriod, revoked: start)
            #expect(now["status"] as? String == "refunded" && now["canCoach"] as? Bool == false)
            #expect(try await client.coach(person).status.code == 402)
            // refunded → active (the refund reversed)
            now = try await notify("REFUND_REVERSED", status: 1, expires: secondPeriod)
            #expect(now["status"] as? String == "active")
            // active → revoked (Family Sharing withdrawn)
            now = try await notify("REVOKE", status: 5, expires: secondPeriod, revoked: start, ownership: "FAMILY_SHARED")
            #expect(now["status"] as? String == "revoked" && now["canCoach"] as? Bool == false)

            #expect(try await hearth.adminCount("appstore_notifications WHERE outcome = 'applied' AND user_id = '\(token)'") == 11)
        }
    }

    @Test func aPaidPeriodThatEndsWithoutANewerWordFromAppleHasExpired() async throws {
        try await withConfiguredTenant { hearth, client, tenant, fixtures, person in
            let transaction = fixtures.transaction(expires: Date().addingTimeInterval(86_400), appAccountToken: person.grant.user.id)
            #expect(try await post(client, tenant, try fixtures.notification("SUBSCRIBED", transaction: transaction, status: 1)).status == .ok)
            #expect(try await client.coach(person).status == .ok)
            // The renewal never came (the period ended an hour ago); likewise a grace period that ran out.
            try await hearth.admin("UPDATE subscriptions SET expires_at = now() - interval '1 hour'")
            #expect(try await subscription(client, person)["status"] as? String == "expired")
            #expect(try await client.coach(person).errorCode == "subscription_required")
            try await hearth.admin("UPDATE subscriptions SET status = 'grace_period', grace_ends_at = now() - interval '1 hour'")
            #expect(try await subscription(client, person)["status"] as? String == "billing_retry")
        }
    }

    @Test func aRepeatedNotificationAndAnOlderOneChangeNothing() async throws {
        try await withConfiguredTenant { hearth, client, tenant, fixtures, person in
            let (ca, key) = (fixtures.ca, person.key)
            let now = Date()
            let live = fixtures.transaction(expires: now.addingTimeInterval(86_400), appAccountToken: person.grant.user.id)
            let subscribed = try fixtures.notification("SUBSCRIBED", signed: now, transaction: live, status: 1)
            #expect(try await post(client, tenant, subscribed)["outcome"] as? String == "applied")
            let again = try await post(client, tenant, subscribed)
            #expect(again.status == .ok && again["outcome"] as? String == "duplicate")
            #expect(try await hearth.adminCount("appstore_notifications") == 1)

            // An EXPIRED signed before the SUBSCRIBED, arriving after it.
            let late = try fixtures.notification("EXPIRED", signed: now.addingTimeInterval(-3600),
                                                 transaction: fixtures.transaction(expires: now.addingTimeInterval(-3600), signed: now.addingTimeInterval(-3600),
                                                                                   appAccountToken: person.grant.user.id), status: 2)
            #expect(try await post(client, tenant, late)["outcome"] as? String == "stale")
            #expect(try await subscription(client, person)["status"] as? String == "active")
            // The app's own, older copy of the purchase changes nothing either.
            let older = try ca.sign(fixtures.transaction(expires: now.addingTimeInterval(-60), signed: now.addingTimeInterval(-7200)))
            let verified = try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token,
                                                 json: ["signedTransaction": older])
            #expect(verified.status == .ok && verified["status"] as? String == "active")

            #expect(try await post(client, tenant, try fixtures.notification("TEST", transaction: nil))["outcome"] as? String == "ignored")
            #expect(try await hearth.adminCount("appstore_notifications WHERE outcome = 'stale'") == 1)
        }
    }

    @Test func whatCouldSucceedLaterIsRefusedUnrecordedSoApplesRetryApplies() async throws {
        try await withConfiguredTenant { hearth, client, tenant, fixtures, person in
            let (ca, key) = (fixtures.ca, person.key)
            let now = Date()
            let expires = now.addingTimeInterval(86_400)

            // A purchase made without an appAccountToken, notified before the app verified it.
            let anonymous = fixtures.transaction(originalID: "3000000000000001", expires: expires, signed: now.addingTimeInterval(-60))
            let notice = try fixtures.notification("SUBSCRIBED", signed: now, transaction: anonymous, status: 1)
            let unlinked = try await post(client, tenant, notice)
            #expect(unlinked.status == .conflict && unlinked.errorCode == "purchase_not_linked")
            #expect(try await hearth.adminCount("appstore_notifications") == 0)
            let verified = try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token,
                                                 json: ["signedTransaction": try ca.sign(anonymous)])
            #expect(verified["status"] as? String == "active")
            #expect(try await post(client, tenant, notice)["outcome"] as? String == "applied")  // Apple's retry

            // A product no plan lists yet: refused until the operator adds it, then the retry applies.
            let yearly = fixtures.transaction(product: "com.example.coach.premium.yearly", expires: expires, signed: now.addingTimeInterval(1),
                                              appAccountToken: person.grant.user.id)
            let upgrade = try fixtures.notification("DID_CHANGE_RENEWAL_PREF", signed: now.addingTimeInterval(1), transaction: yearly, status: 1)
            let unknown = try await post(client, tenant, upgrade)
            #expect(unknown.status == .unprocessableContent && unknown.errorCode == "unknown_product")
            try await hearth.admin("UPDATE billing_plans SET product_ids = product_ids || 'com.example.coach.premium.yearly'::text WHERE code = 'premium'")
            #expect(try await post(client, tenant, upgrade)["outcome"] as? String == "applied")
            #expect(try await subscription(client, person)["productId"] as? String == "com.example.coach.premium.yearly")

            // The database failing: a 5xx, nothing recorded, and the retry applies.
            let renewed = try fixtures.notification("DID_RENEW", signed: now.addingTimeInterval(2),
                                                    transaction: fixtures.transaction(expires: expires.addingTimeInterval(86_400),
                                                                                      appAccountToken: person.grant.user.id), status: 1)
            try await hearth.admin("REVOKE INSERT ON appstore_notifications FROM hearth_app")
            let failed = try await post(client, tenant, renewed)
            #expect(failed.status.code >= 500)
            try await hearth.admin("GRANT INSERT ON appstore_notifications TO hearth_app")
            #expect(try await post(client, tenant, renewed)["outcome"] as? String == "applied")

            // Not Apple's signature: refused with the reason, nothing recorded.
            let forged = try await post(client, tenant, try AppStoreFixtures(ca: try AppStoreTestCA()).notification("TEST", transaction: nil))
            #expect(forged.status == .badRequest && forged.errorCode == "signed_payload_invalid")
            #expect(try await hearth.adminCount("appstore_notifications") == 3)
        }
    }

    @Test func aRestoreOnANewAccountTakesThePurchaseAlong() async throws {
        try await withConfiguredTenant { hearth, client, tenant, fixtures, before in
            let (ca, key) = (fixtures.ca, before.key)
            let after = try await Coachee.make(client, key: key)  // the same Apple ID after a reinstall
            let now = Date()
            let purchase = fixtures.transaction(expires: now.addingTimeInterval(86_400), signed: now, appAccountToken: before.grant.user.id)
            for person in [before, after] {
                let verified = try await client.call(.post, "/v1/me/subscription/verify", clientKey: key, token: person.token,
                                                     json: ["signedTransaction": try ca.sign(purchase)])
                #expect(verified["status"] as? String == "active")
            }
            #expect(try await subscription(client, before)["status"] as? String == "expired")
            #expect(try await client.coach(after).status == .ok)
            // Apple's notifications follow the purchase to its holder, whatever the appAccountToken says.
            let renewed = fixtures.transaction(expires: now.addingTimeInterval(2 * 86_400), signed: now.addingTimeInterval(1),
                                               appAccountToken: before.grant.user.id)
            #expect(try await post(client, tenant, try fixtures.notification("DID_RENEW", signed: now.addingTimeInterval(1),
                                                                             transaction: renewed, status: 1))["outcome"] as? String == "applied")
            #expect(try await hearth.adminString("SELECT user_id::text FROM appstore_notifications") == after.grant.user.id.uuidString.lowercased())
            #expect(try await subscription(client, before)["status"] as? String == "expired")
        }
    }
}
