import Foundation
@testable import Safety
import Testing

/// The locale a crisis list is chosen by comes from a header any client sets: every value reads as a locale or
/// as none, never a trap (`Accept-Language: ;` once took the server down).
@Suite struct CrisisResourcesLocaleTests {
    @Test(arguments: [
        ("en-GB,en;q=0.8", "en-GB"), ("fr", "fr"), ("EN_gb", "en-GB"), (" de-AT ; q=1", "de-AT"),
        (";,en", "en"), ("*, es-MX;q=0.2", "es-MX"), ("xx-YYYYYYYYY, pt-BR", "pt-BR"), (",,,,en-AU", "en-AU"),
    ])
    func readsTheFirstWellFormedLanguage(header: String, locale: String) {
        #expect(CrisisResources.preferredLocale(acceptLanguage: header) == locale)
    }

    @Test(arguments: [
        "", ";", ";;", ",", "*", "-", "en-", "-en", "q=0.5", " ; , ; ", String(repeating: "a", count: 100_000),
        String(repeating: ";", count: 50_000), String(repeating: ",", count: 50_000), "\u{0}", "en\u{0}-GB", "еn-GB",
        "日本語", "ar-ЕГ", "🙂", "\u{FFFD}\u{FFFD}", "e\u{301}n", String(repeating: "x;q=0.1,", count: 10_000) + "fr",
    ])
    /// (The last: only the first eight entries are read, so "fr" after ten thousand others is not reached.)
    func anyOtherHeaderMeansNoLocale(header: String) {
        #expect(CrisisResources.preferredLocale(acceptLanguage: header) == nil)
        #expect(CrisisResources.candidates(for: header) == [CrisisResources.defaultLocale])
    }

    @Test func tagsInOtherScriptsOrOfOddShapesAreNotTags() {
        for tag in ["еn", "en-ГБ", "e1", "english", "en--GB", "en-GB-x-private-extra", "en-123456789", ""] {
            #expect(CrisisResources.normalise(tag) == nil, "\(tag)")
        }
        #expect(CrisisResources.normalise("zh-hant-tw") == "zh-hant-TW")
    }
}
