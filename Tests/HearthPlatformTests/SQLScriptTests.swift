import HearthPlatform
import Testing

@Suite struct SQLScriptTests {
    @Test func splitsOnSemicolonsAndRecordsStartLines() {
        let statements = SQLScript.split("CREATE TABLE a (id int);\n\nCREATE TABLE b (id int);\n")
        #expect(statements == [
            .init(sql: "CREATE TABLE a (id int)", line: 1),
            .init(sql: "CREATE TABLE b (id int)", line: 3),
        ])
    }

    @Test func keepsSemicolonsInsideStringsIdentifiersAndComments() {
        let script = """
        -- a comment; not a statement
        INSERT INTO t VALUES ('it''s; fine', E'back\\'slash;', "odd;name");
        /* block; /* nested; */ still comment; */
        SELECT 1;
        """
        let statements = SQLScript.split(script)
        #expect(statements.count == 2)
        #expect(statements[0].sql.hasSuffix("\"odd;name\")"))
        #expect(statements[0].line == 1)
        #expect(statements[1].sql.hasSuffix("SELECT 1"))
        #expect(statements[1].line == 3)
    }

    @Test func keepsDollarQuotedBodiesWhole() {
        let script = """
        DO $$ BEGIN PERFORM 1; PERFORM 2; END $$;
        CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $fn$ SELECT 1; $fn$;
        SELECT a$b FROM x;
        """
        let statements = SQLScript.split(script)
        #expect(statements.map(\.line) == [1, 2, 3])
        #expect(statements[0].sql == "DO $$ BEGIN PERFORM 1; PERFORM 2; END $$")
        #expect(statements[1].sql.hasSuffix("$fn$ SELECT 1; $fn$"))
    }

    @Test func ignoresEmptyStatementsAndTrailingText() {
        #expect(SQLScript.split(";;  \n ; ").isEmpty)
        #expect(SQLScript.split("SELECT 1").map(\.sql) == ["SELECT 1"])
    }
}
