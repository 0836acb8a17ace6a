package dev.outbox;

/**
 * A message contract registered under a type and version that the registry already holds with a
 * different schema. A contract never changes once registered, because messages written under it
 * may be waiting in the outbox or on a queue: a change of the payload is a new version of the type
 * ({@code contracts/<type>/v<next>.schema.json}). Nothing of the registration that met it is
 * written.
 */
public final class ContractConflictException extends OutboxException {
    private static final long serialVersionUID = 1L;

    private final String messageType;
    private final int messageVersion;

    public ContractConflictException(String messageType, int messageVersion, String registeredBy) {
        super(messageType + " v" + messageVersion + " is registered already, by " + registeredBy
                + ", with a different schema: a registered contract never changes; register the change as v"
                + (messageVersion + 1) + " of " + messageType);
        this.messageType = messageType;
        this.messageVersion = messageVersion;
    }

    public String messageType() {
        return messageType;
    }

    public int messageVersion() {
        return messageVersion;
    }
}
