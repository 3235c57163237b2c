import Crypto
import Foundation
import HearthPlatform
import Logging
import PostgresNIO

/// Owns `context_profiles`. The profile is one JSON document sealed with the user's data key, bound to the user.
struct ContextProfileStore: Sendable {
    struct Row: Sendable {
        let profile: ContextProfile
        let updatedAt: Date?
        let setupPromptDismissed: Bool
    }

    let logger: Logger


    /// The stored profile (empty when there is none). `forUpdate` locks the row for a read-modify-write.
    func load(userID: UUID, key: SymmetricKey, forUpdate: Bool = false, on connection: PostgresConnection) async throws -> Row {
        let rows = try await connection.query(
            forUpdate
                ? "SELECT profile_ciphertext, updated_at, setup_prompt_dismissed_at IS NOT NULL FROM context_profiles WHERE user_id = \(userID) FOR UPDATE"
                : "SELECT profile_ciphertext, updated_at, setup_prompt_dismissed_at IS NOT NULL FROM context_profiles WHERE user_id = \(userID)",
            logger: logger
        )
        for try await (sealed, updated, dismissed) in rows.decode((Data?, Date, Bool).self) {
            let profile = try sealed.map { try ContextProfile(sealed: Array($0), key: key, userID: userID) } ?? ContextProfile()
            return Row(profile: profile, updatedAt: updated, setupPromptDismissed: dismissed)
        }
        return Row(profile: ContextProfile(), updatedAt: nil, setupPromptDismissed: false)
    }

    /// Stores the whole profile (an empty one is stored as none); returns when.
    func save(_ profile: ContextProfile, tenantID: UUID, userID: UUID, key: SymmetricKey, on connection: PostgresConnection) async throws -> Date {
        let sealed = try profile.isEmpty ? nil : Data(profile.sealed(key: key, userID: userID))
        let rows = try await connection.query(
            """
            INSERT INTO context_profiles (tenant_id, user_id, profile_ciphertext) VALUES (\(tenantID), \(userID), \(sealed))
            ON CONFLICT (user_id) DO UPDATE SET profile_ciphertext = excluded.profile_ciphertext, updated_at = now()
            RETURNING updated_at
            """,
            logger: logger
        )
        return try await rows.collect().first!.decode(Date.self)
    }

    func dismissSetupPrompt(tenantID: UUID, userID: UUID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO context_profiles (tenant_id, user_id, setup_prompt_dismissed_at) VALUES (\(tenantID), \(userID), now())
            ON CONFLICT (user_id) DO UPDATE SET setup_prompt_dismissed_at = coalesce(context_profiles.setup_prompt_dismissed_at, now())
            """,
            logger: logger
        )
    }
}
