package dev.outbox.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.outbox.ops.views.OpsActionViews;
import java.io.File;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The files {@code outboxctl register} sends, laid out as a service's build lays them out: a
 * contract is {@code .../contracts/<type>/v<version>.schema.json}, its type and version read from
 * its path as the outbox's catalogue reads them from a classpath, and a queue is {@code
 * <queue>.queue.json}; a folder is searched for both. The CLI carries nothing of the server, so
 * the names' rules are written here again (the kernel's {@code MessageContracts} and {@code
 * BrokerTopology} hold the others); what a document says is the server's to check.
 */
final class RegistryFiles {
    /** {@code MessageContracts}' rule for a contract file's name: lower-case type, version from 1. */
    private static final Pattern CONTRACT =
            Pattern.compile("(?:^|/)contracts/([a-z0-9][a-z0-9._-]*)/v([1-9][0-9]*)\\.schema\\.json$");

    private static final String QUEUE = ".queue.json";
    /** One JSON document per file: anything after it is a mistake, not something to ignore. */
    private static final ObjectReader JSON =
            OpsClient.JSON.readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** A file that cannot be sent, in words for the person who named it. */
    static final class Unusable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unusable(String message) {
            super(message);
        }
    }

    /**
     * What was found, in the order the request sends it, and the file behind each entry (its
     * path as given on the command line, or under the folder given).
     */
    record Found(
            List<OpsActionViews.ContractFile> contracts,
            List<Path> contractFiles,
            List<JsonNode> queues,
            List<Path> queueFiles) {

        /**
         * {@code error} with the file behind each entry it names ({@code contracts[1]}, {@code
         * queues[0]}, or a contract by its type and version), since the server knows only entries.
         */
        ServerError naming(ServerError error) {
            StringBuilder said = new StringBuilder(error.detail());
            error.errors().forEach(f -> said.append(' ').append(f.field()));
            List<ServerError.FieldError> errors = new ArrayList<>(error.errors());
            for (int i = 0; i < contracts.size(); i++) {
                OpsActionViews.ContractFile c = contracts.get(i);
                String entry = "contracts[" + i + "]";
                if (said.indexOf(entry) >= 0 || error.detail().startsWith(c.messageType() + " v" + c.version() + " ")) {
                    errors.add(new ServerError.FieldError(entry, "from " + contractFiles.get(i)));
                }
            }
            for (int i = 0; i < queues.size(); i++) {
                String entry = "queues[" + i + "]";
                if (said.indexOf(entry) >= 0) {
                    errors.add(new ServerError.FieldError(entry, "from " + queueFiles.get(i)));
                }
            }
            return new ServerError(error.status(), error.code(), error.detail(), errors);
        }
    }

    private RegistryFiles() {}

    /**
     * Reads every file named, and every contract and queue file under every folder named; a file
     * named twice (itself and in its folder) is sent once.
     *
     * @throws Unusable when one is missing or unreadable, is not one JSON document, is neither a
     *     contract nor a queue file, or a folder holds neither
     */
    static Found read(List<Path> arguments) {
        List<OpsActionViews.ContractFile> contracts = new ArrayList<>();
        List<Path> contractFiles = new ArrayList<>();
        List<JsonNode> queues = new ArrayList<>();
        List<Path> queueFiles = new ArrayList<>();
        Set<Path> seen = new HashSet<>();
        for (Path argument : arguments) {
            for (Path file : filesOf(argument)) {
                if (!seen.add(file.toAbsolutePath().normalize())) {
                    continue;
                }
                Matcher contract = CONTRACT.matcher(slashed(file));
                JsonNode document = document(file);
                if (contract.find()) {
                    int version = version(file, contract);
                    contracts.add(new OpsActionViews.ContractFile(contract.group(1), version, document));
                    contractFiles.add(file);
                } else {
                    queues.add(queue(file, document));
                    queueFiles.add(file);
                }
            }
        }
        return new Found(
                List.copyOf(contracts), List.copyOf(contractFiles), List.copyOf(queues), List.copyOf(queueFiles));
    }

    /** The argument itself when it is a contract or queue file, else the ones in the folder it is. */
    private static List<Path> filesOf(Path argument) {
        if (Files.isRegularFile(argument)) {
            if (!contractOrQueue(argument)) {
                throw new Unusable(argument + ": neither a contract file (.../contracts/<message type>/v<version>"
                        + ".schema.json) nor a queue file (<queue>" + QUEUE + ")");
            }
            return List.of(argument);
        }
        if (!Files.isDirectory(argument)) {
            throw new Unusable(argument + ": no such file or folder");
        }
        List<Path> found = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(argument)) {
            for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
                if (contractOrQueue(p)) {
                    found.add(p);
                } else if (amongContracts(p)) {
                    // as on a classpath: a stray file among the contracts is a mistake, not something to skip
                    throw new Unusable(p + ": a contract file must be named contracts/<message type>/v<version>"
                            + ".schema.json (lower case type, version from 1)");
                }
            }
        } catch (IOException e) {
            throw new Unusable(argument + ": cannot be read: " + why(e));
        }
        if (found.isEmpty()) {
            throw new Unusable(argument + ": holds no contract file (.../contracts/<message type>/v<version>"
                    + ".schema.json) and no queue file (<queue>" + QUEUE + ")");
        }
        return found;
    }

    /** A JSON file where contract files go: in a {@code contracts} folder or a type's folder in one. */
    private static boolean amongContracts(Path file) {
        Path folder = file.toAbsolutePath().normalize().getParent();
        Path above = folder == null ? null : folder.getParent();
        return file.getFileName().toString().endsWith(".json")
                && (named(folder, "contracts") || named(above, "contracts"));
    }

    private static boolean named(Path folder, String name) {
        return folder != null
                && folder.getFileName() != null
                && folder.getFileName().toString().equals(name);
    }

    private static boolean contractOrQueue(Path file) {
        return CONTRACT.matcher(slashed(file)).find()
                || file.getFileName().toString().endsWith(QUEUE);
    }

    private static int version(Path file, Matcher contract) {
        try {
            return Integer.parseInt(contract.group(2));
        } catch (NumberFormatException e) {
            throw new Unusable(file + ": version " + contract.group(2) + " is too large");
        }
    }

    /** A queue file's document; the name it declares must be the file's, as on a classpath. */
    private static JsonNode queue(Path file, JsonNode document) {
        JsonNode name = document.path("queue");
        String fileName = file.getFileName().toString();
        if (name.isTextual() && !fileName.equals(name.asText() + QUEUE)) {
            throw new Unusable(
                    file + ": declares queue " + name.asText() + "; the file must be named " + name.asText() + QUEUE);
        }
        return document;
    }

    private static JsonNode document(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new Unusable(file + ": cannot be read: " + why(e));
        }
        try {
            JsonNode document = JSON.readValue(bytes);
            if (document == null) {
                throw new Unusable(file + ": not one JSON document: it is empty");
            }
            return document;
        } catch (JsonProcessingException e) {
            throw new Unusable(file + ": not one JSON document: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new Unusable(file + ": cannot be read: " + why(e));
        }
    }

    /** The absolute path with {@code /} between its names, whatever the platform's separator. */
    private static String slashed(Path file) {
        return file.toAbsolutePath().normalize().toString().replace(File.separatorChar, '/');
    }

    private static String why(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
