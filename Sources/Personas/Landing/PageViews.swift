import Foundation
import HTTPTypes
import Safety

/// What `landing/persona.mustache` shows: a live persona's public page. Every string is text (the template
/// escapes it); URLs are built here from checked parts only.
public struct PersonaPage: Sendable {
    let appName: String
    let name: String
    let domainName: String
    let description: String
    let creatorName: String
    let greeting: String?
    let examples: [String]
    let hasExamples: Bool
    /// The page's own address (`og:url`, canonical): also the universal link that opens the app where installed.
    let pageURL: String
    /// Absolute, as link previews need.
    let previewURL: String
    let avatarURL: String?
    /// The custom-scheme link of the open-in-app button.
    let openInAppURL: String?
    let appStoreURL: String?
    let hasActions: Bool
    /// Whether the tenant's app claims its link host (universal links): then a tap on the link opens the app.
    let opensApp: Bool
    /// The Smart App Banner (`apple-itunes-app`): Safari's own open/get bar above the page.
    let appBanner: String?
    let disclaimerShort: String
    let disclaimerFull: String
    let stylesheet = PageAssets.stylesheet

    init(slug: String, card: PersonaCard, domainName: String, app: AppLinksStore.App, baseURL: String, disclaimer: Disclaimer,
         previewVersion: String) {
        appName = app.displayName
        name = card.name
        self.domainName = domainName
        description = card.description
        creatorName = card.creatorName
        greeting = card.greeting
        examples = card.examples
        hasExamples = !card.examples.isEmpty
        let pageURL = "\(baseURL)/p/\(slug)"
        self.pageURL = pageURL
        previewURL = "\(baseURL)/p/\(slug)/preview.png?v=\(previewVersion)"
        avatarURL = card.hasAvatar ? "/p/\(slug)/avatar" : nil
        openInAppURL = app.links.urlScheme.map { "\($0)://p/\(slug)" }
        appStoreURL = app.links.appStoreURL
        hasActions = openInAppURL != nil || appStoreURL != nil
        opensApp = app.links.host != nil && !app.links.appIDs.isEmpty
        appBanner = app.links.appStoreID.map { "app-id=\($0), app-argument=\(pageURL)" }
        disclaimerShort = disclaimer.short
        disclaimerFull = disclaimer.full
    }
}

/// What `landing/unavailable.mustache` shows: a friendly page for a link that leads nowhere (404) or no longer
/// does (410), pointing to the app where there is one.
public struct UnavailablePage: Sendable {
    public let status: HTTPResponse.Status
    let title: String
    let message: String
    let appName: String?
    let appStoreURL: String?
    let stylesheet = PageAssets.stylesheet

    static let notFound = UnavailablePage(
        status: .notFound, title: "We couldn't find that coach",
        message: "This link doesn't lead anywhere. Check that it was copied whole, or ask the person who shared it for a new one.",
        app: nil
    )

    static func revoked(_ app: AppLinksStore.App) -> UnavailablePage {
        UnavailablePage(status: .gone, title: "This link has been turned off",
                        message: "The person who shared it has switched it off. Ask them for a new link, or find other coaches in the app.",
                        app: app)
    }

    static func withdrawn(_ app: AppLinksStore.App) -> UnavailablePage {
        UnavailablePage(status: .gone, title: "This coach isn't available any more",
                        message: "It has been taken down. You can find other coaches in the app.", app: app)
    }

    init(status: HTTPResponse.Status, title: String, message: String, app: AppLinksStore.App?) {
        self.status = status
        self.title = title
        self.message = message
        appName = app?.displayName
        appStoreURL = app?.links.appStoreURL
    }
}

/// The static files the public pages use (`public/`).
public enum PageAssets {
    static let stylesheet = "/assets/landing.css"
    public static let files = ["landing.css"]
    public static let templates = ["landing-layout", "landing/persona", "landing/unavailable"]
}
