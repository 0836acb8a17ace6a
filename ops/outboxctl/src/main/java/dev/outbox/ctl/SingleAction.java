package dev.outbox.ctl;

import dev.outbox.ctl.Commands.Base;
import dev.outbox.ops.views.OpsActionViews;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** A repair of one message: POST with an optional reason, print what changed. */
abstract class SingleAction extends Base {
    @Parameters(paramLabel = "ID", description = "the message id")
    String id;

    @Option(
            names = "--reason",
            paramLabel = "TEXT",
            description = "why, kept in the audit trail (cancel requires it; for note it is the note)")
    String reason;

    /** The last segment of {@code POST /ops/outbox/{id}/...}. */
    abstract String verb();

    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        print(
                out,
                client.post(
                        "/ops/outbox/" + OpsClient.segment(id) + "/" + verb(),
                        new OpsActionViews.ReasonRequest(reason),
                        OpsActionViews.ActionResult.class),
                Views::action);
        return Outboxctl.OK;
    }

    @Command(
            name = "retry",
            mixinStandardHelpOptions = true,
            description = "Make a PARKED or RETRYABLE_FAILED message due now, same id, fresh attempt budget.")
    static final class Retry extends SingleAction {
        @Override
        String verb() {
            return "retry";
        }
    }

    @Command(
            name = "cancel",
            mixinStandardHelpOptions = true,
            description = "Never send a PENDING, RETRYABLE_FAILED or PARKED message. The service requires --reason.")
    static final class Cancel extends SingleAction {
        @Override
        String verb() {
            return "cancel";
        }
    }

    @Command(
            name = "release",
            mixinStandardHelpOptions = true,
            description = "Take a stuck IN_PROGRESS message from its relay (its late outcome is then refused).")
    static final class Release extends SingleAction {
        @Override
        String verb() {
            return "release";
        }
    }

    @Command(
            name = "note",
            mixinStandardHelpOptions = true,
            description = "Leave a note on a message for the next operator (--reason is the note); changes nothing.")
    static final class Note extends SingleAction {
        @Override
        String verb() {
            return "note";
        }
    }
}
