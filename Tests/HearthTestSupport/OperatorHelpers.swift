import Console
import Foundation
import HearthPlatform
import HummingbirdTesting
import Testing

extension TestHearth {
    /// Creates an operator through the real store (argon2id at the suite's cost); returns their password.
    @discardableResult
    public func createOperator(_ email: String, role: Operator.Role, tenantID: UUID?,
                               password: String = "operator-passphrase-1") async throws -> String {
        let cost = config.accounts.passwordCost
        _ = try await withAppDatabase { database in
            try await OperatorStore(database: database, hasher: PasswordHasher(cost: cost))
                .create(email: email, password: password, role: role, tenantID: tenantID)
        }
        return password
    }
}

extension TestClientProtocol {
    /// Signs an operator in through `POST /operator/v1/sessions` and returns the bearer token.
    public func operatorToken(_ email: String, password: String = "operator-passphrase-1") async throws -> String {
        let response = try await call(.post, "/operator/v1/sessions", json: ["email": email, "password": password])
        #expect(response.status == .created, "\(response.text)")
        return try #require(response["token"] as? String)
    }
}
