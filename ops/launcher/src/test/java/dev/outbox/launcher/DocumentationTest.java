package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.outbox.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every reference the documentation makes is true, checked on every build instead of found by a
 * reader: a reference that points at nothing costs a newcomer more than none. It reads every
 * Markdown file of the repository (as git lists them: {@link RepoFiles#files()}, fenced code left
 * out) and the comments of the product's Java sources ({@code src/main/java}), and fails on
 *
 * <ul>
 *   <li>a relative link {@code [text](path)} to nothing, or a {@code #anchor} (alone or after a
 *       {@code .md} path) that no heading of its document makes under GitHub's rules ({@link
 *       Markdown#slug}). http(s) and mailto links are not followed;
 *   <li>a backticked repository path that does not exist: a code span whose first word contains a
 *       {@code /} and starts with a top-level entry of the repository (the words after it are a
 *       command's arguments, which may name output still to be written). {@code a/.../b/C} elides
 *       folders, {@code *} is any part of one name, {@code C} may leave out its extension, a
 *       trailing {@code /} is a folder; a path through {@code target/} is build output (its module
 *       must have a pom.xml), and a {@code <placeholder>} is a name chosen at run time (the folder
 *       holding it must exist);
 *   <li>a cited test that does not exist: {@code FooTest}, {@code FooIT}, {@code FooIT#method},
 *       {@code FooIT.method}, {@code FooIT.methodPrefix…}, {@code .../FooIT}, backticked or in the
 *       prose of a document or a comment: a class of that name under some {@code src/test/java},
 *       declaring (itself or a superclass) a method of that name. A name must have a lower-case
 *       letter before its Test or IT, so that COMMIT or LIMIT is no test;
 *   <li>a citation of a document outside the repository: the conventions document
 *       ({@code CONVENTIONS}), a seed document (seed and a three-digit number; the chaos soak's
 *       seeds are plain numbers and never start with 0), a numbered section ({@code §} and a
 *       digit), a link or a backticked path that climbs out of the repository;
 *   <li>a guide's heading cited by name (README for the root one or a guide's path such as {@code
 *       ops/deploy/README.md}, possibly with a comma or an apostrophe s, then one or more headings
 *       in double quotes; or the README's, a capitalised name and the word section) that no heading
 *       of that guide makes: checked in the Markdown, in every Java comment (the test sources' too)
 *       and in the scripts, which a section moved elsewhere would otherwise leave pointing at
 *       nothing;
 *   <li>history in a guide (a README, the root's or a module's): an issue number or a commit hash.
 *       The guides say what is true now; what changed when is in the commit log, and measurements
 *       name the results file they came from.
 * </ul>
 *
 * <p>The failure table is written once, in relay-worker/README.md "Failure handling", and held to {@link
 * ErrorCode}: one row per constant, its "retried" column as {@link ErrorCode#retryable()} says;
 * the runbook says what to do about every code.
 */
class DocumentationTest {
    private static final Pattern LINK =
            Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern CODE = Pattern.compile("(?<!`)(`+)(?!`)(.+?)(?<!`)\\1(?!`)", Pattern.DOTALL);
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
    private static final String TEST_CLASS = "[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*(?:Test|IT)";
    private static final Pattern CITED_TEST =
            Pattern.compile("(?:[\\w.…-]+/)*(" + TEST_CLASS + ")(?:[#.]([a-z_]\\w*)(…|\\.\\.\\.)?)?");
    private static final Pattern TEST_WORD =
            Pattern.compile("(?<![\\w./@-])(" + TEST_CLASS + ")\\b(?:[#.]([a-z_]\\w*)(…)?)?");
    private static final Pattern README_CITATION = Pattern.compile("(?:((?:[\\w.-]+/)+README\\.md)|README)(?:'s)?,?\\s+"
            + "\"[^\"]+\"(?:\\s*(?:,|>|and)\\s*\"[^\"]+\")*|README's ([A-Z][\\w-]*(?: [\\w-]+)*?) section");
    /** The failure table's one copy. */
    static final String FAILURE_GUIDE = "relay-worker/README.md";

    private static final Pattern HISTORY = Pattern.compile("(?i)\\bissues?\\s+#?\\d+|`(?=[0-9]*[a-f])[0-9a-f]{7,40}`");
    private static final Pattern QUOTED = Pattern.compile("\"([^\"]+)\"");
    private static final Map<Pattern, String> OUTSIDE = new LinkedHashMap<>();

    static {
        OUTSIDE.put(Pattern.compile("\\bCONVENTIONS\\b"), "the conventions document");
        OUTSIDE.put(Pattern.compile("(?i)\\bseed\\s+0\\d\\d\\b"), "a seed document");
        OUTSIDE.put(Pattern.compile("§\\s*\\d+(?:\\.\\d+)*"), "a numbered section of an outside checklist");
    }

    private static List<String> files;
    private static Set<String> entries;
    private static Set<String> topLevel;
    private static final Map<String, Markdown> markdown = new TreeMap<>();
    private static final Map<String, List<JavaComments.Comment>> comments = new TreeMap<>();
    private static final Map<String, List<String>> sources = new HashMap<>();
    private static final Set<String> testClasses = new HashSet<>();
    private static Path root;

    @BeforeAll
    static void readTheRepository() throws IOException {
        root = RepoFiles.root();
        files = RepoFiles.files();
        entries = new HashSet<>(files);
        topLevel = new HashSet<>();
        for (String f : files) {
            topLevel.add(f.split("/")[0]);
            for (int i = f.indexOf('/'); i > 0; i = f.indexOf('/', i + 1)) {
                entries.add(f.substring(0, i));
            }
            if (f.endsWith(".md")) {
                markdown.put(f, new Markdown(read(f)));
            } else if (f.endsWith(".java") && f.contains("/src/")) {
                String name = f.substring(f.lastIndexOf('/') + 1, f.length() - ".java".length());
                sources.computeIfAbsent(name, n -> new ArrayList<>()).add(f);
                if (f.contains("/src/test/java/")) {
                    testClasses.add(name);
                }
                comments.put(f, JavaComments.of(read(f)));
            }
        }
        assertTrue(markdown.size() > 10 && comments.size() > 400, "the walk found " + files.size() + " files");
    }

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<String> dead = new ArrayList<>();
        int[] checked = new int[2];
        eachBlock((doc, block) -> {
            Matcher m = LINK.matcher(masked(block.text()));
            while (m.find()) {
                String target = m.group(1);
                String where = doc + ":" + block.lineOf(m.start());
                String path = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String resolved = path.isEmpty() ? doc : resolve(doc, path);
                if (SCHEME.matcher(target).find() || leaves(resolved)) {
                    continue; // not followed; a link out of the repository is the outside check's
                }
                checked[0]++;
                if (!path.isEmpty() && !entries.contains(resolved)) {
                    dead.add(where + ": dead link " + target);
                } else if (!path.equals(target) && resolved.endsWith(".md")) {
                    checked[1]++;
                    String anchor = target.substring(target.indexOf('#') + 1);
                    if (!markdown.get(resolved).anchors().contains(anchor)) {
                        dead.add(where + ": no heading of " + resolved + " makes #" + anchor + " (" + target + ")");
                    }
                }
            }
        });
        assertEquals(List.of(), dead, "links to nothing");
        assertTrue(checked[0] > 50 && checked[1] > 30, "only " + checked[0] + " links, " + checked[1] + " anchors");
    }

    @Test
    void everyBacktickedRepositoryPathExists() {
        List<String> missing = new ArrayList<>();
        int[] checked = new int[1];
        eachBlock((doc, block) -> {
            Matcher m = CODE.matcher(block.text());
            while (m.find()) {
                String word = m.group(2).strip().split("\\s+")[0];
                String path = word.contains("#") ? word.substring(0, word.indexOf('#')) : word;
                if (!path.contains("/") || !topLevel.contains(path.substring(0, path.indexOf('/')))) {
                    continue;
                }
                checked[0]++;
                String where = doc + ":" + block.lineOf(m.start());
                if (!exists(path)) {
                    missing.add(where + ": " + path + " does not exist");
                } else if (!path.equals(word) && markdown.containsKey(path)) {
                    String anchor = word.substring(word.indexOf('#') + 1);
                    if (!markdown.get(path).anchors().contains(anchor)) {
                        missing.add(where + ": no heading of " + path + " makes #" + anchor);
                    }
                }
            }
        });
        assertEquals(List.of(), missing, "backticked paths to nothing");
        assertTrue(checked[0] > 100, "only " + checked[0] + " paths found");
    }

    @Test
    void everyCitedTestExists() {
        List<String> missing = new ArrayList<>();
        int[] checked = new int[1];
        eachBlock((doc, block) -> {
            Matcher code = CODE.matcher(block.text());
            while (code.find()) {
                Matcher t = CITED_TEST.matcher(code.group(2).strip().split("\\s+")[0]);
                if (t.matches()) {
                    checked[0]++;
                    checkTest(doc + ":" + block.lineOf(code.start()), t, missing);
                }
            }
            Matcher t = TEST_WORD.matcher(masked(block.text()));
            while (t.find()) {
                checked[0]++;
                checkTest(doc + ":" + block.lineOf(t.start()), t, missing);
            }
        });
        eachProductComment((file, comment) -> {
            Matcher t = TEST_WORD.matcher(comment.text());
            while (t.find()) {
                checked[0]++;
                checkTest(file + ":" + comment.lineOf(t.start()), t, missing);
            }
        });
        assertEquals(List.of(), missing, "cited tests that do not exist");
        assertTrue(checked[0] > 100, "only " + checked[0] + " cited tests found");
    }

    @Test
    void noDocumentCitesOneOutsideTheRepository() {
        List<String> outside = new ArrayList<>();
        eachBlock((doc, block) -> {
            outside(block.text(), offset -> doc + ":" + block.lineOf(offset), outside);
            Matcher link = LINK.matcher(masked(block.text()));
            while (link.find()) {
                if (!SCHEME.matcher(link.group(1)).find() && leaves(resolve(doc, link.group(1)))) {
                    outside.add(
                            doc + ":" + block.lineOf(link.start()) + ": link out of the repository " + link.group(1));
                }
            }
            Matcher code = CODE.matcher(block.text());
            while (code.find()) {
                if (code.group(2).strip().startsWith("../")) {
                    outside.add(doc + ":" + block.lineOf(code.start()) + ": path out of the repository "
                            + code.group(2).strip());
                }
            }
        });
        eachProductComment((file, comment) -> outside(comment.text(), o -> file + ":" + comment.lineOf(o), outside));
        assertEquals(List.of(), outside, "citations of documents this repository does not have");
    }

    @Test
    void everyCitedGuideHeadingExists() throws IOException {
        List<String> missing = new ArrayList<>();
        int[] checked = new int[1];
        BiConsumer<String, IntFunction<String>> check = (text, where) -> {
            Matcher m = README_CITATION.matcher(text);
            while (m.find()) {
                List<String> cited = new ArrayList<>();
                QUOTED.matcher(m.group())
                        .results()
                        .forEach(q -> cited.add(q.group(1).replaceAll("\\s+", " ")));
                if (m.group(2) != null) {
                    cited.add(m.group(2));
                }
                String guide = m.group(1) == null ? "README.md" : m.group(1);
                Markdown doc = markdown.get(guide);
                for (String heading : cited) {
                    checked[0]++;
                    if (doc == null) {
                        missing.add(where.apply(m.start()) + ": no guide " + guide);
                    } else if (doc.headings().stream()
                            .noneMatch(h -> Markdown.slug(h).equals(Markdown.slug(heading)))) {
                        missing.add(where.apply(m.start()) + ": no heading \"" + heading + "\" in " + guide);
                    }
                }
            }
        };
        eachBlock((doc, block) -> check.accept(block.text(), o -> doc + ":" + block.lineOf(o)));
        comments.forEach((file, list) -> list.forEach(c -> check.accept(c.text(), o -> file + ":" + c.lineOf(o))));
        for (String f : files) {
            if (f.matches(".*\\.(sh|ya?ml)|\\.ci/.*")) {
                List<String> lines = read(f).lines().toList();
                for (int i = 0; i < lines.size(); i++) {
                    int line = i + 1;
                    check.accept(lines.get(i), o -> f + ":" + line);
                }
            }
        }
        assertEquals(List.of(), missing, "guide headings cited by name that the guide does not have");
        assertTrue(checked[0] > 10, "only " + checked[0] + " guide citations found");
    }

    @Test
    void theGuidesCarryNoHistory() {
        List<String> history = new ArrayList<>();
        int[] guides = new int[1];
        markdown.forEach((doc, md) -> {
            if (doc.equals("README.md") || doc.endsWith("/README.md") && !doc.contains("/results/")) {
                guides[0]++;
                for (Markdown.Block block : md.blocks()) {
                    Matcher m = HISTORY.matcher(block.text());
                    while (m.find()) {
                        history.add(doc + ":" + block.lineOf(m.start()) + ": " + m.group());
                    }
                }
            }
        });
        assertEquals(List.of(), history, "history in the guides (issue numbers, commit hashes)");
        assertTrue(guides[0] >= 10, "only " + guides[0] + " guides found");
    }

    @Test
    void theFailureTableHasOneRowPerErrorCode() throws IOException {
        List<String> wrong = codeTable(FAILURE_GUIDE, "## Failure handling", "retried", (row, code) -> {
            String retried = row.get("retried");
            return retried.equals(code.retryable() ? "yes" : "no")
                    ? null
                    : code + " is " + (code.retryable() ? "" : "not ") + "retryable, the table says " + retried;
        });
        assertEquals(List.of(), wrong, FAILURE_GUIDE + " \"Failure handling\" against ErrorCode");
    }

    @Test
    void theRunbookSaysWhatToDoAboutEveryErrorCode() throws IOException {
        List<String> wrong = codeTable("ops/RUNBOOK.md", "## What each error code means", "fix", (row, code) -> null);
        assertEquals(List.of(), wrong, "ops/RUNBOOK.md \"What each error code means\" against ErrorCode");
    }

    /**
     * The first table under {@code heading} whose header has a "code" column and {@code column}:
     * each of its rows names one {@link ErrorCode} in backticks in the "code" column, every constant
     * exactly once; {@code rowCheck} (the row by column name, its code) says what else is wrong with
     * a row, or null.
     */
    private static List<String> codeTable(
            String doc, String heading, String column, BiFunction<Map<String, String>, ErrorCode, String> rowCheck)
            throws IOException {
        String text = read(doc);
        int start = text.indexOf("\n" + heading + "\n") + 1;
        assertTrue(start > 0, doc + " has no heading " + heading);
        int end = text.indexOf("\n## ", start);
        String[] lines = text.substring(start, end < 0 ? text.length() : end).split("\n", -1);
        int firstLine = (int) text.chars().limit(start).filter(ch -> ch == '\n').count() + 1;
        List<String> header = null;
        List<String> wrong = new ArrayList<>();
        Set<ErrorCode> seen = EnumSet.noneOf(ErrorCode.class);
        for (int i = 0; i < lines.length; i++) {
            List<String> cells = lines[i].startsWith("|") ? cells(lines[i]) : null;
            if (cells == null) {
                if (header != null) {
                    break; // the table ended
                }
                continue;
            }
            if (header == null) {
                header = cells.contains("code") && cells.contains(column) ? cells : null;
                i += header == null ? 0 : 1; // the |---| line
                continue;
            }
            String where = doc + ":" + (firstLine + i);
            if (cells.size() != header.size()) {
                wrong.add(where + ": " + cells.size() + " cells under a header of " + header.size());
                continue;
            }
            Matcher c = Pattern.compile("`([A-Z][A-Z0-9_]*)`").matcher(cells.get(header.indexOf("code")));
            if (!c.matches()) {
                wrong.add(where + ": the code column holds no single code: " + cells.get(header.indexOf("code")));
                continue;
            }
            ErrorCode code = Stream.of(ErrorCode.values())
                    .filter(e -> e.name().equals(c.group(1)))
                    .findFirst()
                    .orElse(null);
            if (code == null) {
                wrong.add(where + ": " + c.group(1) + " is no ErrorCode");
            } else if (!seen.add(code)) {
                wrong.add(where + ": " + code + " has a row already");
            } else {
                Map<String, String> row = new HashMap<>();
                for (int k = 0; k < header.size(); k++) {
                    row.put(header.get(k), cells.get(k));
                }
                String problem = rowCheck.apply(row, code);
                if (problem != null) {
                    wrong.add(where + ": " + problem);
                }
            }
        }
        assertTrue(header != null, doc + " has no table with a code and a " + column + " column under " + heading);
        for (ErrorCode code : ErrorCode.values()) {
            if (!seen.contains(code)) {
                wrong.add(doc + ": no row for " + code);
            }
        }
        return wrong;
    }

    private static List<String> cells(String row) {
        String inner = row.strip().replaceFirst("^\\|", "").replaceFirst("\\|$", "");
        List<String> out = new ArrayList<>();
        for (String cell : inner.split("(?<!\\\\)\\|", -1)) {
            out.add(cell.strip());
        }
        return out;
    }

    private static void checkTest(String where, Matcher t, List<String> missing) {
        String cls = t.group(1);
        String method = "java".equals(t.group(2)) ? null : t.group(2);
        if (!testClasses.contains(cls)) {
            missing.add(where + ": test class " + cls + " does not exist");
        } else if (method != null && !declares(cls, method, t.group(3) != null, new HashSet<>())) {
            missing.add(where + ": " + cls + " has no method " + method + (t.group(3) != null ? "…" : ""));
        }
    }

    /** Whether {@code cls}, or a superclass, declares a method {@code method} (or one it starts). */
    private static boolean declares(String cls, String method, boolean prefix, Set<String> seen) {
        Pattern declaration = Pattern.compile("(?m)^\\s*(?:(?:@[\\w.]+(?:\\([^)]*\\))?|public|protected|private|static"
                + "|final|synchronized|abstract|default)\\s+)*(?:<[^>]+>\\s+)?[\\w.]+(?:<[^()]*>)?(?:\\[\\])*\\s+"
                + Pattern.quote(method) + (prefix ? "\\w*" : "") + "\\s*\\(");
        Pattern extendsClause = Pattern.compile("\\bclass\\s+" + cls + "\\b[^{]*?\\bextends\\s+([A-Z]\\w*)");
        for (String f : sources.getOrDefault(cls, List.of())) {
            String source = uncheckedRead(f);
            if (declaration.matcher(source).find()) {
                return true;
            }
            Matcher parent = extendsClause.matcher(source);
            while (parent.find()) {
                if (seen.add(parent.group(1)) && declares(parent.group(1), method, prefix, seen)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void outside(String text, IntFunction<String> where, List<String> out) {
        OUTSIDE.forEach((pattern, what) -> {
            Matcher m = pattern.matcher(text);
            while (m.find()) {
                out.add(where.apply(m.start()) + ": cites " + what + " (\"" + m.group()
                        + "\"), not in this repository");
            }
        });
    }

    /** Whether a backticked repository path names something (see the class comment for the forms). */
    private static boolean exists(String written) {
        String path = written.replaceFirst("/+$", "");
        if (entries.contains(path)) {
            return true;
        }
        String[] parts = path.split("/");
        StringBuilder regex = new StringBuilder();
        for (int k = 0; k < parts.length; k++) {
            String part = parts[k];
            String before = String.join("/", List.of(parts).subList(0, k));
            if (part.equals("target")) {
                return entries.contains(before + "/pom.xml");
            }
            if (part.contains("<")) {
                return entries.contains(before);
            }
            boolean last = k == parts.length - 1;
            if (part.equals("...") || part.equals("…")) {
                regex.append(last ? ".*" : "(?:[^/]+/)*");
                continue;
            }
            for (String piece : part.split("(?=\\*)|(?<=\\*)")) {
                regex.append(piece.equals("*") ? "[^/]*" : Pattern.quote(piece));
            }
            if (last && !part.contains(".") && !part.contains("*")) {
                regex.append("(?:\\.[^/.]+)?"); // Class for Class.java
            }
            regex.append(last ? "" : "/");
        }
        Pattern p = Pattern.compile(regex.toString());
        return entries.stream().anyMatch(e -> p.matcher(e).matches());
    }

    private static boolean leaves(String resolved) {
        return resolved.equals("..") || resolved.startsWith("../");
    }

    /** A relative link's target from the document's folder, normalised; starts with ../ when it leaves. */
    private static String resolve(String doc, String target) {
        String path = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
        Path folder = Path.of(doc).getParent();
        Path resolved = (folder == null ? Path.of(path) : folder.resolve(path)).normalize();
        return resolved.toString().replace('\\', '/');
    }

    /** The block's text with every code span blanked out, offsets kept. */
    private static String masked(String text) {
        Matcher m = CODE.matcher(text);
        StringBuilder out = new StringBuilder(text);
        while (m.find()) {
            for (int i = m.start(); i < m.end(); i++) {
                if (out.charAt(i) != '\n') {
                    out.setCharAt(i, ' ');
                }
            }
        }
        return out.toString();
    }

    private static void eachBlock(BiConsumer<String, Markdown.Block> check) {
        markdown.forEach((doc, md) -> md.blocks().forEach(b -> check.accept(doc, b)));
    }

    private static void eachProductComment(BiConsumer<String, JavaComments.Comment> check) {
        comments.forEach((file, list) -> {
            if (file.contains("/src/main/java/")) {
                list.forEach(c -> check.accept(file, c));
            }
        });
    }

    private static String read(String file) throws IOException {
        return Files.readString(root.resolve(file));
    }

    private static String uncheckedRead(String file) {
        try {
            return read(file);
        } catch (IOException e) {
            throw new IllegalStateException(file, e);
        }
    }
}
