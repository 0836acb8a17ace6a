package dev.outbox.launcher;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Enough of PromQL to follow labels through an expression: selectors with their matchers, range
 * and subquery brackets, offsets, functions, aggregations with {@code by}/{@code without}, and
 * binary operators with their matching modifiers. Each sub-expression is given the set of labels
 * its result can carry (a selector: what the metric is exported with; {@code sum by (a)}: just
 * {@code a}; {@code histogram_quantile}: its argument's without {@code le}), and every label an
 * expression names (a matcher, a grouping, {@code on(...)}, a legend's {@code {{label}}}) must be in
 * the set it is applied to. A renamed label fails here, not as an empty panel.
 */
final class PromQl {
    private static final Set<String> AGGREGATIONS = Set.of(
            "sum",
            "min",
            "max",
            "avg",
            "group",
            "stddev",
            "stdvar",
            "count",
            "count_values",
            "bottomk",
            "topk",
            "quantile");
    private static final Set<String> SET_OPERATORS = Set.of("and", "or", "unless");

    /**
     * What an expression reads and what its result carries.
     *
     * @param metrics every metric a selector names
     * @param labels the labels its result can carry
     * @param problems names and labels it uses that the metrics do not have
     */
    record Analysis(Set<String> metrics, Set<String> labels, List<String> problems) {}

    private final List<String> tokens;
    private final Map<String, Set<String>> exported;
    private final Set<String> metrics = new TreeSet<>();
    private final List<String> problems = new ArrayList<>();
    private int at;

    private PromQl(String expr, Map<String, Set<String>> exported) {
        this.tokens = tokenize(expr);
        this.exported = exported;
    }

    /**
     * Parses {@code expr} against {@code exported} (sample name to its labels).
     *
     * @throws IllegalArgumentException when it is not PromQL this parser reads
     */
    static Analysis analyse(String expr, Map<String, Set<String>> exported) {
        PromQl p = new PromQl(expr, exported);
        Set<String> labels = p.expression();
        if (p.at != p.tokens.size()) {
            throw new IllegalArgumentException("unexpected '" + p.tokens.get(p.at) + "' in " + expr);
        }
        return new Analysis(p.metrics, labels, p.problems);
    }

    /** Binary operators, left to right: precedence does not change which labels flow where. */
    private Set<String> expression() {
        Set<String> left = unary();
        while (at < tokens.size() && isBinaryOperator(peek())) {
            String op = next();
            if (peek().equals("bool")) {
                next();
            }
            List<String> matching = null;
            if (peek().equals("on") || peek().equals("ignoring")) {
                boolean on = next().equals("on");
                List<String> named = labelList();
                matching = on ? named : null;
            }
            List<String> included = List.of();
            if (peek().equals("group_left") || peek().equals("group_right")) {
                next();
                if (peek().equals("(")) {
                    included = labelList();
                }
            }
            Set<String> right = unary();
            if (matching != null) {
                for (String l : matching) {
                    require(left, l, "on (" + l + ") of '" + op + "' (left side)");
                    require(right, l, "on (" + l + ") of '" + op + "' (right side)");
                }
            }
            Set<String> union = new TreeSet<>(left);
            union.addAll(right);
            union.addAll(included);
            left = union;
        }
        return left;
    }

    private static boolean isBinaryOperator(String t) {
        return Set.of("+", "-", "*", "/", "%", "^", "==", "!=", "<", ">", "<=", ">=")
                        .contains(t)
                || SET_OPERATORS.contains(t);
    }

    private Set<String> unary() {
        if (peek().equals("-") || peek().equals("+")) {
            next();
        }
        Set<String> labels = primary();
        while (at < tokens.size()) {
            if (peek().equals("[")) {
                next();
                duration();
                if (peek().equals(":")) {
                    next();
                    if (!peek().equals("]")) {
                        duration();
                    }
                }
                expect("]");
            } else if (peek().equals("offset")) {
                next();
                if (peek().equals("-")) {
                    next();
                }
                duration();
            } else if (peek().equals("@")) {
                next();
                next();
                if (peek().equals("(")) {
                    expect("(");
                    expect(")");
                }
            } else {
                break;
            }
        }
        return labels;
    }

    private Set<String> primary() {
        String t = next();
        if (t.equals("(")) {
            Set<String> inner = expression();
            expect(")");
            return inner;
        }
        if (isNumber(t) || t.startsWith("\"") || t.startsWith("'")) {
            return Set.of();
        }
        if (t.equals("{")) {
            at--;
            return selector(null);
        }
        if (!Character.isLetter(t.charAt(0)) && t.charAt(0) != '_' && t.charAt(0) != ':') {
            throw new IllegalArgumentException("unexpected '" + t + "'");
        }
        if (AGGREGATIONS.contains(t) && (peek().equals("(") || peek().equals("by") || peek().equals("without"))) {
            return aggregation(t);
        }
        if (peek().equals("(")) {
            return function(t);
        }
        return selector(t);
    }

    private Set<String> aggregation(String op) {
        String grouping = null;
        List<String> grouped = List.of();
        if (peek().equals("by") || peek().equals("without")) {
            grouping = next();
            grouped = labelList();
        }
        expect("(");
        List<Set<String>> args = new ArrayList<>();
        args.add(expression());
        while (peek().equals(",")) {
            next();
            args.add(expression());
        }
        expect(")");
        if (grouping == null && (peek().equals("by") || peek().equals("without"))) {
            grouping = next();
            grouped = labelList();
        }
        Set<String> inner = args.get(args.size() - 1);
        String what = op + (grouping == null ? "" : " " + grouping + " " + grouped);
        for (String l : grouped) {
            require(inner, l, what);
        }
        Set<String> out = new TreeSet<>();
        if ("by".equals(grouping)) {
            out.addAll(grouped);
        } else if ("without".equals(grouping)) {
            out.addAll(inner);
            grouped.forEach(out::remove);
        }
        if (op.equals("topk") || op.equals("bottomk")) {
            // they keep the series they pick, with all their labels
            out.addAll(inner);
        }
        return out;
    }

    private Set<String> function(String name) {
        expect("(");
        List<Set<String>> args = new ArrayList<>();
        List<String> literals = new ArrayList<>();
        while (!peek().equals(")")) {
            String first = peek();
            literals.add(first.startsWith("\"") || first.startsWith("'") ? unquote(first) : null);
            args.add(expression());
            if (peek().equals(",")) {
                next();
            }
        }
        expect(")");
        Set<String> out = new TreeSet<>();
        args.forEach(out::addAll);
        switch (name) {
            case "histogram_quantile" -> {
                require(args.get(1), "le", "histogram_quantile");
                out.remove("le");
            }
            case "label_replace" -> {
                if (literals.get(3) != null && !literals.get(3).isEmpty()) {
                    require(args.get(0), literals.get(3), "label_replace source");
                }
                out.add(literals.get(1));
            }
            case "vector", "time", "scalar", "absent", "absent_over_time" -> out.clear();
            default -> {}
        }
        return out;
    }

    /** {@code name}, {@code name{l="v",...}} or {@code {__name__="x",...}}. */
    private Set<String> selector(String name) {
        List<String> matched = new ArrayList<>();
        if (peek().equals("{")) {
            next();
            while (!peek().equals("}")) {
                String label = next();
                String op = next();
                if (!Set.of("=", "!=", "=~", "!~").contains(op)) {
                    throw new IllegalArgumentException("bad matcher " + label + op);
                }
                String value = unquote(next());
                if (label.equals("__name__") && op.equals("=")) {
                    name = value;
                } else {
                    matched.add(label);
                }
                if (peek().equals(",")) {
                    next();
                }
            }
            expect("}");
        }
        if (name == null) {
            throw new IllegalArgumentException("a selector without a metric name");
        }
        metrics.add(name);
        Set<String> labels = exported.get(name);
        if (labels == null) {
            problems.add(name + " is not exported by the running processes");
            return Set.of();
        }
        for (String l : matched) {
            require(labels, l, name + "{" + l + "}");
        }
        return new HashSet<>(labels);
    }

    private void require(Set<String> available, String label, String where) {
        if (!available.contains(label)) {
            problems.add(where + ": label '" + label + "' is not on " + available);
        }
    }

    private List<String> labelList() {
        expect("(");
        List<String> out = new ArrayList<>();
        while (!peek().equals(")")) {
            out.add(next());
            if (peek().equals(",")) {
                next();
            }
        }
        expect(")");
        return out;
    }

    private void duration() {
        String t = next();
        if (!t.matches("(\\d+(ms|[smhdwy]))+")) {
            throw new IllegalArgumentException("not a duration: " + t);
        }
    }

    private String peek() {
        return at < tokens.size() ? tokens.get(at) : "";
    }

    private String next() {
        if (at >= tokens.size()) {
            throw new IllegalArgumentException("the expression ends too early");
        }
        return tokens.get(at++);
    }

    private void expect(String t) {
        String got = next();
        if (!got.equals(t)) {
            throw new IllegalArgumentException("expected '" + t + "' but found '" + got + "'");
        }
    }

    private static boolean isNumber(String t) {
        return t.matches("[0-9.][0-9.eE+-]*") || t.equalsIgnoreCase("inf") || t.equalsIgnoreCase("nan");
    }

    private static String unquote(String s) {
        return s.substring(1, s.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
    }

    static List<String> tokenize(String s) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (s.charAt(j) != c) {
                    j += s.charAt(j) == '\\' ? 2 : 1;
                }
                out.add(s.substring(i, j + 1));
                i = j + 1;
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < s.length() && Character.isDigit(s.charAt(i + 1)))) {
                int j = i;
                while (j < s.length()
                        && (Character.isLetterOrDigit(s.charAt(j))
                                || s.charAt(j) == '.'
                                || ((s.charAt(j) == '+' || s.charAt(j) == '-')
                                        && (s.charAt(j - 1) == 'e' || s.charAt(j - 1) == 'E')
                                        && Character.isDigit(s.charAt(i))))) {
                    j++;
                }
                out.add(s.substring(i, j));
                i = j;
            } else if (Character.isLetter(c) || c == '_') {
                int j = i;
                while (j < s.length()
                        && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == ':')) {
                    j++;
                }
                out.add(s.substring(i, j));
                i = j;
            } else {
                String two = i + 1 < s.length() ? s.substring(i, i + 2) : "";
                if (Set.of("==", "!=", "<=", ">=", "=~", "!~").contains(two)) {
                    out.add(two);
                    i += 2;
                } else {
                    out.add(String.valueOf(c));
                    i++;
                }
            }
        }
        return out;
    }

    /** The {@code {{label}}} names of a Grafana legend format, in order. */
    static Set<String> legendLabels(String legendFormat) {
        Set<String> out = new LinkedHashSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}")
                .matcher(legendFormat == null ? "" : legendFormat);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}
