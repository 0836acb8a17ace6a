package dev.outbox;

import java.util.List;

/**
 * A message that breaks its own contract (its JSON Schema, its aggregate type, a version its
 * ordered type needs), or a type with no contract at all. A bug, not bad input: it is thrown
 * before the outbox row is inserted, so the business transaction it belongs to rolls back whole
 * and the bad snapshot never commits.
 */
public final class MessageContractViolationException extends OutboxException {
    private static final long serialVersionUID = 1L;

    private final String messageType;
    private final int messageVersion;
    private final List<String> violations;

    public MessageContractViolationException(String messageType, int messageVersion, List<String> violations) {
        super(messageType + " v" + messageVersion + " payload breaks its contract: " + violations);
        this.messageType = messageType;
        this.messageVersion = messageVersion;
        this.violations = List.copyOf(violations);
    }

    public String messageType() {
        return messageType;
    }

    public int messageVersion() {
        return messageVersion;
    }

    public List<String> violations() {
        return violations;
    }
}
