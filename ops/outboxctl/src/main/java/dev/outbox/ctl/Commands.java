package dev.outbox.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** What the commands of {@link Outboxctl} share; each command is a class of its own in this package. */
final class Commands {
    private Commands() {}

    /**
     * What every command shares: the client from the global options, and the mapping of failures
     * to exit codes and one-line messages (never containing the token).
     */
    abstract static class Base implements Callable<Integer> {
        @ParentCommand
        Outboxctl root;

        @Spec
        CommandSpec spec;

        @Override
        public final Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            try {
                return run(root.client(), out, err);
            } catch (ServerError e) {
                err.println(e.status() + " " + e.code() + ": " + e.detail());
                for (ServerError.FieldError f : e.errors()) {
                    err.println("  " + f.field() + ": " + f.message());
                }
                if (e.status() == 401) {
                    err.println("  (set OUTBOX_OPS_TOKEN or pass --token; the read-only token can only read)");
                }
                return Outboxctl.SERVER_ERROR;
            } catch (Unreachable e) {
                err.println(e.getMessage() + " (check --url / OUTBOX_URL and that the service is running)");
                return Outboxctl.UNREACHABLE;
            } finally {
                out.flush();
                err.flush();
            }
        }

        abstract int run(OpsClient client, PrintWriter out, PrintWriter err);

        boolean json() {
            return root.json();
        }

        /** Prints an answer as the server's JSON with {@code --json}, else its view as {@code render} reads. */
        <T> void print(PrintWriter out, OpsClient.Answer<T> answer, Function<T, String> render) {
            if (json()) {
                printJson(out, answer.json());
            } else {
                out.print(render.apply(answer.view()));
            }
        }

        /** Prints JSON (the server's tree as sent, or the CLI's own record) indented. */
        static void printJson(PrintWriter out, Object json) {
            try {
                out.println(OpsClient.JSON.writeValueAsString(json));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        CommandLine.ParameterException usage(String message) {
            return new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }

    /** Turns {@code --from}/{@code --to} values into instants, as a usage error when they are not times. */
    static final class TimeConverter implements CommandLine.ITypeConverter<Instant> {
        @Override
        public Instant convert(String value) {
            try {
                return Times.parse(value, Clock.systemUTC());
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    static String upper(String s) {
        return s == null ? null : s.trim().toUpperCase(Locale.ROOT);
    }

    static String str(Object o) {
        return o == null ? null : o.toString();
    }
}
