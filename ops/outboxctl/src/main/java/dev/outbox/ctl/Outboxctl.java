package dev.outbox.ctl;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code outboxctl}: the operator API of the outbox service from a terminal. Exit codes: 0 done,
 * 1 the service answered with an error, 2 usage error, 3 the service could not be reached.
 */
@Command(
        name = "outboxctl",
        mixinStandardHelpOptions = true,
        versionProvider = Outboxctl.Version.class,
        description = {
            "Find, inspect and repair outbox messages through the service's operator API, and register the",
            "message contracts and queues of a service that runs none of the outbox's code.",
            "Global options may come before or after the command. See ops/RUNBOOK.md."
        },
        subcommands = {
            Stats.class,
            ListRows.class,
            Show.class,
            SingleAction.Retry.class,
            RetryBulk.class,
            SingleAction.Cancel.class,
            Replay.class,
            SingleAction.Release.class,
            SingleAction.Note.class,
            Reconcile.class,
            Audit.class,
            Register.class,
            CommandLine.HelpCommand.class
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done",
            "1:the service answered with an error (printed as 'status code: detail')",
            "2:usage error",
            "3:the service could not be reached"
        })
public final class Outboxctl implements Callable<Integer> {
    public static final int OK = 0;
    public static final int SERVER_ERROR = 1;
    public static final int USAGE = 2;
    public static final int UNREACHABLE = 3;
    static final String DEFAULT_URL = "http://localhost:8080";

    private final Map<String, String> env;

    @Spec
    CommandSpec spec;

    @Option(
            names = "--url",
            scope = ScopeType.INHERIT,
            paramLabel = "URL",
            description = "base URL of the service (default: $OUTBOX_URL, else " + DEFAULT_URL + ")")
    String url;

    @Option(
            names = "--token",
            scope = ScopeType.INHERIT,
            paramLabel = "TOKEN",
            description = "bearer token (default: $OUTBOX_OPS_TOKEN; prefer the variable, a command line is"
                    + " visible to other users)")
    String token;

    @Option(
            names = "--operator",
            scope = ScopeType.INHERIT,
            paramLabel = "NAME",
            description = "your name in the audit trail, sent as X-Operator (default: $USER)")
    String operator;

    @Option(
            names = "--json",
            scope = ScopeType.INHERIT,
            description = "print the service's JSON instead of tables, for scripts")
    boolean json;

    /** Reads its defaults from the process environment. */
    public Outboxctl() {
        this(System.getenv());
    }

    /** Reads its defaults ({@code OUTBOX_URL}, {@code OUTBOX_OPS_TOKEN}, {@code USER}) from {@code env}. */
    public Outboxctl(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Outboxctl()).execute(args));
    }

    @Override
    public Integer call() {
        // no command given
        spec.commandLine().getErr().println("Missing command.");
        spec.commandLine().usage(spec.commandLine().getErr());
        return USAGE;
    }

    String effectiveUrl() {
        String u = url != null ? url : env.getOrDefault("OUTBOX_URL", "");
        return u.isBlank() ? DEFAULT_URL : u.trim();
    }

    boolean json() {
        return json;
    }

    /** The client for the global options; a malformed URL is a usage error. */
    OpsClient client() {
        String base = effectiveUrl();
        try {
            URI u = new URI(base);
            if (!("http".equalsIgnoreCase(u.getScheme()) || "https".equalsIgnoreCase(u.getScheme()))
                    || u.getHost() == null
                    || u.getRawUserInfo() != null
                    || u.getRawQuery() != null) {
                throw new URISyntaxException(base, "need http(s)://host[:port], without user, query or fragment");
            }
        } catch (URISyntaxException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "Invalid URL '" + base + "' (--url / OUTBOX_URL): use http://host:port");
        }
        String t = token != null ? token : env.get("OUTBOX_OPS_TOKEN");
        String who = operator;
        if (who == null) {
            // the service accepts 1-64 of [A-Za-z0-9._@+-]: a default that does not fit is left out
            String user = env.get("USER");
            who = user != null && user.matches("[A-Za-z0-9._@+-]{1,64}") ? user : null;
        }
        return new OpsClient(base, t, who);
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Outboxctl.class.getPackage().getImplementationVersion();
            return new String[] {"outboxctl " + (v == null ? "(development build)" : v)};
        }
    }
}
