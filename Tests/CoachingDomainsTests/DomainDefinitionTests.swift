import CoachingDomains
import Foundation
import HearthTestSupport
import Testing

@Suite struct DomainDefinitionTests {
    static let directory = TestPaths.repositoryRoot.appendingPathComponent("domains").path

    @Test func theSevenShippedDomainsLoadAndAreValid() throws {
        let domains = try DomainFiles.load(Self.directory)
        #expect(domains.map(\.key).sorted() == ["career", "creativity", "fitness", "leadership", "life", "mindset", "relationships"])
        for domain in domains {
            #expect(domain.problems().isEmpty)
            #expect(!domain.examples.isEmpty && !domain.router.samples.isEmpty)
        }
    }

    @Test func anEighthDomainIsJustAFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("domains-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.directory) {
            try FileManager.default.copyItem(atPath: Self.directory + "/" + name, toPath: directory.appendingPathComponent(name).path)
        }
        try Self.parenting.write(to: directory.appendingPathComponent("parenting.yaml"), atomically: true, encoding: .utf8)
        let domains = try DomainFiles.load(directory.path)
        #expect(domains.count == 8)
        let router = DomainRouter(domains)
        #expect(router.route("my toddler has tantrums every bedtime and I lose my patience", current: nil).domain == "parenting")
        #expect(router.route("I have a job interview on Monday and I'm nervous", current: nil).domain == "career")
    }

    @Test func problemsAreReportedByFileAndField() throws {
        let missing = Self.parenting.replacingOccurrences(of: "tone: Patient", with: "tones: Patient")
        #expect { try DomainFiles.parse(missing, file: "parenting.yaml") } throws: { error in
            "\(error)" == "parenting.yaml: missing 'tone'"
        }
        let badKey = Self.parenting.replacingOccurrences(of: "key: parenting", with: "key: Parenting Help")
        #expect { try DomainFiles.parse(badKey, file: "p.yaml") } throws: { error in
            "\(error)".contains("key must be 2–32 lowercase letters")
        }
        let badWeight = Self.parenting.replacingOccurrences(of: "    3: [", with: "    5: [")
        #expect { try DomainFiles.parse(badWeight, file: "p.yaml") } throws: { error in
            "\(error)".contains("weight 5 is not 1, 2 or 3")
        }
        #expect { try DomainFiles.parse("key: [", file: "broken.yaml") } throws: { error in
            "\(error)".hasPrefix("broken.yaml: ")
        }
    }

    @Test func twoFilesWithOneKeyAreRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("domains-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.parenting.write(to: directory.appendingPathComponent("a.yaml"), atomically: true, encoding: .utf8)
        try Self.parenting.write(to: directory.appendingPathComponent("b.yml"), atomically: true, encoding: .utf8)
        #expect { try DomainFiles.load(directory.path) } throws: { error in
            "\(error)".contains("key 'parenting' is also defined in")
        }
    }

    static let parenting = """
        key: parenting
        name: Parenting
        description: Raising children — routines, tantrums, screen time, school, and staying patient.
        tone: Patient and warm, never judging how someone parents.
        methodology: Notice the need behind the behaviour, pick one small experiment, review it in a week.
        personality: A calm parent of three who has made every mistake once.
        opening_style: Ask how old the children are and what happened most recently.
        examples:
          - user: My son won't put his tablet down.
            coach: That battle is so common. What happens right before it starts?
        router:
          keywords:
            3: [toddler, toddlers, tantrum, tantrums, bedtime, my kids, my son, my daughter, parenting, screen time]
            2: [school run, homework, nap, naps, daycare]
          samples:
            - my daughter refuses to go to school in the mornings
            - how do I get my kids off screens at dinner
        """
}
