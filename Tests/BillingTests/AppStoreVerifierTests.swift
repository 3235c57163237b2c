import Foundation
import HearthPlatform
import HearthTestSupport
import Testing
import X509

@testable import Billing

/// The verifier, check by check, the way Apple's App Store Server Library verifies: each test breaks one thing
/// and expects exactly that reason.
@Suite struct AppStoreVerifierTests {
    let fixtures: AppStoreFixtures
    let verifier: AppStoreVerifier

    init() throws {
        fixtures = AppStoreFixtures(ca: try AppStoreTestCA())
        verifier = try fixtures.settings.verifier()
    }

    func refusal(_ body: () async throws -> Void) async -> AppStoreVerificationError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? AppStoreVerificationError
        }
    }

    @Test func aTransactionSignedUnderTheConfiguredRootVerifiesAndDecodes() async throws {
        let expires = Date().addingTimeInterval(86_400 * 20)
        let token = UUID()
        let signed = try fixtures.ca.sign(fixtures.transaction(expires: expires, appAccountToken: token))
        let transaction = try await verifier.transaction(signed)
        #expect(transaction.productId == AppStoreFixtures.monthly && transaction.appAccountToken == token.uuidString.lowercased())
        #expect(transaction.expiresDate == AppStoreFixtures.millis(expires))
    }

    @Test func anotherRootIsRefusedAndTheBuiltInRootIsApplesG3() async throws {
        let stranger = try AppStoreTestCA()
        let signed = try stranger.sign(fixtures.transaction(expires: Date()))
        let error = await refusal { _ = try await verifier.transaction(signed) }
        #expect(error?.reason == .verificationFailure && error?.detail.contains("no chain") == true)

        // With no roots configured the verifier trusts Apple Root CA - G3 alone, which never signed the test CA.
        var apple = fixtures.settings
        apple.rootCertificates = []
        let appleVerifier = try apple.verifier()
        #expect(appleVerifier.roots.count == 1 && appleVerifier.roots[0].subject.description.contains("Apple Root CA - G3"))
        let byTestCA = await refusal { _ = try await appleVerifier.transaction(try fixtures.ca.sign(fixtures.transaction(expires: Date()))) }
        #expect(byTestCA?.reason == .verificationFailure)
    }

    @Test func theAppleOIDsAreRequiredOnLeafAndIntermediate() async throws {
        for (ca, missing) in [(try AppStoreTestCA(leafHasReceiptOID: false), "receipt-signing OID 1.2.840.113635.100.6.11.1"),
                              (try AppStoreTestCA(intermediateHasWWDROID: false), "WWDR OID 1.2.840.113635.100.6.2.1")] {
            let verifier = try AppStoreSettings(bundleId: AppStoreFixtures.bundleId, appAppleId: AppStoreFixtures.appAppleId,
                                                environments: ["Sandbox"], rootCertificates: [ca.rootDER]).verifier()
            let error = await refusal { _ = try await verifier.transaction(try ca.sign(fixtures.transaction(expires: Date()))) }
            #expect(error?.reason == .verificationFailure && error?.detail.contains(missing) == true, "\(String(describing: error))")
        }
    }

    @Test func theJWSMustBeES256WithThreeCertificates() async throws {
        let transaction = fixtures.transaction(expires: Date())
        let twoCertificates = try fixtures.ca.sign(transaction, chain: [fixtures.ca.leaf, fixtures.ca.intermediate])
        let error = await refusal { _ = try await verifier.transaction(twoCertificates) }
        #expect(error?.reason == .invalidFormat && error?.detail == "x5c holds 2 certificates, not 3")

        let otherAlgorithm = try fixtures.ca.sign(transaction, algorithm: "HS256")
        #expect(await refusal { _ = try await verifier.transaction(otherAlgorithm) }?.detail == "algorithm HS256 is not ES256")

        for garbage in ["", "abc", "a.b", "e30.e30.e30.e30", "!!.??.**"] {
            #expect(await refusal { _ = try await verifier.transaction(garbage) }?.reason == .invalidFormat, "\(garbage)")
        }
        // The leaf and intermediate swapped: no chain from this "leaf".
        let swapped = try fixtures.ca.sign(transaction, chain: [fixtures.ca.intermediate, fixtures.ca.leaf, fixtures.ca.root])
        #expect(await refusal { _ = try await verifier.transaction(swapped) }?.reason == .verificationFailure)
    }

    @Test func aPayloadChangedAfterSigningOrSignedByAnotherKeyIsRefused() async throws {
        let signed = try fixtures.ca.sign(fixtures.transaction(expires: Date()))
        let parts = signed.split(separator: ".").map(String.init)
        var forged = fixtures.transaction(expires: Date().addingTimeInterval(86_400 * 365 * 10))
        forged.signedDate = fixtures.transaction(expires: Date()).signedDate
        let forgedPayload = try fixtures.ca.sign(forged).split(separator: ".")[1]
        let tampered = [parts[0], String(forgedPayload), parts[2]].joined(separator: ".")
        let error = await refusal { _ = try await verifier.transaction(tampered) }
        #expect(error?.reason == .verificationFailure && error?.detail.contains("signature") == true)

        // Another CA's leaf signature under this CA's certificates.
        let stranger = try AppStoreTestCA()
        let strangerParts = try stranger.sign(fixtures.transaction(expires: Date())).split(separator: ".").map(String.init)
        let spliced = [parts[0], parts[1], strangerParts[2]].joined(separator: ".")
        #expect(await refusal { _ = try await verifier.transaction(spliced) }?.detail.contains("signature") == true)
    }

    @Test func theChainIsValidatedAtTheSignedDate() async throws {
        // A leaf valid for 2024 only: data it signed in 2024 still verifies today; data claiming 2025 does not.
        let validity = Date(timeIntervalSince1970: 1_704_067_200)...Date(timeIntervalSince1970: 1_735_689_599)
        let ca = try AppStoreTestCA(leafValidity: validity)
        let verifier = try AppStoreSettings(bundleId: AppStoreFixtures.bundleId, appAppleId: AppStoreFixtures.appAppleId,
                                            environments: ["Sandbox"], rootCertificates: [ca.rootDER]).verifier()
        let fixtures = AppStoreFixtures(ca: ca)
        let inside = Date(timeIntervalSince1970: 1_720_000_000)
        _ = try await verifier.transaction(try ca.sign(fixtures.transaction(expires: inside, signed: inside)))
        let after = Date(timeIntervalSince1970: 1_740_000_000)
        let error = await refusal { _ = try await verifier.transaction(try ca.sign(fixtures.transaction(expires: after, signed: after))) }
        #expect(error?.reason == .verificationFailure && error?.detail.contains("2025-02-19") == true, "\(String(describing: error))")
    }

    @Test func theBundleIdAppAppleIdAndEnvironmentMustBeTheTenants() async throws {
        let otherApp = fixtures.transaction(expires: Date(), bundleId: "com.example.other")
        let wrongBundle = await refusal { _ = try await verifier.transaction(try fixtures.ca.sign(otherApp)) }
        #expect(wrongBundle?.reason == .invalidAppIdentifier && wrongBundle?.detail.contains("com.example.other") == true)

        var production = fixtures
        production.environment = "Production"
        let wrongAppleID = try production.notification("TEST", transaction: nil, appAppleId: 42)
        #expect(await refusal { _ = try await verifier.notification(wrongAppleID) }?.reason == .invalidAppIdentifier)
        // Sandbox notifications carry no app Apple ID check, as in Apple's library.
        _ = try await verifier.notification(try fixtures.notification("TEST", transaction: nil, appAppleId: nil))

        let sandboxOnly = try AppStoreSettings(bundleId: AppStoreFixtures.bundleId, appAppleId: nil, environments: ["Sandbox"],
                                               rootCertificates: [fixtures.ca.rootDER]).verifier()
        let productionData = try fixtures.ca.sign(production.transaction(expires: Date()))
        let wrongEnvironment = await refusal { _ = try await sandboxOnly.transaction(productionData) }
        #expect(wrongEnvironment?.reason == .invalidEnvironment && wrongEnvironment?.detail.contains("Production") == true)
        let renewal = try fixtures.ca.sign(production.renewal())
        #expect(await refusal { _ = try await sandboxOnly.renewalInfo(renewal) }?.reason == .invalidEnvironment)
    }

    /// Apple's order: the signature and certificate chain before the payload is read (only its `signedDate` is, for
    /// the time to validate at). A payload that is not a transaction is refused as unverified when its signature
    /// does not hold, and as malformed only when it does.
    @Test func theSignatureAndChainAreCheckedBeforeThePayloadIsRead() async throws {
        let notATransaction: [String: Int64] = ["signedDate": AppStoreFixtures.millis(Date()), "productId": 5]
        let byStranger = try AppStoreTestCA().sign(notATransaction)
        #expect(await refusal { _ = try await verifier.transaction(byStranger) }?.reason == .verificationFailure)
        let signed = try fixtures.ca.sign(notATransaction).split(separator: ".").map(String.init)
        let badSignature = [signed[0], signed[1], String(try fixtures.ca.sign(["signedDate": 1]).split(separator: ".")[2])].joined(separator: ".")
        #expect(await refusal { _ = try await verifier.transaction(badSignature) }?.reason == .verificationFailure)
        let verifiedButMalformed = await refusal { _ = try await verifier.transaction(signed.joined(separator: ".")) }
        #expect(verifiedButMalformed?.reason == .invalidFormat && verifiedButMalformed?.detail.contains("productId") == true,
                "\(String(describing: verifiedButMalformed))")
    }

    /// As Apple's libraries do, a payload without `signedDate` is checked at the current time: a leaf valid for 2024
    /// alone no longer vouches for it, while one valid today does.
    @Test func aPayloadWithoutASignedDateIsCheckedAtTheCurrentTime() async throws {
        var undated = fixtures.transaction(expires: Date())
        undated.signedDate = nil
        _ = try await verifier.transaction(try fixtures.ca.sign(undated))

        let ca2024 = try AppStoreTestCA(leafValidity: Date(timeIntervalSince1970: 1_704_067_200)...Date(timeIntervalSince1970: 1_735_689_599))
        let verifier2024 = try AppStoreSettings(bundleId: AppStoreFixtures.bundleId, appAppleId: AppStoreFixtures.appAppleId,
                                                environments: ["Sandbox"], rootCertificates: [ca2024.rootDER]).verifier()
        let today = ISO8601DateFormatter().string(from: Date()).prefix(10)
        let error = await refusal { _ = try await verifier2024.transaction(try ca2024.sign(undated)) }
        #expect(error?.reason == .verificationFailure && error?.detail.contains(today) == true, "\(String(describing: error))")
    }

    /// The bundle id and app Apple ID come before the environment, as in Apple's library: data wrong in both is
    /// refused for its app, and a production-only tenant checks the app Apple ID whatever environment the data names.
    @Test func theAppIdentifiersAreCheckedBeforeTheEnvironment() async throws {
        let productionOnly = try AppStoreSettings(bundleId: AppStoreFixtures.bundleId, appAppleId: AppStoreFixtures.appAppleId,
                                                  environments: ["Production"], rootCertificates: [fixtures.ca.rootDER]).verifier()
        let sandboxData = fixtures  // its environment is Sandbox, which the tenant does not take
        let otherBundle = try sandboxData.notification("TEST", transaction: nil, bundleId: "com.example.other")
        #expect(await refusal { _ = try await productionOnly.notification(otherBundle) }?.reason == .invalidAppIdentifier)
        let otherApp = try sandboxData.notification("TEST", transaction: nil, appAppleId: 42)
        #expect(await refusal { _ = try await productionOnly.notification(otherApp) }?.reason == .invalidAppIdentifier)
        let otherTransaction = try fixtures.ca.sign(sandboxData.transaction(expires: Date(), bundleId: "com.example.other"))
        #expect(await refusal { _ = try await productionOnly.transaction(otherTransaction) }?.reason == .invalidAppIdentifier)
        // Right app, wrong environment: now the environment.
        let rightApp = try sandboxData.notification("TEST", transaction: nil)
        #expect(await refusal { _ = try await productionOnly.notification(rightApp) }?.reason == .invalidEnvironment)
    }

    /// Verifying a transaction or a renewal info needs none of their fields, as in Apple's libraries; linking a
    /// purchase that lacks what it needs is a refusal of its own, after verification.
    @Test func aTransactionWithoutWhatLinkingNeedsVerifiesAndIsThenRefusedByName() async throws {
        var bare = fixtures.transaction(expires: Date().addingTimeInterval(86_400))
        (bare.productId, bare.originalTransactionId, bare.transactionId) = (nil, nil, nil)
        let transaction = try await verifier.transaction(try fixtures.ca.sign(bare))
        #expect(transaction.productId == nil && transaction.bundleId == AppStoreFixtures.bundleId)
        var renewal = fixtures.renewal()
        (renewal.originalTransactionId, renewal.productId) = (nil, nil)
        #expect(try await verifier.renewalInfo(try fixtures.ca.sign(renewal)).originalTransactionId == nil)
        #expect {
            _ = try Entitlement(transaction: transaction, renewal: nil, signedAt: Date())
        } throws: { error in
            (error as? APIError)?.code == "incomplete_purchase" && (error as? APIError)?.message.contains("productId") == true
        }
    }

    @Test func settingsAreValidated() throws {
        #expect(throws: (any Error).self) { try AppStoreSettings(bundleId: "com.example.coach", appAppleId: nil, environments: ["Production"]).validated() }
        #expect(throws: (any Error).self) { try AppStoreSettings(bundleId: "com example", appAppleId: 1, environments: ["Sandbox"]).validated() }
        #expect(throws: (any Error).self) { try AppStoreSettings(bundleId: "com.example", appAppleId: 1, environments: ["Staging"]).validated() }
        #expect(throws: (any Error).self) { try AppStoreSettings(bundleId: "com.example", appAppleId: 1, environments: []).validated() }
        #expect(throws: (any Error).self) {
            try AppStoreSettings(bundleId: "com.example", appAppleId: 1, environments: ["Sandbox"], rootCertificates: [Data("nope".utf8)]).validated()
        }
        let ordered = try AppStoreSettings(bundleId: "com.example", appAppleId: 1, environments: ["Sandbox", "Production"]).validated()
        #expect(ordered.environments == ["Production", "Sandbox"])
    }

    @Test func theEntitlementFollowsApplesStatusAndTheData() throws {
        let now = Date()
        let later = now.addingTimeInterval(86_400)
        let earlier = now.addingTimeInterval(-86_400)
        let live = fixtures.transaction(expires: later)
        func status(_ transaction: TransactionInfo, _ renewal: RenewalInfo? = nil, type: String? = nil, apple: Int? = nil) throws -> SubscriptionView.Status {
            try Entitlement(transaction: transaction, renewal: renewal, notificationType: type, appleStatus: apple, signedAt: now, now: now).status
        }
        #expect(try status(live) == .active)
        #expect(try status(fixtures.transaction(expires: earlier)) == .expired)
        #expect(try status(fixtures.transaction(expires: earlier), fixtures.renewal(billingRetry: true)) == .billingRetry)
        #expect(try status(fixtures.transaction(expires: earlier), fixtures.renewal(billingRetry: true, graceEnds: later)) == .gracePeriod)
        #expect(try status(fixtures.transaction(expires: later, revoked: now)) == .refunded)
        #expect(try status(fixtures.transaction(expires: later, revoked: now, ownership: "FAMILY_SHARED")) == .revoked)
        #expect(try status(live, type: "REFUND", apple: 5) == .refunded && status(live, type: "REVOKE", apple: 5) == .revoked)
        #expect(try status(live, apple: 2) == .expired && status(live, apple: 3) == .billingRetry && status(live, apple: 4) == .gracePeriod)
        let grace = try Entitlement(transaction: live, renewal: fixtures.renewal(autoRenew: false, billingRetry: true, graceEnds: later),
                                appleStatus: 4, signedAt: now, now: now)
        #expect(grace.graceEndsAt != nil && grace.autoRenew == false)
    }
}
