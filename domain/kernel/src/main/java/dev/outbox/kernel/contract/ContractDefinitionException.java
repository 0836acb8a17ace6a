package dev.outbox.kernel.contract;

/**
 * A message contract on the classpath cannot be used: malformed JSON, not a valid JSON Schema, an
 * {@code $id} that does not match its file, an {@code x-outbox} block that is missing or wrong,
 * two files for one type and version. Thrown while the catalogue loads, so a process with a
 * broken contract refuses to start instead of publishing or accepting messages it cannot check.
 */
public class ContractDefinitionException extends RuntimeException {
    public ContractDefinitionException(String message) {
        super(message);
    }

    public ContractDefinitionException(String message, Throwable cause) {
        super(message, cause);
    }
}
