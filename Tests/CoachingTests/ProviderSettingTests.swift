@testable import Coaching
import Testing

/// A provider as an operator describes it, in the console or with `hearth tenant llm`: both go through
/// `ProviderSetting.described`, so the command line cannot store what the console refuses.
@Suite struct ProviderSettingTests {
    static func described(kind: String = "openai", model: String? = "gpt-4o-mini", baseURL: String? = nil,
                          key: String? = nil) -> Result<ProviderSetting, ProviderSetting.Invalid> {
        Result { () throws(ProviderSetting.Invalid) in
            try ProviderSetting.described(position: .primary, kind: kind, model: model, baseURL: baseURL, apiKeyReference: key)
        }
    }

    @Test func aWellDescribedProviderIsKeptTrimmedAndBlankFieldsAreNotGiven() throws {
        let setting = try Self.described(model: " gpt-4o-mini ", baseURL: " https://api.openai.com/v1 ", key: "env:OPENAI_API_KEY").get()
        #expect(setting == ProviderSetting(position: .primary, kind: "openai", model: "gpt-4o-mini", baseURL: "https://api.openai.com/v1",
                                           apiKeyReference: "env:OPENAI_API_KEY"))
        #expect(try Self.described(kind: "offline", model: "  ", baseURL: "", key: " ").get()
            == ProviderSetting(position: .primary, kind: "offline", model: "offline", baseURL: nil, apiKeyReference: nil))
    }

    @Test(arguments: [
        ("banana", "gpt-4o-mini", nil, nil, "Choose a kind of provider: offline, openai or anthropic."),
        ("openai", nil, nil, nil, "Name the model, e.g. gpt-4o-mini."),
        ("openai", String(repeating: "m", count: 201), nil, nil, "Name the model, e.g. gpt-4o-mini."),
        ("openai", "m", "notaurl", nil, "The base URL must be an http or https address, e.g. https://api.openai.com/v1."),
        ("openai", "m", "ftp://host/v1", nil, "The base URL must be an http or https address, e.g. https://api.openai.com/v1."),
        ("openai", "m", "https://sk-secret@api.openai.com/v1", nil,
         "The base URL takes no user, password or query: give the API key as env:NAME or file:/path."),
        ("anthropic", "m", "https://api.anthropic.com/?api-key=sk-secret", nil,
         "The base URL takes no user, password or query: give the API key as env:NAME or file:/path."),
        ("openai", "m", nil, "sk-live-1234", "The API key is given as env:NAME or file:/path, never the key itself."),
    ] as [(String, String?, String?, String?, String)])
    func aProviderThatCannotBeSavedSaysWhatToGiveInstead(_ kind: String, _ model: String?, _ baseURL: String?, _ key: String?, _ message: String) {
        #expect(throws: ProviderSetting.Invalid(message: message)) {
            try Self.described(kind: kind, model: model, baseURL: baseURL, key: key).get()
        }
    }
}
