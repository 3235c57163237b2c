import HearthPlatform

/// Tunables of the Accounts feature (see docs/configuration.md for the environment keys).
public struct AccountsConfiguration: Sendable {
    public var accessTokenLifetime: Duration = .seconds(15 * 60)
    public var refreshTokenLifetime: Duration = .seconds(60 * 24 * 3600)
    public var loginThrottle: LoginThrottle.Policy = .standard
    public var passwordCost: PasswordHasher.Cost = .owaspMinimum
    public var appleJWKS: JWKSProvider.Source = .apple

    public init() {}
}
