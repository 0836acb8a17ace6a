package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A code block a guide marks {@code <!-- compiled: path -->} is code that builds and runs: each of
 * its lines, in order, is (part of) a line of that source file, which a test compiles and runs
 * (the adopters' build: AdoptersBuildIT). Lines the file has in between (a test's failure switch,
 * an import) may be left out of the guide; no line of the guide may be made up.
 */
class CompiledSnippetsTest {
    private static final Pattern SNIPPET =
            Pattern.compile("<!-- compiled: (\\S+) -->\\s*\\n```java\\n(.*?)\\n```", Pattern.DOTALL);

    @Test
    void everyMarkedSnippetIsCopiedFromTheSourceItNames() throws IOException {
        Path root = RepoFiles.root();
        List<String> wrong = new ArrayList<>();
        int snippets = 0;
        for (String file : RepoFiles.files()) {
            if (!file.endsWith(".md")) {
                continue;
            }
            Matcher m = SNIPPET.matcher(Files.readString(root.resolve(file)));
            while (m.find()) {
                snippets++;
                Path source = root.resolve(m.group(1));
                if (!Files.isRegularFile(source)) {
                    wrong.add(file + ": " + m.group(1) + " does not exist");
                    continue;
                }
                String missing = firstLineNotFollowing(m.group(2), Files.readAllLines(source));
                if (missing != null) {
                    wrong.add(file + ": \"" + missing + "\" is not in " + m.group(1) + " (in this order)");
                }
            }
        }
        assertEquals(List.of(), wrong);
        assertTrue(snippets >= 4, "the adopting guide's four stacks are marked: " + snippets);
    }

    /** The first snippet line not found (trimmed, as part of a line) after the previous one's; null when all are. */
    static String firstLineNotFollowing(String snippet, List<String> source) {
        int at = 0;
        for (String line :
                snippet.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            int found = -1;
            for (int i = at; i < source.size(); i++) {
                if (source.get(i).contains(line)) {
                    found = i;
                    break;
                }
            }
            if (found < 0) {
                return line;
            }
            at = found + 1;
        }
        return null;
    }

    @Test
    void aLineTheSourceDoesNotHaveIsFound() {
        List<String> source = List.of("class A {", "    void a() {", "        b();", "    }", "}");
        assertEquals(null, firstLineNotFollowing("void a() {\n    b();\n}", source));
        assertEquals("c();", firstLineNotFollowing("void a() {\n    c();\n}", source));
        assertEquals("void a() {", firstLineNotFollowing("b();\nvoid a() {", source), "order counts");
    }
}
