import Foundation
import HearthPlatform
import SwiftASN1
import X509

/// How a tenant's signed App Store data is verified (`appstore_settings`): the app's bundle id and Apple ID, the
/// environments accepted, and the roots the certificate chain must end at.
public struct AppStoreSettings: Codable, Sendable, Equatable {
    public static let environments = ["Production", "Sandbox"]

    public var bundleId: String
    /// Required to accept Production data, as in Apple's libraries.
    public var appAppleId: Int64?
    /// `Production`, and `Sandbox` for TestFlight and App Review purchases.
    public var environments: [String]
    /// DER certificates; empty means Apple Root CA - G3, the root App Store data is signed under.
    public var rootCertificates: [Data]

    public init(bundleId: String, appAppleId: Int64?, environments: [String], rootCertificates: [Data] = []) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environments = environments
        self.rootCertificates = rootCertificates
    }

    /// `rootCertificates` may be left out (Apple's root).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(bundleId: try container.decode(String.self, forKey: .bundleId),
                  appAppleId: try container.decodeIfPresent(Int64.self, forKey: .appAppleId),
                  environments: try container.decode([String].self, forKey: .environments),
                  rootCertificates: try container.decodeIfPresent([Data].self, forKey: .rootCertificates) ?? [])
    }

    /// The settings as given, or a 422 naming what is wrong with them.
    public func validated() throws -> AppStoreSettings {
        guard bundleId.range(of: "^[A-Za-z0-9][A-Za-z0-9.-]{0,154}$", options: .regularExpression) != nil else {
            throw APIError.validation("bundleId must be an app's bundle identifier, such as com.example.coach.")
        }
        var settings = self
        settings.environments = Self.environments.filter(environments.contains)
        guard !settings.environments.isEmpty, settings.environments.count == Set(environments).count else {
            throw APIError.validation("environments must list Production, Sandbox or both.")
        }
        if settings.environments.contains("Production") && (appAppleId ?? 0) <= 0 {
            throw APIError.validation("appAppleId (the app's Apple ID in App Store Connect) is required to accept Production purchases.")
        }
        guard rootCertificates.count <= 8 else {
            throw APIError.validation("At most 8 root certificates.")
        }
        for (index, der) in rootCertificates.enumerated() {
            guard (try? Certificate(derEncoded: Array(der))) != nil else {
                throw APIError.validation("rootCertificates[\(index)] is not a DER-encoded X.509 certificate.")
            }
        }
        return settings
    }

    /// The verifier these settings describe.
    public func verifier() throws -> AppStoreVerifier {
        let roots = rootCertificates.isEmpty ? [AppleRootCA.g3] : rootCertificates
        return AppStoreVerifier(
            roots: try roots.map { try Certificate(derEncoded: Array($0)) },
            bundleId: bundleId, appAppleId: appAppleId, environments: Set(environments)
        )
    }

    /// Root certificates pasted as PEM (the console's form); empty text is none.
    public static func certificates(fromPEM text: String) throws -> [Data] {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return [] }
        do {
            return try PEMDocument.parseMultiple(pemString: text).map { document in
                _ = try Certificate(pemDocument: document)
                return Data(document.derBytes)
            }
        } catch {
            throw APIError.validation("The root certificates must be PEM certificates (-----BEGIN CERTIFICATE-----).")
        }
    }

    /// The configured roots as PEM, as the console shows them.
    public var rootCertificatesPEM: String {
        rootCertificates.map { PEMDocument(type: "CERTIFICATE", derBytes: Array($0)).pemString }.joined(separator: "\n")
    }

    /// A root certificate from a file's bytes: DER (Apple's `.cer` downloads) or PEM.
    public static func certificate(fromFile bytes: Data) throws -> Data {
        if let text = String(data: bytes, encoding: .utf8), text.contains("-----BEGIN CERTIFICATE-----") {
            let document = try PEMDocument(pemString: text)
            _ = try Certificate(pemDocument: document)
            return Data(document.derBytes)
        }
        _ = try Certificate(derEncoded: Array(bytes))
        return bytes
    }
}
