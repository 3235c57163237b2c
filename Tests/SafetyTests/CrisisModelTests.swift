import Evaluation
import Foundation
import HearthTestSupport
@testable import Safety
import Testing

/// The crisis model's machinery: training, the text it ships as, and explanations. How well the shipped model
/// classifies is measured by `hearth eval crisis` on the labelled sets (docs/safety.md), not asserted here.
@Suite struct CrisisModelTests {
    static let examples: [CrisisModelTrainer.Example] = [
        .init(text: "I want to kill myself tonight", kind: .suicidal),
        .init(text: "I have written goodbye letters to everyone", kind: .suicidal),
        .init(text: "there is no point going on, I have the pills ready", kind: .suicidal),
        .init(text: "I cut my arm again last night", kind: .selfHarm),
        .init(text: "burned myself with a lighter after the fight", kind: .selfHarm),
        .init(text: "my husband hits me when he drinks", kind: .abuse),
        .init(text: "he checks my phone and won't let me see my friends", kind: .abuse),
        .init(text: "this deadline is killing me", kind: nil),
        .init(text: "how do I ask for a raise", kind: nil),
        .init(text: "I wrote thank you letters to my team", kind: nil),
        .init(text: "my husband cooks when he gets home", kind: nil),
        .init(text: "cut my hair again, love it", kind: nil),
    ]

    func options(threshold: Double = 0.5) -> CrisisModelTrainer.Options {
        var options = CrisisModelTrainer.Options()
        options.fit.minimumCount = 1
        options.fit.inverseRegularisation = 10
        options.threshold = threshold
        return options
    }

