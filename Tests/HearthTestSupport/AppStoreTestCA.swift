import Crypto
import Foundation
import HearthPlatform
import SwiftASN1
import X509

/// A certificate authority of the tests' own, shaped like Apple's: a root, an intermediate with Apple's WWDR OID
/// and a receipt-signing leaf with Apple's receipt OID, all P-256. It signs App Store payloads as compact JWS
/// with the three certificates in `x5c`, as the App Store does; variants leave out an OID or narrow the leaf's
/// validity, so every check of the verifier can be made to fail on its own.
public struct AppStoreTestCA: Sendable {
    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    let leafKey: P256.Signing.PrivateKey

    /// The root as DER, for a tenant's settings.
    public var rootDER: Data { Data(Self.der(root)) }

    /// The root as PEM, as an operator pastes it.
    public var rootPEM: String { PEMDocument(type: "CERTIFICATE", derBytes: Self.der(root)).pemString }

    public init(leafValidity: ClosedRange<Date>? = nil, leafHasReceiptOID: Bool = true, intermediateHasWWDROID: Bool = true) throws {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        leafKey = P256.Signing.PrivateKey()
        let start = Date(timeIntervalSince1970: 1_500_000_000)
        let end = Date(timeIntervalSince1970: 2_500_000_000)
        let rootName = try DistinguishedName { CommonName("Hearth Test Root CA - G3") }
        let intermediateName = try DistinguishedName { CommonName("Hearth Test WWDR CA") }
        let appleNull: ArraySlice<UInt8> = [0x05, 0x00]  // Apple's marker extensions hold an ASN.1 NULL
        root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: start, notValidAfter: end,
            issuer: rootName, subject: rootName,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                KeyUsage(keyCertSign: true, cRLSign: true)
            },
            issuerPrivateKey: .init(rootKey)
        )
        intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey), notValidBefore: start, notValidAfter: end,
            issuer: rootName, subject: intermediateName,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                KeyUsage(keyCertSign: true, cRLSign: true)
                if intermediateHasWWDROID {
                    Certificate.Extension(oid: [1, 2, 840, 113635, 100, 6, 2, 1], critical: false, value: appleNull)
                }
            },
            issuerPrivateKey: .init(rootKey)
        )
        leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: leafValidity?.lowerBound ?? start, notValidAfter: leafValidity?.upperBound ?? end,
            issuer: intermediateName, subject: try DistinguishedName { CommonName("Prod ECC Mac App Store and iTunes Store Receipt Signing") },
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                KeyUsage(digitalSignature: true)
                if leafHasReceiptOID {
                    Certificate.Extension(oid: [1, 2, 840, 113635, 100, 6, 11, 1], critical: false, value: appleNull)
                }
            },
            issuerPrivateKey: .init(intermediateKey)
        )
    }

    /// `payload` as the App Store signs it. `algorithm` and `chain` make malformed variants.
    public func sign(_ payload: some Encodable, algorithm: String = "ES256", chain: [Certificate]? = nil) throws -> String {
        let x5c = (chain ?? [leaf, intermediate, root]).map { Data(Self.der($0)).base64EncodedString() }
        let header = try JSONSerialization.data(withJSONObject: ["alg": algorithm, "x5c": x5c, "typ": "JWT"])
        let input = Secrets.base64URL(header) + "." + Secrets.base64URL(try JSONEncoder().encode(payload))
        let signature = try leafKey.signature(for: Data(input.utf8))
        return input + "." + Secrets.base64URL(signature.rawRepresentation)
    }

    static func der(_ certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
