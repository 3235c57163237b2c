import HTTPTypes
import Hummingbird

extension Router {
    /// A known path asked with a method it does not take is answered 405 with `Allow` (RFC 9110 §15.5.6), not the
    /// 404 Hummingbird gives: a client that PUTs where it should PATCH learns which methods there are. Each path
    /// under `prefixes` gets a handler for every other common method; a request resolves to one path, so only what
    /// was a 404 for that path becomes a 405. Call once every route is added.
    public func answerOtherMethods(under prefixes: [String]) {
        var taken: [String: (path: RouterPath, methods: Set<HTTPRequest.Method>)] = [:]
        for route in routes where prefixes.contains(where: { route.path.description.hasPrefix($0) }) {
            taken[route.path.description, default: (route.path, [])].methods.insert(route.method)
        }
        for (path, methods) in taken.values {
            let allow = methods.map(\.rawValue).sorted().joined(separator: ", ")
            let refusal = APIError(.methodNotAllowed, code: "method_not_allowed", message: "This path takes \(allow).", headers: [.allow: allow])
            for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete, .trace] where !methods.contains(method) {
                on(path, method: method) { _, _ -> Response in throw refusal }
            }
        }
    }
}