    /// The words and the letter runs are each scaled as one block: unit length in a long message, and no more
    /// per feature in a short one than in a sentence (`tell me` is two words, not two certainties). A
    /// misspelling shares most of its letter runs with the word the training sets had.
    @Test func wordsAndLetterRunsAreScaledAsBlocks() {
        let rules = CrisisRules()
        // Everything but the rules' findings and the letter runs is a word feature (weakened words are `past:cut`).
        let isWord = { (name: String) in
            !["c:", "rule:", "cue:", "mod:", "len:", "bias", "laughs"].contains(where: name.hasPrefix)
        }
        let long = CrisisFeatures.read("been cutting my arms again every night since the exams started and nobody at home knows", rules: rules).features
        #expect(abs(long.filter { $0.key.hasPrefix("c:") }.values.map { $0 * $0 }.reduce(0, +) - 1) < 1e-9)
        #expect(abs(long.filter { isWord($0.key) }.values.map { $0 * $0 }.reduce(0, +) - 1) < 1e-9)
        let short = CrisisFeatures.read("tell me", rules: rules).features
        #expect(short["w:tell"] == 1 / Double(TextFeatures.wordBlockFloor).squareRoot())
        #expect(short["c: me "] == 1 / Double(TextFeatures.letterBlockFloor).squareRoot())

        var typo = NamedFeatures(), spelled = NamedFeatures()
        TextFeatures.letters(Tokens("strugling"), into: &typo)
        TextFeatures.letters(Tokens("struggling"), into: &spelled)
        let typoRuns = Set(typo.values.keys), spelledRuns = Set(spelled.values.keys)
        #expect(typoRuns.intersection(spelledRuns) == ["c: st", "c:str", "c:tru", "c:rug", "c:gli", "c:lin", "c:ing", "c:ng ",
                                                       "c: str", "c:stru", "c:trug", "c:glin", "c:ling", "c:ing "])
        #expect(typoRuns.count == 17)
    }

    @Test func trainingLearnsItsExamplesWithTheirKindsAndIsDeterministic() {
        let model = CrisisModelTrainer().train(Self.examples, options: options())
        let detector = CrisisDetector(model: model)
        for example in Self.examples {
            #expect(detector.assess(example.text).crisis == example.kind, "\(example.text)")
        }
        #expect(CrisisModelTrainer().train(Self.examples, options: options()).text == model.text)
    }

    @Test func theThresholdDecidesAndTravelsWithTheModel() throws {
        let strict = try CrisisModel(text: CrisisModelTrainer().train(Self.examples, options: options(threshold: 0.999)).text)
        #expect(strict.threshold == 0.999)
        let assessment = CrisisDetector(model: strict).assess("I cut my arm again last night")
        #expect(assessment.kind == .selfHarm && assessment.score > 0.5 && !assessment.isCrisis)
    }

    @Test func theTextRoundTripsAndABadLineIsNamed() throws {
        let model = CrisisModelTrainer().train(Self.examples, options: options())
        #expect(try CrisisModel(text: model.text).text == model.text)
        #expect(model.swiftSource.contains(model.text))
        var lines = model.text.split(separator: "\n").map(String.init)
        lines[4] = "w:broken\t1 2 3"
        #expect { try CrisisModel(text: lines.joined(separator: "\n")) } throws: { error in
            String(describing: error) == "crisis model line 5: expected a name, a tab and 6 weights"
        }
        #expect(throws: (any Error).self) { try CrisisModel(text: "not a model") }
    }

    @Test func evidenceNamesTheFeaturesBehindTheKind() {
        let assessment = CrisisDetector(model: CrisisModelTrainer().train(Self.examples, options: options()))
            .assess("he hits me and checks my phone")
        #expect(assessment.kind == .abuse)
        #expect(assessment.evidence.first?.hasPrefix("rule:abuse=") == true, "\(assessment.evidence)")
        #expect(assessment.evidence.contains { $0.hasPrefix("b:hits me=") }, "\(assessment.evidence)")
    }

    @Test func theShippedModelLoads() {
        #expect(CrisisModel.shipped.featureCount > 1000)
        #expect((0.05...0.95).contains(CrisisModel.shipped.threshold))
        // The shipped file is exactly what the model writes: nothing was edited by hand.
        // (A multi-line literal drops the final line break.)
        #expect(CrisisModel.shipped.text == CrisisModelWeights.text + "\n")
    }

    /// The detector scores a message by the hashes of its feature names (``HashedFeatures``); training and evidence
    /// read them by name. Over a third of the labelled sets' messages, both readings hold the same features with the
    /// same values, and the shipped model gives them the same probabilities.
    @Test func featuresByHashAreTheFeaturesByName() async throws {
        let rules = CrisisRules()
        let model = CrisisModel.shipped
        let texts = try TestPaths.labelledTexts()
        #expect(texts.count > 3_000)
        // Every third message (a debug build reads about a hundred a second), yielding after each: the suite runs
        // in parallel on two threads, and a loop that held one for half a minute starved other tests' servers.
        for text in stride(from: 0, to: texts.count, by: 3).map({ texts[$0] }) {
            await Task.yield()
            let (tokens, signals, named) = CrisisFeatures.read(text, rules: rules)
            var hashed = HashedFeatures()
            CrisisFeatures.extract(tokens, signals: signals, into: &hashed)
            let byHash = Dictionary(uniqueKeysWithValues: zip(hashed.hashes, hashed.values))
            #expect(byHash.count == named.count, "\(text)")
            #expect(named.allSatisfy { name, value in byHash[FeatureHash.of(name.utf8)] == value }, "\(text)")
            let byName = model.linear.probabilities(named), scored = model.probabilities(hashed)
            #expect(zip(byName, scored).allSatisfy { abs($0 - $1) < 1e-12 }, "\(text)")
        }
    }

    /// The Swift file in the repository is byte for byte what `hearth train crisis` writes for the model it holds.
    @Test func theShippedFileIsWhatTheTrainerWrites() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/Safety/Model/CrisisModelWeights.swift")
        #expect(try String(contentsOf: file, encoding: .utf8) == CrisisModel.shipped.swiftSource)
    }

    @Test func trainCommandWritesASwiftFileThatHoldsTheModel() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("train-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let data = directory.appendingPathComponent("train.jsonl").path
        let lines = Self.examples.map { example in
            let text = String(decoding: try! JSONEncoder().encode(example.text), as: UTF8.self)
            return example.kind.map { #"{"text": \#(text), "crisis": true, "kind": "\#($0.rawValue)"}"# } ?? #"{"text": \#(text), "crisis": false}"#
        }
        try lines.joined(separator: "\n").write(toFile: data, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent("Weights.swift").path
        let report = try CrisisTraining().run(files: [data], output: output, options: options())
        #expect(report.first == "trained on 12 messages (7 crisis) from 1 files")
        let source = try String(contentsOfFile: output, encoding: .utf8)
        let start = try #require(source.range(of: "#\"\"\"\n"))
        let end = try #require(source.range(of: "\"\"\"#", options: .backwards))
        let model = try CrisisModel(text: String(source[start.upperBound..<end.lowerBound]))
        #expect(CrisisDetector(model: model).assess("I want to kill myself tonight").crisis == .suicidal)

        try (lines + [#"{"text": "a crisis of no kind", "crisis": true}"#]).joined(separator: "\n").write(toFile: data, atomically: true, encoding: .utf8)
        #expect { try CrisisTraining().run(files: [data], output: output, options: options()) } throws: { error in
            String(describing: error).hasSuffix(":13: a crisis needs its \"kind\"")
        }
    }
}
