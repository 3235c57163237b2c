import Crypto
import Foundation
import HearthPlatform
import Hummingbird

/// The console's browser session: the operator session's bearer token kept in a cookie the page's scripts cannot
/// read (HttpOnly), sent only over HTTPS (Secure; browsers treat localhost as secure) and never on a request another
/// site starts (SameSite=Strict), scoped to `/console`. Every form also carries a CSRF token: an HMAC of the
/// session's id under a key derived from the master key, so it needs no storage and dies with the session.
public struct ConsoleSecurity: Sendable {
    static let sessionCookie = "hearth_console"
    /// Before sign-in there is no session to bind a token to: the sign-in form's token is a random value also set
    /// as this cookie (double submit), so another site cannot sign a browser into an account of its choosing.
    static let signInCookie = "hearth_console_signin"

    let csrfKey: SymmetricKey
    let sessionLifetime: Duration

    public init(keyRing: KeyRing, sessionLifetime: Duration) {
        self.csrfKey = keyRing.derivedKey("console csrf")
        self.sessionLifetime = sessionLifetime
    }

    func sessionCookie(_ token: String) -> Cookie {
        Cookie(name: Self.sessionCookie, value: token, maxAge: Int(sessionLifetime.components.seconds), path: "/console", secure: true,
               httpOnly: true, sameSite: .strict)
    }

    func signInCookie(_ nonce: String) -> Cookie {
        Cookie(name: Self.signInCookie, value: nonce, maxAge: 3600, path: "/console", secure: true, httpOnly: true, sameSite: .strict)
    }

    static func expired(_ name: String) -> Cookie {
        Cookie(name: name, value: "", maxAge: 0, path: "/console", secure: true, httpOnly: true, sameSite: .strict)
    }

    func csrfToken(for session: OperatorSession) -> String {
        Secrets.base64URL(HMAC<SHA256>.authenticationCode(for: Data(session.id.uuidString.utf8), using: csrfKey))
    }

    /// Constant-time, like every secret comparison here.
    func isValid(csrf: String?, for session: OperatorSession) -> Bool {
        guard let csrf else { return false }
        return Secrets.constantTimeEquals(Array(csrf.utf8), Array(csrfToken(for: session).utf8))
    }
}
