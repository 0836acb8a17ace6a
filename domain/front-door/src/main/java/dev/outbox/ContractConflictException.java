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
        this(
                messageType + " v" + messageVersion + " is registered already, by " + registeredBy
                        + ", with a different schema: a registered contract never changes; register the change as v"
                        + (messageVersion + 1) + " of " + messageType,
                messageType,
                messageVersion);
    }

    private ContractConflictException(String message, String messageType, int messageVersion) {
        super(message);
        this.messageType = messageType;
        this.messageVersion = messageVersion;
    }

    /**
     * A version whose ordering ({@code x-outbox.ordered}) differs from the versions of its type
     * registered already: ordering belongs to the type, since the relay keeps one aggregate's
     * events in order across versions or not at all.
     */
    public static ContractConflictException orderingDiffers(String messageType, int messageVersion, boolean ordered) {
        return new ContractConflictException(
                messageType + " v" + messageVersion + " says ordered " + ordered + ", but the versions of "
                        + messageType + " registered already say " + !ordered
                        + ": ordering belongs to the type, the same in every version",
                messageType,
                messageVersion);
    }

    public String messageType() {
        return messageType;
    }

    public int messageVersion() {
        return messageVersion;
    }
}
