package dev.outbox.ctl;

import dev.outbox.ctl.Commands.Base;
import dev.outbox.ops.views.OpsActionViews;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What {@code OutboxPersistence.register} does at a Java service's start, for a service that runs
 * none of the outbox's code: its contract and queue files, read from its checkout or build, sent
 * in one request to {@code POST /ops/registry}, which registers all of them or none.
 */
@Command(
        name = "register",
        mixinStandardHelpOptions = true,
        description = {
            "Register a service's message contracts and queues, for a service that runs none of the outbox's code.",
            "A FILE is a contract (.../contracts/<type>/v<version>.schema.json) or a queue (<queue>.queue.json);",
            "a folder is searched for both. One request: all of them are registered, or none.",
            "Example: outboxctl register src/main/resources/contracts src/main/resources/topology"
        })
final class Register extends Base {
    @Parameters(paramLabel = "FILE", arity = "1..*", description = "a contract file, a queue file, or a folder of them")
    List<Path> files;

    @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the audit trail")
    String reason;

    @Override
    int run(OpsClient client, PrintWriter out, PrintWriter err) {
        RegistryFiles.Found found;
        try {
            found = RegistryFiles.read(files);
        } catch (RegistryFiles.Unusable e) {
            throw usage(e.getMessage());
        }
        OpsClient.Answer<OpsActionViews.RegisterResult> answer;
        try {
            answer = client.post(
                    "/ops/registry",
                    new OpsActionViews.RegisterRequest(found.contracts(), found.queues(), reason),
                    OpsActionViews.RegisterResult.class);
        } catch (ServerError e) {
            // the server names entries (contracts[1]); the person who typed the command knows files
            throw found.naming(e);
        }
        print(out, answer, Views::registered);
        return Outboxctl.OK;
    }
}
