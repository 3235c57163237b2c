import ArgumentParser
import Console
import Foundation
import HearthApp
import HearthPlatform
import Logging

struct OperatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operator", abstract: "Manage console operators.", subcommands: [Create.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an operator. The password is read from standard input (one line), never from arguments."
        )
        @Option var email: String
        @Option(help: "platform_admin, tenant_admin, moderator or viewer.") var role: String
        @Option(help: "Tenant slug (every role but platform_admin).") var tenant: String?

        func run() async throws {
            guard let role = Operator.Role(rawValue: role) else {
                throw ValidationError("role must be one of: \(Operator.Role.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if isatty(STDIN_FILENO) != 0 { FileHandle.standardError.write(Data("Password: ".utf8)) }
            guard let password = readLine(strippingNewline: true), !password.isEmpty else {
                throw ValidationError("no password on standard input")
            }
            let config = try Config.loadForCommand()
            let created = try await AdminTasks.createOperator(
                config, logger: Logger(label: "hearth.operator"), email: email, password: password, role: role, tenantSlug: tenant
            )
            print("operator \(created.email) created with role \(created.role.rawValue)")
        }
    }
}
