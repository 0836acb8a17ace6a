package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * ops/REVIEW.md answers two review checklists by pointing at code and tests. An answer that
 * points at nothing is worse than none: every file path and every {@code Test#method} it names
 * must exist, and both checklists must be answered in full.
 */
class ReviewEvidenceTest {
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern PATH = Pattern.compile("[a-z][\\w.-]*(/[\\w.-]+)+\\.(java|sql|xml|yml|md|sh)");
    private static final Pattern TEST = Pattern.compile("([A-Z]\\w*(?:Test|IT))(?:#(\\w+))?");

    private static final String PR = "## PR review checklist";
    private static final String INTERNAL = "## Internal verification checklist";

    private final Path root = RepoFiles.root();

    private String review() throws IOException {
        return Files.readString(root.resolve("ops/REVIEW.md"));
    }

    @Test
    void everyPathAndTestTheReviewNamesExists() throws IOException {
        Map<String, Path> testFiles;
        try (Stream<Path> files = Files.walk(root)) {
            testFiles = files.filter(f -> f.toString().contains("/src/test/java/")
                            && f.toString().endsWith(".java"))
                    .collect(Collectors.toMap(
                            f -> f.getFileName().toString().replace(".java", ""), f -> f, (a, b) -> a));
        }
        List<String> missing = new ArrayList<>();
        int paths = 0;
        int tests = 0;
        Matcher m = CODE.matcher(review());
        while (m.find()) {
            String ref = m.group(1);
            if (PATH.matcher(ref).matches()) {
                paths++;
                if (!Files.exists(root.resolve(ref))) {
                    missing.add("file " + ref);
                }
                continue;
            }
            Matcher t = TEST.matcher(ref);
            if (t.matches()) {
                tests++;
                Path file = testFiles.get(t.group(1));
                if (file == null) {
                    missing.add("test class " + t.group(1));
                } else if (t.group(2) != null && !Files.readString(file).contains("void " + t.group(2) + "(")) {
                    missing.add("test " + ref);
                }
            }
        }
        assertEquals(List.of(), missing);
        assertTrue(
                paths > 30 && tests > 40, "the review names its evidence (" + paths + " paths, " + tests + " tests)");
    }

    @Test
    void bothChecklistsAreAnsweredInFull() throws IOException {
        String review = review();
        assertTrue(
                review.contains(PR) && review.contains(INTERNAL), "REVIEW.md has the headings " + PR + ", " + INTERNAL);
        String pr = review.substring(review.indexOf(PR), review.indexOf(INTERNAL));
        String internal = review.substring(review.indexOf(INTERNAL));
        assertEquals(
                15,
                Pattern.compile("(?m)^\\*\\*\\d+\\. ").matcher(pr).results().count(),
                "the PR checklist has 15 questions");
        assertEquals(
                22,
                Pattern.compile("(?m)^\\*\\*\\d+\\. ")
                        .matcher(internal)
                        .results()
                        .count(),
                "the internal checklist has 22 questions");
        for (String answer : pr.split("(?m)^\\*\\*")) {
            if (answer.matches("(?s)\\d+\\..*")) {
                assertTrue(
                        answer.contains("Proof:"),
                        "every PR checklist answer names its proof: "
                                + answer.lines().findFirst().orElse(""));
            }
        }
    }
}
